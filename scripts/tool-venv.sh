#!/usr/bin/env bash
# Installs one pinned command-line tool into a virtual environment of its own at the repository
# root, for a tool whose dependency pins clash with the project's (.venv):
#
#     bash scripts/tool-venv.sh VENV PACKAGE VERSION COMMAND "WHAT IT COSTS"
#
# scripts/sam-venv.sh and scripts/checkov-venv.sh say why each tool needs its own. Idempotent and
# quick: when the pinned version is already installed it only checks a stamp file.
set -euo pipefail

if [[ $# -ne 5 ]]; then
    echo "usage: tool-venv.sh VENV PACKAGE VERSION COMMAND COST" >&2
    exit 2
fi
name="$1" package="$2" version="$3" command="$4" cost="$5"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/${name}"
stamp="${venv}/.installed-${package}-${version}"

if [[ -f "${stamp}" && -x "${venv}/bin/${command}" ]]; then
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
    echo "${name#.}: no working python3 found" >&2
    exit 1
fi

echo "${name#.}: installing ${package} ${version} into ${venv} (${cost}, once)..." >&2
"${python}" -m venv --clear "${venv}"
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check "${package}==${version}"
"${venv}/bin/${command}" --version >&2
touch "${stamp}"
