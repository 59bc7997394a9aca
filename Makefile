# Two commands: `make run` and `make test`. Everything else is set up on the way.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=

export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export DAGSTER_DISABLE_TELEMETRY := 1

.PHONY: run test install install-dev install-spark manifest translations tracker frontend frontend-check api-types clean bench test-servers docs

# With ANALYTICS_ENGINE=spark, `make run` installs the Spark engine's packages too (docs/data-engineer/spark.md).
run: install $(if $(filter spark,$(ANALYTICS_ENGINE)),install-spark) manifest translations tracker frontend
	$(BIN)/analytics demo --if-missing
	$(BIN)/analytics up

test: install-dev manifest translations tracker frontend frontend-check test-servers
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

# The Spark engine: pyspark (a Spark distribution, 434 MB) and dbt-spark; make install-dev has them.
$(VENV)/.stamp-install-spark: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[spark]'
	touch $(VENV)/.stamp-install $@

install-spark: $(VENV)/.stamp-install-spark

install-dev: $(VENV)/.stamp-install-dev

# Dagster loads the dbt assets from the manifest; it is prepared here, never at import time.
manifest: dbt_project/target/manifest.json

dbt_project/target/manifest.json: $(VENV)/.stamp-install $(shell find dbt_project -name '*.sql' -o -name '*.yml' -o -name '*.md' 2>/dev/null | grep -v target/)
	cd dbt_project && ../$(BIN)/dbt parse --quiet --profiles-dir . --project-dir .
	touch $@

# Server-side messages (Flask-Babel): the .po catalogues are the sources, the .mo files are built here.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard collector_app/translations/*/LC_MESSAGES/*.po workbench_app/translations/*/LC_MESSAGES/*.po))

%.mo: %.po $(VENV)/.stamp-install
	$(BIN)/pybabel compile --statistics -i $< -o $@

translations: $(MO_FILES)

# The tracking script: terser (pinned in its package-lock.json) minifies and mangles a.js into
# dist/a.min.js (git-ignored), which the collector serves with its endpoint path substituted.
TRACKER := collector_app/tracker

$(TRACKER)/node_modules/.stamp-ci: $(TRACKER)/package-lock.json | $(VENV)/.stamp-install
	cd $(TRACKER) && $(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TRACKER)/dist/a.min.js: $(TRACKER)/a.js $(TRACKER)/terser.json $(TRACKER)/node_modules/.stamp-ci
	cd $(TRACKER) && $(WITH_NODE) npm run --silent build
	touch $@

tracker: $(TRACKER)/dist/a.min.js

# The workbench's web application: npm ci when the lockfile changes, a Vite build when a source
# changes. Node is the system's when recent enough, else a wheel in the venv (analytics_cli/node_toolchain.py).
FRONTEND := workbench_app/frontend
WITH_NODE := $(abspath $(BIN))/python -m analytics_cli.node_toolchain
FRONTEND_SOURCES := $(shell find $(FRONTEND)/src $(FRONTEND)/public -type f 2>/dev/null) \
	$(wildcard $(FRONTEND)/index.html $(FRONTEND)/*.config.ts $(FRONTEND)/tsconfig*.json $(FRONTEND)/package.json)

$(FRONTEND)/node_modules/.stamp-ci: $(FRONTEND)/package-lock.json | $(VENV)/.stamp-install
	cd $(FRONTEND) && $(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(FRONTEND)/dist/.vite/manifest.json: $(FRONTEND_SOURCES) $(FRONTEND)/node_modules/.stamp-ci
	cd $(FRONTEND) && $(WITH_NODE) npm run --silent build
	touch $@

frontend: $(FRONTEND)/dist/.vite/manifest.json

# Type check and unit tests of the pure modules (Vitest); the browser tests run in pytest.
frontend-check: $(FRONTEND)/node_modules/.stamp-ci
	cd $(FRONTEND) && $(WITH_NODE) npm run --silent typecheck
	cd $(FRONTEND) && $(WITH_NODE) npm run --silent test

# Regenerate the API client's types from the workbench's OpenAPI document (a test checks they are in sync).
api-types: $(FRONTEND)/node_modules/.stamp-ci
	$(BIN)/python -c 'import json; from workbench_app.api import api_document; print(json.dumps(api_document(), indent=1))' > $(FRONTEND)/openapi.json
	cd $(FRONTEND) && $(WITH_NODE) npm run --silent api-types

# Servers the document and cloud-warehouse source tests start: a CouchDB-compatible server (npm ci)
# and fakesnow in its own virtualenv (it pins a DuckDB other than ours; it runs as a separate process).
COUCH_SERVER := tests/workbench_sources/couch_server
FAKESNOW_VENV := .venv-fakesnow

$(COUCH_SERVER)/node_modules/.stamp-ci: $(COUCH_SERVER)/package-lock.json | $(VENV)/.stamp-install
	cd $(COUCH_SERVER) && $(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(FAKESNOW_VENV)/.stamp: tests/workbench_sources/fakesnow-requirements.txt
	$(PYTHON) -m venv $(FAKESNOW_VENV)
	$(FAKESNOW_VENV)/bin/pip install --quiet -r tests/workbench_sources/fakesnow-requirements.txt
	touch $@

# The OpenID provider of the single sign-on tests (panva's oidc-provider, pinned by its package-lock.json).
OIDC_PROVIDER := tests/oidc_provider

$(OIDC_PROVIDER)/node_modules/.stamp-ci: $(OIDC_PROVIDER)/package-lock.json | $(VENV)/.stamp-install
	cd $(OIDC_PROVIDER) && $(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-servers: $(COUCH_SERVER)/node_modules/.stamp-ci $(FAKESNOW_VENV)/.stamp $(OIDC_PROVIDER)/node_modules/.stamp-ci

# The user guide (docs/, mkdocs.yml) into site/, in strict mode: a broken link fails the build.
# Its screenshots (docs/screens/*.png) come from the browser tests: run them with
# ANALYTICS_GUIDE_SCREENS=1 to take them again (docs/index.md says which).
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@echo "the guide is in site/index.html (screenshots: ANALYTICS_GUIDE_SCREENS=1 with the browser tests takes them again)"

bench: install-dev test-servers
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(FAKESNOW_VENV) site dbt_project/target dbt_project/logs $(FRONTEND)/node_modules $(FRONTEND)/dist \
		$(COUCH_SERVER)/node_modules $(OIDC_PROVIDER)/node_modules $(TRACKER)/node_modules $(TRACKER)/dist
