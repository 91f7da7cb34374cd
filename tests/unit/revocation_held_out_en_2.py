"""A second held-out English revocation test set: texts as people send them, never used to tune
`serverless_rps/revocation.py`.

Who and how: written on 2026-11-27 by a helper session (an AI model) briefed only with a description of
the game's commands, of the FCC rule 47 CFR 64.1200(a)(10) ("revoke consent by any reasonable means")
and of four kinds of revocation an earlier classifier missed. The writer never saw the classifier, its
rules, its tests, its tuning set or the opt-out documentation; it read only `revocation_held_out.py`,
for its format and to avoid repeating its texts. Every free text is new, none is copied from the brief's
examples; only bare commands (`leaders`, `?`, `START`) repeat the brief's words. The set was written and
committed before the classifier changes it is meant to measure, and it must never be used to tune them:
it measures how well the classifier generalises to text written by someone else.

Measured once, after round 1: 86.3% of revocations read (101/117), no game talk taken. Since round
2 it is tuning data like the other sets (docs/opt-out.md gives both figures).

Each text is judged as a whole message sent to the bot by someone receiving its texts, the way a
reasonable person would read it: a request to stop texting (`REVOCATIONS`), talk about the game or a
game command (`GAME_TALK`, which must never be taken for a revocation), or anything else (`OTHER_TEXT`,
not a revocation either). `AMBIGUOUS` holds a few texts reasonable readers would disagree on; they are
not scored. Comments group the texts by kind, so recall can be given by kind.
"""

REVOCATIONS = (
    # a. an opt-out keyword, or "no more", followed only by a courtesy or filler word or two
    "stop thank you",
    "Unsubscribe thanks",
    "cancel pls",
    "quit please",
    "opt out thx",
    "no more please",
    "stop already",
    "Unsubscribe, ty",
    "stop bro",
    "End please",
    "STOP SIR",
    "stop dude",
    "no more ty",
    "opt out now",
    "unsubscribe now please",
    "Stop, thanks!",
    "stop kindly",
    "quit, thanks",
    # b. a complaint that ends in a stop request
    "these texts are driving me crazy, stop",
    "ugh every single day with this. STOP",
    "its 3am why am i getting this?? stop",
    "I've asked twice already. stop.",
    "seriously this is harassment, please stop",
    "my phone wont quit buzzing because of you people. enough, stop",
    "This is spam. Stop.",
    "getting really tired of these messages, unsubscribe",
    "way too many texts. stop it already",
    "im at work and my phone keeps going off, STOP",
    "so sick of this 🙄 stop",
    "how many times do I have to say it, STOP",
    "nobody asked for this garbage. cancel",
    # c. "stop sending" followed by something other than "me" or "messages"
    "stop sending texts here",
    "stop sending this junk",
    "Stop sending them",
    "stop sending those game texts",
    "pls stop sending all this",
    "STOP SENDING THESE TEXTS",
    "stop sending your spam",
    "stop sending anything to 555-0142",
    "stop sending sms to my phone",
    "can you stop sending this stuff",
    "Stop sending. Now.",
    "stop sending notifications to this phone",
    # d. a protest about never signing up, followed by a removal request
    "I never agreed to get these, take me off",
    "never signed up for any game. delete my number",
    "I didn't sign up for this! unsubscribe me",
    "who signed me up for this? remove my number please",
    "i never opted in to anything, stop",
    "Didnt ask for this. Remove me",
    "I did not consent to these texts. Take my number off your list.",
    "never gave you my number, take me off whatever this is",
    "i dont remember signing up for rock paper scissors lol. pls remove",
    "Not something I signed up for. Opt me out.",
    # wrong number, wrong person
    "wrong # sorry, please dont text again",
    "You have the wrong person. Please remove this number.",
    "this isnt bob's phone anymore, stop texting it",
    "This is his mother. Please stop texting this phone.",
    # who is this, then stop
    "who dis? stop",
    "who r u. quit texting",
    "Who is this and why are you texting me? Please stop.",
    # leave me alone, block, delete, forget me
    "leave me be",
    "lose my number",
    "please block my number from your system",
    "delete all my info",
    "Delete me",
    "forget my number",
    "erase me from this thing",
    "delete my account and stop texting",
    "Take me off",
    # not interested, done, changed my mind
    "not interested anymore",
    "no longer interested, please remove",
    "I'm done with this, remove my number",
    "I've changed my mind, I don't want texts from you anymore",
    "I don't want to play anymore, stop texting",
    "im good, no more texts",
    # consent in so many words
    "I revoke my consent to receive text messages",
    "I withdraw consent",
    "Please cease all communication with this number.",
    "Kindly remove me from your mailing list.",
    # questions that ask for it
    "how do i get these texts to stop",
    "Is there a way to stop getting these?",
    "can you please not text me anymore?",
    "can u take me off this?",
    # bare keywords and their typos
    "END",
    "STOPALL",
    "remove",
    "optout",
    "STOPPPPP",
    "S T O P",
    "S.T.O.P.",
    "st0p",
    "stop........",
    "stop!!!!!??!!",
    "unsubcribe",
    "remvoe me",
    "sotp texting me",
    "pls stahp",
    # txt-speak
    "pls stp txtin me",
    "plz unsub me k thx",
    "dont evr txt me agn",
    "dont msg me no more",
    "u can stop txting me now",
    # all caps, emoji, threats
    "TAKE ME OFF THIS LIST NOW",
    "UNSUBSCRIBE ME NOW 😤",
    "🚫📱 no more texts pls",
    "✋ enough with the texts",
    "stop spamming me",
    "quit bugging me",
    "You need to stop texting me or I'm reporting this number",
    "reported as spam. stop",
    "stop it. stop texting. stop everything.",
    "do not send me any more texts",
    "quit messaging this number",
    "no more game texts",
    # run-ons and rants
    "ok so i played like once months ago and now i keep getting these and i really dont want them "
    "anymore so can you just take me off or whatever thanks",
    "Listen, I have no idea who you are or how you got this number, but I have been getting these rock "
    "paper scissors texts all week and I never asked for any of it. I don't play games by text. Please "
    "take this number off whatever list it's on and do not contact me again. Thank you.",
    "I LOVED this game at first but honestly it's too much now, my phone is blowing up all day. "
    "Please just remove me from everything, I'm not playing anymore",
)

