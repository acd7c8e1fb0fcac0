# Two commands for a fresh machine: `make run` (dashboard) and `make test` (whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
PORT ?= 8501

.PHONY: run test bench venv test-deps clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Stamp files: reinstall only when a requirements file changes.
$(VENV)/.runtime-installed: requirements.txt | $(PY)
	$(PIP) install -q -r requirements.txt
	touch $@

$(VENV)/.test-installed: requirements-test.txt $(VENV)/.runtime-installed
	$(PIP) install -q -r requirements-test.txt
	touch $@

venv: $(VENV)/.runtime-installed

test-deps: $(VENV)/.test-installed

## Start the dashboard with the bundled SRBCT data set loaded.
run: venv
	$(PY) -m streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

## Run the whole test suite.
test: test-deps
	$(PY) -m pytest

$(VENV)/.bench-installed: requirements-bench.txt $(VENV)/.runtime-installed
	$(PIP) install -q -r requirements-bench.txt
	touch $@

## Time the selectors and rankers against straightforward implementations and the
## scikit-learn / skrebate baselines (medians, ratios).
bench: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_kofsd.py
	$(PY) benchmarks/bench_online.py
	$(PY) benchmarks/bench_rankers.py

clean:
	rm -rf $(VENV) .pytest_cache
