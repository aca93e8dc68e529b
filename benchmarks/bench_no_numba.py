"""How slow odtlab is without numba: the plain-Python kernels against the compiled ones, in one run.

Four problems (CART on sklearn/breast_cancer at depth 3, MurTree on dl/hepatitis at depths 2 and 3, Branches on
branches/monk1-o with lambda = 0.01), each fitted with ``record="none"``. The compiled side runs in this
process after an untimed warm-up fit (so compilation is not timed); the plain-Python side runs in a child
process where numba cannot be imported (tools/no_numba first on PYTHONPATH, as in tests/test_no_numba.py).
Both report the fastest of ``--repeat`` fits in CPU seconds and the objective, which must agree; the script
prints time(plain Python) / time(compiled) per problem.

``--chapters 00 01`` also executes those chapters (nbclient, as ``notebooks/build.py`` does) in a child
process with and without numba, and prints each one's wall seconds (the compiled run after one untimed run
that fills numba's cache; ``inf``: over ``--timeout`` seconds; ``nan``: the chapter failed, with its error).

Run: ``ODTLAB_DATA=/path/to/data .venv/bin/python benchmarks/bench_no_numba.py [--repeat 3] [--chapters 00]``
"""
import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import time

ROOT = Path(__file__).resolve().parents[1]
NO_NUMBA = ROOT / "tools" / "no_numba"

PROBLEMS = {
    "cart": ("sklearn/breast_cancer", "odtlab.solvers.cart", "CARTClassifier", {"max_depth": 3}),
    "murtree-d2": ("dl/hepatitis", "odtlab.solvers.murtree", "MurTreeClassifier", {"max_depth": 2}),
    "murtree-d3": ("dl/hepatitis", "odtlab.solvers.murtree", "MurTreeClassifier", {"max_depth": 3}),
    "branches": ("branches/monk1-o", "odtlab.solvers.branches", "BranchesClassifier", {"lam": 0.01}),
}


def fit(problem, repeat):
    """``{"seconds": fastest CPU seconds of repeat fits, "objective": the result's objective}``."""
    import importlib

    from odtlab import datasets

    dataset, module, name, params = PROBLEMS[problem]
    data = datasets.load(dataset)
    cls = getattr(importlib.import_module(module), name)
    best, objective = float("inf"), None
    for _ in range(repeat):
        est = cls(**params, record="none")
        t = time.process_time()
        est.fit(data.X, data.y)
        best = min(best, time.process_time() - t)
        objective = float(est.result_.objective)
    return {"seconds": best, "objective": objective}


def child_env(without_numba):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    paths = [str(NO_NUMBA)] if without_numba else []
    env["PYTHONPATH"] = os.pathsep.join(paths + [str(ROOT)])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def fit_without_numba(problem, repeat):
    out = subprocess.run([sys.executable, __file__, "--child", problem, "--repeat", str(repeat)], cwd=ROOT,
                         env=child_env(True), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def chapter_seconds(chapter, without_numba, timeout):
    """Wall seconds to execute one chapter with nbclient in a fresh kernel (numba blocked or not); inf when it
    takes more than ``timeout`` seconds."""
    (path,) = sorted((ROOT / "notebooks").glob(f"{chapter}_*.ipynb"))
    code = ("import sys, nbformat, nbclient; nb = nbformat.read(sys.argv[1], as_version=4); "
            "nbclient.NotebookClient(nb, timeout=1800, kernel_name='python3', "
            "resources={'metadata': {'path': sys.argv[2]}}).execute()")
    t = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code, str(path), str(path.parent)], cwd=ROOT,
                       env=child_env(without_numba), check=True, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf")
    except subprocess.CalledProcessError as exc:  # a failing chapter has no time; say why and go on
        print(f"chapter {chapter} failed ({'without numba' if without_numba else 'compiled'}): "
              f"{exc.stderr.strip().splitlines()[-1] if exc.stderr.strip() else exc}")
        return float("nan")
    return time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat (make bench)")
    parser.add_argument("--chapters", nargs="*", default=[], metavar="NN")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed per chapter run")
    parser.add_argument("--child", choices=sorted(PROBLEMS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    if args.child:
        from odtlab.core._jit import COMPILED

        assert not COMPILED and "numba" not in sys.modules, "the child must run without numba"
        print(json.dumps(fit(args.child, repeat)))
        return
    from odtlab.core._jit import COMPILED

    assert COMPILED, "the compiled side needs numba (and NUMBA_DISABLE_JIT unset)"
    print(f"{'problem':<52} {'compiled s':>11} {'plain s':>9} {'ratio':>8}")
    for problem, (dataset, _, name, params) in PROBLEMS.items():
        fit(problem, 1)  # compile (or load numba's cache) outside the clock
        compiled = fit(problem, repeat)
        plain = fit_without_numba(problem, repeat)
        assert plain["objective"] == compiled["objective"], (problem, plain, compiled)
        label = f"{name} {dataset} " + " ".join(f"{k}={v}" for k, v in params.items())
        print(f"{label:<52} {compiled['seconds']:>11.4f} {plain['seconds']:>9.3f} "
              f"{plain['seconds'] / compiled['seconds']:>8.0f}")
    for chapter in args.chapters:
        chapter_seconds(chapter, False, args.timeout)  # fills numba's cache for this chapter's kernels
        compiled = chapter_seconds(chapter, False, args.timeout)
        plain = chapter_seconds(chapter, True, args.timeout)
        print(f"chapter {chapter}: {compiled:.1f} s compiled (cache filled), {plain:.1f} s without numba (wall)")


if __name__ == "__main__":
    main()
