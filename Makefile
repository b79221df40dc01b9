# The whole set-up is `make run` and `make test`; everything they need is installed here.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PG_CLUSTER = $(shell ls /etc/postgresql 2>/dev/null | head -n1)

# Python writes its compiled modules as users' machines do, even where the environment
# says not to (these machines set PYTHONDONTWRITEBYTECODE=1): each of the suite's hundreds
# of CLI and server processes would otherwise compile the package afresh (0.1-0.5 s each).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install install-run run test check test-long lint typecheck pytest bench browsers paper-libs e2e-deps postgres clean

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Shopfloor needs Python 3.11+ (found $$($(PY) --version))"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: paper-libs $(STAMP)

# Only what running needs (no test toolchain); a dev install (make test) satisfies it too.
$(RUN_STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Shopfloor needs Python 3.11+ (found $$($(PY) --version))"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then :; else \
		$(BIN)/python -m pip install -q --upgrade pip && $(BIN)/python -m pip install -q -e .; fi
	touch $(RUN_STAMP)

# No root and no apt-get: PDFs need Pango (on every desktop); HarfBuzz-Subset only makes
# them smaller (WeasyPrint subsets fonts with fontTools without it). Said, never installed.
install-run: $(RUN_STAMP)
	@$(LDCONFIG) -p 2>/dev/null | grep -q 'libpangoft2-1.0.so.0' || echo "Printing PDFs needs \
	Pango: install libpango-1.0-0 and libpangoft2-1.0-0 with your package manager."

# One process: create or migrate the database, the demo company if empty, the overview
# and how to sign in, then serve (`shopfloor run`).
run: install-run
	$(BIN)/shopfloor run

# Debian's Chromium for the browser tests (never a downloaded browser build).
browsers:
	@command -v chromium >/dev/null 2>&1 || { \
		(apt-get update -qq || sudo apt-get update -qq) && \
		(apt-get install -y -qq chromium || sudo apt-get install -y -qq chromium); }

# Debian's Pango (and a font) for WeasyPrint's printed documents, only when missing (for
# `make install` and `make test`; `make run` never installs system packages).
PAPER_LIBS := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core
LDCONFIG := $(shell command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)
paper-libs:
	@{ $(LDCONFIG) -p 2>/dev/null | grep -q 'libpangoft2-1.0.so.0' && \
	   $(LDCONFIG) -p 2>/dev/null | grep -q 'libharfbuzz-subset.so.0' && \
	   [ -d /usr/share/fonts/truetype/dejavu ]; } || { \
		(apt-get update -qq || sudo apt-get update -qq) && \
		(apt-get install -y -qq $(PAPER_LIBS) || sudo apt-get install -y -qq $(PAPER_LIBS)); }

# Test-only npm peers (MCP Inspector CLI, the official AppBridge, esbuild), pinned by the lockfile.
E2E_JS := tests/js
$(E2E_JS)/node_modules/.installed: $(E2E_JS)/package-lock.json
	npm ci --prefix $(E2E_JS) --no-audit --no-fund --loglevel=error
	touch $@

e2e-deps: browsers $(E2E_JS)/node_modules/.installed

# Start the local PostgreSQL cluster if it is installed but down; tests fail loudly if absent.
postgres:
	@pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || { \
		[ -n "$(PG_CLUSTER)" ] && pg_ctlcluster --skip-systemctl-redirect $(PG_CLUSTER) main start \
		|| echo "PostgreSQL is not running on 127.0.0.1:5432: its tests will fail"; }

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/lint-imports --no-cache

typecheck: install
	$(BIN)/mypy src

# A worker a core and one more (pytest-xdist): many tests wait on PostgreSQL, Chromium or a
# server process, so a third worker on two cores cut pytest from 13 min 30 s to 12 min 17 s.
# Each has its own PostgreSQL schema and SQLite files; the browser tests run in two groups,
# each on one worker (`--dist loadgroup`). `make test WORKERS=0` runs serially.
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
pytest: install postgres e2e-deps
	$(BIN)/pytest -q -n $(WORKERS) --dist loadgroup --durations=25

# The inner loop: the static checks and the quick tier, the modules marked
# `pytestmark = pytest.mark.quick` in any concept's folder (no server, browser,
# schemathesis or CLI process: `make test` runs those). Only the marked files are
# collected, so the tier does not pay for importing the rest.
QUICK = $(shell grep -rl --include='*.py' '^pytestmark = pytest.mark.quick' tests)
check: lint typecheck postgres
	$(BIN)/pytest -q -n $(WORKERS) -m quick $(QUICK)

test: lint typecheck pytest

# The long runs `make test` bounds: 16 clients x 200 adjustments, hypothesis over every
# tool with many more examples, schemathesis with a bigger budget, the CLI on PostgreSQL.
test-long: install postgres e2e-deps
	$(BIN)/pytest -q -m long

bench: install postgres
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
