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

Parameters are checked once, from one table per estimator (``_parameter_constraints``, scikit-learn's
format, checked by ``sklearn.utils._param_validation``): a wrong value raises an ``InvalidParameterError``
(a ValueError and a TypeError) naming the parameter and the accepted range, before any data is touched.
The Solver built by ``fit`` receives the checked values.

The scikit-learn tree conveniences work on every estimator: ``apply``, ``decision_path``,
``feature_importances_`` (scikit-learn's mean decrease in impurity, see :mod:`odtlab.sklearn_tree`),
``to_sklearn()`` (a fitted scikit-learn tree for ``sklearn.tree.export_text`` / ``plot_tree``) and
``odtlab.plotting.plot_tree``. A fitted estimator pickles without its search (the search state and the
training data, megabytes to gigabytes) unless ``keep_search=True``.
"""
import inspect
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from odtlab import encoders, memory, sklearn_tree
from odtlab.search import Search


class MemorySize(StrOptions):
    """A parameter constraint: "auto", "none" or a size string such as "4GiB" or "500MB", read by
    :func:`odtlab.memory.check_memory_limit` (the one parser of memory limits)."""

    def __init__(self):
        super().__init__(set())

    def is_satisfied_by(self, val):
        if not isinstance(val, str):
            return False
        try:
            memory.check_memory_limit(val)
        except ValueError:
            return False
        return True

    def __str__(self):
        return "'auto', 'none' or a size string such as '4GiB' or '500MB'"


#: Constraints shared by every estimator (scikit-learn's ``_parameter_constraints`` format). ``memory_limit``
#: is checked wherever an estimator has it.
COMMON_CONSTRAINTS = {
    "time_limit": [None, Interval(Real, 0, None, closed="neither")],
    "memory_limit": [None, Interval(Real, 0, None, closed="neither"), MemorySize()],
    "record": [StrOptions({"none", "summary", "full"})],
    "keep_search": ["boolean"],
}

#: The end of every estimator's docstring: the ``memory_limit`` parameter that every estimator takes
#: (:meth:`TreeEstimator.__init_subclass__`), then the Attributes section.
ATTRIBUTES_DOC = """    memory_limit : "auto", None, bytes or a size string such as "4GiB", keyword-only, default="auto"
        Ceiling of the process's resident memory while the search runs (:mod:`odtlab.memory`): "auto" lets
        the search take half the memory available when ``fit`` starts; a search that reaches the cap stops
        with status ``memory_limit`` and keeps its tree and gap.

    Attributes
    ----------
    tree_ : odtlab.tree.Tree
        The fitted tree (feature names, classes, per-node counts and predictions).
    result_ : odtlab.search.Result
        Objective, certified ``lower_bound <= optimum <= upper_bound``, ``status`` and counters.
    search_ : odtlab.search.Search
        The search itself: ``search_.run()`` resumes one stopped at its time limit. Not pickled unless
        ``keep_search=True``.
    classes_ : ndarray of shape (n_classes,)
        The class labels (classifiers only).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of a DataFrame passed to ``fit``.
    categories_ : dict
        The categories of each pandas categorical column seen during ``fit``.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Mean decrease in impurity, normalised to sum to 1, as scikit-learn's trees
        (:func:`odtlab.sklearn_tree.impurity_importances`).
"""


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
    _parameter_constraints = COMMON_CONSTRAINTS

    def __init_subclass__(cls, **kwargs):
        """Every estimator takes ``memory_limit`` (see :mod:`odtlab.memory`): appended to the ``__init__`` a
        subclass defines, as a keyword-only parameter with default "auto"."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "memory_limit" not in inspect.signature(init).parameters:
            cls.__init__ = _with_memory_limit(init)

    # -- hooks for subclasses ----------------------------------------------------------------------
    def _check_params(self):
        """Check every parameter against ``_parameter_constraints`` (one message naming the parameter and
        its accepted range), then the rules that tie parameters together (called first in fit)."""
        self._validate_params()
        self._check_param_relations()

    def _check_param_relations(self):
        """Raise ValueError for a combination of parameters the table cannot express."""

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
            _check_numbers(X)
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
        """Check the feature kind the algorithm needs. At predict time NaN (a pandas category unseen at fit)
        passes: it stops at the split that meets it. Categorical codes must be below
        :data:`odtlab.encoders.MAX_CATEGORIES`."""
        names = getattr(self, "feature_names_in_", None)
        names = list(names) if names is not None else None
        if self._input == "binary":
            encoders.check_binary(X if fitting else np.where(np.isnan(X), 0.0, X), names)
        elif self._input == "categorical" and fitting:
            encoders.check_codes(X, feature_names=names, max_categories=encoders.MAX_CATEGORIES)
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
            encoders.check_labels(y)  # missing or mixed labels named before scikit-learn sorts them
            check_classification_targets(y)
        else:
            y = y if y is None else encoders.check_targets(y)  # None: scikit-learn's "requires y" error
            X, y = validate_data(self, X, y, dtype=np.float64, multi_output=True)
        if classification:
            y, self.classes_ = encoders.check_labels(y)
        else:
            y = np.asarray(y, dtype=np.float64)
        X = self._check_kind(X, fitting=True)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        encoders.check_magnitudes(None if classification else y, sample_weight)
        # numba compiles a kernel again for a read-only array (a C-ordered one reaches the solvers as it is)
        return tuple(a if a.flags.writeable else a.copy(order="K") for a in (X, y, sample_weight))

    # -- fitting -----------------------------------------------------------------------------------
    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return [str(c) for c in names] if names is not None else [f"x{j}" for j in range(self.n_features_in_)]

    def _new_search(self, X, y, sample_weight, record):
        solver = self._make_solver(X, y, sample_weight)
        solver.feature_names = self._feature_names()
        solver.classes = getattr(self, "classes_", None)
        return Search(solver, record=record)

    def fit(self, X, y, sample_weight=None, progress=False):
        """Validate, build the search, run it under ``time_limit`` and keep tree, result and search.

        ``progress=True`` shows a tqdm bar (iterations and bounds) once the search has run for a second.
        """
        self._check_params()
        X, y, sample_weight = self._validate_fit(X, y, sample_weight)
        self.search_ = self._new_search(X, y, sample_weight, getattr(self, "record", "summary"))
        self.result_ = self.search_.run(time_limit=getattr(self, "time_limit", None), memory_limit=self.memory_limit,
                                        progress=progress)
        self.tree_ = self._fitted_tree()
        self._node_stats = sklearn_tree.node_stats(self.tree_, X, y, sample_weight, self._criterion())
        return self

    def _fitted_tree(self):
        """The tree ``fit`` keeps from the finished search (CART prunes it)."""
        return self.result_.tree

    def _criterion(self):
        """The impurity of :attr:`feature_importances_`: the estimator's ``criterion``, else Gini for
        classification and squared error for regression (scikit-learn's defaults)."""
        default = "gini" if self._task == "classification" else "squared_error"
        return getattr(self, "criterion", default)

    def _fitted_search(self):
        """``search_``, with a clear error for an estimator unpickled without it."""
        check_is_fitted(self, "tree_")
        if not hasattr(self, "search_"):
            raise AttributeError(f"this {type(self).__name__} was pickled without its search; fit it with "
                                 "keep_search=True to keep the search (and its training data) in the pickle")
        return self.search_

    def __getstate__(self):
        """Pickle without ``search_`` (the search state and the training data) unless ``keep_search``."""
        state = dict(super().__getstate__())  # object.__getstate__ hands out the instance's own __dict__
        if not getattr(self, "keep_search", False):
            state.pop("search_", None)
        return state

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

    # -- scikit-learn's tree conveniences ----------------------------------------------------------
    def apply(self, X):
        """The ``tree_`` node id where each row stops (a leaf, or a split meeting an unseen category).

        Node ids are ``tree_``'s (breadth first); :meth:`to_sklearn` numbers its nodes its own way.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.apply(self._validate_X(X, reset=False))

    def decision_path(self, X):
        """Sparse indicator (n_samples, tree_.n_nodes): entry (i, v) is 1 when row i passes node v."""
        check_is_fitted(self, "tree_")
        return self.tree_.decision_path(self._validate_X(X, reset=False))

    @property
    def feature_importances_(self):
        """Mean decrease in impurity per feature, normalised to sum to 1 (scikit-learn's definition, with
        the estimator's criterion: see :func:`odtlab.sklearn_tree.impurity_importances`)."""
        check_is_fitted(self, "tree_")
        return sklearn_tree.impurity_importances(self.tree_, self._node_stats)

    def to_sklearn(self):
        """A fitted scikit-learn ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` with this tree (multi-way
        splits binarised): see :func:`odtlab.sklearn_tree.to_sklearn`."""
        check_is_fitted(self, "tree_")
        return sklearn_tree.to_sklearn(self)

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


def _check_numbers(X):
    """Refuse a text or object array whose values are not numbers, naming X (scikit-learn would report numpy's
    "could not convert string to float")."""
    dtype = getattr(X, "dtype", None)
    if dtype is None or dtype.kind not in "OUS":
        return
    try:
        np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        sample = [v for v in np.asarray(X).ravel()[:1000] if not isinstance(v, (int, float, np.number))][:3]
        raise TypeError(f"X must hold numbers ({exc}); it holds {dtype} values such as {sample}: pass a DataFrame "
                        "with categorical columns or encode the text with odtlab.encoders.ordinal_encode") from None


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
