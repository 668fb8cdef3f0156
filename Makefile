# The whole set-up on a fresh machine: `make run` (the main job) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check prove fuzz bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[bench,test]'
	touch $(STAMP)

# the main job: the full corpus against the reference engine, the coverage summary,
# then the HTML report (reports/runs/ and reports/site/ are not tracked)
run: $(STAMP)
	$(BIN)/kodex run -q --coverage --json reports/runs/reference.json; rc=$$?; \
	$(BIN)/kodex report --results reports/runs/reference.json --prove reports/prove.json \
	  --out reports/site || exit $$?; exit $$rc

# the test suite: unit tests, the corpus collected by pytest, the properties and proofs
test: $(STAMP)
	$(BIN)/python -m pytest -q

check: $(STAMP)
	$(BIN)/kodex check

prove: $(STAMP)
	$(BIN)/kodex prove

fuzz: $(STAMP)
	$(BIN)/kodex fuzz --examples 2000

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_report.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
