"""scikit-learn estimators on top of the search runtime: one base class, one subclass per algorithm.

:class:`TreeEstimator` validates input (numpy or pandas; pandas categorical columns become ordinal codes
with their names and categories kept), builds the algorithm's :class:`odtlab.search.Solver`, runs the
search under the estimator's limits and keeps what it found:

* ``tree_``: the :class:`odtlab.tree.Tree` (with feature names and classes),
* ``result_``: the :class:`odtlab.search.Result` (objective, certified bounds, status, stats),
* ``search_``: the :class:`odtlab.search.Search` itself, so ``est.search_.run()`` resumes a search that
  stopped at its time limit.

``est.search(X, y)`` returns a fresh, un-run search over the same problem, for stepping through it with
the widgets. The estimators of the other algorithms live next to their solvers in ``odtlab.solvers``
and are re-exported here.

Unseen categories at predict time (a pandas category, or a code, the training data never had) stop at
the split that meets them and get that node's majority class.
"""
import inspect

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from odtlab import encoders, memory
from odtlab.search import Search


def params_init(**defaults):
    """An estimator's ``__init__`` that only stores its arguments (scikit-learn's rule), one per keyword of
    ``defaults`` (parameter name -> default, in signature order). Its explicit signature is what scikit-learn's
    get_params / set_params / clone read, so estimators sharing parameters share one definition of them."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature([inspect.Parameter("self", kind)]
                                  + [inspect.Parameter(name, kind, default=v) for name, v in defaults.items()])

    def __init__(self, *args, **kwargs):
        if args or not kwargs.keys() <= defaults.keys():  # positional or unknown arguments: Python's own errors
            kwargs = signature.bind(self, *args, **kwargs).arguments
        for name, default in defaults.items():
            setattr(self, name, kwargs.get(name, default))

    __init__.__signature__ = signature
    return __init__


class TreeEstimator(BaseEstimator):
    """Base of every odtlab estimator. Subclasses set ``_input`` and implement ``_make_solver``.

    ``_input`` is the feature kind the algorithm needs: "numeric" (CART, Quant-BnB, DPDT), "binary"
    (MurTree) or "categorical" (Branches).
    """

    _input = "numeric"
    _task = "classification"

    def __init_subclass__(cls, **kwargs):
        """Every estimator takes ``memory_limit`` (see :mod:`odtlab.memory`): appended to the ``__init__`` a
        subclass defines, as a keyword-only parameter with default "auto"."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "memory_limit" not in inspect.signature(init).parameters:
            cls.__init__ = _with_memory_limit(init)

    # -- hooks for subclasses ----------------------------------------------------------------------
    def _check_params(self):
        """Raise ValueError for an out-of-range hyper-parameter (called first in fit)."""

    def _make_solver(self, X, y, sample_weight):
        """Build the algorithm's Solver for validated arrays (y as class codes or float targets)."""
        raise NotImplementedError

    # -- validation ----------------------------------------------------------------------------------
    def _frame_to_numeric(self, X, reset):
        """Replace categorical pandas columns by their codes (categories remembered at fit).

        At predict time a category unseen at fit becomes NaN, which stops at the split that meets it.
        A text column without categorical dtype raises the TypeError of
        :func:`odtlab.encoders.frame_to_arrays`, naming the column.
        """
        if not isinstance(X, pd.DataFrame):
            return X
        if reset:
            self.categories_ = {}
        out = {}
        for col in X.columns:
            s = X[col]
            if isinstance(s.dtype, pd.CategoricalDtype):
                if reset:
                    self.categories_[col] = list(s.cat.categories)
                cats = self.categories_.get(col, list(s.cat.categories))
                codes = pd.Index(cats).get_indexer(s.astype(object)).astype(np.float64)
                codes[codes < 0] = np.nan  # unseen category: stops at the split that meets it
                out[col] = codes
            else:
                out[col] = encoders.frame_to_arrays(s.to_frame(), require="numeric").X[:, 0]
        return pd.DataFrame(out, index=X.index)

    def _validate_X(self, X, reset):
        """Validated float array for predict: NaN is allowed only where a category was unseen."""
        frame = self._frame_to_numeric(X, reset)
        X = validate_data(self, frame, reset=reset, dtype=np.float64, ensure_all_finite="allow-nan")
        categorical = np.array([c in getattr(self, "categories_", {}) for c in getattr(frame, "columns", [])])
        numeric = ~categorical if categorical.size else np.ones(X.shape[1], dtype=bool)
        encoders.check_finite(X[:, numeric], list(np.asarray(self._feature_names())[numeric]))
        return self._check_kind(X, reset)

    def _check_kind(self, X, fitting):
        names = getattr(self, "feature_names_in_", None)
        names = list(names) if names is not None else None
        if self._input == "binary":
            encoders.check_binary(X, names)
        elif self._input == "categorical" and fitting:
            encoders.check_codes(X, feature_names=names)
        return X

    def _validate_fit(self, X, y, sample_weight):
        X = self._frame_to_numeric(X, reset=True)
        classification = self._task == "classification"
        if _plain_input(X, y, classification):
            # nothing for check_X_y to reject or convert but X's dtype: scikit-learn only does its
            # n_features_in_ / feature-name bookkeeping (the full checks take ~0.2 ms, 4% of a small DPDT fit)
            X, y = validate_data(self, X.astype(np.float64, copy=False), y, skip_check_array=True)
        elif classification:
            X, y = validate_data(self, X, y, dtype=np.float64)
            check_classification_targets(y)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, multi_output=True)
        if classification:
            y, self.classes_ = encoders.check_labels(y)
        else:
            y = np.asarray(y, dtype=np.float64)
        X = self._check_kind(X, fitting=True)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        return X, y, sample_weight

    # -- fitting -----------------------------------------------------------------------------------
    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return [str(c) for c in names] if names is not None else [f"x{j}" for j in range(self.n_features_in_)]

    def _new_search(self, X, y, sample_weight, record):
        solver = self._make_solver(X, y, sample_weight)
        solver.feature_names = self._feature_names()
        solver.classes = getattr(self, "classes_", None)
        return Search(solver, record=record)

    def fit(self, X, y, sample_weight=None):
        """Validate, build the search, run it under ``time_limit`` and keep tree, result and search."""
        self._check_params()
        memory.check_memory_limit(self.memory_limit)
        X, y, sample_weight = self._validate_fit(X, y, sample_weight)
        self.search_ = self._new_search(X, y, sample_weight, getattr(self, "record", "summary"))
        self.result_ = self.search_.run(time_limit=getattr(self, "time_limit", None), memory_limit=self.memory_limit)
        self.tree_ = self.result_.tree
        return self

    def search(self, X, y, sample_weight=None, record="full"):
        """A fresh :class:`Search` over (X, y), not yet run: step through it or hand it to a widget."""
        self._check_params()
        X, y, sample_weight = self._validate_fit(X, y, sample_weight)
        return self._new_search(X, y, sample_weight, record)

    # -- prediction and reporting ------------------------------------------------------------------
    def get_depth(self):
        """Depth of the fitted tree (as scikit-learn's trees report it)."""
        check_is_fitted(self, "tree_")
        return self.tree_.depth

    def get_n_leaves(self):
        """Number of leaves of the fitted tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.leaves

    def _predict_index(self, X):
        check_is_fitted(self, "tree_")
        return self.tree_.predict_index(self._validate_X(X, reset=False))

    def summary(self, X, y):
        """The numbers ``odtlab solve`` prints: objective, accuracy, size, bounds, status, counters."""
        check_is_fitted(self, "tree_")
        out = {"objective": float(self.result_.objective)}
        Xv = self._validate_X(X, reset=False)
        if self._task == "classification":
            codes = np.searchsorted(self.classes_, np.asarray(y))
            miss = self.tree_.misclassifications(Xv, codes)
            out["train_accuracy"] = 1.0 - miss / len(codes)
            out["misclassifications"] = int(miss)
        else:
            out["squared_error"] = self.tree_.squared_error(Xv, y)
        out.update(splits=self.tree_.splits, leaves=self.tree_.leaves, depth=self.tree_.depth)
        res = self.result_.as_dict()
        for key in ("algorithm", "objective", "sense"):
            res.pop(key)
        out.update(res)
        out["tree"] = self.tree_.to_text()
        return out


def _with_memory_limit(init):
    """``init`` with a keyword-only ``memory_limit="auto"`` stored on the estimator (scikit-learn's rule)."""
    signature = inspect.signature(init)
    extra = inspect.Parameter("memory_limit", inspect.Parameter.KEYWORD_ONLY, default="auto")

    def __init__(self, *args, memory_limit="auto", **kwargs):
        init(self, *args, **kwargs)
        self.memory_limit = memory_limit

    __init__.__signature__ = signature.replace(parameters=[*signature.parameters.values(), extra])
    __init__.__doc__ = init.__doc__
    return __init__


def _plain_input(X, y, classification):
    """Whether ``validate_data(X, y)`` (with ``check_classification_targets`` for classification) would accept
    (X, y) unchanged but for X's dtype: numpy arrays, X 2-D, numeric and finite with at least one row and one
    column, y 1-D with one entry per row, holding integer (or bool) labels for classification (always a valid
    target) or finite numbers for regression. Anything else goes through scikit-learn's checks and errors."""
    if type(X) is not np.ndarray or type(y) is not np.ndarray or X.ndim != 2 or y.ndim != 1:
        return False
    if X.shape[0] != y.shape[0] or X.shape[0] < 1 or X.shape[1] < 1 or X.dtype.kind not in "fiub":
        return False
    if y.dtype.kind not in ("iub" if classification else "fiub"):
        return False
    return bool(np.isfinite(X).all()) and (classification or bool(np.isfinite(y).all()))


class TreeClassifierMixin(ClassifierMixin):
    """predict / predict_proba for classification trees (leaf class frequencies)."""

    def predict(self, X):
        check_is_fitted(self, "tree_")
        return self.classes_[self._predict_index(X)]

    def predict_proba(self, X):
        check_is_fitted(self, "tree_")
        nodes = self.tree_.apply(self._validate_X(X, reset=False))
        counts = self.tree_.value[nodes]
        totals = counts.sum(axis=1, keepdims=True)
        proba = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
        empty = totals[:, 0] == 0
        proba[empty, self.tree_.prediction[nodes[empty]]] = 1.0
        return proba


class TreeRegressorMixin(RegressorMixin):
    """predict for regression trees (leaf means); multi-output targets are supported."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def predict(self, X):
        out = self._predict_index(X)
        return out[:, 0] if out.shape[1] == 1 else out
