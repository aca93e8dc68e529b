"""CART on the search runtime: the greedy baseline every optimal method is compared with.

The kernel is :mod:`odtlab.core.cart`; this module holds its :class:`~odtlab.search.Solver`, the
scikit-learn estimators :class:`CARTClassifier` and :class:`CARTRegressor`, and the registry entry
``odtlab solve cart``. CART certifies nothing about the optimum, so a finished CART search has status
"done" (not "optimal"); its bounds are the incumbent's training loss above and the trivial 0 below. Regression
sums targets centred on their mean, so the reported loss does not cancel at an offset (1e8 + y).
"""
from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions

from odtlab import certificate
from odtlab.core import cart as kernels
from odtlab.core._jit import LevelKernel
from odtlab.estimators import (ATTRIBUTES_DOC, COMMON_CONSTRAINTS, TreeClassifierMixin, TreeEstimator, TreeRegressorMixin,
                               params_init)
from odtlab.search import Solver
from odtlab.solvers import SolverSpec, register
from odtlab.tree import Tree

class CARTSolver(Solver):
    """State of one CART run: the row order, the frontier and the node table (see ``core.cart``)."""

    name = "cart"
    sense = "min"
    exact = False
    events_per_iteration = 2

    def __init__(self, X, y, sample_weight=None, task="classification", criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_leaf_nodes=None,
                 n_classes=None):
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        n = self.X.shape[0]
        self.task = task
        self.w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if task == "classification":
            self.y = np.asarray(y, dtype=np.int64)
            self.K = int(n_classes if n_classes is not None else self.y.max() + 1)
            self.Y = self.y.astype(np.float64).reshape(-1, 1)
            n_stats, n_value = self.K, self.K
        else:
            Y = np.asarray(y, dtype=np.float64)
            self.Y = np.ascontiguousarray(Y.reshape(n, -1))
            n_stats, n_value = 2 * self.Y.shape[1], self.Y.shape[1]
        # the kernel sums targets centred on their mean: raw sums of squares cancel at an offset (1e8 + y);
        # ``node_value`` then holds centred sums, and a node's mean is node_value / weight + target_mean
        self.Yk = self.Y if task == "classification" else np.ascontiguousarray(certificate.centred(self.Y, self.w))
        total = self.w.sum()
        self.target_mean = (self.w @ self.Y) / total if task == "regression" and total > 0 else np.zeros(n_value)
        self.criterion = criterion
        cap = max(2 * n - 1, 1)
        self.data = kernels.Data(self.X, self.Yk, self.w)
        self.params = kernels.Params(
            criterion=kernels.CRITERIA[criterion], max_depth=-1 if max_depth is None else int(max_depth),
            min_samples_split=int(min_samples_split), min_samples_leaf=int(min_samples_leaf),
            min_impurity_decrease=float(min_impurity_decrease),
            max_leaf_nodes=-1 if max_leaf_nodes is None else int(max_leaf_nodes), total_weight=float(total),
            n_stats=int(n_stats))
        self.state = kernels.State(
            order=np.arange(n, dtype=np.int64), frontier=np.zeros((n + 1, kernels.F_COLS)),
            split=np.zeros(cap, dtype=np.int8), feature=np.full(cap, -1, dtype=np.int64),
            threshold=np.full(cap, np.nan), left=np.full(cap, -1, dtype=np.int64),
            right=np.full(cap, -1, dtype=np.int64), node_value=np.zeros((cap, n_value)), node_weight=np.zeros(cap),
            node_impurity=np.zeros(cap), node_depth=np.zeros(cap, dtype=np.int64),
            counters=np.zeros(kernels.N_COUNTERS, dtype=np.int64), acc=np.zeros(kernels.N_ACC))
        self.feature_names = None
        self.classes = None
        self._cached = (-1, None)

    # -- Solver contract ---------------------------------------------------------------------------
    def kernel(self, level):
        return LevelKernel(kernels.cart_kernel, level)

    def advance(self, kernel, events, max_iterations):
        n, status = kernel(self.data, self.params, self.state, events, max_iterations)
        return int(n), int(status)

    def grow(self):
        raise RuntimeError("CART preallocates its arrays (at most 2n - 1 nodes); it never grows them")

    @property
    def iterations(self):
        return int(self.state.counters[kernels.C_ITER])

    @property
    def finished(self):
        return bool(self.state.counters[kernels.C_DONE])

    def incumbent(self):
        """The tree built so far; nodes still on the frontier are leaves."""
        it = self.iterations
        if self._cached[0] != it or self._cached[1] is None:
            self._cached = (it, self._build_tree())
        return self._cached[1]

    def bounds(self):
        """(0, training loss of the incumbent): the kernel keeps the loss of the leaves made so far and of
        the frontier nodes (the incumbent's other leaves), so this is O(1), with no tree rebuilt."""
        if self.state.counters[kernels.C_NODES] == 0 and self.state.counters[kernels.C_FRONTIER] == 0:
            return 0.0, self._leaf_loss()  # nothing run yet: the root as a leaf
        return 0.0, float(self.state.acc[kernels.A_LEAVES] + self.state.acc[kernels.A_FRONTIER])

    def _leaf_loss(self):
        if self.task == "classification":
            return float(self.w.sum() - np.bincount(self.y, weights=self.w, minlength=self.K).max())
        return float(self.w @ (self.Yk ** 2).sum(axis=1))

    def stats(self):
        return {"nodes": int(self.state.counters[kernels.C_NODES]), "leaves_made": int(self.state.counters[kernels.C_LEAVES])}

    def nbytes(self):
        return sum(a.nbytes for a in self.state)

    # -- trees -------------------------------------------------------------------------------------
    def _build_tree(self, collapse_below=None):
        """Tree of the decided nodes, frontier children as leaves; optionally pruned at ``collapse_below``."""
        m = int(self.state.counters[kernels.C_NODES])

        def build(v):
            if v < 0 or v >= m:
                return {"leaf": True}
            prune = collapse_below is not None and 0 <= self._collapse[v] <= collapse_below
            if self.state.split[v] == 0 or prune:
                return {"leaf": True}
            return {"feature": int(self.state.feature[v]), "kind": "threshold", "threshold": float(self.state.threshold[v]),
                    "children": [build(int(self.state.left[v])), build(int(self.state.right[v]))]}

        tree = Tree.from_dict(build(0), self.X.shape[1], task=self.task, classes=self.classes,
                              feature_names=self.feature_names)
        if self.task == "classification":
            if tree.classes is None:
                tree.classes = np.arange(self.K)
            return tree.fit_leaves(self.X, self.y, self.w)
        return tree.fit_leaves(self.X, self.Y, self.w)

    def pruning_path(self):
        """Minimal cost-complexity pruning path of the finished tree (alphas, impurities)."""
        m = int(self.state.counters[kernels.C_NODES])
        alphas, impurities, self._collapse = kernels.pruning_path(
            self.state.left[:m], self.state.right[:m], self.state.split[:m], self.state.node_weight[:m], self.state.node_impurity[:m],
            float(self.w.sum()))
        return alphas, impurities

    def pruned(self, ccp_alpha):
        """The subtree minimising R_alpha(T) = R(T) + alpha |leaves(T)| (Breiman et al. §3.3)."""
        self.pruning_path()
        return self._build_tree(collapse_below=ccp_alpha)