GAME_TALK = (
    # commands
    "nick rocky99",
    "name the_champ",
    "throw paper alice",
    "t scissors carol",
    "play rock dave",
    "paper bob",
    "s alice",
    "PAPER",
    "rock 🪨",
    "again rock",
    "rematch paper",
    "my games",
    "score?",
    "leaders",
    "help score",
    "?",
    "START",
    # throws and names that look like opt-out words
    "throw rock quit",
    "t paper end",
    "play scissors cancel",
    "scissors stopper",
    "r nomore",
    "paper nomore",
    "name quitter",
    "nick no_more",
    "name stopsign",
    "rock unstoppable",
    # stop-like words about the game itself
    "gotta stop for tonight, rematch tomorrow bob",
    "can i cancel my throw? meant paper",
    "cancel that, throw scissors",
    "how do i take back a challenge i sent to bob?",
    "no more rock for me, paper time",
    "end of round, what's the score",
    "don't end the game yet",
    "when does the season end",
    "I'll stop when I'm #1 on the leaders",
    "i need to stop choosing paper, its cursed",
    "I want to stop being last on the leaderboard",
    "no more mr nice guy. scissors bob",
    "nobody can stop my scissors",
    "i can't stop playing this",
    "we should never stop this game",
    "don't quit now, rematch me",
    # about other players
    "alice keeps texting me challenges nonstop lol",
    "tell carol to stop throwing rock every time",
    "quit winning alice!!",
    "paper covers rock, stop crying bob",
    "bob, quit complaining and throw",
    "stop whining and accept my challenge carol",
    "is there a way to block bob? he keeps challenging me",
    "can you tell bob to quit spamming me challenges? ill play him later",
    "bob quit on me mid-game lol",
    "alice rage quit haha",
    "did carol cancel our match?",
    "alice is unstoppable",
    "alice where'd you go? come back and play",
    # questions and trash talk
    "what beats scissors again",
    "does paper really beat rock? never made sense",
    "bob you can run but you can't hide. rock bob",
    "gg bob, rematch rock",
    "why did bob win, we both threw rock??",
    "lol bob you're so bad at this",
    "how do i change my nick",
    "the game froze? i threw rock and nothing happened",
    "never mind, paper bob",
    "who's at the top",
)

OTHER_TEXT = (
    "hey",
    "good morning!",
    "who's this",
    "how much does this cost",
    "is this free?",
    "are you a real person",
    "thank u",
    "haha",
    "k",
    "sorry that was meant for someone else",
    "what's your name",
    "👍",
    "cool",
    "do you guys have an app",
    "my battery is about to die",
    "pick up eggs on your way home",
    "Is this Ben's number?",
    "the game ended early, we're stopping for pizza",
)

AMBIGUOUS = (
    "how did you get my number?",
    "im done",
    "enough",
    "🛑",
)
