# Two commands for a fresh machine: `make run` (dashboard) and `make test` (whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
PORT ?= 8501
# Debian's Chromium, driven by the browser tests (tests/e2e/conftest.py expects this path).
CHROMIUM := /usr/bin/chromium

.PHONY: run test lint docs bench venv compiler kernels bytecode test-deps browser clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Stamp files: reinstall only when a requirements file changes.
$(VENV)/.runtime-installed: requirements.txt | $(PY)
	$(PIP) install -q -r requirements.txt
	touch $@

$(VENV)/.test-installed: requirements-test.txt $(VENV)/.runtime-installed
	$(PIP) install -q -r requirements-test.txt
	touch $@

# The project itself, editable: the package's metadata and the `fsengine` command in the venv,
# while `import fsengine` still runs the checkout's files. --no-deps: requirements.txt pins the
# dependencies. Reinstalled when pyproject.toml changes (the build backend, setuptools, comes
# from PyPI into pip's isolated build environment).
$(VENV)/.project-installed: pyproject.toml fsengine/version.py $(VENV)/.runtime-installed
	$(PIP) install -q --no-deps -e .
	touch $@

## What the kernels' build needs besides the venv, checked only while a family is not built:
## a compiler that numba's pycc can use (it compiles a C and a C++ test file) and Python's
## headers. For a Debian Python (headers under /usr/include), the missing Debian packages
## (g++, which brings gcc and libc6-dev; libpython3.X-dev) are installed with apt-get as for
## chromium; otherwise, or without root, a note: numba's JIT then runs the kernels.
NEEDED_FOR_KERNELS = import os, sys, sysconfig; \
	from fsengine._compute import kernels; \
	sys.exit() if all(f["built"] for f in kernels.status()) else None; \
	from numba.pycc.platform import external_compiler_works; \
	include = sysconfig.get_paths()["include"]; \
	need = ([] if external_compiler_works() else ["g++"]) + ([] if os.path.exists( \
	os.path.join(include, "Python.h")) else ["libpython%d.%d-dev" % sys.version_info[:2]]); \
	print(" ".join(need) + (" (this Python is not from Debian)" \
	if need and not include.startswith("/usr/include/") else ""))

