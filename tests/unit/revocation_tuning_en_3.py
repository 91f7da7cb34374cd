"""A third English tuning set: the round-2 batch, texts of the kinds two held-out sets showed
the classifier missing, each text new.

Written by the engineer who then changed the classifier, before changing it, and scored once on
first contact (docs/opt-out.md gives that figure): the same hand wrote the texts and the rules,
so the figures after are no measure of generalisation, only of the kinds being read. The texts
follow kinds, not the held-out sets' sentences: removal verbs with other objects, "leave me be",
spellings (repeated letters, digits for letters, typos, txt-speak), a negated request, "no more"
with a modifier, a stop after a complaint or with a courtesy word, long messages with a request
inside, consent in so many words. The game talk leans on the same words, as players would use
them, so that a broader reading shows what it takes.
"""

REVOCATIONS = (
    # removal verbs with other objects
    "delete my info please",
    "erase all my data",
    "wipe my number from your records",
    "remove my phone number from this",
    "drop me from your list",
    "purge my contact info",
    "get rid of my number",
    "take my info off your system",
    "remove me from whatever this game is",
    "please erase my account",
    "forget me please",
    # leave me alone, and its variants
    "leave me be already",
    "just let me be",
    "leave me in peace",
    "please leave this number alone",
    # spellings: repeated letters, digits for letters, typos
    "STOOOOP",
    "stoppp it",
    "st0p texting me",
    "ST0P!!!",
    "0pt me 0ut",
    "unsubscrbe",
    "plz remoce me",
    "levae me alone",
    "delte my number",
    "stop textign me",
    "stop txtin me pleeease",
    # txt-speak
    "pls dnt txt me nemore",
    "no mor txts plz",
    "stp msging me",
    "u can unsub me now thx",
    # a negated request
    "could you not text me anymore",
    "please do not message this number",
    "would you kindly not contact me again",
    "can you guys not text me at 6am",
    # no more + a modifier + texts
    "no more bot messages",
    "no more rps texts please",
    "enough of these game messages",
    "stop the daily texts",
    "I don't want any game texts",
    # a stop after a complaint, or with a courtesy word
    "stop, kindly",
    "fed up with this. stop",
    "annoyed af stop",
    "blocked and reported. stop",
    "spam again?? stop",
    "stop respectfully",
    "stop, appreciate it",
    "stop this nonsense",
    "stop now or I'm reporting you",
    # consent and interest in so many words
    "you do not have my permission to text me",
    "I withdraw my permission",
    "consent revoked",
    "not interested in this game, remove me",
    "I'm not interested anymore",
    # questions that ask for it
    "how can I make this stop?",
    "is there any way to get off this list",
    "take me out of this",
    # long messages with a request inside
    "hi, i think someone signed me up for this by mistake. i don't know anyone who plays rock paper "
    "scissors by text. could you please remove my number from your list and stop messaging me? thanks",
    "So I got a new phone number a few weeks ago and I keep getting these game messages meant for "
    "someone else. I'm not the person you're looking for. Please delete this number from your records.",
)

GAME_TALK = (
    # removal verbs about the game
    "erase that, i meant paper",
    "forget it, rock",
    "forget it bob, you win",
    "can i block bob from challenging me",
    "how do i remove bob from my games",
    "delete the game with carol, she left",
    "erase my loss pls",
    "can i delete my nick and make a new one",
    "i'd block bob if i could lol",
    # leave me be, to a player
    "leave me be bob, im thinking",
    "leave me alone bob im winning",
    "bob leave me alone lol",
    # spellings in trash talk
    "STOPPP cheating bob",
    "st0p stalling alice",
    "stoppp, i won that one",
    "lol u cant st0p me",
    "dont evr throw rock agn lol",
    "STAHP IT BOB",
    "stopp being lucky bob",
    "nobody can st0p me",
    # no more, enough, done, quit, about the game
    "no more game delays, throw already",
    "no more excuses bob",
    "enough bob, rematch",
    "quit hiding bob, im not done with u",
    "not done yet, again rock",
    "i quit being nice, scissors bob",
    "wanna quit? i dont",
    # complaints about losing or other players
    "so sick of losing to bob",
    "reported bob for cheating",
    "sick move alice",
    "alice wont stop bragging",
    "tell bob to quit messaging me trash talk",
    "make bob stop texting me gg's",
    "alice can u stop messaging me during games",
    "i said stop bob",
    # courtesy and negation about the game
    "kindly accept my challenge",
    "please not paper again",
    "can you not throw rock every time",
    "stop messing around and play bob",
    "end this game already, paper",
    "cancel my challenge to carol",
    "can't stop won't stop 💪 rock",
    # commands
    "nick deleter",
    "throw paper remove",
    "t rock st0p",
    "nick stoppp",
    "rock stopper99",
    "play paper unsub",
    "name leave_me_be",
)

OTHER_TEXT = (
    "leave the door open please",
    "can you remove the cat from the couch",
    "forgot my keys again",
    "the bus didnt stop at my corner",
    "delete that pic lol",
    "sorry, wrong chat",
)
