"""`python -m serverless_rps.admin`: the operator's tool (cli.py)."""

import sys

from serverless_rps.admin.cli import main

sys.exit(main())
