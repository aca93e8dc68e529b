"""odtlab: a Jupyter-native teaching and research kit for optimal decision trees.

One numba core implements Branches, MurTree, Quant-BnB, DPDT, CART and a brute-force oracle; every
algorithm runs as a resumable search (:class:`odtlab.search.Search`) whose events the widgets and the
notebook chapters consume.

The estimators, :class:`~odtlab.search.Search` and :func:`~odtlab.widgets.explore` are importable from
the top level (``from odtlab import MurTreeClassifier, explore``); each is imported on first use, so
``import odtlab`` stays light.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "CARTClassifier": "odtlab.solvers.cart", "CARTRegressor": "odtlab.solvers.cart",
    "BranchesClassifier": "odtlab.solvers.branches",
    "MurTreeClassifier": "odtlab.solvers.murtree", "MurTreeRegressor": "odtlab.solvers.murtree",
    "QuantBnBClassifier": "odtlab.solvers.quantbnb", "QuantBnBRegressor": "odtlab.solvers.quantbnb",
    "DPDTClassifier": "odtlab.solvers.dpdt", "DPDTRegressor": "odtlab.solvers.dpdt",
    "Search": "odtlab.search", "Tree": "odtlab.tree", "explore": "odtlab.widgets",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    """Import a top-level name's module on first use (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'odtlab' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
