"""Loaded by every interpreter the chaos soak starts (its directory is put first on PYTHONPATH).

It does nothing unless RPS_CHAOS names a soak's configuration; then `bench.chaos.injection`
arms the game worker's faults and moto's server guards once those modules are imported.

Python imports only the first sitecustomize on the path, and this one comes first: it runs the
next one too (the test suite's recorder of AWS calls, tests/iam/inject, when `make test` runs the soak).
"""

import os
import runpy
import sys
from pathlib import Path

if os.environ.get("RPS_CHAOS"):
    from bench.chaos import injection

    injection.install(os.environ["RPS_CHAOS"])


def _run_the_next_sitecustomize() -> None:
    here = Path(__file__).resolve().parent
    places = [Path(entry).resolve() for entry in sys.path if entry]
    after = places[places.index(here) + 1 :] if here in places else []
    following = [place / "sitecustomize.py" for place in after if (place / "sitecustomize.py").is_file()]
    if following:
        runpy.run_path(str(following[0]))


_run_the_next_sitecustomize()
