"""The solver registry: every algorithm registers its estimator and command-line options here.

``odtlab solve ALGO DATASET``, ``odtlab warmup`` and :func:`solve` look algorithms up by name, and the top-level
``odtlab.NAME`` estimators (:func:`estimators`) come from here, so a new algorithm plugs into the command line, the
experiment runner, the widgets and the tests by adding a module to this package that calls :func:`register`.
"""
from dataclasses import dataclass, field
import importlib
import pkgutil

# Every public module of this package registers a solver when imported; the registry imports them on first use
# (a new odtlab/solvers/ALGO.py is found without being listed anywhere).
SOLVER_MODULES = tuple(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


@dataclass(frozen=True)
class SolverSpec:
    """How to build an algorithm's estimator from command-line style options."""

    name: str
    estimator: type
    options: dict = field(default_factory=dict)  # option name ("lam", "depth", ...) -> estimator parameter
    summary: str = ""
    # estimator parameters that select different compiled kernels (``odtlab warmup`` compiles each one)
    variants: tuple = ({},)

    @property
    def task(self):
        """"classification" or "regression": the task the estimator fits."""
        return self.estimator._task

    def accepts(self, kind):
        """Whether the estimator reads features of this kind (``Dataset.kind``) as they are."""
        needs = self.estimator._input
        return needs == "numeric" or kind == needs or kind == "binary"


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


def specs():
    """The :class:`SolverSpec` of every registered algorithm, sorted by name."""
    return [get(name) for name in available()]


def estimators():
    """Every registered estimator class by class name (``{"CARTClassifier": CARTClassifier, ...}``): the
    top-level ``odtlab.CARTClassifier`` names and the every-estimator tests read this."""
    return {spec.estimator.__name__: spec.estimator for spec in specs()}


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


def check_task(name, data):
    """Refuse a classifier on a regression data set and a regressor on a classification one, naming the
    registered algorithms that fit the data set's task."""
    spec = get(name)
    if spec.task == data.task:
        return
    fitting = [s for s in available() if get(s).task == data.task and get(s).accepts(data.kind)]
    raise ValueError(f"{name} fits {spec.task} but {data.name} is a {data.task} data set; "
                     f"use one of: {', '.join(fitting)}")


def fit(name, data, progress=False, memory_limit="auto", **options):
    """Fit algorithm ``name`` on a :class:`odtlab.datasets.Dataset` (its task checked first, its feature names
    kept in the tree); return the fitted estimator and the training frame. ``progress`` shows a tqdm bar
    (after a second) for the search; ``memory_limit``: see :mod:`odtlab.memory`."""
    import pandas as pd

    check_task(name, data)
    X = pd.DataFrame(data.X, columns=data.feature_names)
    est = make_estimator(name, **options).set_params(memory_limit=memory_limit)
    est.fit(X, data.y, progress=progress)
    return est, X


def solve(name, dataset, **options):
    """Fit algorithm ``name`` on a data set (a name or a Dataset) and return its summary as a dict."""
    from odtlab import datasets

    data = datasets.load(dataset) if isinstance(dataset, str) else dataset
    est, X = fit(name, data, **options)
    out = {"algorithm": name, "dataset": data.name}
    out.update(est.summary(X, data.y))
    return out
