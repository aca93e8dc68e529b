"""Branches in odtlab against the authors' pure-Python code and against GOSDT (C++), same run.

For each ``branches/`` set of the paper (Table 5 lambda) this times a solve, ``Search(BranchesSolver(X, y,
lam), record="none").run()`` with the solver's input checks and the returned tree (the authors' timing
covers their ``solve``), and the estimator's ``BranchesClassifier(lam, record="none").fit(X, y)``, which adds
scikit-learn's validation (about a millisecond). Each is the fastest of ``--repeat`` runs; the numba kernels
are compiled, or loaded from numba's cache, on XOR first, so compilation is not timed. It checks the
optimum against the paper's value and prints the time ratio of the solve against the authors' code
(``Chaoukia/branches``, pure Python, times measured on this sandbox, brief peers_and_data §1.1) and, on the
one-hot sets, against gosdt 1.0.4
(GOSDT objective = misclassification rate + lambda * leaves, so H_lambda = 1 - objective + lambda on binary
features; only ``fit`` is called). Wall-clock seconds and process CPU seconds are both printed: on a
shared machine the wall time of either side moves with the load, the CPU time much less.

``--levels`` adds the cost of the record levels "summary" and "full" against "none" (level none is compiled
without any event code).

Run: ``ODTLAB_DATA=../shared/data .venv/bin/python benchmarks/bench_branches.py [--quick] [--repeat 5]
[--gosdt-time-limit 300] [--no-gosdt] [--levels]``
"""
import argparse
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from odtlab import datasets
from odtlab.search import Search
from odtlab.solvers.branches import BranchesClassifier, BranchesSolver

# name, lambda, optimum (paper / brief §5.8, rounded as printed), authors' seconds (peers_and_data §1.1)
SETS = [
    ("monk1-o", 0.01, 0.900, 0.012), ("monk2-o", 0.001, 0.955, 0.053), ("monk3-o", 0.001, 0.987, 0.014),
    ("tic-tac-toe-o", 0.005, 0.77304, 0.49), ("car-eval-o", 0.005, 0.81252, 0.056),
    ("nursery-o", 0.01, 0.82213, 0.21), ("mushroom-o", 0.01, 0.97523, 0.10), ("zoo-o", 0.001, 0.993, 0.52),
    ("lymph-o", 0.01, 0.85270, 10.4), ("balance-o", 0.01, 0.6716, 0.010),
    ("monk1-l", 0.01, 0.930, 0.015), ("monk1-f", 0.001, 0.983, 0.29), ("monk2-f", 0.001, 0.933, 3.29),
    ("monk3-f", 0.001, 0.983, 0.37), ("zoo-f", 0.001, 0.992, 2.8), ("tic-tac-toe-f", 0.005, 0.85072, 40.6),
    ("car-eval-f", 0.005, 0.79921, 44.4),
]
QUICK = {"monk1-o", "monk2-o", "monk3-o", "tic-tac-toe-o", "car-eval-o", "nursery-o", "mushroom-o", "zoo-o",
         "lymph-o", "balance-o", "monk1-l", "monk3-f", "monk2-f"}
QUICK_GOSDT = {"monk1-l"}


def warm_up():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    for record in ("none", "summary", "full"):
        BranchesClassifier(lam=0.1, record=record).fit(X, y)


def fastest(run, repeat):
    """(wall seconds, cpu seconds, last result) of the fastest of ``repeat`` calls."""
    best_wall = best_cpu = np.inf
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = run()
        best_wall = min(best_wall, time.perf_counter() - w)
        best_cpu = min(best_cpu, time.process_time() - c)
    return best_wall, best_cpu, out


def solve(X, y, lam, n_categories, record="none"):
    result = Search(BranchesSolver(X, y, lam=lam, n_categories=n_categories), record=record).run()
    result.tree  # noqa: B018 (the tree is part of the answer)
    return result


def fit(X, y, lam, record="none"):
    return BranchesClassifier(lam=lam, record=record).fit(X, y)