compiler: $(VENV)/.project-installed
	@missing="$$($(PY) -c '$(NEEDED_FOR_KERNELS)' 2>/dev/null)"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	case "$$missing" in *"not from Debian"*) ;; *) \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" -eq 0 ]; then \
		echo "Installing $$missing to compile the kernels ..."; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing \
			</dev/null && exit 0; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 \
			&& sudo -n true 2>/dev/null; then \
		echo "Installing $$missing to compile the kernels (sudo) ..."; \
		sudo -n apt-get update -q && sudo -n env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q $$missing </dev/null && exit 0; \
	fi;; esac; \
	echo "NOTE: compiling the kernels ahead of time needs $$missing (a C and C++ compiler" \
	     "and Python's headers); without them numba compiles each kernel when first used" \
	     "(slower starts, the same results)."

## The kernels compiled ahead of time for this machine, into the user's cache (see
## `fsengine kernels`): about a minute on 2 cores the first time, then a check of a few
## milliseconds. Where they cannot be built (no C compiler), fsengine says so and numba
## compiles each kernel when first used instead: slower starts, the same results.
kernels: $(VENV)/.project-installed compiler
	$(PY) -m fsengine kernels --compile || true

## The checkout's modules compiled to bytecode, as pip compiles an installed package's: a
## new process then does not compile them again (about 70 ms of every command's start,
## and of every one where PYTHONDONTWRITEBYTECODE is set). Python recompiles an edited one.
bytecode: $(VENV)/.project-installed
	$(PY) -m compileall -q fsengine dashboard

venv: $(VENV)/.runtime-installed $(VENV)/.project-installed kernels bytecode

test-deps: $(VENV)/.test-installed $(VENV)/.project-installed

## Start the dashboard with the bundled SRBCT data set loaded.
run: venv
	$(PY) -m streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

## Debian's chromium for the browser tests, installed with apt-get when it is missing (as
## root, or with password-less sudo). Elsewhere the browser tests are skipped, with a note.
browser: | compiler
	@if [ -x $(CHROMIUM) ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "NOTE: $(CHROMIUM) is missing and there is no apt-get: the browser tests" \
		     "(pytest -m e2e) will be skipped; install Chromium at $(CHROMIUM) to run them."; \
	elif [ "$$(id -u)" -eq 0 ]; then \
		echo "Installing Debian's chromium for the browser tests ..."; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
			</dev/null && test -x $(CHROMIUM); \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		echo "Installing Debian's chromium for the browser tests (sudo) ..."; \
		sudo -n apt-get update -q && sudo -n env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q chromium </dev/null && test -x $(CHROMIUM); \
	else \
		echo "NOTE: $(CHROMIUM) is missing and cannot be installed without root: the browser" \
		     "tests (pytest -m e2e) will be skipped. Install it with: sudo apt-get install chromium"; \
	fi

## Run the whole test suite, the browser tests included (`pytest -m e2e` runs only those,
## `pytest -m "not e2e"` all others), on TEST_PROCESSES processes (pytest-xdist; each test
## file runs whole in one of them): by default one per core this process may use, at most
## 4; TEST_PROCESSES=0 runs the suite in this process alone.
TEST_PROCESSES ?= auto
test: test-deps kernels bytecode browser lint
	$(PY) -m pytest -n $(or $(TEST_PROCESSES),auto) --maxprocesses 4 --dist loadfile

LINT_PATHS := fsengine dashboard app.py tests benchmarks studies docs/conf.py docs/_ext

## ruff's lint rules and its formatting check (configured in pyproject.toml); both run, and
## either one failing fails the target.
lint: test-deps
	@status=0; \
	$(VENV)/bin/ruff check $(LINT_PATHS) || status=1; \
	$(VENV)/bin/ruff format --check $(LINT_PATHS) || status=1; \
	exit $$status

## The documentation site, built from the sources into docs/_build/html (open its
## index.html): the Markdown pages of docs/, one API page per namespace from the
## docstrings, the speed page from benchmarks/results/ (what `make bench` recorded).
## Warnings are errors, as in the test that builds it.
docs: test-deps
	$(PY) -m sphinx -b html -E -W --keep-going -q docs docs/_build/html
	@echo "docs/_build/html/index.html"

$(VENV)/.bench-installed: requirements-bench.txt $(VENV)/.runtime-installed
	$(PIP) install -q -r requirements-bench.txt
	touch $@

## What a user waits for, from outside the process (cold and warm caches); time the
## selectors and rankers against straightforward implementations and the
## scikit-learn / skrebate baselines (medians, ratios); measure the loader's peak memory;
## the real data sets and the N series; a 5-data-set x 13-method x 20-split study serially
## and on a local Dask cluster (and Dask's cost per task); the Sweep page in Chromium; the
## dashboard's memory on the 20,000 x 3,000 single-cell file (load, stream, compare, genes).
bench: $(VENV)/.bench-installed test-deps kernels bytecode browser
	$(PY) benchmarks/bench_startup.py
	$(PY) benchmarks/bench_kofsd.py
	$(PY) benchmarks/bench_online.py
	$(PY) benchmarks/bench_osfs.py
	$(PY) benchmarks/bench_alpha_saola.py
	$(PY) benchmarks/bench_zhou_rhofs.py
	$(PY) benchmarks/bench_roughset.py
	$(PY) benchmarks/bench_infotheo.py
	$(PY) benchmarks/bench_grafting.py
	$(PY) benchmarks/bench_rankers.py
	$(PY) benchmarks/bench_memory.py
	$(PY) benchmarks/bench_formats.py
	$(PY) benchmarks/bench_sparse.py
	$(PY) benchmarks/bench_real.py
	$(PY) benchmarks/bench_study.py
	$(PY) benchmarks/bench_sweep_browser.py
	$(PY) benchmarks/bench_dashboard_browser.py
	$(PY) benchmarks/bench_dashboard_memory.py
	$(PY) benchmarks/bench_many_users.py
	$(PY) benchmarks/bench_singlecell.py
	$(PY) benchmarks/bench_dask.py

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts build dist *.egg-info docs/_build docs/api/generated docs/api/fsengine*.rst
