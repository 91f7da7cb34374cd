"""An English tuning set: the round-3 batch, texts of the kinds the third held-out set showed the
phrase grammar missing, each text new and written before the rules changed.

Written by the engineer who then changed the classifier, and scored once on first contact
(docs/opt-out.md gives that figure): the same hand wrote the texts and the rules, so the figures
after are no measure of generalisation, only of the kinds being read. The kinds: words run
together or split apart; a stop intent aimed at the texts with a verb or target no list named
(blowing up my phone, spamming, turn off, any other paraphrase); questions asking how to stop;
"no longer interested" with more after it; being left alone in other words; taking back consent
in other words; the texts addressed to the company, team or bot (not a player); the game's own
name as the object of the request; insults that mean go away; the wrong person's number in other
words; long texts with a polite request inside. The game talk leans on the same words, as players
would use them.
"""

REVOCATIONS = (
    # words run together, split apart, hyphenated
    "stopmessaging",
    "stoptextingme",
    "nomoremessages",
    "pleasestop",
    "leavemealone",
    "unsub scribe",
    "un-sub",
    "opt-out please",
    "o p t o u t",
    "removeme",
    # a stop intent at the texts with a verb or target no list named
    "quit spamming my phone",
    "stop pinging me",
    "stop hitting up my phone",
    "stop blowing up my cell",
    "quit flooding my inbox",
    "stop the notifications on this phone",
    "turn these texts off",
    "turn off these alerts please",
    "make the texts stop",
    "i need these messages to stop",
    "can the texts just stop",
    "shut these messages off",
    # how do I stop
    "how do i stop these",
    "how do I make this stop",
    "how can i get off this list",
    "how do you turn this off",
    "how do i opt out of this",
    "what do i text to make it stop",
    "is there a way to stop these texts?",
    "what do I reply to stop getting these",
    # not interested with more after it
    "not interested anymore, don't message me again",
    "no longer interested in these texts",
    "not interested, please stop sending stuff",
    # left alone, in other words
    "just leave me be",
    "leave me the hell alone",
    "i would like to be left alone",
    "let me alone please",
    # consent, in other words
    "I withdraw permission for you to text me",
    "consider my consent revoked",
    "you no longer have permission to text me",
    "I never gave you permission to text me",
    "I never signed up for this, stop",
    "i didnt sign up for these texts",
    # addressed to the company, team, bot
    "dear rps team, please stop texting me",
    "hey bot stop messaging me",
    "to whoever runs this, stop texting me",
    "attention: please remove this number",
    "hey rps bot, take me off the list",
    "company please stop these texts",
    # the game's name as the object
    "stop sending rock paper scissors messages",
    "no more rock paper scissors texts please",
    "i don't want rock paper scissors texts",
    "unsubscribe me from the rock paper scissors game",
    # go away, as an insult
    "get lost",
    "go away and stop texting",
    "scram, no more texts",
    "leave me alone already, get lost",
    # wrong person, in other words
    "you have the wrong person, stop texting",
    "this isn't bob's phone anymore, please stop texting",
    "i'm not who you think, stop messaging me",
    "this number changed owners, remove it",
    # long texts with a request inside
    "look I get that it's a game but I'm not playing it and I keep getting these, "
    "please just stop messaging me",
    "not sure how my number ended up here but I'd like it taken off, thanks",
    "I'm getting texts every hour from this and it's too much, I want them to stop",
    "I don't play this anymore so please stop the messages",
)

GAME_TALK = (
    "stop throwing paper, it never works",
    "how do I stop losing to bob",
    "how do i turn off my streak? jk",
    "I need to stop picking rock",
    "can you make bob stop stalling",
    "bob won't stop spamming rock",
    "dear bob, prepare to lose",
    "hey bob, stop stalling and throw",
    "the bot says i won but i lost?",
    "stop, i meant paper not rock",
    "rock paper scissors is my favourite game",
    "leave bob alone, he's new",
    "get lost bob, I win again",
    "i'm never going to stop playing this",
    "how do i cancel a challenge to bob",
    "not interested in a rematch, bob cheats",
    "no more rock for me, paper from now on",
    "turn it up, best of three",
    "quit stalling bob",
    "how do I see the leaderboard?",
)

OTHER_TEXT = (
    "turn off the oven when you leave",
    "the bus stop is by the bank",
    "I can't stop eating these chips",
    "how do i turn off my alarm lol",
    "just unsubscribed from that newsletter lol",
)
