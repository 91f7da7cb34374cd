#!/usr/bin/env bash
# Installs the AWS SAM CLI into its own virtual environment, .venv-sam at the repository root.
#
# Why a separate environment: aws-sam-cli pins boto3, botocore, PyYAML and friends tightly, and
# those pins clash with the project's own (.venv). The tests call .venv-sam/bin/sam directly.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/tool-venv.sh" .venv-sam aws-sam-cli 1.170.0 sam \
    "about 85 packages, 330 MB; a minute or two"
