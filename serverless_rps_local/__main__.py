"""`python -m serverless_rps_local` is `python -m serverless_rps`: the local CLI (cli.py)."""

import sys

from serverless_rps_local.cli import main

sys.exit(main())
