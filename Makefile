# Two commands: `make run` and `make test`. Everything else is set up on the way.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export DAGSTER_DISABLE_TELEMETRY := 1

.PHONY: run test install install-dev manifest clean bench

run: install manifest
	$(BIN)/analytics demo --if-missing
	$(BIN)/analytics up

test: install-dev manifest
	$(BIN)/python -m pytest $(PYTEST_ARGS)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.stamp-install: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.stamp-install-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.stamp-install $@

install: $(VENV)/.stamp-install

install-dev: $(VENV)/.stamp-install-dev

# Dagster loads the dbt assets from the manifest; it is prepared here, never at import time.
manifest: dbt_project/target/manifest.json

dbt_project/target/manifest.json: $(VENV)/.stamp-install $(shell find dbt_project -name '*.sql' -o -name '*.yml' -o -name '*.md' 2>/dev/null | grep -v target/)
	cd dbt_project && ../$(BIN)/dbt parse --quiet --profiles-dir . --project-dir .
	touch $@

bench: install-dev
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) dbt_project/target dbt_project/logs
