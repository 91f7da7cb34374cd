"""Which Chromium the simulator's browser test drives.

`scripts/setup.sh` (`make test`) checks for a browser with the same search, in the same order, so
the one it approves is the one the test launches.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

__all__ = ["CHROMIUM_NAMES", "HOW_TO_GET_CHROMIUM", "find_chromium", "no_chromium_reason"]

# Debian's and Ubuntu's package names first, then Google's builds.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HOW_TO_GET_CHROMIUM = "sudo apt-get install chromium, or set CHROMIUM=/path/to/chrome"


def find_chromium(environment: Mapping[str, str] | None = None) -> str | None:
    """The browser's path: `CHROMIUM` if set (None unless it is an executable file, so a typo is not
    silently replaced by another browser), else the first of `CHROMIUM_NAMES` on `PATH`; None if
    there is none."""
    environment = os.environ if environment is None else environment
    chosen = environment.get("CHROMIUM")
    if chosen:
        return chosen if os.path.isfile(chosen) and os.access(chosen, os.X_OK) else None
    search_path = environment.get("PATH", os.defpath)
    for name in CHROMIUM_NAMES:
        found = shutil.which(name, path=search_path)
        if found is not None:
            return found
    return None


def no_chromium_reason(environment: Mapping[str, str] | None = None) -> str:
    """One line for when `find_chromium` found nothing: what to fix, as setup.sh words it."""
    environment = os.environ if environment is None else environment
    chosen = environment.get("CHROMIUM")
    if chosen:
        return f"CHROMIUM={chosen} is not an executable file"
    return f"no Chromium on PATH ({', '.join(CHROMIUM_NAMES)}): {HOW_TO_GET_CHROMIUM}"
