"""odtlab: a Jupyter-native teaching and research kit for optimal decision trees.

One numba core implements Branches, MurTree, Quant-BnB, DPDT, CART and a brute-force oracle; every
algorithm runs as a resumable search (:class:`odtlab.search.Search`) whose events the widgets and the
notebook chapters consume.

Every registered estimator (:func:`odtlab.solvers.estimators`), :class:`~odtlab.search.Search`,
:class:`~odtlab.tree.Tree` and :func:`~odtlab.widgets.explore` are importable from the top level
(``from odtlab import MurTreeClassifier, explore``); each is imported on first use, so ``import odtlab``
stays light (it imports neither numba nor a solver).
"""
import importlib
import importlib.util

__version__ = "0.1.0"

# the top-level names that are not estimators; the estimators come from the solver registry
_EXPORTS = {"Search": "odtlab.search", "Tree": "odtlab.tree", "explore": "odtlab.widgets"}


def _estimators():
    from odtlab import solvers

    return solvers.estimators()


def __getattr__(name):
    """A top-level name, imported on first use (PEP 562). A submodule's name (``odtlab.cli`` before its
    import) or a private one never loads the solver registry, which imports numba."""
    if name == "__all__":
        return sorted(set(_EXPORTS) | set(_estimators()))
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is None:
        estimator = _estimators().get(name)
        if estimator is not None:
            return estimator
    raise AttributeError(f"module 'odtlab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_estimators()))
