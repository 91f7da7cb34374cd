"""An English tuning set: round 4's own batch, written at the kinds the fourth blind sets missed
(lists and legal words, polite conditionals and preferences, words run together or misspelt, a
masked swear or a laugh beside the stop, the game's own nouns as what is sent), several texts of
each kind and game talk that looks like them, with a precision probe of game talk and other text
that uses the round's new words.

Written by the engineer who changed the classifier, in one sitting, before the rules were changed
for them, and scored once on first contact (docs/opt-out.md's table). The rules were then changed
for the kinds it missed, so from then on it is tuning data.
"""

REVOCATIONS = (
    # lists and legal words
    "please add this number to your do not call list",
    "put my number on the do not text list",
    "i want to be on your do-not-contact list",
    "DNC list please",
    "place me on your no contact list",
    "I revoke any and all consent to receive text messages",
    "I hereby withdraw all prior consent to contact me",
    "consider this my formal revocation of consent",
    "revoking every consent I may have given",
    "this number does not consent to further messages",
    # polite conditionals and preferences
    "i'd prefer not to receive these anymore",
    "I would rather not get these messages",
    "would prefer to not be texted",
    "I'd like you to stop texting me please",
    "i would like to stop receiving these",
    "it would be great if you stopped sending these",
    "I'd appreciate no more texts",
    "kindly refrain from texting me",
    "please refrain from contacting this number",
    # run together and misspelt
    "stoptextingme",
    "pleasestop",
    "unsubscribeme",
    "leavemealone",
    "removeme",
    "donttextme",
    "stoptexting pls",
    "stpo txting me",
    "plese stop",
    "unsusbcribe",
    "stop texitng me",
    # masked swears, laughs, fillers beside the stop
    "stop f***ing texting me",
    "stop fucking texting me",
    "STOP THE F**KING TEXTS",
    "quit freaking messaging me",
    "stop texting me ffs",
    "stop lmao",
    "lol stop",
    "stop pls lol",
    "stop 😂",
    "stop the damn texts",
    "stop sending this sh*t",
    "$#!t, stop texting me",
    "stop thx",
    # the game's own nouns as what is sent
    "no more challenges",
    "no more game invites please",
    "stop sending me challenges",
    "i dont want any more invites",
    "stop the challenge texts",
    "no more matches please, remove me",
    "please stop sending game invites to this number",
    "i dont want challenges anymore, unsubscribe me",
)

GAME_TALK = (
    # the game's nouns aimed at a player, or the game's own talk
    "no more challenges from bob",
    "stop challenging me bob",
    "no more invites from alice please",
    "i dont want any more challenges from dave_9",
    "no more matches today, im tired, gg",
    "stop lol you threw rock again",
    "lol stop cheating",
    "stop stop i lost lmao",
    "bob stop lol",
    # precision probe: the round's new words in game talk
    "i'd prefer rock",
    "i would rather throw paper",
    "id prefer not to lose again",
    "block his rock with paper",
    "add me to the tournament list",
    "put me on the leaderboard list",
    "challenge bob",
    "play alice",
    "t rock",
    "stop by the store after the game",
    "f***ing rock again??",
    "that was a damn good throw",
    "no more rock for me, paper next",
)

OTHER_TEXT = (
    "remind me to unsubscribe from the newsletter",
    "remember to cancel the gym membership",
    "i need to unsubscribe from netflix lol",
    "stop by the store on your way home",
    "put the do not disturb sign on the door",
    "i'd prefer pizza tonight",
    "can you add me to the group chat",
    "my phone's on the no call list for telemarketers, so weird they still call",
    "lol",
)
