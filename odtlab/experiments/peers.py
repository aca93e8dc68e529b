"""Peer algorithms the experiment grids can run beside odtlab's own solvers.

``sklearn-cart`` (scikit-learn's DecisionTreeClassifier / Regressor) is always available: it is the
reference every table's time column is divided by. The others come from the ``peers`` extra and are
used when installed: ``streed`` (pystreed's STreeD, the successor of MurTree; accuracy at a depth and
node budget, or accuracy - lambda * splits with ``lam``) and ``contree`` (pycontree's ConTree, optimal
depth-d trees on continuous features, a peer of Quant-BnB). GOSDT is not offered: gosdt 1.0.4's
``predict`` fails with scikit-learn >= 1.8.

A peer takes the same option names as the registry (``depth``, ``nodes``, ``lam``) plus its own
estimator's parameter names, and reports its tree size as (splits, leaves, depth).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Peer:
    name: str
    module: str          # the import that must work
    distribution: str    # the pip name, for the version and the "not installed" message
    summary: str

    def available(self):
        try:
            importlib.import_module(self.module)
        except ImportError:
            return False
        return True

    def version(self):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(self.distribution)
        except PackageNotFoundError:
            return "unknown"

    def make(self, params, seed, task, time_limit):
        return _MAKERS[self.name](dict(params), seed, task, time_limit)


def _take(params, names):
    return {k: params.pop(k) for k in names if k in params}


def _sklearn_cart(params, seed, task, time_limit):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    opts = _take(params, ("depth", "nodes"))
    if "nodes" in opts:
        params["max_leaf_nodes"] = opts["nodes"] + 1
    params.setdefault("max_depth", opts.get("depth"))
    params.setdefault("random_state", seed)
    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    return cls(**params)


def _streed(params, seed, task, time_limit):
    from pystreed import STreeDClassifier

    if task != "classification":
        raise ValueError("the streed peer runs classification only")
    opts = _take(params, ("depth", "nodes", "lam"))
    if "lam" in opts and "nodes" in opts:  # pystreed would end the whole process on this combination
        raise ValueError("STreeD (pystreed 1.4) takes a node limit or a cost per split (lam), not both")
    if "lam" in opts:
        params.setdefault("optimization_task", "cost-complex-accuracy")
        params.setdefault("cost_complexity", float(opts["lam"]))
    params.setdefault("max_depth", opts.get("depth", 3))
    if "nodes" in opts:
        params.setdefault("max_num_nodes", opts["nodes"])
    params.setdefault("random_seed", seed)
    params.setdefault("time_limit", 600 if time_limit is None else max(1, int(time_limit)))
    return STreeDClassifier(**params)


def _contree(params, seed, task, time_limit):
    from pycontree import ConTree

    if task != "classification":
        raise ValueError("the contree peer runs classification only")
    opts = _take(params, ("depth",))
    params.setdefault("max_depth", opts.get("depth", 3))
    params.setdefault("time_limit", 600 if time_limit is None else max(1, int(time_limit)))
    return ConTree(**params)


_MAKERS = {"sklearn-cart": _sklearn_cart, "streed": _streed, "contree": _contree}

PEERS = {
    "sklearn-cart": Peer("sklearn-cart", "sklearn", "scikit-learn",
                         "scikit-learn CART (the time reference of every table)"),
    "streed": Peer("streed", "pystreed", "pystreed", "STreeD (pystreed): optimal trees under depth / node limits"),
    "contree": Peer("contree", "pycontree", "pycontree", "ConTree (pycontree): optimal trees on continuous features"),
}


def size(estimator):
    """``(splits, leaves, depth)`` of a fitted tree estimator (odtlab, scikit-learn, pystreed, pycontree)."""
    tree = getattr(estimator, "tree_", None)
    if hasattr(tree, "splits") and hasattr(tree, "leaves") and hasattr(tree, "depth"):
        return int(tree.splits), int(tree.leaves), int(tree.depth)
    if hasattr(estimator, "get_num_branching_nodes"):  # pycontree
        return (int(estimator.get_num_branching_nodes()), int(estimator.get_num_leaf_nodes()),
                int(estimator.get_depth()))
    if hasattr(estimator, "get_n_leaves") and hasattr(estimator, "get_depth"):  # binary trees
        leaves = int(estimator.get_n_leaves())
        return leaves - 1, leaves, int(estimator.get_depth())
    return None, None, None


def status(estimator, seconds):
    """``(status, optimal)`` of a fitted peer. STreeD says whether it proved optimality; ConTree is exact
    and says nothing, so a ConTree fit that returned before its own time limit is optimal; CART and
    unknown estimators are "done" (no claim)."""
    result = getattr(estimator, "fit_result", None)
    if result is not None and hasattr(result, "is_optimal"):
        return ("optimal", True) if result.is_optimal() else ("time_limit", False)
    if type(estimator).__module__.startswith("pycontree"):
        return ("optimal", True) if seconds < 0.99 * estimator.time_limit else ("time_limit", False)
    return "done", None
