"""Reliability figures: memory limits on the process and time-limit overshoots.

0. **Bad input.** ``tests/test_input_checks.py``'s fuzzing (hypothesis, a fixed seed): every registered estimator
   fitted and used to predict on ``--examples`` problems with at most one defect each (odd shapes, dtypes,
   NaN / inf / huge values, a label too few, bad targets, a parameter of the wrong type or range). Printed per
   estimator: cases tried, clear errors (a ValueError / TypeError with a message, raised by odtlab or
   scikit-learn's checks, not from inside numba or numpy) and valid trees (bounds containing the objective);
   any other outcome stops the benchmark with the case.
1. **Peak RSS / limit.** ``BranchesClassifier(lam=0.01).search(X, y).run(time_limit=300, memory_limit=cap)`` on
   branches/kr-vs-kp (the search every method of the Branches paper timed out on) at each ``--caps`` (GiB),
   one fresh process per cap, run one after another. The cap is the ceiling of the process's resident memory
   (``odtlab.memory``): the search gets the cap less what the process holds when the search starts. A thread
   samples the process's resident memory every 10 ms. Printed: status, seconds, gap, the search's memory at
   the stop over the cap, the peak RSS over the cap (absolute: the whole process), the peak RSS the result
   reports (``stats["peak_rss"]``) over the cap, and the RSS before ``run``.
2. **Worst time-limit overshoot, warm and cold.** Each solver on a problem it cannot finish. Warm: time limits
   of 0.05, 0.5 and 2 s after one warm-up fit (compiled kernels loaded): the largest ``elapsed - limit``,
   ``elapsed`` the whole ``fit``. Cold: one fresh process per solver with an empty numba cache and a 0.5 s limit;
   a time limit leaves compilation out (``stats["compile_seconds"]``), so the overshoot is ``elapsed -
   compilation - limit``, compilation being all numba does before the search's kernel is ready (compiling and
   caching the kernel and the solver's helpers) and what it compiles during the search (``cold_child``).
3. **State over its budget.** Branches (kr-vs-kp) and DPDT's exhaustive generator with budgets of 8-64 MiB
   above what the process holds: the largest state / budget at the stop.
4. **Memory per fit.** One fit per solver on a benchmark set (60 s limit): the result's ``peak_memory`` (the
   most the search held) and ``peak_rss`` (the process's peak resident memory during the search).

Usage: ``python benchmarks/bench_reliability.py [--examples 100] [--caps 0.5,2,4] [--time-limit 300] [--skip-rss]
[--skip-cold] [--only-memory]``. The kr-vs-kp runs take up to ``time-limit`` seconds each and up to 1.25 x the cap of memory:
run them on a machine with that much free.
"""
import argparse
import json
import subprocess
import sys
import threading
import time

GIB = 2 ** 30


def child(cap, time_limit):
    """One kr-vs-kp search under ``cap`` GiB in this process; prints one JSON line."""
    import psutil

    from odtlab import BranchesClassifier, datasets

    data = datasets.load("branches/kr-vs-kp")
    search = BranchesClassifier(lam=0.01).search(data.X, data.y)
    proc = psutil.Process()
    base = proc.memory_info().rss
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.wait(0.01):
            peak[0] = max(peak[0], proc.memory_info().rss)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    t0 = time.perf_counter()
    result = search.run(time_limit=time_limit, memory_limit=int(cap * GIB))
    seconds = time.perf_counter() - t0
    done.set()
    thread.join()
    print(json.dumps({"cap": cap, "status": result.status, "seconds": seconds, "gap": result.gap,
                      "iterations": result.stats["iterations"], "held": search._memory() / (cap * GIB),
                      "budget": search.memory_budget / (cap * GIB), "peak_rss": peak[0] / (cap * GIB),
                      "reported": result.stats["peak_rss"] / (cap * GIB), "base_gib": base / GIB}))


def bad_input_table(examples):
    import warnings
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_input_checks import ESTIMATORS, fuzz

    print(f"0. bad input: fuzzed fit / predict, {examples} drawn problems per estimator")
    total = {"cases": 0, "clear error": 0, "valid tree": 0}
    for cls in ESTIMATORS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            counts = fuzz(cls, examples)
        cases = sum(counts.values())
        total["cases"] += cases
        for key in ("clear error", "valid tree"):
            total[key] += counts[key]
        print(f"  {cls.__name__:<22} {cases:>4} cases: {counts['clear error']:>4} clear errors, "
              f"{counts['valid tree']:>4} valid trees", flush=True)
    print(f"  all {len(ESTIMATORS)} estimators: {total['cases']} cases, {total['clear error']} clear errors, "
          f"{total['valid tree']} valid trees, no other outcome")


