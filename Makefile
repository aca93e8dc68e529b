# odtlab: everything a fresh machine with only Python needs.
#   make lab    create .venv, install odtlab, open JupyterLab on the first chapter
#   make tour   the same set-up, then run every chapter headless and report
#   make test   create .venv, install with the test and peer extras, run every test and every notebook
#   make student  the chapters without their exercise solutions, in build/student (not committed)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SHARED_DATA := $(abspath ../shared/data)

export ODTLAB_DATA ?= $(SHARED_DATA)
export NUMBA_CACHE_DIR ?= $(abspath .numba-cache)
export PYTHONHASHSEED := 0
export SOURCE_DATE_EPOCH := 0

.PHONY: lab tour test test-unit test-coverage test-notebooks notebooks student bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	touch $@

# tools/install_browser.sh: Debian's Chromium and two JS files for the browser tests (it says loudly
# what it cannot install; tests/test_browser.py then fails in CI rather than skipping).
$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[test,peers]"
	-bash tools/install_browser.sh $(PY)
	touch $@ $(VENV)/.installed-base

# lab goes on when the download fails (the chapters without benchmark data still work); tour stops.
lab: $(VENV)/.installed-base
	-$(VENV)/bin/odtlab data fetch --chapters --notebooks notebooks
	$(VENV)/bin/jupyter lab notebooks/00_start_here.ipynb

tour: $(VENV)/.installed-base
	$(VENV)/bin/odtlab data fetch --chapters --notebooks notebooks
	$(VENV)/bin/odtlab tour

test: $(VENV)/.installed-test
	$(MAKE) test-unit test-coverage test-notebooks

# Tests draw with Agg; the chapters keep the kernel's inline backend (ipykernel sets it unless MPLBACKEND is set).
test-unit:
	MPLBACKEND=Agg $(PY) -m pytest tests -q -p no:cacheprovider

# The kernels again as plain Python, under bounds checks, to measure what the tests cover in odtlab/core.
test-coverage:
	MPLBACKEND=Agg NUMBA_DISABLE_JIT=1 NUMBA_BOUNDSCHECK=1 $(PY) -m pytest tests -q -p no:cacheprovider \
		-m "not slow and not peers and not jit_only" --cov=odtlab.core --cov-report=term

test-notebooks:
	$(PY) -m pytest notebooks -q -p no:python -p no:cacheprovider --nbval-lax --nbval-current-env \
		--nbval-sanitize-with notebooks/nbval_sanitize.cfg

# Rebuild the chapters from notebooks/src/*.py and store their executed outputs.
notebooks: $(VENV)/.installed-test
	$(PY) notebooks/build.py

# The student build: each executed chapter without its cells tagged "solution" and without outputs.
student: $(VENV)/.installed-test
	$(PY) notebooks/build.py --student build/student

bench: $(VENV)/.installed-test
	for b in benchmarks/bench_*.py; do $(PY) $$b --quick || exit 1; done

clean:
	rm -rf $(VENV) .numba-cache .pytest_cache .coverage
