# odtlab: everything a fresh machine with only Python needs (run `make help`).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

# Benchmark data: `odtlab data fetch` downloads it into the user cache; ODTLAB_DATA adds a folder that holds it.
export PYTHONHASHSEED := 0
export SOURCE_DATE_EPOCH := 0

# JupyterLab refuses to run as root without --allow-root, and a machine without a display has no browser to open.
JUPYTER_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root) \
	$(if $(or $(DISPLAY),$(WAYLAND_DISPLAY),$(filter Darwin,$(shell uname -s))),,--no-browser)

.DEFAULT_GOAL := help
.PHONY: help lab tour warmup test test-unit test-coverage test-notebooks notebooks student book bench clean

help:
	@echo "make lab      install odtlab with JupyterLab and the peer solvers in $(VENV), fetch the chapters' data,"
	@echo "              compile the kernels in the background, open JupyterLab on the first chapter"
	@echo "make tour     the same set-up, then run every chapter headless, one line per chapter"
	@echo "make warmup   compile every kernel now (once per machine; numba caches it on disk)"
	@echo "make test     install the test extras (Chromium needs root and apt), run every test (the book's too)"
	@echo "              and every chapter, then build the book"
	@echo "make student  the chapters without their exercise solutions, in build/student (not committed)"
	@echo "make book     the executed chapters as a static web site in build/book (open build/book/index.html)"
	@echo "make bench    run each benchmark in its --quick form"
	@echo "make clean    remove $(VENV) and the compiled kernels"
	@echo "After make, run odtlab as $(VENV)/bin/odtlab (or first: source $(VENV)/bin/activate)."

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	touch $@

# tools/install_browser.sh: Debian's Chromium and Playwright for the browser tests (it says loudly what it
# cannot install; tests/test_browser.py and tests/test_book.py then fail in CI rather than skipping).
$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[test,peers]"
	-bash tools/install_browser.sh $(PY)
	touch $@ $(VENV)/.installed-base $(VENV)/.installed-book

# What every chapter needs: JupyterLab (the lab extra) and the peer solvers chapters 09-11 compare with.
$(VENV)/.installed-lab: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[lab,peers]"
	touch $@ $(VENV)/.installed-base

# lab goes on when the download fails (the chapters without benchmark data still work); tour stops.
lab: $(VENV)/.installed-lab
	-$(VENV)/bin/odtlab data fetch --chapters --notebooks notebooks
	@echo "odtlab: compiling the kernels in the background, once per machine (log: $(VENV)/warmup.log)"
	$(VENV)/bin/odtlab warmup > $(VENV)/warmup.log 2>&1 &
	@echo "odtlab: starting JupyterLab; open the URL it prints below (http://localhost:8888/lab?token=...)."
	$(VENV)/bin/jupyter lab $(JUPYTER_FLAGS) notebooks/00_start_here.ipynb

tour: $(VENV)/.installed-lab
	$(VENV)/bin/odtlab data fetch --chapters --notebooks notebooks
	$(VENV)/bin/odtlab warmup
	$(VENV)/bin/odtlab tour notebooks

warmup: $(VENV)/.installed-base
	$(VENV)/bin/odtlab warmup

test: $(VENV)/.installed-test
	$(MAKE) test-unit test-coverage test-notebooks book

# Tests draw with Agg; the chapters keep the kernel's inline backend (ipykernel sets it unless MPLBACKEND is set).
# TEST_WORKERS pytest-xdist processes (each compiles the kernels its tests use, or loads them from the cache).
TEST_WORKERS ?= 2
test-unit:
	MPLBACKEND=Agg $(PY) -m pytest tests -q -p no:cacheprovider -n $(TEST_WORKERS)

# The kernels again as plain Python, under bounds checks, to measure what the tests cover in odtlab/core.
test-coverage:
	MPLBACKEND=Agg NUMBA_DISABLE_JIT=1 NUMBA_BOUNDSCHECK=1 $(PY) -m pytest tests -q -p no:cacheprovider \
		-n $(TEST_WORKERS) -m "not slow and not peers and not jit_only" --cov=odtlab.core --cov-report=term

# Compiled first (faster), and with the compile notice off: a chapter cell whose kernel warmup does not compile
# (the brute-force oracle's) would print a line its stored output, built warm, lacks.
test-notebooks:
	$(VENV)/bin/odtlab warmup
	ODTLAB_COMPILE_NOTICE=0 $(PY) -m pytest notebooks -q -p no:python -p no:cacheprovider --nbval-lax --nbval-current-env \
		--nbval-sanitize-with notebooks/nbval_sanitize.cfg

# Rebuild the chapters from notebooks/src/*.py and store their executed outputs.
notebooks: $(VENV)/.installed-test
	$(PY) notebooks/build.py

# The student build: each executed chapter without its cells tagged "solution" and without outputs.
student: $(VENV)/.installed-test
	$(PY) notebooks/build.py --student build/student

# The book from the stored outputs (no chapter runs): nbconvert and latex2mathml (the book extra).
$(VENV)/.installed-book: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[book]"
	touch $@ $(VENV)/.installed-base

book: $(VENV)/.installed-book
	$(PY) -m odtlab.book --notebooks notebooks --docs docs --out build/book

bench: $(VENV)/.installed-test
	for b in benchmarks/bench_*.py; do $(PY) $$b --quick || exit 1; done

clean:
	rm -rf $(VENV) .numba-cache .pytest_cache .coverage
	find odtlab -name "*.nbi" -delete -o -name "*.nbc" -delete
