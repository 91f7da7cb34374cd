#!/usr/bin/env bash
# `make scan`: checkov's CloudFormation checks on template.yaml (docs/deployment.md, "Security scan").
#
# Fails on any failed check, and also when checkov read no resource (a template it could not parse,
# or none at all): checkov itself exits 0 then, having checked nothing. It prints the failures only
# (--quiet) and then the counts; each check the template skips says why beside its resource
# (Metadata: checkov: skip:).
#
# The CloudFormation framework reads SAM's AWS::Serverless::* resources as written (its Lambda and
# HTTP API checks name those types); checkov's `serverless` framework is for the Serverless
# Framework's serverless.yml, not SAM. --skip-download: nothing is fetched from Prisma Cloud
# (guidelines, severities); the checks come with the package, and the scan needs no account.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.venv-checkov"
report="$(mktemp)"
trap 'rm -f "${report}"' EXIT

"${venv}/bin/checkov" --file "${repo_root}/template.yaml" --framework cloudformation --skip-download \
    --compact --quiet --output cli --output json --output-file-path "console,${report}"

"${venv}/bin/python" - "${report}" <<'PYTHON'
import json
import sys

summary = json.load(open(sys.argv[1], encoding="utf-8")).get("summary") or {}
errors = summary.get("parsing_errors", 0)
if errors or not summary.get("resource_count"):
    sys.exit(f"scan: checkov read no resource of template.yaml ({errors} parsing errors)")
print(
    f"scan: checkov {summary['checkov_version']} read {summary['resource_count']} resources: "
    f"{summary['passed']} checks passed, {summary['skipped']} skipped with a reason, {summary['failed']} failed"
)
PYTHON
