"""The decision tree every odtlab algorithm returns: flat arrays, numba predict, every paper's objective.

Node 0 is the root. A node is a leaf, a threshold split (``x[f] <= t`` goes to the first child; binary
features use ``t = 0.5``, so 0 goes left as in MurTree) or a multi-way categorical split (code ``c`` goes to
child ``c``, as in Branches). Children of node ``v`` are ``children[child_start[v]:child_start[v] +
n_children[v]]``.

Predictions: a node predicts the majority class of the training rows that reach it (lowest class index on
ties), or their mean for regression. A node no training row reaches (an empty Branches child) predicts its
parent's class, and a row with a category the tree never saw stops at that split and gets its majority
class: both are odtlab's documented rule for Branches' multiway splits.

Objectives (each in its paper's units; ``exact=True`` returns a :class:`fractions.Fraction`):

* :meth:`Tree.branches_objective`: H_lambda = accuracy - lambda * splits (Branches, eq. of §3).
* :meth:`Tree.murtree_objective`: misclassifications + alpha * splits (MurTree's sparse objective counted
  in misclassifications, §4.9).
* :meth:`Tree.misclassifications` and :meth:`Tree.squared_error`: Quant-BnB's 0-1 and squared loss (eq. 1).
* :meth:`Tree.dpdt_objective`: error rate + alpha * C(T), with C(T) the expected number of splits a
  training row goes through (DPDT eq. 1 and Prop. 4.1).
"""
from fractions import Fraction

import numpy as np

from odtlab import certificate
from odtlab.core import trees as kernels
from odtlab.core._jit import as_ratio

LEAF, THRESHOLD, CATEGORY = kernels.LEAF, kernels.THRESHOLD, kernels.CATEGORY


def kernel_array(values, dtype=np.float64):
    """``values`` as the one array type the traversal kernels (:mod:`odtlab.core.trees`) are compiled for:
    C-ordered, writable, of ``dtype``.

    numba compiles a function once per argument layout and writability, 0.3-0.5 s of CPU each here
    (``benchmarks/bench_compile.py predict``): a Fortran-ordered array, a pandas frame's read-only values and a
    strided slice would each compile ``apply`` and ``node_sums`` again. The copy made instead costs 1 ms for a
    Fortran-ordered 10^5 x 10 array and 15 ms for 10^6 x 10."""
    out = np.ascontiguousarray(values, dtype=dtype)
    return out if out.flags.writeable else out.copy()


