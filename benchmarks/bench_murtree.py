"""MurTree in odtlab against pystreed (STreeD, C++ by the MurTree group) on the dl/ benchmark sets.

For every available ``dl/`` data set and depth (default 3 and 4, full trees) this times
``MurTreeClassifier(max_depth=d, record="none").fit(X, y)`` against
``pystreed.STreeDClassifier(max_depth=d).fit(X, y)`` (accuracy task, its defaults) in CPU seconds, alternating
the two ``--repeat`` times (more, up to 100, while a pair takes under 0.5 s in all) and keeping each one's
fastest run. It checks that both reach the same number of misclassifications and prints
time(odtlab) / time(pystreed) per set beside odtlab's memory per fit (``result_.stats``: the search's peak and the
process's peak RSS), with the median and the maximum per depth. Each side gets ``--limit`` seconds per fit (its own
time limit, which both libraries count in wall time); a pair that one does not finish is listed as not finished by
whom and left out of the ratios. The machine's load average is printed before and after. The
numba kernels are compiled (or loaded from numba's cache) on a small problem first, so compilation is not timed.
Both fits include their own input checks.

Also: ``--alone`` (odtlab only: to compare two checkouts, run it with each on PYTHONPATH, alternating),
``--levels`` (the search alone, one kernel call to the end against Search runs recording "none",
"summary" and "full"), ``--ablation`` (each MurTree technique switched off in turn), ``--probing`` (only:
``bound_probing`` on against off, the price of the anytime lower bound) and ``--regression``
(``MurTreeRegressor`` against ``pystreed.STreeDRegressor(optimization_task="regression")`` on sklearn/diabetes
binarised at quantiles and on dl/anneal's features with a synthetic target, squared errors compared).

Run: ``ODTLAB_DATA=/path/to/data .venv/bin/python benchmarks/bench_murtree.py [--depths 3 4] [--repeat 3]``
(depth 5: ``--depths 5 --repeat 1 --limit 600``)
"""
import argparse
import os
import statistics
import time

import numpy as np

from odtlab import datasets
from odtlab.core import events as core
from odtlab.search import Search
from odtlab.solvers.murtree import MurTreeClassifier, MurTreeRegressor, MurTreeSolver


def fit_time(make, X, y):
    """CPU seconds of one fit (both solvers are single-threaded; CPU time is steadier than wall time when the
    machine is shared)."""
    est = make()
    t = time.process_time()
    est.fit(X, y)
    return time.process_time() - t, est


def misclassifications(est, X, y):
    return int(np.count_nonzero(est.predict(X) != y))


def warm_up(records=("none",)):
    data = datasets.load("dl/hepatitis")
    for record in records:
        MurTreeClassifier(max_depth=3, record=record).fit(data.X, data.y)


def alone(names, depths, repeat, options, min_seconds=0.5):
    """odtlab only, fastest of ``repeat`` (more while the runs take under ``min_seconds``): for comparing two
    checkouts of odtlab, one run each, alternating (``PYTHONPATH=checkout python bench_murtree.py --alone``)."""
    total = {d: 0.0 for d in depths}
    for name in names:
        data = datasets.load(name)
        X, y = np.asarray(data.X), np.asarray(data.y)
        for d in depths:
            best, spent, runs = np.inf, 0.0, 0
            while runs < repeat or (spent < min_seconds and runs < 100):
                t, est = fit_time(lambda: MurTreeClassifier(max_depth=d, record="none", **options), X, y)
                best, spent, runs = min(best, t), spent + t, runs + 1
            total[d] += best
            print(f"{name:24s} d={d} errors {misclassifications(est, X, y):5d}  odtlab {best:8.4f}s", flush=True)
    print("total " + ", ".join(f"depth {d}: {total[d]:.3f}s" for d in depths))


def pystreed_finished(est):
    """Whether pystreed proved its tree optimal within its time limit (it keeps no tree when it found none)."""
    return est.is_fitted() and est.fit_result.is_optimal()