def rss_table(caps, time_limit):
    print(f"1. branches/kr-vs-kp, lambda = 0.01, time limit {time_limit:g} s, one process per cap")
    print(f"{'cap GiB':>8} {'status':>13} {'seconds':>8} {'gap':>7} {'search/cap':>11} {'budget/cap':>11} "
          f"{'peak RSS/cap':>13} {'reported/cap':>13} {'RSS before GiB':>15}")
    import psutil

    for cap in caps:
        free = psutil.virtual_memory().available / GIB
        if free < 1.25 * cap + 1:  # the machine is shared: never push it into the out-of-memory killer
            print(f"{cap:>8g} skipped: {free:.1f} GiB available, the run may take {1.25 * cap + 0.5:.1f}")
            continue
        out = subprocess.run([sys.executable, __file__, "--child", str(cap), "--time-limit", str(time_limit)],
                             capture_output=True, text=True)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if out.returncode or not lines:
            print(f"{cap:>8g} failed (exit {out.returncode}): {out.stderr.strip()[-300:]}")
            continue
        r = json.loads(lines[-1])
        print(f"{cap:>8g} {r['status']:>13} {r['seconds']:>8.1f} {r['gap']:>7.4f} {r['held']:>11.3f} "
              f"{r['budget']:>11.3f} {r['peak_rss']:>13.3f} {r['reported']:>13.3f} {r['base_gib']:>15.2f}",
              flush=True)


def overshoot_cases():
    """(name, estimator maker, data set): problems none of the solvers finishes within 2 s."""
    from odtlab import BranchesClassifier, DPDTClassifier, MurTreeClassifier, QuantBnBClassifier

    return [("branches", lambda: BranchesClassifier(lam=0.01), "branches/kr-vs-kp"),
            ("murtree d4", lambda: MurTreeClassifier(max_depth=4), "dl/ionosphere"),
            ("quantbnb d3", lambda: QuantBnBClassifier(max_depth=3), "sklearn/digits"),
            ("dpdt exhaustive d4", lambda: DPDTClassifier(max_depth=4, generator="exhaustive"), "sklearn/digits")]


def cold_child(index, limit):
    """Case ``index`` fitted once under ``limit`` seconds in this process (its numba cache empty); one JSON line.
    ``after``: the seconds from the moment the search's kernel is ready (``odtlab.warmup.compile_kernel``
    returns; the search clock starts there) to the end of ``fit``, less numba's compilation in that span (a
    helper first called during the search). ``compiling``: the rest, everything numba did before: compiling
    and caching the kernel and the solver's helpers, setting up its typing registries in a fresh process."""
    from odtlab import datasets, warmup

    name, make, dataset = overshoot_cases()[index]
    data = datasets.load(dataset)
    ready = {}
    compile_kernel = warmup.compile_kernel

    def timed(*args):
        compile_kernel(*args)
        ready.update(at=time.perf_counter(), compiled=compiling())

    warmup.compile_kernel = timed  # Search.run looks it up in the module at each call
    with warmup.compile_clock() as compiling:
        t0 = time.perf_counter()
        est = make().set_params(time_limit=limit).fit(data.X, data.y)
        end = time.perf_counter()
        after = end - ready["at"] - (compiling() - ready["compiled"])
    print(json.dumps({"name": name, "dataset": dataset, "elapsed": end - t0, "compiling": end - t0 - after,
                      "status": est.result_.status, "splits": int(est.tree_.splits)}))


def cold_overshoot_table(limit=0.5):
    import os
    import tempfile

    print(f"\n2b. time-limit overshoot, cold (empty numba cache, {limit:g} s limit: elapsed - compilation - limit)")
    worst = 0.0
    for index, (name, _, dataset) in enumerate(overshoot_cases()):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, ODTLAB_COMPILE_NOTICE="0")
            out = subprocess.run([sys.executable, __file__, "--cold-child", str(index), "--time-limit", str(limit)],
                                 capture_output=True, text=True, env=env)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if out.returncode or not lines:
            print(f"  {name:<20} failed (exit {out.returncode}): {out.stderr.strip()[-300:]}")
            continue
        r = json.loads(lines[-1])
        over = r["elapsed"] - r["compiling"] - limit
        worst = max(worst, over)
        print(f"  {name:<20} {dataset:<20} elapsed {r['elapsed']:6.1f} s, compiling {r['compiling']:6.1f} s, "
              f"overshoot {over:+.3f} s ({r['status']}, {r['splits']} splits)", flush=True)
    print(f"  worst overshoot, cold: {worst:.3f} s")