#: CART's parameters (scikit-learn's tree parameters), checked once by :meth:`TreeEstimator._check_params`.
CART_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [Interval(Integral, 2, None, closed="left")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    "min_impurity_decrease": [Interval(Real, 0, None, closed="left")],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "ccp_alpha": [Interval(Real, 0, None, closed="left")],
}


class _CARTParams(TreeEstimator):
    def _make_solver(self, X, y, sample_weight):
        return CARTSolver(X, y, sample_weight, task=self._task, criterion=self.criterion,
                          max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                          min_samples_leaf=self.min_samples_leaf,
                          min_impurity_decrease=self.min_impurity_decrease, max_leaf_nodes=self.max_leaf_nodes,
                          n_classes=len(self.classes_) if self._task == "classification" else None)

    def _fitted_tree(self):
        """The built tree, pruned by minimal cost-complexity pruning when ``ccp_alpha > 0``."""
        return self.search_.solver.pruned(self.ccp_alpha) if self.ccp_alpha > 0 else self.result_.tree

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The weakest-link pruning path: ``Bunch(ccp_alphas, impurities)`` as in scikit-learn."""
        search = self.search(X, y, sample_weight, record="none")
        search.run()
        alphas, impurities = search.solver.pruning_path()
        return Bunch(ccp_alphas=alphas, impurities=impurities)


def _cart_init(default_criterion):
    """The ``__init__`` of a CART estimator: scikit-learn's tree parameters, ``criterion`` defaulting to
    ``default_criterion``."""
    return params_init(criterion=default_criterion, max_depth=None, min_samples_split=2, min_samples_leaf=1,
                       min_impurity_decrease=0.0, max_leaf_nodes=None, ccp_alpha=0.0, record="summary",
                       time_limit=None, keep_search=False)


_CART_PARAMETERS = """
    max_depth : int >= 1 or None, default=None
        Largest depth of the tree; None grows until the leaves are pure or ``min_samples_split`` stops it.
    min_samples_split : int >= 2, default=2
        Fewest weighted rows a node needs to be split.
    min_samples_leaf : int >= 1, default=1
        Fewest rows each child of a split must get.
    min_impurity_decrease : float >= 0, default=0.0
        A split must lower the weighted impurity by at least this much (scikit-learn's definition).
    max_leaf_nodes : int >= 2 or None, default=None
        Grow best first (largest impurity decrease first) up to this many leaves.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning: the subtree minimising R(T) + ccp_alpha |leaves(T)| (Breiman et al. §3.3).
    record : {"none", "summary", "full"}, default="summary"
        Event level kept during ``fit`` (``search_.trace()``).
    time_limit : float > 0 or None, default=None
        Seconds; the tree built so far (undecided nodes as leaves) is kept.
    keep_search : bool, default=False
        Keep ``search_`` (its state and the training data) when pickling."""


class CARTClassifier(TreeClassifierMixin, _CARTParams):
    __doc__ = f"""CART classification tree (Gini or entropy) in numba, with split events for the widgets.

    Equal to scikit-learn's ``DecisionTreeClassifier`` (same splits and thresholds) on the same parameters.

    Parameters
    ----------
    criterion : {{"gini", "entropy"}}, default="gini"
        The impurity a split minimises.{_CART_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import CARTClassifier, datasets
    >>> data = datasets.load("sklearn/iris")
    >>> clf = CARTClassifier(max_depth=2).fit(data.X, data.y)
    >>> clf.get_depth(), clf.get_n_leaves(), round(clf.score(data.X, data.y), 3)
    (2, 3, 0.96)
    >>> print(clf.to_sklearn().tree_.node_count)
    5
    """

    _parameter_constraints = {**CART_CONSTRAINTS, "criterion": [StrOptions({"gini", "entropy"})]}
    __init__ = _cart_init("gini")


class CARTRegressor(TreeRegressorMixin, _CARTParams):
    __doc__ = f"""CART regression tree (squared error) in numba; equal to scikit-learn's ``DecisionTreeRegressor``.

    Parameters
    ----------
    criterion : {{"squared_error"}}, default="squared_error"
        The impurity a split minimises (the weighted variance).{_CART_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import CARTRegressor, datasets
    >>> data = datasets.load("sklearn/diabetes")
    >>> reg = CARTRegressor(max_depth=2).fit(data.X, data.y)
    >>> reg.get_n_leaves(), round(reg.score(data.X, data.y), 3)
    (4, 0.433)
    """

    _task = "regression"
    _parameter_constraints = {**CART_CONSTRAINTS, "criterion": [StrOptions({"squared_error"})]}
    __init__ = _cart_init("squared_error")


register(SolverSpec("cart", CARTClassifier, {"depth": "max_depth", "time_limit": "time_limit"},
                    "CART (Gini), the greedy baseline"))
register(SolverSpec("cart-regressor", CARTRegressor, {"depth": "max_depth", "time_limit": "time_limit"},
                    "CART (squared error), the greedy regression baseline"))