def mib(nbytes):
    """Bytes in MiB for the table (n/a when the platform does not report it)."""
    return f"{nbytes / 2**20:7.1f}" if nbytes is not None else "    n/a"


def compare_pair(X, y, d, repeat, limit, options, min_seconds):
    """One data set and depth: odtlab then pystreed, alternating ``repeat`` times (more while the pair takes
    under ``min_seconds``; no repeat once a side ran out of ``limit``), each one's fastest CPU time."""
    from pystreed import STreeDClassifier

    best_o = best_p = np.inf
    spent, runs = 0.0, 0
    while runs < repeat or (spent < min_seconds and runs < 100):  # short fits: many runs, keep the fastest
        t_o, est_o = fit_time(lambda: MurTreeClassifier(max_depth=d, record="none", time_limit=limit, **options), X, y)
        t_p, est_p = fit_time(lambda: STreeDClassifier(max_depth=d, time_limit=limit), X, y)
        best_o, best_p = min(best_o, t_o), min(best_p, t_p)
        spent += t_o + t_p
        runs += 1
        unfinished = [who for who, done in (("odtlab", est_o.result_.optimal), ("pystreed", pystreed_finished(est_p)))
                      if not done]
        if unfinished:
            break
    errors_p = misclassifications(est_p, X, y) if est_p.is_fitted() else -1
    return dict(errors=(misclassifications(est_o, X, y), errors_p), seconds=(best_o, best_p), unfinished=unfinished,
                peak_memory=est_o.result_.stats["peak_memory"], peak_rss=est_o.result_.stats["peak_rss"])


def compare(names, depths, repeat, limit, options, min_seconds=0.5):
    """Each data set and depth against pystreed (:func:`compare_pair`): misclassifications, CPU seconds, their
    ratio and odtlab's memory per fit (the search's peak and the process's peak RSS, ``result_.stats``). A pair that
    a side does not finish within ``limit`` seconds (each library's own time limit) is listed with who did not
    finish and left out of the ratios."""
    rows = []
    for name in names:
        data = datasets.load(name)
        X, y = np.asarray(data.X), np.asarray(data.y)
        for d in depths:
            r = compare_pair(X, y, d, repeat, limit, options, min_seconds)
            (m_o, m_p), (t_o, t_p) = r["errors"], r["seconds"]
            r.update(name=name, depth=d, ratio=t_o / t_p if not r["unfinished"] else None)
            rows.append(r)
            if r["unfinished"]:
                outcome = f"not finished by {' and '.join(r['unfinished'])} within {limit:g}s"
            else:
                outcome = f"ratio {r['ratio']:5.2f}{'' if m_o == m_p else '  MISMATCH'}"
            print(f"{name:24s} d={d} n={X.shape[0]:5d} F={X.shape[1]:3d}  errors {m_o:5d} / {m_p:5d}  odtlab "
                  f"{t_o:8.3f}s  pystreed {t_p:8.3f}s  memory (MiB) search {mib(r['peak_memory'])} process "
                  f"{mib(r['peak_rss'])}  {outcome}", flush=True)
    print()
    for d in depths:
        done = [r for r in rows if r["depth"] == d and r["ratio"] is not None]
        unfinished = [f"{r['name']} ({' and '.join(r['unfinished'])})" for r in rows
                      if r["depth"] == d and r["unfinished"]]
        if done:
            worst = max(done, key=lambda r: r["ratio"])
            print(f"depth {d}: median ratio {statistics.median(r['ratio'] for r in done):.2f}, max "
                  f"{worst['ratio']:.2f} ({worst['name']}), {len(done)} sets, total odtlab "
                  f"{sum(r['seconds'][0] for r in done):.2f}s pystreed {sum(r['seconds'][1] for r in done):.2f}s")
        if unfinished:
            print(f"depth {d}: not finished within {limit:g}s, left out of the ratios: {', '.join(unfinished)}")
    return rows