def overshoot_table():
    from odtlab import datasets

    print("\n2. time-limit overshoot, warm (elapsed - limit, seconds)")
    worst = 0.0
    for name, make, dataset in overshoot_cases():
        data = datasets.load(dataset)
        make().set_params(time_limit=0.05).fit(data.X, data.y)  # warm: kernels compiled and loaded
        row = []
        for limit in (0.05, 0.5, 2.0):
            est = make().set_params(time_limit=limit)
            t0 = time.perf_counter()
            est.fit(data.X, data.y)
            over = time.perf_counter() - t0 - limit
            worst = max(worst, over)
            row.append(f"{limit:g} s: {over:+.3f} ({est.result_.status})")
        print(f"  {name:<20} {dataset:<20} " + ", ".join(row), flush=True)
    print(f"  worst overshoot, warm: {worst:.3f} s")


def state_table():
    from odtlab import BranchesClassifier, DPDTClassifier, datasets, memory

    print("\n3. search memory / its budget when a memory limit stops the search (limit: RSS + 8-64 MiB)")
    cases = [("branches kr-vs-kp", lambda cap: BranchesClassifier(lam=0.01, memory_limit=cap), "branches/kr-vs-kp"),
             ("dpdt exhaustive d5", lambda cap: DPDTClassifier(max_depth=5, generator="exhaustive", memory_limit=cap),
              "sklearn/digits")]
    worst = 0.0
    for name, make, dataset in cases:
        data = datasets.load(dataset)
        for mib in (8, 16, 64):
            est = make(memory.process_rss() + mib * 2 ** 20).set_params(time_limit=60, record="none")
            est.fit(data.X, data.y)
            ratio = est.search_._memory() / est.search_.memory_budget
            worst = max(worst, ratio)
            print(f"  {name:<20} +{mib:>3} MiB: {est.result_.status:<13} budget "
                  f"{est.search_.memory_budget / 2**20:6.1f} MiB, search / budget {ratio:.3f}", flush=True)
    print(f"  largest search memory / budget: {worst:.3f}")


def memory_table():
    from odtlab import (BranchesClassifier, CARTClassifier, DPDTClassifier, MurTreeClassifier, QuantBnBClassifier,
                        datasets, memory)

    print("\n4. memory per fit (result.stats: peak_memory, the search; peak_rss, the process), 60 s limit")
    cases = [("branches", lambda: BranchesClassifier(lam=0.01), "branches/lymph-f"),
             ("murtree d4", lambda: MurTreeClassifier(max_depth=4), "dl/ionosphere"),
             ("quantbnb d3", lambda: QuantBnBClassifier(max_depth=3), "quantbnb/bidding"),
             ("dpdt exhaustive d4", lambda: DPDTClassifier(max_depth=4, generator="exhaustive"), "sklearn/digits"),
             ("cart", CARTClassifier, "sklearn/digits")]
    for name, make, dataset in cases:  # one estimator at a time: a finished fit's search is freed before the next
        data = datasets.load(dataset)
        before = memory.process_rss()
        result = make().set_params(time_limit=60, record="none").fit(data.X, data.y).result_
        stats = result.stats
        print(f"  {name:<20} {dataset:<20} {result.status:<13} {stats['seconds']:6.1f} s  search peak "
              f"{stats['peak_memory'] / 2**20:8.1f} MiB  process peak {stats['peak_rss'] / 2**20:8.1f} MiB "
              f"(before the fit {before / 2**20:.0f} MiB)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", default="0.5,2,4", help="GiB, comma-separated (kr-vs-kp runs, one at a time)")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--skip-rss", action="store_true", help="only the overshoot, state and memory tables")
    parser.add_argument("--only-memory", action="store_true", help="only the memory-per-fit table")
    parser.add_argument("--skip-cold", action="store_true", help="no cold-cache overshoot (minutes of compiling)")
    parser.add_argument("--examples", type=int, default=100, help="fuzzed problems per estimator (table 0)")
    parser.add_argument("--child", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cold-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.time_limit)
        return
    if args.cold_child is not None:
        cold_child(args.cold_child, args.time_limit)
        return
    if args.only_memory:
        memory_table()
        return
    bad_input_table(args.examples)
    if not args.skip_rss:
        rss_table([float(c) for c in args.caps.split(",")], args.time_limit)
    overshoot_table()
    if not args.skip_cold:
        cold_overshoot_table()
    state_table()
    memory_table()


if __name__ == "__main__":
    main()
