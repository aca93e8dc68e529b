"""Bad input gets a clear error naming the parameter or the input, never a numba or numpy traceback.

The first tests are the reproducers of the reliability issue (each failed before the parameter tables and
the input checks); the last ones fuzz every registered estimator's fit/predict with hypothesis.
"""
import inspect
import traceback
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from odtlab import encoders, solvers

ESTIMATORS = sorted(solvers.estimators().values(), key=lambda c: c.__name__)
REGRESSORS = [cls for cls in ESTIMATORS if cls._task == "regression"]
WITH_DEPTH = [cls for cls in ESTIMATORS if "max_depth" in inspect.signature(cls).parameters]
# a depth is required where the default is one (MurTree, Quant-BnB, DPDT); CART and Branches default to None
NEEDS_DEPTH = [cls for cls in WITH_DEPTH if inspect.signature(cls).parameters["max_depth"].default is not None]


def _ids(classes):
    return [cls.__name__ for cls in classes]


def _small_problem(cls, n=24, seed=0):
    """Data of the kind ``cls`` takes: codes (Branches), 0/1 (MurTree) or floats; class labels or targets."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2 if cls._input == "binary" else 3, size=(n, 3))
    X = X if cls._input != "numeric" else X + rng.normal(0, 0.1, size=X.shape)
    y = X[:, 0] + X[:, 1] > 1.5 if cls._task == "classification" else X[:, 0] * 2.0 + X[:, 1]
    return X, y.astype(np.int64 if cls._task == "classification" else np.float64)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_every_parameter_has_a_constraint(cls):
    """One table per estimator covers its whole signature (scikit-learn's _parameter_constraints)."""
    assert set(inspect.signature(cls).parameters) <= set(cls._parameter_constraints)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_time_limit_as_text_names_the_parameter_and_range(cls):
    """Reproducer: time_limit="1" said "'>' not supported between 'str' and 'int'" on all 9 estimators."""
    X, y = _small_problem(cls)
    with pytest.raises(ValueError, match=r"'time_limit' parameter of \w+ must be None or a float in the range \(0(\.0)?, inf\)"):
        cls(time_limit="1").fit(X, y)


@pytest.mark.parametrize("cls", WITH_DEPTH, ids=_ids(WITH_DEPTH))
def test_max_depth_nan_names_the_parameter(cls):
    """Reproducer: max_depth=nan said "cannot convert float NaN to integer"."""
    X, y = _small_problem(cls)
    with pytest.raises(ValueError, match=r"'max_depth' parameter of .* must be an int in the range"):
        cls(max_depth=float("nan")).fit(X, y)


@pytest.mark.parametrize("cls", NEEDS_DEPTH, ids=_ids(NEEDS_DEPTH))
def test_max_depth_none_where_a_depth_is_required(cls):
    """Reproducer: MurTree max_depth=None said "int() argument must be ... not 'NoneType'"."""
    X, y = _small_problem(cls)
    with pytest.raises(ValueError, match=r"'max_depth' parameter of .* must be an int in the range \[\d+, [^.]*\. Got None"):
        cls(max_depth=None).fit(X, y)


def test_unseen_pandas_category_at_predict_stops_at_its_split():
    """Reproducer: a pandas category unseen at fit gave "column 0 ('a') is not binary ([nan])" (MurTree)."""
    from odtlab import MurTreeClassifier

    X = pd.DataFrame({"a": pd.Categorical(["u", "v"] * 10), "b": [0, 1, 1, 0] * 5})
    y = np.array([0, 1] * 10)
    clf = MurTreeClassifier(max_depth=1).fit(X, y)
    test = pd.DataFrame({"a": pd.Categorical(["u", "w"]), "b": [0, 0]})
    pred = clf.predict(test)
    root = clf.tree_.feature[0]
    assert root == 0  # the split on "a" decides every row
    assert pred[0] == 0  # a seen category follows its branch
    assert pred[1] == clf.classes_[clf.tree_.prediction[0]]  # the unseen one stops at the root: its majority


def test_huge_value_in_codes_is_named_not_called_negative():
    """Reproducer: a code of 1e300 was cast to a negative int64 and reported as "negative codes"."""
    from odtlab import BranchesClassifier

    X = np.zeros((10, 2))
    X[3, 1] = 1e300
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=r"column 1 .*holds code 1e\+300.*0\.\.1023") as info:
        BranchesClassifier().fit(X, y)
    assert "negative" not in str(info.value)