def direct_time(X, y, depth):
    """One kernel call to the end, without the Search driver (the level-none kernel has no event code)."""
    solver = MurTreeSolver(X, y, max_depth=depth)
    kernel = solver.kernel(core.LEVEL_NONE)
    events = np.zeros(1, dtype=core.EVENT_DTYPE)
    t = time.process_time()
    while solver.advance(kernel, events, 1 << 60)[1] == core.STATUS_GROW:
        solver.grow()
    return time.process_time() - t


def search_time(X, y, depth, record):
    solver = MurTreeSolver(X, y, max_depth=depth)
    t = time.process_time()
    Search(solver, record=record).run()
    return time.process_time() - t


def levels(names, depth, repeat):
    print(f"\nrecord-level and driver overhead at depth {depth} (CPU seconds, fastest of {repeat}; search only):")
    for name in names:
        data = datasets.load(name)
        X, y = np.asarray(data.X), np.searchsorted(np.unique(data.y), data.y)
        base = min(direct_time(X, y, depth) for _ in range(repeat))
        times = {record: min(search_time(X, y, depth, record) for _ in range(repeat))
                 for record in ("none", "summary", "full")}
        print(f"{name:24s} kernel alone {base:.4f}s  Search none x{times['none'] / base:.3f}  "
              f"summary x{times['summary'] / base:.3f}  full x{times['full'] / base:.3f}", flush=True)


ABLATIONS = {"default": {}, "no similarity bound": {"similarity_bound": False},
             "no depth-two solver": {"depth_two": False}, "no incremental counting": {"incremental": False},
             "branch cache": {"cache": "branch"}, "no cache": {"cache": None},
             "post-order children": {"node_order": "post-order"}, "in-order features": {"feature_order": "in-order"},
             "no feature reduction": {"reduce_features": False}, "no greedy start": {"greedy_start": False},
             "iterative deepening": {"iterative_deepening": True}}


def ablation(names, depth, time_limit=60.0):
    print(f"\nablation at depth {depth} (seconds; '>' = stopped at the {time_limit:g} s limit):")
    print(f"{'data set':24s}" + "".join(f"{k[:12]:>13s}" for k in ABLATIONS))
    for name in names:
        data = datasets.load(name)
        cells = []
        for opts in ABLATIONS.values():
            seconds, est = fit_time(lambda: MurTreeClassifier(max_depth=depth, record="none", time_limit=time_limit,
                                                              **opts), data.X, data.y)
            cells.append(f"{seconds:13.3f}" if est.result_.optimal else f"{'>' + format(time_limit, 'g'):>13s}")
        print(f"{name:24s}" + "".join(cells), flush=True)


def probing(names, depths, repeat):
    """CPU time of fits with ``bound_probing`` against fits without, alternating, fastest of ``repeat`` (more
    while a pair takes under 0.5 s): the price of an anytime lower bound."""
    print(f"\nbound probing, CPU seconds, fastest of {repeat}+ (ratio = with / without):")
    ratios, totals = [], {False: 0.0, True: 0.0}
    for name in names:
        data = datasets.load(name)
        X, y = np.asarray(data.X), np.asarray(data.y)
        for d in depths:
            best = {False: np.inf, True: np.inf}
            spent, runs = 0.0, 0
            while runs < repeat or (spent < 0.5 and runs < 100):
                for probe in best:
                    t, est = fit_time(lambda: MurTreeClassifier(max_depth=d, record="none", bound_probing=probe), X, y)
                    best[probe] = min(best[probe], t)
                    spent += t
                runs += 1
            ratios.append(best[True] / best[False])
            totals = {probe: totals[probe] + best[probe] for probe in totals}
            print(f"{name:24s} d={d}  without {best[False]:8.4f}s  with {best[True]:8.4f}s  ratio {ratios[-1]:5.2f}",
                  flush=True)
    print(f"median ratio {statistics.median(ratios):.3f}, max {max(ratios):.2f}, total {totals[True]:.2f}s / "
          f"{totals[False]:.2f}s = {totals[True] / totals[False]:.3f} over {len(ratios)} fits")


