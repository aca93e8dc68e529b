"""What the first run costs: each solver's compilation from an empty numba cache, and its first fit after warmup.

For every registered algorithm (or those named), in a fresh subprocess with an empty ``NUMBA_CACHE_DIR``
(every child imports the odtlab this script imported, wherever it runs from):

1. **cold**: ``odtlab.warmup.warm([algo])`` (every record level and variant, fit and predict on a tiny
   problem), timed in CPU seconds of that process (what ``odtlab warmup`` pays once per machine);
2. **first fit**: a new process on the now warm cache fits a chapter-sized problem; its CPU seconds (the
   cache loads and numba's own first-use set-up included), the number of functions numba still had to
   compile (0 when warmup covered everything), and a second fit in the same process, for comparison.

Then **predict**: the traversal helpers every estimator's ``fit``, ``predict``, ``apply``, ``decision_path``,
``feature_importances_`` and ``to_sklearn`` run (``odtlab.core.trees.apply`` and ``node_sums``), over a session of
those calls with X C- and Fortran-ordered, a pandas frame, float32, int, a strided view and read-only, on a CART
classifier and regressor (1-D and 2-D targets): cold, the CPU seconds numba spends compiling the two helpers from
an empty cache, and how many signatures it compiles; first fit, the same session in a new process on the cache
that ``warm(["cart", "cart-regressor"])`` filled.

Then **warmup (all)**: ``odtlab warmup`` as a whole (every algorithm in one process, one empty cache), whose
CPU seconds are what a new machine pays; functions several solvers share compile once there.

All times are CPU seconds of the child process (steadier than wall time on a shared machine).

The targets: first fit under 1 s per solver (issue 14); the sum of the cold column halved (issue 19: 1009.4 s
at 7d92ad3, the commit before its compile work, 442.0 s at 1e51c00, side by side; README). Run:
``ODTLAB_DATA=../shared/data .venv/bin/python benchmarks/bench_compile.py [ALGO ...] [--quick]``
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile

# chapter-sized problems: algorithm -> (data set, its load() options, command-line options)
PROBLEMS = {
    "cart": ("sklearn/breast_cancer", {}, {"depth": 3}),
    "cart-regressor": ("sklearn/diabetes", {}, {"depth": 3}),
    "branches": ("branches/monk1-o", {}, {"lam": 0.01}),
    "murtree": ("dl/anneal", {}, {"depth": 3}),
    "murtree-regressor": ("sklearn/diabetes", {"encoding": "quantiles"}, {"depth": 2}),
    "quantbnb": ("quantbnb/bank", {}, {"depth": 2}),
    "quantbnb-regressor": ("sklearn/diabetes", {}, {"depth": 2}),
    "dpdt": ("gen/dpdt-pathological", {}, {"depth": 3}),
    "dpdt-regressor": ("sklearn/diabetes", {}, {"depth": 3}),
}

#: The folder holding the odtlab package this script imported: the children import that one, not the one in
#: their working directory (``python -c`` puts the working directory first on ``sys.path``).
ROOT = os.path.dirname(os.path.dirname(importlib.import_module("odtlab").__file__))

_PRELUDE = """
import sys
sys.path.insert(0, {root!r})
import odtlab
assert odtlab.__file__.startswith({root!r}), odtlab.__file__
"""

_COLD = """
import json, time
from odtlab import solvers, warmup
solvers.available()
t = time.process_time()
wall = warmup.warm({algos!r}, progress=False)
print(json.dumps({{"cpu": time.process_time() - t, "wall": wall}}))
"""

_FIRST_FIT = """
import json, time
from numba.core import event
from odtlab import datasets, solvers
data = datasets.load({dataset!r}, **{load!r})
solvers.get({algo!r})
compiled = []
class Count(event.Listener):
    def on_start(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
with event.install_listener("numba:compile", Count()):
    t = time.process_time()
    solvers.fit({algo!r}, data, **{options!r})
    first = time.process_time() - t
t = time.process_time()
solvers.fit({algo!r}, data, **{options!r})
print(json.dumps({{"first": first, "second": time.process_time() - t, "compiled": compiled}}))
"""


_PREDICT = """
import json, time
import numpy as np, pandas as pd
from numba.core import event
from odtlab.core import trees
from odtlab.solvers import make_estimator
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
readonly = X.copy()
readonly.flags.writeable = False
forms = [X, np.asfortranarray(X), pd.DataFrame(X, columns=list("abcd")), X.astype(np.float32),
         np.rint(X * 3).astype(np.int64), np.hstack([X, X])[:, ::2], readonly]
y, target = rng.integers(0, 3, size=60), rng.normal(size=60)
spent, compiled, others, depth = [0.0], [], [], [0]
class Clock(event.Listener):  # CPU of the outermost compilation of a predict helper
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__module__ != "odtlab.core.trees":
            others.append(ev.data["dispatcher"].py_func.__qualname__)
        else:
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)
            depth[0] += 1
            if depth[0] == 1:
                spent.append(-time.process_time())
    def on_end(self, ev):
        if ev.data["dispatcher"].py_func.__module__ == "odtlab.core.trees":
            depth[0] -= 1
            if depth[0] == 0:
                spent[-1] += time.process_time()