@pytest.mark.parametrize("code", [10**9, 10**7, 10**6, encoders.MAX_CATEGORIES])
def test_a_stray_category_code_is_refused_before_any_allocation(code):
    """Reproducer: one code of 10**9 in 40 rows grew Branches to 8 GB (10**7: numpy's "76.3 GiB" MemoryError;
    10**6: an "optimal" tree with 1,000,005 leaves). The documented maximum is encoders.MAX_CATEGORIES."""
    from odtlab import BranchesClassifier

    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(40, 3))
    X[7, 2] = code
    y = rng.integers(0, 2, size=40)
    with pytest.raises(ValueError, match=rf"column 2 .*holds code {code}\b.*at most {encoders.MAX_CATEGORIES} categories"):
        BranchesClassifier(lam=0.05).fit(X, y)
    frame = pd.DataFrame(X, columns=["p", "q", "r"])
    with pytest.raises(ValueError, match=rf"column 2 \('r'\) holds code {code}\b"):
        BranchesClassifier(lam=0.05).fit(frame, y)


def test_the_largest_allowed_code_still_fits():
    from odtlab import BranchesClassifier

    X = np.zeros((6, 1), dtype=np.int64)
    X[:3, 0] = encoders.MAX_CATEGORIES - 1
    y = np.array([1, 1, 1, 0, 0, 0])
    assert BranchesClassifier(lam=0.1).fit(X, y).score(X, y) == 1.0


def test_too_many_pandas_categories_are_refused():
    from odtlab import BranchesClassifier

    cats = [f"c{i}" for i in range(encoders.MAX_CATEGORIES + 1)]
    X = pd.DataFrame({"a": pd.Categorical(["c0", "c1"] * 5, categories=cats)})
    with pytest.raises(ValueError, match=rf"column 'a' has {len(cats)} categories"):
        BranchesClassifier().fit(X, np.arange(10) % 2)


@pytest.mark.parametrize("cls", REGRESSORS, ids=_ids(REGRESSORS))
@pytest.mark.parametrize("bad", [None, np.nan, np.inf, "7"])
def test_regression_targets_must_be_finite_numbers(cls, bad):
    """Reproducer: an object target holding None passed (CART's objective NaN, Quant-BnB's inf "optimal")."""
    X, y = _small_problem(cls)
    y = y.astype(object)
    y[4] = bad
    if bad == "7":  # a numeric string converts, as scikit-learn does
        assert np.isfinite(cls().fit(X, y).result_.objective)
        return
    with pytest.raises(ValueError, match=r"y holds 1 missing \(None or NaN\) or infinite values"):
        cls().fit(X, y)


