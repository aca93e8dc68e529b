"""odtlab.encoders: ordinal / one-hot round trips, the threshold binarizer, and validation messages."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from odtlab.encoders import (ThresholdBinarizer, check_binary, check_codes, check_finite, check_labels,
                             frame_to_arrays, one_hot, ordinal_encode)


def test_ordinal_encode_frame_keeps_names_and_declared_categories():
    df = pd.DataFrame({
        "size": pd.Categorical(["S", "L", "M", "S"], categories=["S", "M", "L", "XL"], ordered=True),
        "colour": ["red", "blue", "red", "green"],  # plain object column: sorted distinct values
        "legs": [4, 2, 4, 0],
    })
    codes, C, cats, names = ordinal_encode(df)
    assert names == ["size", "colour", "legs"]
    assert codes.dtype == np.int64 and codes.tolist() == [[0, 2, 2], [2, 0, 1], [1, 2, 2], [0, 1, 0]]
    assert C.tolist() == [4, 3, 3]  # the unobserved "XL" still counts
    assert cats == [["S", "M", "L", "XL"], ["blue", "green", "red"], [0, 2, 4]]
    # decoding gives the input back
    for j, col in enumerate(df.columns):
        assert [cats[j][c] for c in codes[:, j]] == list(df[col])


def test_ordinal_encode_array_and_missing_values():
    codes, C, cats, names = ordinal_encode(np.array([["b", "x"], ["a", "x"], ["b", "y"]]))
    assert names == ["x0", "x1"] and codes.tolist() == [[1, 0], [0, 0], [1, 1]] and C.tolist() == [2, 2]
    with pytest.raises(ValueError, match="column 'c' has missing values"):
        ordinal_encode(pd.DataFrame({"c": ["a", None, "b"]}))
    with pytest.raises(ValueError, match="column 'k' has 1 missing values"):
        ordinal_encode(pd.DataFrame({"k": pd.Categorical(["a", None])}))


def test_frame_to_arrays_refuses_strings_without_categorical_dtype():
    df = pd.DataFrame({"ok": pd.Categorical(["a", "b"]), "city": ["Paris", "Lyon"]})
    for require in ("categorical", "numeric", "binary"):
        with pytest.raises(TypeError, match=r"column 'city' holds strings .*astype\(\"category\"\)"):
            frame_to_arrays(df, require=require)
    with pytest.raises(TypeError, match="strings or objects"):
        frame_to_arrays(np.array([["a"]], dtype=object))
    with pytest.raises(ValueError, match="require must be one of"):
        frame_to_arrays(df[["ok"]], require="ordinal")


def test_frame_to_arrays_modes():
    df = pd.DataFrame({"c": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi", "mid"]),
                       "n": [3, 0, 1], "f": [0.5, 1.5, 2.5], "b": [True, False, True]})
    cat = frame_to_arrays(df[["c", "n", "b"]], require="categorical")
    assert cat.X.tolist() == [[0, 3, 1], [1, 0, 0], [0, 1, 1]]
    assert cat.n_categories.tolist() == [3, 4, 2] and cat.categories[0] == ["lo", "hi", "mid"]
    assert cat.feature_names == ["c", "n", "b"]
    num = frame_to_arrays(df, require="numeric")
    assert num.X.dtype == np.float64 and num.X[:, 2].tolist() == [0.5, 1.5, 2.5] and num.n_categories is None
    binary = frame_to_arrays(df[["b"]], require="binary")
    assert binary.X.tolist() == [[1], [0], [1]] and binary.n_categories.tolist() == [2]
    with pytest.raises(ValueError, match="column 'c' is categorical with 3 categories.*one_hot"):
        frame_to_arrays(df[["c"]], require="binary")
    with pytest.raises(ValueError, match=r"column 2 \('f'\) holds non-integer values"):
        frame_to_arrays(df[["c", "n", "f"]], require="categorical")
    arr = frame_to_arrays(np.array([[0, 1], [1, 1]]), require="binary", feature_names=["p", "q"])
    assert arr.feature_names == ["p", "q"]


@pytest.mark.parametrize("drop,width", [(None, 2 + 3 + 1), ("first", 1 + 2 + 0), ("last", 1 + 2 + 0)])
def test_one_hot_drop_variants(drop, width):
    codes = np.array([[0, 2, 0], [1, 0, 0], [1, 1, 0]])
    C = np.array([2, 3, 1])
    X, names, mapping = one_hot(codes, C, drop=drop, feature_names=["a", "b", "c"])
    assert X.shape == (3, width) and X.dtype == np.int64 and len(names) == len(mapping) == width
    for k, (j, c) in enumerate(mapping):
        assert names[k] == f"{'abc'[j]}={c}"
        np.testing.assert_array_equal(X[:, k], codes[:, j] == c)
    if drop is None:
        assert X.sum(axis=1).tolist() == [3, 3, 3]  # exactly one hot per feature
    elif drop == "first":
        assert all(c != 0 for j, c in mapping)
    else:
        assert all(c != C[j] - 1 for j, c in mapping)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
    lambda C: st.tuples(st.just(C), st.lists(st.tuples(*[st.integers(0, c - 1) for c in C]), min_size=1,
                                              max_size=12))))
def test_one_hot_round_trip(case):
    C, rows = case
    codes = np.array(rows, dtype=np.int64)
    X, _, mapping = one_hot(codes, C)
    decoded = np.zeros_like(codes)
    for k, (j, c) in enumerate(mapping):
        decoded[X[:, k] == 1, j] = c
    np.testing.assert_array_equal(decoded, codes)
    for drop, missing in (("first", 0), ("last", None)):  # the dropped category is the all-zero pattern
        Xd, _, md = one_hot(codes, C, drop=drop)
        assert Xd.shape[1] == sum(C) - len(C)
        decoded = np.array([[missing if missing is not None else C[j] - 1 for j in range(len(C))]] * len(rows))
        for k, (j, c) in enumerate(md):
            decoded[Xd[:, k] == 1, j] = c
        np.testing.assert_array_equal(decoded, codes)


def test_one_hot_rejects_bad_input():
    with pytest.raises(ValueError, match="drop must be one of"):
        one_hot(np.zeros((2, 1), int), [2], drop="middle")
    with pytest.raises(ValueError, match="column 0 holds code 2 but n_categories\\[0\\] = 2"):
        one_hot(np.array([[2]]), [2])


def test_threshold_binarizer_midpoints_counts_and_direction():
    X = np.array([[0.1, 5.0, 7.0], [0.4, 5.0, 7.0], [0.4, 6.0, 7.0], [0.9, 5.0, 7.0]])
    tb = ThresholdBinarizer().fit(X)
    # u - 1 columns for u distinct values; a constant column gives none
    assert [len(t) for t in tb.thresholds_] == [2, 1, 0]
    np.testing.assert_allclose(tb.thresholds_[0], [0.25, 0.65])
    assert list(tb.get_feature_names_out()) == ["x0 > 0.25", "x0 > 0.65", "x1 > 5.5"]
    assert tb.splits_ == [(0, 0.25), (0, 0.65), (1, 5.5)]
    out = tb.transform(X)
    assert out.dtype == np.int64
    assert out.tolist() == [[0, 0, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]]  # 1 iff x > t
    assert tb.transform(np.array([[0.25, 5.5, 0.0]])).tolist() == [[0, 0, 0]]  # the threshold goes left


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 3)),
              elements=st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0, 2.5, -3.0, 1e-300, 5e-324])))
def test_midpoints_are_lossless(X):
    """Every threshold split of the training data is one column: u - 1 columns, strictly between values,
    and the columns of a feature are nested (sorted rows have monotone patterns)."""
    tb = ThresholdBinarizer().fit(X)
    out = tb.transform(X)
    for j, ts in enumerate(tb.thresholds_):
        u = np.unique(X[:, j])
        assert len(ts) == len(u) - 1
        assert np.all((ts >= u[:-1]) & (ts < u[1:]))
    # distinct values of one feature get distinct patterns: nothing a raw split sees is lost
    start = 0
    for j, ts in enumerate(tb.thresholds_):
        block = out[:, start:start + len(ts)]
        patterns = {tuple(r) for r in block}
        assert len(patterns) == len(np.unique(X[:, j]))
        start += len(ts)


def test_threshold_binarizer_quantiles_and_frames():
    x = np.arange(100, dtype=float)[:, None]
    tb = ThresholdBinarizer(method="quantiles", n_quantiles=4).fit(x)
    np.testing.assert_allclose(tb.thresholds_[0], [24.5, 49.5, 74.5])
    mids = ThresholdBinarizer().fit(x).thresholds_[0]
    assert set(tb.thresholds_[0]) <= set(mids)  # quantile thresholds are real splits of the data
    ties = np.array([[0.0]] * 90 + [[1.0]] * 10)
    assert ThresholdBinarizer(method="quantiles", n_quantiles=10).fit(ties).thresholds_[0].tolist() == [0.5]
    df = pd.DataFrame({"age": [30.0, 40.0, 50.0], "grade": pd.Categorical(["a", "b", "b"])})
    tbf = ThresholdBinarizer().fit(df)
    assert list(tbf.feature_names_out_) == ["age > 35", "age > 45", "grade > 0.5"]
    assert tbf.get_params() == {"method": "midpoints", "n_quantiles": 10}


def test_threshold_binarizer_errors():
    with pytest.raises(ValueError, match="method must be 'midpoints' or 'quantiles'"):
        ThresholdBinarizer(method="mdlp").fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="n_quantiles must be an integer >= 2"):
        ThresholdBinarizer(method="quantiles", n_quantiles=1).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="not fitted"):
        ThresholdBinarizer().transform(np.zeros((2, 1)))
    tb = ThresholdBinarizer().fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="X has 3 features, but the binarizer was fitted with 2"):
        tb.transform(np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"column 1 has 1 rows with NaN"):
        ThresholdBinarizer().fit(np.array([[0.0, np.nan], [1.0, 2.0]]))


def test_check_finite():
    assert check_finite([[1, 2]]).dtype == np.float64
    with pytest.raises(ValueError, match=r"column 1 \('b'\) has 2 rows with NaN or infinity"):
        check_finite(np.array([[0.0, np.inf], [1.0, np.nan]]), ["a", "b"])
    with pytest.raises(ValueError, match="2-D"):
        check_finite(np.zeros(3))


def test_check_codes():
    assert check_codes(np.array([[0.0, 2.0]])).dtype == np.int64
    with pytest.raises(ValueError, match=r"column 1 \('y'\) holds non-integer values"):
        check_codes(np.array([[0, 1.5]]), feature_names=["x", "y"])
    with pytest.raises(ValueError, match="column 0 holds negative codes"):
        check_codes(np.array([[-1, 0]]))
    with pytest.raises(ValueError, match=r"column 1 holds code 3 but n_categories\[1\] = 3"):
        check_codes(np.array([[0, 3]]), n_categories=[2, 3])


def test_check_binary():
    assert check_binary(np.array([[True, False]])).tolist() == [[1, 0]]
    with pytest.raises(ValueError, match=r"column 2 \('z'\) is not binary.*ThresholdBinarizer.*one_hot"):
        check_binary(np.array([[0, 1, 2]]), ["x", "y", "z"])


def test_check_labels():
    codes, classes = check_labels(np.array(["b", "a", "b"]))
    assert codes.tolist() == [1, 0, 1] and classes.tolist() == ["a", "b"]
    assert check_labels([[3], [5]])[0].tolist() == [0, 1]
    with pytest.raises(ValueError, match="only one class"):
        check_labels([1, 1, 1])
    with pytest.raises(ValueError, match="empty"):
        check_labels([])
    with pytest.raises(ValueError, match="NaN"):
        check_labels([0.0, np.nan])
    with pytest.raises(ValueError, match="must be 1-D"):
        check_labels(np.zeros((2, 2)))
