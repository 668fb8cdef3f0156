# The whole set-up on a fresh machine: `make run` (the main job) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check prove fuzz bench strength clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,prove,fuzz,strength,bench]'
	touch $(STAMP)

# The kit is installed in place (-e): pip compiles no bytecode for it, and where the environment
# says PYTHONDONTWRITEBYTECODE nothing ever would, so every `kodex` process compiled its ~20,000
# lines again (about 0.15 s of each start). The set-up compiles them, as pip does for an ordinary
# install: __pycache__/ beside the sources (ignored by git; `make clean` removes it), again for
# the sources changed since (compileall compares the times). The tests keep their own bytecode
# outside the clone (tests/session_cache.py).
KIT_SOURCES := $(wildcard conformance/*.py model/*.py properties/*.py reports/*.py reports/html/*.py)
BYTECODE    := $(VENV)/.bytecode

$(BYTECODE): $(STAMP) $(KIT_SOURCES)
	$(BIN)/python -m compileall -q conformance model properties reports
	touch $(BYTECODE)

# the main job: the full corpus against the reference engine, the coverage summary,
# the proofs the report shows (reports/prove.*), the bundled Node.js example
# (examples/hkk-node, with its expected failures) when `node` is on PATH — else one line
# says so and the job goes on —, then the HTML report (both implementations side by side).
# Everything under reports/ that is generated is untracked (.gitignore). The exit code is
# the reference run's; a failing `kodex prove` or Node.js run is reported but only stops
# the job when it wrote nothing for the HTML report.
NODE_RESULTS := reports/runs/hkk-node.json
run: $(BYTECODE)
	$(BIN)/kodex run -q --coverage --json reports/runs/reference.json; rc=$$?; \
	$(BIN)/kodex prove --out-dir reports > reports/prove.log 2>&1 \
	  || echo "make run: kodex prove exited $$? (see reports/prove.log, reports/prove.md)" >&2; \
	rm -f $(NODE_RESULTS); \
	if command -v node > /dev/null 2>&1; then \
	  $(BIN)/kodex run -q --impl "node examples/hkk-node/engine.js" \
	    --xfail examples/hkk-node/xfail.txt --json $(NODE_RESULTS) > reports/runs/hkk-node.log 2>&1 \
	    || echo "make run: the Node.js example exited $$? (see reports/runs/hkk-node.log)" >&2; \
	  echo "the Node.js example: $$(grep -E "^[0-9]+ cases?:" reports/runs/hkk-node.log | tail -n 1)"; \
	else \
	  echo "make run: node is not on PATH: the report shows the reference engine alone (install Node.js to see the bundled example beside it)"; \
	fi; \
	node_results=""; [ -f $(NODE_RESULTS) ] && node_results="--results $(NODE_RESULTS)"; \
	$(BIN)/kodex report --results reports/runs/reference.json $$node_results \
	  --prove reports/prove.json --out reports/site || exit $$?; exit $$rc

# the test suite: unit tests, the corpus collected by pytest, the properties and proofs.
# Workers: one more than the cores (the protocol tests spend seconds waiting on their deadlines;
# the extra worker keeps the cores busy meanwhile); each worker gets whole files (their module
# fixtures are set up once), the heaviest first (tests/conftest.py, HEAVY_FIRST). What does not
# change between sessions is kept outside the clone (tests/conftest.py; KODEX_TEST_CACHE=off: not).
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; f = getattr(os, 'sched_getaffinity', None); print((len(f(0)) if f else os.cpu_count() or 1) + 1)")
test: $(BYTECODE)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -p no:cacheprovider

check: $(BYTECODE)
	$(BIN)/kodex check

prove: $(BYTECODE)
	$(BIN)/kodex prove

fuzz: $(BYTECODE)
	$(BIN)/kodex fuzz --examples 2000

# mutation testing of model/ against the corpus alone (properties/strength.py, cosmic-ray):
# reports/strength.md + reports/strength.json; incremental (cache: .strength-cache/)
strength: $(BYTECODE)
	$(BIN)/kodex strength --workers 2

bench: $(BYTECODE)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_report.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
	find conformance model properties reports -name __pycache__ -type d -prune -exec rm -rf {} +
	$(PYTHON) -B -c "import shutil, sys; sys.path.insert(0, 'tests'); import session_cache as s; \
	  d = s.kept_dir(); d and shutil.rmtree(d, ignore_errors=True)"
