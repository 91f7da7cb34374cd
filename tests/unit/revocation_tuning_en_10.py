"""An English tuning set: round 4's second probe, every kind of request as people text it,
written after the round's first change was read and before any rule was changed for it, to see
how far the change reached beyond the texts it was made for, with game talk and other text that
look like requests.

Written by the engineer who changed the classifier, in one sitting, and scored once on first
contact (docs/opt-out.md's table). The rules were then changed for the kinds it missed, so from
then on it is tuning data.
"""

REVOCATIONS = (
    "pls stop messaging this number",
    "Please do not send me any more messages.",
    "I'd like to opt out of these messages",
    "how do I make these texts stop",
    "STOP TEXTING ME!!!!!!",
    "who is this? stop",
    "wrong number, please delete",
    "remove this number from your list immediately",
    "i never signed up for this, unsubscribe",
    "no thank you, please remove me",
    "dont want these anymore",
    "Not interested. Please stop.",
    "stop sending me this crap",
    "this is harassment, stop texting me or i will report you",
    "cancel",
    "end",
    "I'm not playing anymore, stop texting me",
    "please take me off your list, thank you",
    "unsubscribe me from all of this",
    "i do not wish to receive these messages",
    "You do not have my permission to text me",
    "quit texting me lmao",
    "stop fr",
    "STOP ✋",
    "omg stop 😭😭",
    "bruh stop",
    "stoppp pleaseee",
    "u need to stop texting me",
    "can u not text me anymore",
    "i'm begging you stop texting",
    "take my number off ur list",
    "please refrain from sending me messages",
    "i'm asking you to stop contacting me",
    "This is my final request: stop texting this number",
    "kindly remove my number from your database",
    "opt-out",
    "optout please",
    "i dont play this, wrong person",
    "no more game texts thx",
    "i'd rather not get texts from a game",
    "unsubscribe!!",
    "im good, no more messages please",
    "not my phone anymore, pls stop",
    "STOP. I DID NOT SIGN UP FOR THIS.",
    "do not text me again or im calling my lawyer",
)

GAME_TALK = (
    "stop throwing rock every time lol",
    "i'd rather play rock",
    "don't stop, i'm on a winning streak",
    "please dont quit bob",
    "can u stop winning lol",
    "no more paper for me",
    "remove alice from my games",
    "rematch?",
    "stop stalling and throw",
    "alice quit the game lol",
    "i'm not playing rock anymore",
    "i'll stop when i win",
    "scores",
    "help",
    "stop ignoring my challenge bob",
    "u cant stop me",
)

OTHER_TEXT = (
    "stop at the gas station on your way",
    "don't forget to cancel the dentist",
    "my phone keeps buzzing with work emails ugh",
    "can you text me the address",
    "lmao",
    "thanks for the game",
)
