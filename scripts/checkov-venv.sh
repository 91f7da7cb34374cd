#!/usr/bin/env bash
# Installs checkov, the infrastructure-as-code scanner that `make scan` runs on template.yaml, into
# its own virtual environment, .venv-checkov at the repository root.
#
# Why a separate environment: checkov 3.3.30 pins boto3 to 1.35.49, packaging below 24 and networkx
# below 2.7, where .venv has boto3 1.44, packaging 26 and networkx 3 (cfn-lint's); the two cannot
# share one environment. scripts/scan-template.sh calls .venv-checkov/bin/checkov directly.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/tool-venv.sh" .venv-checkov checkov 3.3.30 checkov \
    "97 packages, 270 MB; half a minute"