class Tree:
    """A fitted decision tree (classification or regression) as flat arrays.

    Build one with :meth:`from_dict` (nested dicts, as solvers and the brute-force oracle return them) or
    from arrays, then :meth:`fit_leaves` on the training data to set counts and predictions.
    """

    def __init__(self, split, feature, threshold, child_start, n_children, children, n_features,
                 task="classification", classes=None, feature_names=None):
        self.split = kernel_array(split, np.int8)
        self.feature = kernel_array(feature, np.int64)
        self.threshold = kernel_array(threshold)
        self.child_start = kernel_array(child_start, np.int64)
        self.n_children = kernel_array(n_children, np.int64)
        self.children = kernel_array(children, np.int64)
        self.n_features = int(n_features)
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', not {task!r}")
        self.task = task
        self.classes = None if classes is None else np.asarray(classes)
        self.feature_names = list(feature_names) if feature_names is not None else [
            f"x{j}" for j in range(self.n_features)]
        m = self.split.shape[0]
        self.parent = np.full(m, -1, dtype=np.int64)
        total = int(self.n_children.sum())
        if total:  # children[child_start[v]:child_start[v] + n_children[v]] have parent v
            offset = np.cumsum(self.n_children) - self.n_children
            pos = np.repeat(self.child_start - offset, self.n_children) + np.arange(total)
            self.parent[self.children[pos]] = np.repeat(np.arange(m), self.n_children)
        self.value = None  # per node: class counts (classification) or target means (regression)
        self.n_samples = None  # per node: weighted training rows reaching it
        self.prediction = None  # per node: class index or target vector

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, root, n_features, **kwargs):
        """Build from nested dicts: ``{"leaf": True}``, ``{"feature", "kind": "threshold", "threshold",
        "children": [left, right]}`` or ``{"feature", "kind": "category", "children": [...]}``."""
        split, feature, threshold, child_start, n_children, children = [], [], [], [], [], []
        order = [root]
        i = 0
        while i < len(order):  # breadth-first numbering: node ids follow reading order
            node = order[i]
            i += 1
            kids = [] if node.get("leaf") else list(node["children"])
            if not kids:
                split.append(LEAF)
                feature.append(-1)
                threshold.append(np.nan)
            else:
                kind = node.get("kind", "threshold")
                if kind not in ("threshold", "category"):
                    raise ValueError(f"unknown split kind {kind!r}")
                if kind == "threshold" and len(kids) != 2:
                    raise ValueError("a threshold split has exactly two children")
                split.append(THRESHOLD if kind == "threshold" else CATEGORY)
                feature.append(int(node["feature"]))
                threshold.append(float(node.get("threshold", np.nan)) if kind == "threshold" else np.nan)
            child_start.append(len(children))
            n_children.append(len(kids))
            for kid in kids:
                children.append(len(order))
                order.append(kid)
        return cls(split, feature, threshold, child_start, n_children, children, n_features, **kwargs)

    def _kids(self, v):
        s = self.child_start[v]
        return self.children[s:s + self.n_children[v]]

    def fit_leaves(self, X, y, sample_weight=None):
        """Set per-node counts and predictions from training data (majority class or mean)."""
        if self.task == "classification":
            y = np.asarray(y, dtype=np.int64)
            K = len(self.classes) if self.classes is not None else int(y.max()) + 1
            if self.classes is None:
                self.classes = np.arange(K)
            Y = np.zeros((y.shape[0], K))
            Y[np.arange(y.shape[0]), y] = 1.0
        else:
            Y = np.asarray(y, dtype=np.float64)
            Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        sums = self.node_sums(X, Y, sample_weight)
        self.n_samples = sums[:, 0]
        if self.task == "classification":
            self.value = sums[:, 1:]
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                self.value = sums[:, 1:] / sums[:, :1]
        self.prediction = self._predictions()
        return self

    def set_node_values(self, value, n_samples):
        """Set per-node class counts (or means) computed by a kernel, then the predictions."""
        self.value = np.asarray(value, dtype=np.float64)
        self.n_samples = np.asarray(n_samples, dtype=np.float64)
        self.prediction = self._predictions()
        return self

    def _predictions(self):
        if self.task == "classification":
            pred = np.argmax(self.value, axis=1)  # the lowest class index on ties
        else:
            pred = np.nan_to_num(self.value)
        for v in np.flatnonzero((self.n_samples <= 0) & (self.parent >= 0)):  # parents come before children
            pred[v] = pred[self.parent[v]]
        return pred

    def _arrays(self):
        return (self.split, self.feature, self.threshold, self.child_start, self.n_children, self.children)

    def node_sums(self, X, Y=None, sample_weight=None):
        """Per node, the weighted count of the rows of ``X`` reaching it (column 0), then their weighted column
        sums of ``Y`` (n x m; one-hot classes give class counts); a row counts at every node on its path."""
        X = self._check_X(X)
        n = X.shape[0]
        Y = np.zeros((n, 0)) if Y is None else kernel_array(Y)
        w = np.ones(n) if sample_weight is None else kernel_array(sample_weight)
        return kernels.node_sums(X, Y, w, *self._arrays())

    # -- prediction ------------------------------------------------------------------------------
    def _check_X(self, X):
        X = kernel_array(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (n, {self.n_features}), got {X.shape}")
        return X

    def apply(self, X):
        """The node where each row stops (a leaf, or a split meeting an unseen category)."""
        return kernels.apply(self._check_X(X), *self._arrays())

    def decision_path(self, X):
        """Sparse CSR indicator of shape (n_rows, n_nodes): entry (i, v) is 1 when row i passes node v on its way
        to the node :meth:`apply` returns (scikit-learn's ``decision_path``); each row's nodes in root-first order."""
        from scipy.sparse import csr_matrix

        end = self.apply(X)
        lengths = self.node_depths()[end] + 1
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        indices = np.empty(indptr[-1], dtype=np.int64)
        node, pos = end.copy(), indptr[1:] - 1
        for _ in range(int(lengths.max(initial=0))):  # from the end node up, filling each row's slots backwards
            live = node >= 0
            indices[pos[live]] = node[live]
            pos -= 1
            node[live] = self.parent[node[live]]
        return csr_matrix((np.ones(indptr[-1], dtype=np.int64), indices, indptr), shape=(end.shape[0], self.n_nodes))

    def predict_index(self, X):
        """Predicted class index (0..K-1) per row, or the target vector for regression."""
        if self.prediction is None:
            raise ValueError("the tree has no leaf values: call fit_leaves(X, y) first")
        return self.prediction[self.apply(X)]

    def predict(self, X):
        """Predicted labels (original class labels when ``classes`` is set)."""
        out = self.predict_index(X)
        if self.task == "classification":
            return self.classes[out]
        return out[:, 0] if out.shape[1] == 1 else out

    # -- shape -----------------------------------------------------------------------------------
    @property
    def n_nodes(self):
        return int(self.split.shape[0])

    @property
    def splits(self):
        """Number of split (internal) nodes: the S(T) of Branches and the 'nodes' of MurTree."""
        return int(np.count_nonzero(self.split != LEAF))

    @property
    def leaves(self):
        return int(np.count_nonzero(self.split == LEAF))

    def node_depths(self):
        """Depth of every node (the root has depth 0)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        for v in range(1, self.n_nodes):  # parents come before children in node order
            depth[v] = depth[self.parent[v]] + 1
        return depth

    @property
    def depth(self):
        """Largest number of splits on a root-to-leaf path (a single leaf has depth 0)."""
        return int(self.node_depths().max())

    # -- objectives ------------------------------------------------------------------------------
    def misclassifications(self, X, y):
        """Number of rows of (X, y) whose class index the tree gets wrong (0-1 loss)."""
        return int(np.count_nonzero(self.predict_index(X) != np.asarray(y)))

    def accuracy(self, X, y):
        return 1.0 - self.misclassifications(X, y) / len(y)

    def squared_error(self, X, y, sample_weight=None):
        """Sum of (weighted) squared errors (Quant-BnB's regression loss, summed over outputs): each row's
        residual squared, summed exactly (``odtlab.certificate.squared_error``, relative error below 3 eps)."""
        pred = self.predict_index(X)
        Y = np.asarray(y, dtype=np.float64).reshape(pred.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            return certificate.squared_error(pred - Y, sample_weight)

    def branches_objective(self, X, y, lam, exact=False):
        """H_lambda(T) = accuracy - lambda * splits (Branches, objective of §3.1), to be maximised."""
        p, q = as_ratio(lam)
        n = len(y)
        value = Fraction(n - self.misclassifications(X, y), n) - Fraction(p, q) * self.splits
        return value if exact else float(value)

    def murtree_objective(self, X, y, alpha=0, exact=False):
        """misclassifications + alpha * splits (MurTree's sparse objective in misclassification units)."""
        p, q = as_ratio(alpha)
        value = self.misclassifications(X, y) + Fraction(p, q) * self.splits
        return value if exact else float(value)

    def expected_splits(self, X):
        """C(T): the mean number of splits a row of X passes on its way to a leaf (DPDT §4)."""
        X = self._check_X(X)
        sums = self.node_sums(X)
        return float(sums[self.split != LEAF, 0].sum() / X.shape[0])

    def dpdt_objective(self, X, y, alpha=0.0, exact=False, sample_weight=None):
        """L_alpha(T) = loss / W + alpha * C(T) (DPDT eq. 1 with the expected-splits penalty of Prop. 4.1).

        The loss is the misclassified weight (classification) or the weighted squared error averaged over the
        outputs (regression, CART's criterion times W); C(T) is the weight of the rows through each split, summed
        over the splits, over W, the total weight (``sample_weight``, default 1 per row). ``exact=True`` returns a
        Fraction (every float is a rational number: the sums are exact), for classification only.
        """
        X = self._check_X(X)
        n = X.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        sums = self.node_sums(X, sample_weight=w)
        if self.task == "regression":
            if exact:
                raise ValueError("exact=True needs a classification tree (squared errors are floats)")
            Y = np.asarray(y, dtype=np.float64)
            m = Y.shape[1] if Y.ndim == 2 else 1
            passes = float(sums[self.split != LEAF, 0].sum())
            return (self.squared_error(X, Y, w) / m + float(alpha) * passes) / float(w.sum())
        wrong = w[self.predict_index(X) != np.asarray(y)]
        if not exact:
            return (float(wrong.sum()) + float(alpha) * float(sums[self.split != LEAF, 0].sum())) / float(w.sum())
        if sample_weight is None:  # integer counts
            W, loss, passes = n, wrong.size, int(round(sums[self.split != LEAF, 0].sum()))
        else:  # each row's weight through each split, summed as Fractions
            W, loss = sum(map(Fraction, w.tolist())), sum(map(Fraction, wrong.tolist()))
            through = np.asarray(self.decision_path(X)[:, np.flatnonzero(self.split != LEAF)].sum(axis=1)).ravel()
            passes = sum(Fraction(x) * int(k) for x, k in zip(w.tolist(), through.tolist()))
        p, q = as_ratio(alpha)
        return Fraction(loss) / W + Fraction(p, q) * Fraction(passes) / W

    # -- export (implemented in odtlab.export) ---------------------------------------------------
    def to_dict(self, node=0):
        from odtlab.export import to_dict

        return to_dict(self, node)

    def to_text(self, feature_names=None, class_names=None, decimals=4):
        from odtlab.export import to_text

        return to_text(self, feature_names, class_names, decimals)

    def to_dot(self, feature_names=None, class_names=None):
        from odtlab.export import to_dot

        return to_dot(self, feature_names, class_names)

    def to_svg(self, feature_names=None, class_names=None, highlight=None, **style):
        from odtlab.export import to_svg

        return to_svg(self, feature_names, class_names, highlight=highlight, **style)

    def _repr_svg_(self):
        return self.to_svg()

    def __repr__(self):
        return f"Tree({self.task}, splits={self.splits}, leaves={self.leaves}, depth={self.depth})"