@pytest.mark.parametrize("cls", REGRESSORS, ids=_ids(REGRESSORS))
def test_text_regression_targets_are_refused(cls):
    X, y = _small_problem(cls)
    with pytest.raises(ValueError, match=r"y must hold numbers for a regressor"):
        cls().fit(X, np.array(["a", "b"] * (len(y) // 2), dtype=object))


@pytest.mark.parametrize("cls", REGRESSORS, ids=_ids(REGRESSORS))
def test_complex_regression_targets_are_refused(cls):
    """numpy would drop the imaginary part with only a warning."""
    X, y = _small_problem(cls)
    with pytest.raises(ValueError, match="complex"):
        cls().fit(X, y + 1j)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_negative_sample_weight_is_refused(cls):
    X, y = _small_problem(cls)
    w = np.ones(len(y))
    w[0] = -1
    with pytest.raises(ValueError, match="sample_weight"):
        cls().fit(X, y, sample_weight=w)


def _scaled_to(y, magnitude):
    """``y`` times the factor that makes n * sum y^2 (W * sum w y^2 with unit weights) equal ``magnitude``."""
    return y * np.sqrt(magnitude / (len(y) * float((y * y).sum())))


@pytest.mark.parametrize("cls", REGRESSORS, ids=_ids(REGRESSORS))
def test_targets_whose_squared_sums_overflow_are_refused_with_the_range(cls):
    """Reproducer (issue 19): targets near 1e153 in 100 rows have finite squares but squared sums past float64, and
    fits reported a squared error of 0 (Quant-BnB, MurTree, CART); near 1e200 CART's was nan and the kernels
    overflowed (numpy's warnings when they run as Python). The accepted range is n * sum y^2 <= 1e300."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(100, 3)).astype(np.float64)
    y = np.where(X[:, 0] > 0, 1.0, -1.0) + 0.1 * X[:, 1] - 0.05
    for scale in (1e153, 1e200):
        with pytest.raises(ValueError, match=r"W \* sum_i w_i y_i\^2 .* must be at most 1e\+300, so with 100 rows of "
                                             r"weight 1 every \|y\| at most 1e\+148"):
            cls(max_depth=2).fit(X, y * scale)


@pytest.mark.parametrize("cls", REGRESSORS, ids=_ids(REGRESSORS))
def test_targets_at_the_edge_of_the_range_fit_without_overflow(cls, recwarn):
    """Just inside the range (n * sum y^2 = 0.99e300) the fit's squared error is finite and positive and no kernel
    overflows (numpy warns when the kernels run as Python); with weights the range is W * sum w y^2 <= 1e300."""
    X, y = _small_problem(cls)
    y = _scaled_to(y + np.random.default_rng(2).normal(0, 0.3, len(y)), 0.99e300)  # noise: no perfect fit
    est = cls(max_depth=2).fit(X, y)
    assert est.result_.status in ("optimal", "done")
    assert 0 < est.tree_.squared_error(X, y) < np.inf and np.isfinite(est.result_.objective)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    weighted = _scaled_to(y, 0.99e300 / 1e6)  # weights 1000 each: W * sum w y^2 grows by 10^6
    with pytest.raises(ValueError, match=r"must be at most 1e\+300"):
        cls(max_depth=2).fit(X, weighted * 10, sample_weight=np.full(len(y), 1000.0))
    assert np.isfinite(cls(max_depth=2).fit(X, weighted, sample_weight=np.full(len(y), 1000.0)).result_.objective)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_sample_weights_whose_sum_overflows_are_refused_with_the_range(cls):
    """Reproducer (issue 19): weights of 1e307 gave DPDT an objective nan and CART inf (their total overflows), 1e300
    gave CART overflow warnings (Gini squares the total weight). The accepted total is at most 1e150."""
    X, y = _small_problem(cls)
    for weight in (1e307, 1e149):
        with pytest.raises(ValueError, match=r"sample_weight sums to (more than float64 holds|2\.4e\+150), above "
                                             r"the accepted 1e\+150"):
            cls().fit(X, y, sample_weight=np.full(len(y), weight))


# -- fuzzing ----------------------------------------------------------------------------------------
# Values tried for any parameter: the defaults and valid choices below, and values of the wrong type or range.
ODD_VALUES = [None, -1, 0, 1, 2, 3, 0.5, 1.5, float("nan"), float("inf"), "1", "x", True, (), [2]]
# Valid non-default choices per parameter name; "record" stays at its default (each level is a separate
# numba compilation) and time_limit is short so that no case runs long.
CHOICES = {"max_depth": [1, 2, 3], "lam": [0.0, 0.05, 0.2, "0.1"], "alpha": [0.0, 0.5, 2], "max_nodes": [1, 2, 5],
           "min_samples_split": [2, 5], "min_samples_leaf": [1, 3], "max_leaf_nodes": [2, 4], "ccp_alpha": [0.0, 0.01],
           "candidates": [(2,), (3, 2), 2], "generator": ["cart", "topb", "exhaustive"], "s": [2, 3],
           "lower_bound": ["W0", "W1", "W2"], "initial": ["greedy", "cart", "leaf"], "time_limit": [None, 1.0]}
FROZEN = {"record", "memory_limit"}


def _clear(exc):
    """An error is clear when it is a ValueError / TypeError raised by odtlab or scikit-learn's input checks
    (not from inside numba or numpy) with a message."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = frames[-1].filename.replace("\\", "/")
    inside = ("/numba/", "/numpy/")
    return (isinstance(exc, (ValueError, TypeError)) and str(exc) and type(exc).__module__.split(".")[0] != "numba"
            and not any(part in where for part in inside)), f"{type(exc).__name__} at {where}: {exc}"


DEFECTS = [None, None, None, None, "shape", "dtype", "short", "labels", "parameter"]


@st.composite
def problems(draw, cls):
    """(X, y, params) for ``cls`` with at most one defect: an odd shape, a dtype or values it does not take,
    one label too few, bad labels or targets, or a parameter of the wrong type or range."""
    defect = draw(st.sampled_from(DEFECTS))
    n = draw(st.integers(0, 12)) if defect == "shape" else draw(st.integers(4, 30))
    p = draw(st.integers(0, 3)) if defect == "shape" else draw(st.integers(1, 4))
    kind = {"categorical": "codes", "binary": "binary", "numeric": "floats"}[cls._input]
    if defect == "dtype":
        kind = draw(st.sampled_from(["codes", "binary", "floats", "wild", "object", "bool"]))
    if kind == "codes":
        X = np.array(draw(st.lists(st.integers(0, 3), min_size=n * p, max_size=n * p)), dtype=np.int64)
    elif kind == "binary":
        X = np.array(draw(st.lists(st.integers(0, 1), min_size=n * p, max_size=n * p)), dtype=np.int8)
    elif kind == "bool":
        X = np.array(draw(st.lists(st.booleans(), min_size=n * p, max_size=n * p)), dtype=bool)
    elif kind == "floats":
        X = np.array(draw(st.lists(st.floats(-5, 5, width=32), min_size=n * p, max_size=n * p)), dtype=np.float32)
    elif kind == "wild":
        values = st.sampled_from([0.0, 1.0, 2.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 1e300, 2.0 ** 63, 1e9])
        X = np.array(draw(st.lists(values, min_size=n * p, max_size=n * p)), dtype=np.float64)
    else:
        X = np.array(draw(st.lists(st.sampled_from([0, 1, "a", None]), min_size=n * p, max_size=n * p)), dtype=object)
    X = X.reshape(n, p)
    m = max(n - 1, 0) if defect == "short" else n
    if cls._task == "classification":
        labels = st.sampled_from([0, 1, 2, 1.5, np.nan, "a", None]) if defect == "labels" else st.integers(0, 2)
    else:
        labels = st.sampled_from([np.nan, np.inf, None, 1e15, "a", 0.0]) if defect == "labels" else st.floats(-1e3, 1e3)
    y = np.array(draw(st.lists(labels, min_size=m, max_size=m)), dtype=object)
    if defect != "labels" or draw(st.booleans()):
        y = pd.to_numeric(pd.Series(y), errors="coerce").to_numpy()
    names = [name for name in inspect.signature(cls).parameters if name not in FROZEN]
    params = {name: draw(st.sampled_from(CHOICES[name])) for name in names
              if name in CHOICES and draw(st.integers(0, 2)) == 0}
    if defect == "parameter":
        name = draw(st.sampled_from(names))
        params[name] = draw(st.sampled_from(ODD_VALUES))
    params.setdefault("time_limit", 1.0)
    return X, y, params


def fuzz(cls, examples=40):
    """Fit and predict ``examples`` problems drawn by :func:`problems` (a fixed seed); return the counts of
    outcomes, ``{"clear error": n, "valid tree": m}``. Fails at the first unclear error (:func:`_clear`) or a
    tree whose bounds do not contain its objective. ``benchmarks/bench_reliability.py`` prints these counts."""
    counts = Counter()

    @seed(20)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(problem=problems(cls))
    def run(problem):
        X, y, params = problem
        try:
            est = cls(**params).fit(X, y)
        except Exception as exc:  # noqa: BLE001 - every exception is inspected
            ok, what = _clear(exc)
            assert ok, f"{cls.__name__}({params}) on X {X.dtype}{X.shape}: unclear error {what}"
            counts["clear error"] += 1
            return
        res = est.result_
        assert res.lower_bound <= res.upper_bound, (params, res)
        assert res.lower_bound <= res.objective <= res.upper_bound, (params, res)
        pred = est.predict(X)
        assert pred.shape[0] == X.shape[0]
        counts["valid tree"] += 1

    run()
    return counts


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_fuzzed_fit_and_predict_give_a_clear_error_or_a_valid_tree(cls):
    counts = fuzz(cls)
    assert counts["clear error"] > 0 and counts["valid tree"] > 0  # both outcomes drawn
