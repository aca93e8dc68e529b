"""The solver registry: every algorithm registers its estimator and command-line options here.

``odtlab solve ALGO DATASET`` and :func:`solve` look algorithms up by name, so a new algorithm plugs
into the command line, the experiment runner and the widgets by calling :func:`register` once.
"""
from dataclasses import dataclass, field
import importlib

# Modules that register a solver when imported; the registry imports them on first use.
SOLVER_MODULES = ("odtlab.solvers.cart", "odtlab.solvers.branches", "odtlab.solvers.murtree", "odtlab.solvers.quantbnb",
                  "odtlab.solvers.dpdt")


@dataclass(frozen=True)
class SolverSpec:
    """How to build an algorithm's estimator from command-line style options."""

    name: str
    estimator: type
    options: dict = field(default_factory=dict)  # option name ("lam", "depth", ...) -> estimator parameter
    summary: str = ""


_REGISTRY = {}
_loaded = False


def register(spec):
    """Add (or replace) an algorithm in the registry."""
    _REGISTRY[spec.name] = spec
    return spec


def _load():
    global _loaded
    if not _loaded:
        for module in SOLVER_MODULES:
            importlib.import_module(module)
        _loaded = True


def available():
    """Names of the registered algorithms."""
    _load()
    return sorted(_REGISTRY)


def get(name):
    """The :class:`SolverSpec` of an algorithm, with a clear error for an unknown name."""
    _load()
    if name not in _REGISTRY:
        raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def make_estimator(name, **options):
    """The estimator of algorithm ``name`` with command-line style options mapped to its parameters."""
    spec = get(name)
    params = {}
    for option, value in options.items():
        if value is None:
            continue
        if option not in spec.options:
            raise ValueError(f"{name} has no option {option!r}; it takes: {', '.join(sorted(spec.options)) or 'none'}")
        params[spec.options[option]] = value
    return spec.estimator(**params)


def solve(name, dataset, memory_limit="auto", **options):
    """Fit algorithm ``name`` on a named data set and return the summary the CLI prints as JSON
    (``memory_limit``: see :mod:`odtlab.memory`)."""
    from odtlab import datasets

    import pandas as pd

    data = datasets.load(dataset) if isinstance(dataset, str) else dataset
    X = pd.DataFrame(data.X, columns=data.feature_names)  # the tree then prints the data set's names
    est = make_estimator(name, **options).set_params(memory_limit=memory_limit)
    est.fit(X, data.y)
    out = {"algorithm": name, "dataset": data.name}
    out.update(est.summary(X, data.y))
    return out


def add_solve_command(subparsers):
    """Add ``odtlab solve ALGO DATASET [options]`` to the CLI's subparsers."""
    p = subparsers.add_parser("solve", help="fit an algorithm on a data set and print the result")
    p.add_argument("algorithm", help="one of: " + ", ".join(available()))
    p.add_argument("dataset", help="a data set name, e.g. dl/anneal (see `odtlab data list`)")
    p.add_argument("--lam", type=float, help="Branches' penalty per split (lambda)")
    p.add_argument("--depth", type=int, help="maximum depth")
    p.add_argument("--nodes", type=int, help="maximum number of split nodes (MurTree)")
    p.add_argument("--alpha", type=float, help="penalty per split (MurTree, DPDT)")
    p.add_argument("--time-limit", type=float, dest="time_limit", help="seconds")
    p.add_argument("--memory-limit", dest="memory_limit", default="auto", metavar="SIZE",
                   help="cap on the search's memory, e.g. 4GiB or 500MB; 'none' for no cap (default: auto, "
                        "half the available memory)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_run_solve)
    return p


def _run_solve(args):
    import json

    options = {k: getattr(args, k) for k in ("lam", "depth", "nodes", "alpha", "time_limit")}
    out = solve(args.algorithm, args.dataset, memory_limit=args.memory_limit, **options)
    if args.json:
        print(json.dumps(out, default=float))
    else:
        width = max(map(len, out))
        for key, value in out.items():
            if key != "tree":
                print(f"{key:<{width}}  {value}")
        print(out["tree"])
    return 0