def time_gosdt(X, y, lam, time_limit):
    from gosdt import GOSDTClassifier

    clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, time_limit=int(time_limit))
    w, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(pd.DataFrame(X), y)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    converged = str(clf.result_.status).endswith("CONVERGED")
    return wall, cpu, 1.0 - clf.result_.upperbound + lam, converged, clf.result_.n_iterations


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the sets under a second for the authors' code, "
                        "gosdt on monk1-l only")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-gosdt", action="store_true")
    parser.add_argument("--gosdt-time-limit", type=float, default=300.0)
    parser.add_argument("--levels", action="store_true", help="also time record levels summary and full")
    args = parser.parse_args()

    warm_up()
    gosdt_ok = not args.no_gosdt
    if gosdt_ok:
        try:
            import gosdt  # noqa: F401
        except ImportError:
            gosdt_ok = False
            print("gosdt is not installed: no GOSDT column")
    header = (f"{'dataset':14s} {'H_lambda':>9s} {'ok':>3s} {'iters':>7s} {'evals':>9s} {'memo':>7s} {'MB':>6s} "
              f"{'solve s':>8s} {'cpu s':>8s} {'fit s':>8s} {'authors s':>9s} {'x wall':>6s} {'x cpu':>6s} {'gosdt s':>8s} "
              f"{'gosdt H':>8s} {'x gosdt':>7s}")
    print(header)
    print("-" * len(header))
    speedups, gosdt_ratios = [], []
    for name, lam, optimum, authors in SETS:
        if args.quick and name not in QUICK:
            continue
        data = datasets.load(f"branches/{name}")
        X, y = np.asarray(data.X), np.asarray(data.y)
        wall, cpu, res = fastest(lambda: solve(X, y, lam, data.n_categories), args.repeat)
        fit_wall = fastest(lambda: fit(X, y, lam), args.repeat)[0]
        decimals = len(str(optimum).split(".")[1])
        ok = res.optimal and round(res.objective, decimals) == optimum
        speedup = authors / wall
        speedups.append((speedup, authors / cpu))
        g = ""
        if gosdt_ok and data.kind == "binary" and (not args.quick or name in QUICK_GOSDT):
            g_wall, g_cpu, g_h, converged, _ = time_gosdt(X, y, lam, args.gosdt_time_limit)
            ratio = g_wall / wall
            gosdt_ratios.append(ratio)
            mark = "" if converged else " (TO)"
            g = f" {g_wall:8.3f} {g_h:8.5f} {ratio:7.0f}{mark}"
        print(f"{name:14s} {res.objective:9.5f} {'yes' if ok else 'NO':>3s} {res.stats['iterations']:7d} "
              f"{res.stats['evaluations']:9d} {res.stats['memo_size']:7d} {res.stats['peak_memory'] / 1e6:6.1f} "
              f"{wall:8.4f} {cpu:8.4f} {fit_wall:8.4f} {authors:9.3f} {speedup:6.0f} {authors / cpu:6.0f}{g}",
              flush=True)
    walls, cpus = zip(*speedups)
    print(f"\nspeed-up over the authors' code (their wall time / ours): median {statistics.median(walls):.0f}x, "
          f"min {min(walls):.0f}x; against our CPU time: median {statistics.median(cpus):.0f}x, "
          f"min {min(cpus):.0f}x")
    if gosdt_ratios:
        print(f"gosdt time / odtlab time on the one-hot sets: median {statistics.median(gosdt_ratios):.0f}x, "
              f"min {min(gosdt_ratios):.0f}x (a timed-out gosdt run counts with its time limit)")

    if args.levels:
        print("\nrecord-level cost (wall seconds, fastest of --repeat):")
        for name in ("tic-tac-toe-o", "lymph-o", "monk2-f"):
            lam = next(s[1] for s in SETS if s[0] == name)
            data = datasets.load(f"branches/{name}")
            times = {lvl: fastest(lambda: solve(data.X, data.y, lam, data.n_categories, lvl), args.repeat)[0]
                     for lvl in ("none", "summary", "full")}
            print(f"  {name:14s} none {times['none']:.4f}  summary {times['summary']:.4f} "
                  f"({times['summary'] / times['none']:.2f}x)  full {times['full']:.4f} "
                  f"({times['full'] / times['none']:.2f}x)")


if __name__ == "__main__":
    main()