def regression_sets():
    from odtlab.encoders import ThresholdBinarizer

    diabetes = datasets.load("sklearn/diabetes")
    X = ThresholdBinarizer(method="quantiles", n_quantiles=8).fit_transform(np.asarray(diabetes.X))
    yield "sklearn/diabetes (62 bins)", X.astype(np.int64), np.asarray(diabetes.y, dtype=float)
    anneal = datasets.load("dl/anneal")
    Xa = np.asarray(anneal.X).astype(np.int64)
    ya = 2.0 * Xa[:, 3] - 1.5 * Xa[:, 10] * Xa[:, 20] + Xa[:, 40] + np.random.default_rng(0).normal(0, 0.3, len(Xa))
    yield "dl/anneal (synthetic y)", Xa, ya


def regression(depths, repeat):
    from pystreed import STreeDRegressor

    print(f"\nregression (squared error), CPU seconds, fastest of {repeat}:")
    for name, X, y in regression_sets():
        for d in depths:
            best_o = best_p = np.inf
            for _ in range(repeat):
                t_o, est_o = fit_time(lambda: MurTreeRegressor(max_depth=d, record="none"), X, y)
                t_p, est_p = fit_time(lambda: STreeDRegressor(optimization_task="regression", max_depth=d), X, y)
                best_o, best_p = min(best_o, t_o), min(best_p, t_p)
            sse_o = float(((est_o.predict(X) - y) ** 2).sum())
            sse_p = float(((est_p.predict(X) - y) ** 2).sum())
            print(f"{name:28s} d={d}  SSE {sse_o:14.6f} / {sse_p:14.6f}  odtlab {best_o:8.3f}s  pystreed "
                  f"{best_p:8.3f}s  ratio {best_o / best_p:5.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sets", nargs="*", help="dl/ names (default: every available one)")
    parser.add_argument("--limit", "--time-limit", type=float, default=600.0,
                        help="seconds each side may take per fit (its own time limit); a pair over it is reported as "
                             "not finished by whom and left out of the ratios")
    parser.add_argument("--levels", action="store_true", help="also measure record-level overhead")
    parser.add_argument("--ablation", action="store_true", help="also time each technique switched off")
    parser.add_argument("--regression", action="store_true", help="also compare the regressors (depths 2-4)")
    parser.add_argument("--probing", action="store_true",
                        help="only time bound_probing on against off (no pystreed run)")
    parser.add_argument("--alone", action="store_true", help="only time odtlab (no pystreed run)")
    parser.add_argument("--option", nargs="*", default=[], metavar="NAME=VALUE",
                        help="MurTreeClassifier options for the comparison, e.g. feature_order=gini")
    args = parser.parse_args()
    names = args.sets or datasets.names("dl", available_only=True)
    names = [n if n.startswith("dl/") else f"dl/{n}" for n in names]
    t = time.perf_counter()
    warm_up(("none", "summary", "full") if args.levels else ("none",))
    print(f"warm-up (compile or load the kernels): {time.perf_counter() - t:.1f}s; load average "
          f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}\n")
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        options[key] = {"True": True, "False": False, "None": None}.get(value, value)
    if args.probing:
        probing(names, args.depths, args.repeat)
        return
    if args.alone:
        alone(names, args.depths, args.repeat, options)
        return
    compare(names, args.depths, args.repeat, args.limit, options)
    print(f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} (1, 5, 15 min)")
    if args.levels:
        levels(names, max(args.depths), args.repeat)
    if args.ablation:
        ablation(names, max(args.depths))
    if args.regression:
        regression([2, 3, 4], args.repeat)


if __name__ == "__main__":
    main()
