#!/usr/bin/env bash
# Installs the AWS SAM CLI into its own virtual environment, .venv-sam at the repository root.
#
# Why a separate environment: aws-sam-cli pins boto3, botocore, PyYAML and friends tightly, and
# those pins clash with the project's own (.venv). The tests call .venv-sam/bin/sam directly.
#
# Idempotent and quick: when the pinned version is already installed it only checks a stamp file.
set -euo pipefail

SAM_CLI_VERSION="1.170.0"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.venv-sam"
stamp="${venv}/.installed-aws-sam-cli-${SAM_CLI_VERSION}"

if [[ -f "${stamp}" && -x "${venv}/bin/sam" ]]; then
    exit 0
fi

# The SAM CLI runs on any Python 3.9+; prefer 3.13, the Lambda runtime. A candidate must actually
# run: a pyenv shim for a version that is not selected exists on PATH but fails when called.
python=""
for candidate in python3.13 $(command -v pyenv >/dev/null && ls -d "$(pyenv root)"/versions/3.13*/bin/python3 2>/dev/null) python3; do
    if "${candidate}" -c "import sys" >/dev/null 2>&1; then
        python="${candidate}"
        break
    fi
done
if [[ -z "${python}" ]]; then
    echo "sam-venv: no working python3 found" >&2
    exit 1
fi

echo "sam-venv: installing aws-sam-cli ${SAM_CLI_VERSION} into ${venv} (about 85 packages, 330 MB; a minute or two, once)..." >&2
"${python}" -m venv --clear "${venv}"
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check "aws-sam-cli==${SAM_CLI_VERSION}"
"${venv}/bin/sam" --version >&2
touch "${stamp}"
