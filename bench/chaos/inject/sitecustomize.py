"""Loaded by every interpreter the chaos soak starts (its directory is put first on PYTHONPATH).

It does nothing unless RPS_CHAOS names a soak's configuration; then `bench.chaos.injection`
arms the game worker's faults and moto's server guards once those modules are imported.
"""

import os

if os.environ.get("RPS_CHAOS"):
    from bench.chaos import injection

    injection.install(os.environ["RPS_CHAOS"])
