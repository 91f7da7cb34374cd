"""serverless-rps: rock-paper-scissors by SMS on AWS serverless, processed exactly once in effect.

Where things live: rules.py (the game's rules), parsing.py (SMS -> command), replies.py (every SMS
we send), game.py (use cases as pure decisions), model.py (the records they decide about),
processing.py (the idempotency/locking/outbox protocol), commands.py (the command table),
game_store/ (DynamoDB), sms_gateway.py (Twilio), message_queue.py (SQS), app.py and webhook.py
(the two Lambda entry points), bootstrap.py (the parts built from settings), config.py (the only
environment reader).
"""
