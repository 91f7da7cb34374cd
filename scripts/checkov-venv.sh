#!/usr/bin/env bash
# Installs checkov, the infrastructure-as-code scanner that `make scan` runs on template.yaml, into
# its own virtual environment, .venv-checkov at the repository root.
#
# Why a separate environment: checkov 3.3.30 pins boto3 to 1.35.49, packaging below 24 and networkx
# below 2.7, where .venv has boto3 1.44, packaging 26 and networkx 3 (cfn-lint's); the two cannot
# share one environment. scripts/scan-template.sh calls .venv-checkov/bin/checkov directly.
#
# Idempotent and quick: when the pinned version is already installed it only checks a stamp file.
set -euo pipefail

CHECKOV_VERSION="3.3.30"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.venv-checkov"
stamp="${venv}/.installed-checkov-${CHECKOV_VERSION}"

if [[ -f "${stamp}" && -x "${venv}/bin/checkov" ]]; then
    exit 0
fi

# Prefer 3.13, the Lambda runtime and the project's. A candidate must actually run: a pyenv shim
# for a version that is not selected exists on PATH but fails when called.
python=""
for candidate in python3.13 $(command -v pyenv >/dev/null && ls -d "$(pyenv root)"/versions/3.13*/bin/python3 2>/dev/null) python3; do
    if "${candidate}" -c "import sys" >/dev/null 2>&1; then
        python="${candidate}"
        break
    fi
done
if [[ -z "${python}" ]]; then
    echo "checkov-venv: no working python3 found" >&2
    exit 1
fi

echo "checkov-venv: installing checkov ${CHECKOV_VERSION} into ${venv} (97 packages, 270 MB; half a minute, once)..." >&2
"${python}" -m venv --clear "${venv}"
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check "checkov==${CHECKOV_VERSION}"
"${venv}/bin/checkov" --version >&2
touch "${stamp}"
