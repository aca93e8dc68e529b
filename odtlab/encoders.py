"""Encoders and input validation shared by the data layer and every estimator.

The solvers in odtlab take three kinds of feature matrices:

* **categorical** (Branches' ordinal encoding, paper Section 3.3): integer codes
  ``0 .. C_j - 1`` per feature ``j``, with ``n_categories[j] = C_j``;
* **binary** (MurTree, DL8.5, Branches' binary mode): 0/1 features;
* **continuous** (Quant-BnB, DPDT, CART): finite floats.

This module converts between them and checks them, with messages that name the offending column:

* :func:`ordinal_encode` turns pandas / object / string columns into codes (it is *the* encoder, so it
  accepts plain string columns); :func:`frame_to_arrays` is the stricter converter estimators use, which
  refuses a string column that was not given a categorical dtype (a silent alphabetical order would
  decide the tree's splits).
* :func:`one_hot` is the one-hot encoding with an optional dropped category (Branches' ``-f`` / ``-l``
  files are exactly ``one_hot(codes, C, drop="first"|"last")`` of the ``-o`` files).
* :class:`ThresholdBinarizer` turns continuous features into threshold indicators.
* :func:`check_finite`, :func:`check_codes`, :func:`check_binary` and :func:`check_labels` validate
  estimator input.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

__all__ = [
    "ordinal_encode",
    "frame_to_arrays",
    "FrameArrays",
    "one_hot",
    "ThresholdBinarizer",
    "check_finite",
    "check_codes",
    "check_binary",
    "check_labels",
    "check_targets",
    "MAX_CATEGORIES",
]

#: Largest number of categories per feature a categorical solver takes (codes ``0 .. MAX_CATEGORIES - 1``).
#: Branches sizes its per-feature arrays by the largest code + 1, so one stray code of 10**9 would ask for
#: gigabytes; a multi-way split with thousands of children is never a useful tree on data of this size.
MAX_CATEGORIES = 1024


# --------------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------------

def _default_names(q):
    return [f"x{j}" for j in range(q)]


def _column_label(j, feature_names):
    if feature_names is not None:
        return f"column {j} ({feature_names[j]!r})"
    return f"column {j}"


def _as_2d(X, what):
    """Return ``X`` as a 2-D numpy array or raise a ValueError naming its shape."""
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (n_samples, n_features); got shape {arr.shape}")
    return arr


def check_finite(X, feature_names=None):
    """Return ``X`` as a float64 2-D array; raise ValueError if a column holds NaN or infinity.

    The message names the first offending column and how many of its rows are not finite, since
    every solver's split search would silently mis-sort NaN (``NaN <= t`` is always false).
    """
    arr = _as_2d(X, "X")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"X must be numeric; got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise ValueError(
            f"{_column_label(j, feature_names)} has {int(bad[:, j].sum())} rows with NaN or infinity; "
            "impute or drop them first (odtlab's solvers need finite feature values)"
        )
    return arr


def _plain(value):
    """A number as the user would write it: 1024 for 1024.0, 1e+300 for 1e300."""
    value = value.item() if hasattr(value, "item") else value
    return str(int(value)) if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53 else repr(value)


def check_codes(X, n_categories=None, feature_names=None, max_categories=None):
    """Return categorical codes as an int64 2-D array, checking that they are integers ``>= 0``.

    Floats are accepted when every value is integral (``2.0`` is code 2). With ``n_categories``
    every code of column ``j`` must also be ``< n_categories[j]``; with ``max_categories`` every code
    must be ``< max_categories`` (checked before the cast, so ``1e300`` is named as it is). Errors name
    the column and the value.
    """
    arr = _as_2d(X, "X")
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"categorical codes must be numeric; got dtype {arr.dtype} "
                        "(use odtlab.encoders.ordinal_encode for strings)")
    if not np.issubdtype(arr.dtype, np.integer):
        arr_f = arr.astype(np.float64)
        bad = ~np.isfinite(arr_f) | (arr_f != np.round(arr_f))
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            raise ValueError(f"{_column_label(j, feature_names)} holds non-integer values; categorical "
                             "features must be integer codes 0..C-1 (see odtlab.encoders.ordinal_encode)")
    neg = arr < 0
    if neg.any():
        j = int(np.flatnonzero(neg.any(axis=0))[0])
        raise ValueError(f"{_column_label(j, feature_names)} holds negative codes (such as "
                         f"{_plain(arr[neg[:, j], j][0])}); categorical features must be integer codes 0..C-1")
    limit = np.iinfo(np.int64).max if max_categories is None else int(max_categories) - 1
    over = arr > limit
    if over.any():
        j = int(np.flatnonzero(over.any(axis=0))[0])
        raise ValueError(f"{_column_label(j, feature_names)} holds code {_plain(arr[over[:, j], j].max())}; categorical "
                         f"codes must lie in 0..{limit} (at most {limit + 1} categories per feature): re-encode "
                         "the column with odtlab.encoders.ordinal_encode")
    codes = arr.astype(np.int64)
    if n_categories is not None:
        C = np.asarray(n_categories, dtype=np.int64)
        if C.shape != (codes.shape[1],):
            raise ValueError(f"n_categories must have one entry per feature ({codes.shape[1]}); "
                             f"got shape {C.shape}")
        over = codes >= C[None, :]
        if over.any():
            j = int(np.flatnonzero(over.any(axis=0))[0])
            raise ValueError(f"{_column_label(j, feature_names)} holds code {int(codes[:, j].max())} but "
                             f"n_categories[{j}] = {int(C[j])}")
    return codes


def check_binary(X, feature_names=None):
    """Return ``X`` as an int64 0/1 array; raise ValueError naming the first non-binary column.

    The message suggests the two ways to get binary features: :class:`ThresholdBinarizer` for
    continuous columns and :func:`one_hot` for categorical codes.
    """
    arr = _as_2d(X, "X")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"binary features must be numeric 0/1; got dtype {arr.dtype}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        vals = np.unique(arr[bad[:, j], j])[:3]
        raise ValueError(
            f"{_column_label(j, feature_names)} is not binary (values such as {vals.tolist()}); "
            "binarise continuous features with odtlab.encoders.ThresholdBinarizer or categorical codes "
            "with odtlab.encoders.one_hot"
        )
    return arr.astype(np.int64)


def check_labels(y):
    """Return ``(codes, classes)``: ``codes`` int64 in ``0..K-1`` and ``classes`` the sorted labels.

    ``y`` must be 1-D (a column vector ``(n, 1)`` is accepted and flattened). An empty ``y``, NaN
    labels, or a single class raise ValueError: a tree on one class has nothing to decide.
    """
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D (n_samples,); got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("y is empty: at least one sample with a label is needed")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("y holds NaN or infinity")
    if arr.dtype == object and any(v is None or (isinstance(v, float) and v != v) for v in arr):
        raise ValueError("y holds missing labels (None or NaN)")
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError:  # labels of several types that cannot be ordered, such as 1 and "a"
        kinds = sorted({type(v).__name__ for v in arr.ravel()})
        raise TypeError(f"y mixes labels of types {', '.join(kinds)} that cannot be sorted; give every label "
                        "one type") from None
    if classes.shape[0] < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs at least two")
    return codes.astype(np.int64).reshape(-1), classes


def _is_number(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return value is None
    return True


def check_targets(y):
    """Return regression targets as a float64 array, refusing text, missing and infinite values.

    scikit-learn turns an object target into floats without a finiteness check, so ``None`` would
    become NaN and reach the solvers (a NaN objective, or an infinite one reported optimal).
    """
    arr = np.asarray(y)
    if arr.dtype.kind == "c" or (arr.dtype == object and any(isinstance(v, complex) for v in arr.ravel())):
        raise ValueError("y holds complex numbers: Complex data not supported for a regressor's targets")
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.where(pd.isna(arr), np.nan, arr).astype(np.float64)  # None counts as missing
        except (TypeError, ValueError):
            sample = [v for v in arr.ravel()[:1000] if not _is_number(v)][:3]
            raise ValueError(f"y must hold numbers for a regressor; got dtype {arr.dtype} with values such as "
                             f"{sample}") from None
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"y holds {int(bad.sum())} missing (None or NaN) or infinite values; a regressor needs "
                         "finite numeric targets")
    return arr


MAX_TOTAL_WEIGHT = 1e150  # Gini squares the total weight (scikit-learn's expression): it stays below 1.3e154
MAX_WEIGHTED_SQUARES = 1e300  # bound on W * sum_i w_i |y_i|^2: no square of a target sum overflows


def _log10_weighted_squares(Y, w):
    """log10 of ``W * sum_i w_i |y_i|^2`` (W = sum w), computed without overflow; None when it is 0."""
    scale = float(np.abs(Y).max(initial=0.0))
    squares = float(w @ ((Y / scale) ** 2).sum(axis=1)) if scale > 0.0 else 0.0
    total = float(w.sum())
    if total == 0.0 or squares == 0.0:
        return None
    return math.log10(total) + math.log10(squares) + 2 * math.log10(scale)


def check_magnitudes(y, sample_weight):
    """Refuse sample weights and regression targets whose float64 sums overflow in the searches.

    The kernels add weights (``W``, the total weight: classification counts, node weights) and, for regression,
    target sums ``S = sum_{i in A} w_i y_i`` over row sets A, weighted or not (Quant-BnB counts the rows of
    positive weight), then square them (a leaf's squared error is ``sum w y^2 - S^2 / W_A``, a split's gain a
    sum of ``S^2 / W_A``). By Cauchy-Schwarz ``S^2 <= W_A sum_A w y^2 <= W sum_i w_i |y_i|^2``, so every such
    square is finite when ``W <= MAX_TOTAL_WEIGHT`` and ``W sum_i w_i |y_i|^2``, and the same with weight 1 on
    each row of positive weight, are at most ``MAX_WEIGHTED_SQUARES`` (a margin of 1.8e8 below float64's largest
    number for sums of several). Past these a square became inf or nan, and a fit reported a squared error of 0
    or nan. ``y`` is None for classification (weights only); ``sample_weight`` is the validated weight vector."""
    w = np.asarray(sample_weight, dtype=np.float64)
    with np.errstate(over="ignore"):
        total = float(w.sum())
    if not total <= MAX_TOTAL_WEIGHT:
        shown = f"{total:.3g}" if math.isfinite(total) else "more than float64 holds"
        raise ValueError(f"sample_weight sums to {shown}, above the accepted {MAX_TOTAL_WEIGHT:.0e}: rescale the "
                         "weights")
    if y is None:
        return
    Y = np.asarray(y, dtype=np.float64).reshape(len(w), -1)
    logs = [v for v in (_log10_weighted_squares(Y, w), _log10_weighted_squares(Y, (w > 0).astype(np.float64)))
            if v is not None]
    if logs and max(logs) > math.log10(MAX_WEIGHTED_SQUARES):
        n = int(np.count_nonzero(w > 0))
        raise ValueError(f"the targets are too large for float64 sums of their squares: W * sum_i w_i y_i^2 (W the "
                         f"total sample weight; also with weight 1 on every row of positive weight) reaches "
                         f"1e{max(logs):.1f} and must be at most {MAX_WEIGHTED_SQUARES:.0e}, so with {n} rows of "
                         f"weight 1 every |y| at most {MAX_WEIGHTED_SQUARES ** 0.5 / n:.3g}; divide y by a power "
                         "of 10 (squared errors scale with its square)")


# --------------------------------------------------------------------------------------------------
# categorical encodings
# --------------------------------------------------------------------------------------------------

def _is_text_column(s: pd.Series):
    return (pd.api.types.is_object_dtype(s.dtype) or pd.api.types.is_string_dtype(s.dtype)) and not \
        isinstance(s.dtype, pd.CategoricalDtype)


def _categorical_codes(s: pd.Series, name):
    """Codes and categories of a pandas categorical column (unobserved categories are kept)."""
    codes = s.cat.codes.to_numpy().astype(np.int64)
    if (codes < 0).any():
        raise ValueError(f"column {name!r} has {int((codes < 0).sum())} missing values; "
                         "add them as an explicit category or drop those rows")
    return codes, list(s.cat.categories)


def _sorted_codes(values, name):
    """Codes of an arbitrary column: its distinct values in sorted order become 0..C-1."""
    values = np.asarray(values)
    if values.dtype == object and any(v is None or (isinstance(v, float) and v != v) for v in values):
        raise ValueError(f"column {name!r} has missing values; fill or drop them before encoding")
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"column {name!r} has missing values; fill or drop them before encoding")
    try:
        cats, codes = np.unique(values, return_inverse=True)
    except TypeError as exc:  # mixed types that cannot be ordered
        raise TypeError(f"column {name!r} mixes values that cannot be sorted ({exc}); "
                        "give it a pandas categorical dtype with explicit categories") from exc
    return codes.astype(np.int64).reshape(-1), cats.tolist()


def ordinal_encode(data):
    """Encode every column as integer codes ``0..C-1``: Branches' ordinal encoding (paper §3.3).

    ``data`` is a pandas DataFrame or a 2-D array. Per column:

    * pandas categorical dtype: its ``codes``; its declared categories are kept in order, including
      categories that never occur (they count in ``C_j``, as the solvers' multiway split has one child
      per category);
    * anything else (object / string / numbers / bools): the sorted distinct values become the
      categories. Object dtype is fine here because encoding is this function's job; estimators use
      the stricter :func:`frame_to_arrays`.

    Returns ``(codes, n_categories, categories, feature_names)``: ``codes`` int64 ``(n, q)``,
    ``n_categories`` int64 ``(q,)``, ``categories[j]`` the list of original values of code ``0..C_j-1``,
    and the column names as strings (``x0, x1, ...`` for arrays).
    """
    if isinstance(data, pd.Series):
        data = data.to_frame()
    if isinstance(data, pd.DataFrame):
        names = [str(c) for c in data.columns]
        columns = [data.iloc[:, j] for j in range(data.shape[1])]
    else:
        arr = np.asarray(data)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"expected a DataFrame or a 2-D array; got shape {arr.shape}")
        names = _default_names(arr.shape[1])
        columns = [arr[:, j] for j in range(arr.shape[1])]
    n = len(columns[0]) if columns else 0
    codes = np.empty((n, len(columns)), dtype=np.int64)
    categories = []
    for j, col in enumerate(columns):
        if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
            c, cats = _categorical_codes(col, names[j])
        else:
            c, cats = _sorted_codes(col.to_numpy() if isinstance(col, pd.Series) else col, names[j])
        codes[:, j] = c
        categories.append(cats)
    n_categories = np.array([len(c) for c in categories], dtype=np.int64)
    return codes, n_categories, categories, names


class FrameArrays(NamedTuple):
    """Result of :func:`frame_to_arrays`. ``n_categories`` / ``categories`` are None for numeric."""

    X: np.ndarray
    feature_names: list
    n_categories: np.ndarray | None
    categories: list | None


_REQUIRE = ("categorical", "numeric", "binary")


def frame_to_arrays(X, require="categorical", feature_names=None):
    """Convert estimator input (DataFrame or array) into checked numpy arrays.

    ``require`` says what the estimator needs:

    * ``"categorical"``: pandas categorical columns become their codes (declared categories kept);
      integer (or integral float, or bool) columns are taken as codes as they are, with
      ``C_j = max + 1``; the result is checked by :func:`check_codes`.
    * ``"numeric"``: numeric / bool columns become float64; categorical columns become their codes as
      floats (this imposes the categories' order, so pass ordered categories); checked by
      :func:`check_finite`.
    * ``"binary"``: numeric / bool 0/1 columns, or categorical columns with at most two categories
      (their codes); checked by :func:`check_binary`.

    A string or object column *without* categorical dtype raises TypeError naming the column and
    suggesting ``X[col].astype("category")``: guessing an order of text values would change the
    tree behind the user's back.
    """
    if require not in _REQUIRE:
        raise ValueError(f"require must be one of {', '.join(map(repr, _REQUIRE))}; got {require!r}")
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        cols, cat_info = [], []
        for j in range(X.shape[1]):
            s = X.iloc[:, j]
            if isinstance(s.dtype, pd.CategoricalDtype):
                c, cats = _categorical_codes(s, names[j])
                cols.append(c)
                cat_info.append(cats)
            elif _is_text_column(s):
                raise TypeError(
                    f"column {names[j]!r} holds strings (dtype {s.dtype}) but is not categorical; "
                    f"convert it with X[{names[j]!r}] = X[{names[j]!r}].astype(\"category\") "
                    "(or encode it with odtlab.encoders.ordinal_encode)"
                )
            else:
                cols.append(s.to_numpy())
                cat_info.append(None)
        arr = np.column_stack(cols) if cols else np.empty((len(X), 0))
    else:
        arr = _as_2d(X, "X")
        if arr.dtype == object or arr.dtype.kind in "USO":
            raise TypeError(f"X holds strings or objects (dtype {arr.dtype}); pass a DataFrame with "
                            "categorical columns or encode it with odtlab.encoders.ordinal_encode")
        names = list(feature_names) if feature_names is not None else _default_names(arr.shape[1])
        cat_info = [None] * arr.shape[1]
    if len(names) != arr.shape[1]:
        raise ValueError(f"{len(names)} feature names for {arr.shape[1]} features")

    if require == "numeric":
        return FrameArrays(check_finite(arr, names), names, None, None)
    if require == "binary":
        for j, cats in enumerate(cat_info):
            if cats is not None and len(cats) > 2:
                raise ValueError(f"column {names[j]!r} is categorical with {len(cats)} categories, not "
                                 "binary; expand it with odtlab.encoders.one_hot")
        Xb = check_binary(arr, names)
        return FrameArrays(Xb, names, np.full(Xb.shape[1], 2, dtype=np.int64), None)
    codes = check_codes(arr, feature_names=names)
    C = np.array([len(c) if c is not None else (int(codes[:, j].max()) + 1 if codes.shape[0] else 1)
                  for j, c in enumerate(cat_info)], dtype=np.int64)
    categories = [c if c is not None else list(range(int(C[j]))) for j, c in enumerate(cat_info)]
    return FrameArrays(codes, names, C, categories)


_DROPS = (None, "first", "last")


def one_hot(codes, n_categories, drop=None, feature_names=None):
    """One-hot encode categorical codes: column ``(j, c)`` is 1 iff ``x_j == c``.

    ``drop=None`` keeps every category (Branches' un-suffixed files); ``"first"`` drops category 0 and
    ``"last"`` drops category ``C_j - 1`` of every feature (Branches' ``-f`` and ``-l`` files, Appendix C:
    which one is dropped changes the optimal tree). A feature with a single category gives one constant
    column (or none when a category is dropped). Columns are ordered by feature, then category, as
    scikit-learn's OneHotEncoder does.

    Returns ``(X01, names, mapping)``: ``X01`` int64 ``(n, sum)``, names ``"x3=2"``, and ``mapping`` a
    list of ``(feature, category)`` pairs, one per output column.
    """
    if drop not in _DROPS:
        raise ValueError(f"drop must be one of None, 'first', 'last'; got {drop!r}")
    C = np.asarray(n_categories, dtype=np.int64)
    codes = check_codes(codes, C, feature_names)
    names_in = list(feature_names) if feature_names is not None else _default_names(codes.shape[1])
    mapping = []
    for j in range(codes.shape[1]):
        cats = range(int(C[j]))
        if drop == "first":
            cats = cats[1:]
        elif drop == "last":
            cats = cats[:-1]
        mapping.extend((j, c) for c in cats)
    X01 = np.empty((codes.shape[0], len(mapping)), dtype=np.int64)
    for k, (j, c) in enumerate(mapping):
        X01[:, k] = codes[:, j] == c
    names = [f"{names_in[j]}={c}" for j, c in mapping]
    return X01, names, mapping


# --------------------------------------------------------------------------------------------------
# continuous -> binary
# --------------------------------------------------------------------------------------------------

def _midpoints(u):
    """Thresholds ``t_i`` with ``u_i <= t_i < u_{i+1}`` for sorted distinct ``u``: the midpoints, except
    where float rounding would push a midpoint onto ``u_{i+1}`` (adjacent doubles), which gives ``u_i``."""
    t = u[:-1] + (u[1:] - u[:-1]) / 2.0
    return np.where(t < u[1:], t, u[:-1])


class ThresholdBinarizer(TransformerMixin, BaseEstimator):
    """Binarise continuous features into threshold indicators ``x_j > t`` (scikit-learn style).

    **Direction.** Output column ``(j, t)`` is **1 iff** ``x_j > t`` and 0 iff ``x_j <= t``. So in
    MurTree's convention (the left child holds feature value 0) the left child is ``x_j <= t``, which
    is also CART's (scikit-learn) left branch and Quant-BnB's ``x < b`` left branch; it is the
    "equivalent conversion" of Lin et al. eq. (62) that the Quant-BnB paper uses (its Appendix D.1),
    ``1{x >= midpoint}``. Names read ``"x3 > 0.25"``; ``splits_`` gives ``(feature, threshold)`` per column
    so a tree on binarised data can be printed as ``x3 <= 0.25`` on its left branch.

    **Methods.**

    * ``"midpoints"``: every midpoint between consecutive distinct training values, so a feature with
      ``u`` distinct values gives ``u - 1`` columns. This binarisation is **lossless** for
      depth-limited trees on the training data: every split a tree on the raw feature can make (any
      threshold partitions the sorted distinct values into a prefix and a suffix) is one of these
      columns, so optimal trees correspond one to one. It is the conversion the Quant-BnB paper gives
      its binary-feature competitors in Table 3 (appendix D.1); Table 6's "equiv. conv."
      column is its width, the sum of u(f) - 1 (bank: 4078).
    * ``"quantiles"``: at most ``n_quantiles - 1`` columns, the midpoints nearest to the empirical
      quantiles ``k / n_quantiles``: the midpoint just above the smallest value ``v`` with at least a
      fraction ``k / n_quantiles`` of the samples ``<= v``. They are a subset of the midpoints (so every
      column is a real split of the training data), duplicates removed; this is lossy.

    Thresholds never equal a training value, so ``<`` versus ``<=`` does not matter on training data.
    Constant features give no columns.

    Fitted attributes: ``thresholds_`` (list of float64 arrays, one per input feature),
    ``n_features_in_``, ``feature_names_in_`` (names of the input columns), ``splits_`` and
    ``feature_names_out_``.
    """

    def __init__(self, method="midpoints", n_quantiles=10):
        self.method = method
        self.n_quantiles = n_quantiles

    def _input(self, X):
        if isinstance(X, pd.DataFrame):
            fa = frame_to_arrays(X, require="numeric")
            return fa.X, fa.feature_names
        return check_finite(X), None

    def fit(self, X, y=None):
        """Compute the thresholds of every feature from ``X`` (``y`` is ignored)."""
        if self.method not in ("midpoints", "quantiles"):
            raise ValueError(f"method must be 'midpoints' or 'quantiles'; got {self.method!r}")
        if self.method == "quantiles" and (not isinstance(self.n_quantiles, (int, np.integer))
                                           or self.n_quantiles < 2):
            raise ValueError(f"n_quantiles must be an integer >= 2; got {self.n_quantiles!r}")
        arr, names = self._input(X)
        if arr.shape[0] == 0:
            raise ValueError("cannot fit a ThresholdBinarizer on 0 samples")
        self.n_features_in_ = arr.shape[1]
        self.feature_names_in_ = np.array(names if names is not None else _default_names(arr.shape[1]),
                                          dtype=object)
        self.thresholds_ = [self._feature_thresholds(arr[:, j]) for j in range(arr.shape[1])]
        self.splits_ = [(j, float(t)) for j, ts in enumerate(self.thresholds_) for t in ts]
        self.feature_names_out_ = np.array(
            [f"{self.feature_names_in_[j]} > {t:.6g}" for j, t in self.splits_], dtype=object)
        return self

    def _feature_thresholds(self, x):
        u = np.unique(x)
        mids = _midpoints(u)
        if self.method == "midpoints" or mids.shape[0] == 0:
            return mids
        xs = np.sort(x)
        n = xs.shape[0]
        picks = set()
        for k in range(1, self.n_quantiles):
            v = xs[int(np.ceil(k * n / self.n_quantiles)) - 1]
            pos = int(np.searchsorted(u, v))
            if pos < mids.shape[0]:  # v is not the largest value
                picks.add(pos)
        return mids[sorted(picks)]

    def transform(self, X):
        """Return the int64 0/1 matrix, column ``(j, t)`` = ``1{x_j > t}``."""
        if not hasattr(self, "thresholds_"):
            raise ValueError("this ThresholdBinarizer is not fitted yet; call fit(X) first")
        arr, _ = self._input(X)
        if arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {arr.shape[1]} features, but the binarizer was fitted with "
                             f"{self.n_features_in_}")
        out = np.empty((arr.shape[0], len(self.splits_)), dtype=np.int64)
        start = 0
        for j, ts in enumerate(self.thresholds_):
            out[:, start:start + ts.shape[0]] = arr[:, j, None] > ts[None, :]
            start += ts.shape[0]
        return out

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns, ``"<feature> > <threshold>"``."""
        if not hasattr(self, "feature_names_out_"):
            raise ValueError("this ThresholdBinarizer is not fitted yet; call fit(X) first")
        return self.feature_names_out_.copy()
