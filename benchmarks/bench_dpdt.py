"""DPDT speed: odtlab's numba DPDT against the authors' pure-Python timings, a pure-Python DPDT run here, and CART.

Run: ``cd /work/main && .venv/bin/python benchmarks/bench_dpdt.py [--repeats 7] [--quick] [--json]``
(``--quick``: 3 repeats and no record-level overheads, as ``make bench`` runs it).

Per set and depth (candidates (8, 3), alpha = 0, as the issue's table):

* ``dpdt_s``: seconds of ``DPDTClassifier(...).fit`` (validation, search, tree), the minimum over ``--repeats``
  runs after one warm-up run (so numba compilation is excluded), and ``kernel_s``, the part spent in the kernel.
  Times are CPU seconds of this process (``time.process_time``; ``dpdt_wall_s`` is wall-clock): on a shared,
  loaded machine wall-clock mostly measures the wait for a core;
* ``paper_s`` and ``speedup_vs_paper``: the authors' pure-Python DPDT timing quoted in the issue, over ours;
* ``python_s`` and ``speedup_vs_python``: a pure-Python DPDT run in this process (the paper's Algorithm 1 with
  scikit-learn's ``DecisionTreeClassifier(max_leaf_nodes=B)`` as split generator), over ours: a same-machine
  ratio, which does not depend on how loaded the machine is;
* ``cart_s`` and ``dpdt_over_cart``: odtlab's CART at the same depth, and time(DPDT) / time(CART); the same
  for scikit-learn's ``DecisionTreeClassifier`` (``sklearn_cart_s``, ``dpdt_over_sklearn_cart``);
* train accuracies of both DPDTs and the paper's; ``candidates`` (candidate splits backed up) of both DPDTs, and
  ``operations`` in the paper's unit (nodes of the inner CART trees, :mod:`odtlab.solvers.dpdt`);
* the record-level costs (summary, full) against level none.
"""
import argparse
import json
import time

import numpy as np
from sklearn import datasets as skd
from sklearn.tree import DecisionTreeClassifier

from odtlab.search import Search
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.dpdt import DPDTClassifier, DPDTSolver

CASES = [  # (set, depth, the authors' seconds and train accuracy from the issue)
    ("breast_cancer", 3, 0.12, 0.9824),
    ("wine", 3, 0.06, 0.9944),
    ("digits", 3, 0.21, 0.5554),
    ("digits", 5, 0.64, 0.8386),
]
CANDIDATES = (8, 3)


def python_dpdt(X, y, depth, candidates):
    """DPDT in pure Python (Algorithm 1, alpha = 0): scikit-learn's best-first CART generates the candidates,
    recursion builds the MDP depth first and backs up Q = p_l V_l + p_r V_r. Returns (train accuracy, candidates)."""
    K = int(y.max()) + 1
    ops = 0

    def solve(rows, d):
        nonlocal ops
        counts = np.bincount(y[rows], minlength=K)
        k = int(counts.argmax())
        best_v, best_tree = counts[k] / rows.size - 1.0, k
        if best_v < 0 and d < depth:
            budget = candidates[d] if d < len(candidates) else 2
            t = DecisionTreeClassifier(max_leaf_nodes=max(2, budget), random_state=0).fit(X[rows], y[rows]).tree_
            for node in range(t.node_count):
                if t.children_left[node] < 0:
                    continue
                f, thr = t.feature[node], t.threshold[node]
                go = X[rows, f] <= thr
                left, right = rows[go], rows[~go]
                if left.size == 0 or right.size == 0:
                    continue
                ops += 1
                v_left, t_left = solve(left, d + 1)
                v_right, t_right = solve(right, d + 1)
                q = (left.size * v_left + right.size * v_right) / rows.size
                if q > best_v:
                    best_v, best_tree = q, (f, thr, t_left, t_right)
        return best_v, best_tree

    def predict(tree, x):
        while isinstance(tree, tuple):
            f, thr, left, right = tree
            tree = left if x[f] <= thr else right
        return tree

    _, tree = solve(np.arange(len(y)), 0)
    return float(np.mean([predict(tree, x) == c for x, c in zip(X, y)])), ops