t = time.process_time()
with event.install_listener("numba:compile", Clock()):
    for name, labels in (("cart", y), ("cart-regressor", target), ("cart-regressor", np.c_[target, -target])):
        for data in forms:
            est = make_estimator(name, depth=2).fit(data, labels)
            est.predict(data), est.apply(data), est.decision_path(data), est.feature_importances_, est.to_sklearn()
print(json.dumps({"cpu": sum(spent), "session": time.process_time() - t, "compiled": compiled, "others": others,
                  "signatures": len(trees.apply.signatures) + len(trees.node_sums.signatures)}))
"""


def _child(code, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", _PRELUDE.format(root=ROOT) + code], env=env, capture_output=True,
                         text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(algo):
    dataset, load, options = PROBLEMS[algo]
    with tempfile.TemporaryDirectory(prefix="odtlab-numba-") as cache:
        cold = _child(_COLD.format(algos=[algo]), cache)
        first = _child(_FIRST_FIT.format(algo=algo, dataset=dataset, load=load, options=options), cache)
    return dict(algo=algo, dataset=dataset, options=options, **cold, **first)


def measure_predict():
    """Compile CPU and signatures of the predict helpers over a session of user calls, from an empty cache; then the
    same session in a new process after ``warm(["cart", "cart-regressor"])`` filled the cache."""
    with tempfile.TemporaryDirectory(prefix="odtlab-numba-") as cache:
        cold = _child(_PREDICT, cache)
    with tempfile.TemporaryDirectory(prefix="odtlab-numba-") as cache:
        _child(_COLD.format(algos=["cart", "cart-regressor"]), cache)
        after = _child(_PREDICT, cache)
    return dict(cold=cold, after=after)


def measure_all():
    """CPU seconds of ``odtlab warmup`` (every registered algorithm) in one process from an empty cache."""
    with tempfile.TemporaryDirectory(prefix="odtlab-numba-") as cache:
        return _child(_COLD.format(algos=None), cache)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("algorithms", nargs="*", help="registered names, or predict (default: every registered "
                                                      "algorithm, then predict)")
    parser.add_argument("--quick", action="store_true", help="CART only (the cheapest compile)")
    args = parser.parse_args(argv)
    from odtlab import solvers

    named = [a for a in args.algorithms if a != "predict"]
    algos = ["cart"] if args.quick else named if args.algorithms else solvers.available()
    missing = sorted(set(algos) - set(PROBLEMS))
    if missing:  # every registered algorithm is measured: a new one needs its chapter-sized problem here
        parser.error(f"no problem for {', '.join(missing)}: add it to PROBLEMS")
    print(f"{'algorithm':<20}{'cold compile s':>16}{'first fit s':>13}{'second fit s':>14}"
          f"{'compiled in fit':>17}  problem", flush=True)
    total = 0.0
    for algo in algos:
        r = measure(algo)
        total += r["cpu"]
        print(f"{algo:<20}{r['cpu']:>16.1f}{r['first']:>13.2f}{r['second']:>14.2f}{len(r['compiled']):>17}  "
              f"{r['dataset']} {r.get('options', '')}", flush=True)
        if r["compiled"]:
            print(f"    compiled during the first fit: {', '.join(sorted(set(r['compiled'])))}", flush=True)
    print(f"{'sum':<20}{total:>16.1f}", flush=True)
    if not args.quick and (not args.algorithms or "predict" in args.algorithms):
        r = measure_predict()
        print(f"{'predict':<20}{r['cold']['cpu']:>16.1f}{r['after']['session']:>13.2f}{'':>14}"
              f"{len(r['after']['compiled']):>17}  {r['cold']['signatures']} signatures compiled in a session of "
              f"predict, apply, decision_path, feature_importances_, to_sklearn on 7 forms of X", flush=True)
        if r["after"]["others"]:
            print(f"    other functions compiled in that session after warmup: "
                  f"{', '.join(sorted(set(r['after']['others'])))}", flush=True)
    if not (args.quick or args.algorithms):
        print(f"{'warmup (all)':<20}{measure_all()['cpu']:>16.1f}  odtlab warmup, every algorithm in one process")
    print(f"odtlab from {ROOT}; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
