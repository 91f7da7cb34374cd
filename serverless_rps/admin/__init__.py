"""The operator's tool: see and repair what the pipeline could not (docs/operations.md).

    python -m serverless_rps.admin --help
    python -m serverless_rps.admin --stack serverless-rps status
    python -m serverless_rps.admin outbox resend --all

It works on the state the game commits: the idempotency records (claims, outboxes, deliveries),
the players' rows (games, challenges, leases) and the two queues. Everything that changes state
goes through the same protocol as the game function: a resend takes the outbox lease and writes
delivery records, an erasure is a STOP processed with the player's locks, an unlock releases one
exact lease. It is an operator's tool, run with the operator's credentials: it is not part of the
deployed functions (the build leaves `serverless_rps/admin/` out) and the functions' roles grant
none of what only it does (Scan).

* `locate` - where the tables and queues are: a CloudFormation stack, or the game's variables.
* `operations` - what each command reads and does, as plain values; `dead_letters`, the
  dead-letter queue's listing and redrive, which it delegates to; `proofs`, a number's proof of
  opt-out and the proof key; `errors`, its one refusal.
* `cli` - the command line: arguments, tables or JSON, confirmations; `failures`, a failure's one
  line.
"""
