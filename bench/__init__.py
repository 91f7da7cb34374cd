"""Benchmarks and the chaos soak for serverless-rps (docs/performance.md, docs/reliability.md).

Benchmarks print numbers; they never pass or fail. `python -m bench` runs them all and writes
bench/results/latest.md and latest.json; `python -m bench.chaos` runs the long chaos soak.
"""