def best_time(fn, repeats, clock=time.process_time):
    fn()  # warm-up: compilation, caches
    times = []
    for _ in range(repeats):
        t0 = clock()
        out = fn()
        times.append(clock() - t0)
    return min(times), out


def kernel_seconds(X, y, depth, level, repeats):
    """Minimum kernel time of a whole search at one record level."""
    def run():
        search = Search(DPDTSolver(X, y, max_depth=depth, candidates=CANDIDATES), record=level)
        return search.run().stats["seconds"]
    run()
    return min(run() for _ in range(repeats))


def bench(repeats=7, levels=True):
    rows = []
    for name, depth, paper_s, paper_acc in CASES:
        X, y = getattr(skd, f"load_{name}")(return_X_y=True)
        def fit():
            return DPDTClassifier(max_depth=depth, candidates=CANDIDATES, record="none").fit(X, y)

        dpdt_s, est = best_time(fit, repeats)
        dpdt_wall_s, _ = best_time(fit, repeats, time.perf_counter)
        cart_s, _ = best_time(lambda: CARTClassifier(max_depth=depth, record="none").fit(X, y), repeats)
        sk_s, _ = best_time(lambda: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y), repeats)
        python_s, (python_acc, python_ops) = best_time(lambda: python_dpdt(X, y, depth, CANDIDATES),
                                                       max(1, repeats // 3))
        levels_s = [kernel_seconds(X, y, depth, level, repeats) for level in (("none", "summary", "full") if levels
                                                                               else ("none",))]
        none, summary, full = levels_s if levels else (levels_s[0], np.nan, np.nan)
        stats = est.result_.stats
        rows.append({
            "set": name, "depth": depth, "n": X.shape[0], "p": X.shape[1],
            "dpdt_s": dpdt_s, "dpdt_wall_s": dpdt_wall_s, "kernel_s": none, "paper_s": paper_s,
            "speedup_vs_paper": paper_s / dpdt_s,
            "python_s": python_s, "speedup_vs_python": python_s / dpdt_s,
            "cart_s": cart_s, "dpdt_over_cart": dpdt_s / cart_s, "sklearn_cart_s": sk_s,
            "dpdt_over_sklearn_cart": dpdt_s / sk_s,
            "accuracy": est.score(X, y), "python_accuracy": python_acc, "paper_accuracy": paper_acc,
            "operations": stats["operations"], "candidates": stats["candidates"], "python_candidates": python_ops,
            "states": stats["states"],
            "summary_overhead": summary / none - 1.0, "full_overhead": full / none - 1.0,
        })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 repeats, no record-level overheads")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = bench(3 if args.quick else args.repeats, levels=not args.quick)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    head = (f"{'set':<14}{'D':>2} {'DPDT ms':>8} {'wall':>7} {'kernel':>7} {'paper':>6} {'x paper':>8} {'python':>7} "
            f"{'x python':>9} {'CART ms':>8} {'DPDT/CART':>10} {'/sklearn':>9} {'acc':>7} {'py acc':>7} {'paper':>7} "
            f"{'cands':>5} {'py':>4} {'ops':>5} {'summary':>8} {'full':>6}")
    print(head)
    for r in rows:
        print(f"{r['set']:<14}{r['depth']:>2} {1e3 * r['dpdt_s']:8.2f} {1e3 * r['dpdt_wall_s']:7.2f} "
              f"{1e3 * r['kernel_s']:7.2f} "
              f"{r['paper_s']:6.2f} {r['speedup_vs_paper']:8.1f} {r['python_s']:7.3f} {r['speedup_vs_python']:9.1f} "
              f"{1e3 * r['cart_s']:8.2f} {r['dpdt_over_cart']:10.1f} {r['dpdt_over_sklearn_cart']:9.1f} "
              f"{r['accuracy']:7.4f} "
              f"{r['python_accuracy']:7.4f} {r['paper_accuracy']:7.4f} {r['candidates']:5d} "
              f"{r['python_candidates']:4d} "
              f"{r['operations']:5d} {r['summary_overhead']:8.1%} {r['full_overhead']:6.1%}")


if __name__ == "__main__":
    main()
