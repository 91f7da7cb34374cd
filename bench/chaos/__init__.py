"""The chaos soak: real games on the local stack while workers are killed and dependencies fail.

`python -m bench.chaos --messages 5000` runs the long soak; tests/chaos runs a short one.
docs/reliability.md ("Chaos soak") describes what is injected and what is checked.
"""
