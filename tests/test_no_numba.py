"""odtlab without numba (issue 17, item 4): the kernels run as plain Python where numba cannot install.

The no-numba interpreter is the shared environment's own Python with an import hook (a ``sitecustomize``
first on ``PYTHONPATH``, tools/no_numba) that makes ``import numba`` and ``import llvmlite`` raise ImportError, as
they do where numba is not installed. For odtlab's code this is the same test as a fresh virtual
environment without numba: odtlab reaches numba only through ``import numba`` in odtlab.core._jit, and the
hook fails exactly that import (the children that run odtlab in-process assert that numba and llvmlite
never entered ``sys.modules``). What it does not test is pip's resolution of the dependency marker; the
last test evaluates the marker itself for Pyodide's platform. A real venv would cost a
minute of pip installs of the other dependencies, and nothing more would be checked.

In the child run: the shim's calling forms, one golden case of every estimator the solver registry
reaches (its tree, events, bounds and stats equal to this process's compiled run) and chapter 00 under
nbval (its checked outputs equal to the stored ones, which the compiled kernels produced).
Marked ``jit_only``: the comparison needs compiled kernels in this process, so the plain-Python coverage
run leaves it out and ``make test`` runs it once.
"""
import json
import os
from pathlib import Path
import subprocess
import sys
import textwrap
import tomllib

from packaging.markers import default_environment
from packaging.requirements import Requirement
import pytest

from golden import cases
from odtlab import solvers

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.jit_only

BLOCKER = ROOT / "tools" / "no_numba"  # its sitecustomize makes numba and llvmlite unimportable

NO_NUMBA_LOADED = "import sys; assert not [m for m in sys.modules if m.partition('.')[0] in ('numba', 'llvmlite')]"


def run_without_numba(*args, timeout=240):
    """Run the shared Python with ``args`` where numba cannot be imported; return the completed process."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK")}
    env["PYTHONPATH"] = os.pathsep.join([str(BLOCKER), str(ROOT), str(ROOT / "tests")])
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_numba_is_blocked_and_the_shim_returns_every_function_unchanged():
    proc = run_without_numba("-c", textwrap.dedent(f"""
        import pytest
        with pytest.raises(ImportError):
            import numba
        with pytest.raises(ImportError):
            import llvmlite
        from odtlab.core._jit import COMPILED, intrinsic, njit, overload, types
        assert COMPILED is False

        def f(x):
            return x + 1

        def make(k):
            @njit(cache=True, inline="always")
            def add_k(x):
                return x + k
            return add_k

        for wrapped in (njit(f), njit(f, cache=True), njit()(f), njit(inline="always")(f), njit(cache=False)(f),
                        njit("int64(int64)")(f), njit(["int64(int64)"], cache=True)(f), intrinsic(f),
                        overload(len)(f), overload(len, inline="always")(f)):
            assert wrapped is f
        assert make(2)(1) == 3 and make(5)(1) == 6
        with pytest.raises(AttributeError, match="needs numba"):
            types.Float
        import odtlab.core.branches, odtlab.core.murtree
        assert odtlab.core.branches.popcount is odtlab.core.branches._popcount_swar
        from odtlab import warmup
        from odtlab.cli import main
        assert main(["warmup"]) == 0 and warmup.warm() == 0.0
        {NO_NUMBA_LOADED}
        """))
    assert "nothing to compile" in proc.stdout


def test_njit_keeps_every_calling_form_with_numba():
    """``njit(f, cache=True)`` was a TypeError (cache given twice) when njit was a partial with cache=True."""
    from odtlab.core._jit import COMPILED, njit

    def f(x):
        return x + 1

    assert COMPILED
    for wrapped in (njit(f), njit(f, cache=True), njit(cache=False)(f), njit(inline="always")(f)):
        assert wrapped.py_func is f and wrapped(1) == 2


def _first_cases():
    """Case 0 of every estimator the registry reaches (the defaults, on a small data set)."""
    return [(estimator, 0) for estimator in sorted(solvers.estimators())]


def test_every_estimator_finds_the_compiled_kernels_tree_without_numba():
    chosen = _first_cases()
    assert chosen and sorted(e for e, _ in chosen) == sorted(cases.CASES)  # one per registered estimator
    proc = run_without_numba("-c", textwrap.dedent(f"""
        import json
        from golden import cases
        from odtlab.core._jit import COMPILED
        assert not COMPILED
        print(json.dumps({{e: cases.run_case(e, i, "summary") for e, i in {chosen!r}}}))
        {NO_NUMBA_LOADED}
        """))
    plain = json.loads(proc.stdout)
    for estimator, index in chosen:
        compiled = cases.run_case(estimator, index, "summary")
        for key in ("result", "tree", "events", "kinds"):
            assert plain[estimator][key] == compiled[key], f"{cases.case_id(estimator, index)}: {key} differ"


def test_chapter_00_runs_without_numba():
    """The first chapter, executed with plain-Python kernels, shows the outputs stored from the compiled run
    (the same command as ``make test-notebooks``; the kernel inherits the blocked import)."""
    run_without_numba("-m", "pytest", "notebooks/00_start_here.ipynb", "-q", "-p", "no:python",
                      "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env",
                      "--nbval-sanitize-with", "notebooks/nbval_sanitize.cfg")


def _numba_requirement():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (numba,) = [Requirement(d) for d in deps if Requirement(d).name == "numba"]
    return numba


def test_the_numba_dependency_is_left_out_on_pyodide_only():
    """Pyodide reports sys_platform 'emscripten', platform_system 'Emscripten', platform_machine 'wasm32'."""
    marker = _numba_requirement().marker
    assert marker is not None
    pyodide = dict(default_environment(), sys_platform="emscripten", platform_system="Emscripten",
                   platform_machine="wasm32")
    assert not marker.evaluate(pyodide)
    assert marker.evaluate()  # this machine
    for system, platform in (("Linux", "linux"), ("Darwin", "darwin"), ("Windows", "win32")):
        assert marker.evaluate(dict(default_environment(), sys_platform=platform, platform_system=system))
