"""Quant-BnB (odtlab) against pycontree's ConTree on the quantbnb/ classification sets, depths 2, 3 and 4.

    ODTLAB_DATA=/path/to/data .venv/bin/python benchmarks/bench_quantbnb.py [--depth 2 3 4] [--repeats 3]
        [--sets bank,rice|none] [--initial greedy|cart|leaf] [--levels] [--noisy-xor] [--limit SECONDS]

Compiles every kernel first (a warm-up fit), then for each set and depth times a full ``fit`` of
``QuantBnBClassifier(record="none")`` (input checks, data preparation, the initial tree, the search)
and of ``ConTree(max_depth=d)``, keeping the best of ``--repeats`` runs of each; the two alternate
run by run, so a change in the machine's load hits both. Times are CPU seconds of this process (``time.process_time``: both solvers run in it, and CPU time leaves out the waits of a
loaded machine); wall seconds are printed too. The table has the ratio odtlab / ConTree, both
training losses, Quant-BnB's iterations (tuples processed) and rounds (iterations of Algorithm 1),
and the peak memory: the search state (``peak_memory`` of the result) and the growth of the process's
resident set. ``--initial cart`` / ``leaf`` starts from the CART tree / a single leaf instead of the
greedy tree; ``--levels`` also times the record levels none / summary / full (level none has no event
code compiled in). ``--noisy-xor`` adds the DPDT paper's XOR (``gen/xor-dpdt``: 10^4 points uniform on the unit
square, a 2 x 2 checkerboard) with 10 % of its labels flipped (the flips drawn by ``default_rng(3)``, as in
tests/test_peers_quantbnb.py), the row ``xor-noisy``; ``--sets none`` leaves out the quantbnb/ sets.

Depth 4 (``--depth 4``, not in the paper: ``odtlab.solvers._quantbnb4``) takes minutes on some sets: ``--limit``
gives both solvers a time limit (seconds; ConTree's is wall time, odtlab's the search's own), the ``done`` column
says which finished (``both``, ``odtlab``, ``CT`` or ``none``: ConTree finished when it returned before its
limit), and the median ratio is over the sets both finished.
"""
import argparse
import resource
import time
import warnings

import numpy as np

from odtlab import datasets
from odtlab.solvers.quantbnb import INITIAL, QuantBnBClassifier


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timed(fn):
    """(CPU seconds, wall seconds, result) of one call."""
    start, start_wall = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - start, time.perf_counter() - start_wall, out


def best_of(repeats, *fns):
    """Per function (best CPU seconds, best wall seconds, last result) over ``repeats`` rounds that call
    the functions in turn, so that both sides of a ratio see the same load."""
    best = [[np.inf, np.inf, None] for _ in fns]
    for _ in range(repeats):
        for slot, fn in zip(best, fns):
            cpu, wall, slot[2] = timed(fn)
            slot[0] = min(slot[0], cpu)
            slot[1] = min(slot[1], wall)
    return best


def median(ratios):
    return f"{np.median(ratios):.2f}" if ratios else "-"


NOISY_XOR = "xor-noisy"


def problem(name):
    """(X, y) of a quantbnb/ set or of the noisy XOR (:data:`NOISY_XOR`, see the module docstring)."""
    if name == NOISY_XOR:
        data = datasets.load("gen/xor-dpdt", n=10_000)
        y = data.y.copy()
        flip = np.random.default_rng(3).random(len(y)) < 0.1
        y[flip] = 1 - y[flip]
        return np.asarray(data.X, float), y
    data = datasets.load(name)
    return np.asarray(data.X, float), np.asarray(data.y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sets", default=None, help="comma-separated names (default: every available set)")
    parser.add_argument("--contree-limit", type=float, default=600.0)
    parser.add_argument("--limit", type=float, default=None,
                        help="time limit of both solvers, seconds (replaces --contree-limit)")
    parser.add_argument("--initial", default="greedy", choices=INITIAL, help="first incumbent")
    parser.add_argument("--levels", action="store_true", help="also time the record levels")
    parser.add_argument("--noisy-xor", action="store_true", help="also the XOR with 10%% of its labels flipped")
    args = parser.parse_args()
    from pycontree import ConTree
    contree_limit = args.limit if args.limit is not None else args.contree_limit

    names = ([] if args.sets == "none" else [f"quantbnb/{s}" for s in args.sets.split(",")] if args.sets else
             [n for n in datasets.names("quantbnb", available_only=True)
              if datasets.info(n)["task"] == "classification"]) + ([NOISY_XOR] if args.noisy_xor else [])
    warm_X, warm_y = problem(names[0])
    for depth in args.depth:  # compile (or load from the cache) every kernel before timing
        for level in ("none", "summary", "full"):
            QuantBnBClassifier(max_depth=depth, record=level).fit(warm_X[:60], warm_y[:60])
    header = (f"{'set':10s} {'n':>6s} {'p':>3s} {'K':>2s} {'d':>2s} {'odtlab s':>9s} {'ConTree s':>9s} "
              f"{'ratio':>6s} {'wall':>7s} {'wall CT':>7s} {'loss':>6s} {'CT loss':>7s} {'iters':>6s} "
              f"{'rounds':>6s} {'state MB':>8s} {'RSS+MB':>7s} {'done':>6s}")
    ratios = {d: [] for d in args.depth}
    for depth in args.depth:
        print(header)
        for name in names:
            X, y = problem(name)
            before, grown = rss_mb(), []

            def ours_fit():
                fitted = QuantBnBClassifier(max_depth=depth, record="none", initial=args.initial,
                                            time_limit=args.limit).fit(X, y)
                grown.append(rss_mb() - before)  # the first: odtlab's peak resident set, before ConTree runs on X
                return fitted

            (ours_t, ours_w, ours), (theirs_t, theirs_w, theirs) = best_of(
                args.repeats, ours_fit, lambda: ConTree(max_depth=depth, time_limit=contree_limit).fit(X, y))
            their_loss = int(np.count_nonzero(theirs.predict(X) != y))
            res = ours.result_
            ratio = ours_t / theirs_t
            done = {(True, True): "both", (True, False): "odtlab", (False, True): "CT", (False, False): "none"}[
                res.optimal, theirs_w < contree_limit]
            if done == "both":
                ratios[depth].append(ratio)
            print(f"{name.rpartition('/')[2]:10s} {X.shape[0]:6d} {X.shape[1]:3d} {len(np.unique(y)):2d} {depth:2d} "
                  f"{ours_t:9.3f} {theirs_t:9.3f} {ratio:6.2f} {ours_w:7.3f} {theirs_w:7.3f} "
                  f"{res.objective:6.0f} {their_loss:7d} {res.stats['iterations']:6d} {res.stats['rounds']:6d} "
                  f"{res.stats['peak_memory'] / 2**20:8.2f} {grown[0]:7.1f} {done:>6s}", flush=True)
            if args.levels:
                levels = ("none", "summary", "full")
                times = best_of(args.repeats, *[lambda level=level: QuantBnBClassifier(
                    max_depth=depth, record=level, initial=args.initial).fit(X, y) for level in levels])
                times = {level: t[0] for level, t in zip(levels, times)}
                print("    record levels (CPU): " + ", ".join(f"{k} {v:.3f} s" for k, v in times.items()))
        print(f"depth {depth}: median ratio {median(ratios[depth])} over the {len(ratios[depth])} sets both finished\n")
    every = [r for d in args.depth for r in ratios[d]]
    print(f"all depths: median ratio {median(every)} over {len(every)} runs")


if __name__ == "__main__":
    warnings.simplefilter("ignore", UserWarning)
    main()
