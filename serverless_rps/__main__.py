"""`python -m serverless_rps play | demo | invoke ...`: the local stack's command line.

The local stack is a development package beside this one (serverless_rps_local/, docs/local.md);
this file only hands over to it, and is left out of the deployed functions with it.
"""

import sys

try:
    from serverless_rps_local.cli import main
except ModuleNotFoundError as missing:  # pragma: no cover - only outside a clone of the repository
    sys.exit(f"python -m serverless_rps needs the local stack (serverless_rps_local/): {missing}")

sys.exit(main())
