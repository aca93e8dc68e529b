"""CART in numba against scikit-learn's trees, its pruning path, the estimator contract and bad input."""
import numpy as np
import pandas as pd
import pytest
from sklearn import datasets as skd
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import check_estimator

from odtlab import events as ev
from odtlab.solvers.cart import CARTClassifier, CARTRegressor

SETS = {"iris": skd.load_iris, "wine": skd.load_wine, "breast_cancer": skd.load_breast_cancer,
        "digits": skd.load_digits}


def leaf_impurity(tree_value, n_samples, leaves, criterion="gini"):
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tree_value[leaves] / n_samples[leaves, None]
    imp = 1 - (p ** 2).sum(axis=1) if criterion == "gini" else -(np.where(p > 0, p * np.log2(p), 0)).sum(axis=1)
    return float((n_samples[leaves] * imp).sum())


BIG = pytest.mark.jit_only  # minutes as plain Python


@pytest.mark.parametrize("name", ["iris", "wine", pytest.param("breast_cancer", marks=BIG),
                                  pytest.param("digits", marks=BIG)])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_same_accuracy_size_and_impurity_as_sklearn_at_every_depth(name, criterion):
    """Where two features tie, scikit-learn's pick depends on its random feature order (digits at full depth:
    168 or 169 leaves by random_state), so ours must equal scikit-learn's tree for one of a few seeds."""
    X, y = SETS[name](return_X_y=True)
    for depth in (1, 2, 3, 4, 5, None):
        ours = CARTClassifier(criterion=criterion, max_depth=depth).fit(X, y)
        t = ours.tree_
        ours_imp = leaf_impurity(t.value, t.n_samples, t.split == 0, criterion)
        seen = []
        for seed in range(4):
            ref = DecisionTreeClassifier(criterion=criterion, max_depth=depth, random_state=seed).fit(X, y)
            ref_leaves = ref.tree_.children_left == -1
            ref_imp = float((ref.tree_.weighted_n_node_samples * ref.tree_.impurity)[ref_leaves].sum())
            seen.append((ref.score(X, y), ref.get_n_leaves(), ref_imp))
            if (ours.score(X, y), t.leaves) == seen[-1][:2] and ours_imp == pytest.approx(ref_imp, rel=1e-9, abs=1e-9):
                break
        else:
            pytest.fail(f"{name} depth {depth}: ours {(ours.score(X, y), t.leaves, ours_imp)}, scikit-learn {seen}")


def test_regression_matches_sklearn():
    X, y = skd.load_diabetes(return_X_y=True)
    for depth in (1, 2, 3, 5, 8):
        ours = CARTRegressor(max_depth=depth).fit(X, y)
        ref = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, y)
        assert ours.score(X, y) == pytest.approx(ref.score(X, y), rel=1e-12)
        assert ours.tree_.leaves == ref.get_n_leaves()


def test_multi_output_regression():
    X, y = skd.load_diabetes(return_X_y=True)
    Y = np.column_stack([y, -2 * y])
    ours = CARTRegressor(max_depth=3).fit(X, Y)
    assert ours.predict(X).shape == Y.shape
    np.testing.assert_allclose(ours.predict(X)[:, 1], -2 * ours.predict(X)[:, 0])


def test_sample_weights_match_sklearn():
    X, y = skd.load_breast_cancer(return_X_y=True)
    w = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    ours = CARTClassifier(max_depth=4).fit(X, y, sample_weight=w)
    ref = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    assert ours.score(X, y) == ref.score(X, y)


def test_min_samples_leaf_and_best_first_leaf_budget_match_sklearn():
    X, y = skd.load_wine(return_X_y=True)
    for kw in ({"min_samples_leaf": 5}, {"min_samples_split": 20}, {"max_leaf_nodes": 4}, {"max_leaf_nodes": 7}):
        ours = CARTClassifier(**kw).fit(X, y)
        ref = DecisionTreeClassifier(random_state=0, **kw).fit(X, y)
        assert ours.score(X, y) == ref.score(X, y), kw
        assert ours.tree_.leaves == ref.get_n_leaves(), kw


@BIG
def test_pruning_path_and_pruned_trees_match_sklearn():
    X, y = skd.load_breast_cancer(return_X_y=True)
    ours = CARTClassifier().cost_complexity_pruning_path(X, y)
    ref = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours.impurities, ref.impurities, rtol=1e-9, atol=1e-15)
    # between two path points the pruned tree is unique (at a path point float ties decide)
    for a in (ref.ccp_alphas[:-1] + ref.ccp_alphas[1:]) / 2:
        assert (CARTClassifier(ccp_alpha=a).fit(X, y).tree_.leaves
                == DecisionTreeClassifier(ccp_alpha=a, random_state=0).fit(X, y).get_n_leaves())


def test_xor_shows_the_greedy_split_gains_nothing():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([0, 1, 1, 0])
    est = CARTClassifier(max_depth=2).fit(X, y)
    assert est.score(X, y) == 1.0  # a zero-decrease root split is still made, as in scikit-learn
    assert CARTClassifier(max_depth=1).fit(X, y).score(X, y) == 0.5


@BIG
def test_passes_the_scikit_learn_estimator_checks():
    # Zero-weight rows still add candidate thresholds and count for min_samples_*, as in scikit-learn's
    # own trees, so fitting with sample_weight is not the same as dropping or repeating rows.
    expected = {"check_sample_weight_equivalence_on_dense_data": "zero-weight rows still define thresholds"}
    for est in (CARTClassifier(), CARTRegressor()):
        check_estimator(est, expected_failed_checks=expected)


def test_parameters_are_declared_once_for_both_estimators():
    """Classifier and regressor share one parameter list (criterion's default aside), positional arguments in
    scikit-learn's order (criterion first)."""
    c, r = CARTClassifier("entropy", 3), CARTRegressor(max_depth=3)
    pc, pr = c.get_params(), r.get_params()
    assert pc.pop("criterion") == "entropy" and pr.pop("criterion") == "squared_error" and pc == pr
    assert pc["max_depth"] == 3 and pc["ccp_alpha"] == 0.0


def test_pandas_categorical_input_keeps_names_and_unseen_categories_get_the_parent_class():
    frame = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red", "green", "blue", "green"] * 5),
                          "size": np.tile([1.0, 2.0, 3.0, 1.5, 2.5, 0.5], 5)})
    y = (frame["colour"] == "red").astype(int).to_numpy()
    est = CARTClassifier(max_depth=2).fit(frame, y)
    assert "colour" in est.tree_.to_text()
    assert est.score(frame, y) == 1.0
    root_split_on_colour = est.tree_.feature[0] == 0
    assert root_split_on_colour
    new = pd.DataFrame({"colour": pd.Categorical(["purple", "red"]), "size": [1.0, 1.0]})
    root_majority = est.classes_[est.tree_.prediction[0]]
    np.testing.assert_array_equal(est.predict(new), [root_majority, 1])
    with pytest.raises(ValueError, match="size"):
        est.predict(pd.DataFrame({"colour": pd.Categorical(["red"]), "size": [np.nan]}))


def test_string_column_without_categorical_dtype_is_refused():
    frame = pd.DataFrame({"colour": ["red", "blue"] * 5, "size": np.arange(10.0)})
    with pytest.raises(TypeError, match="colour"):
        CARTClassifier().fit(frame, np.arange(10) % 2)


@pytest.mark.parametrize("X, y, match", [
    (np.array([[0.0], [np.nan]]), [0, 1], "NaN"),
    (np.array([[0.0], [np.inf]]), [0, 1], "inf"),
    (np.zeros((0, 2)), [], "0 sample"),
    (np.array([[0.0], [1.0]]), [1, 1], "one class"),
    (np.zeros(4), [0, 1, 0, 1], "2D"),
])
def test_bad_input_gets_a_clear_error(X, y, match):
    with pytest.raises(ValueError, match=match):
        CARTClassifier().fit(X, y)


@pytest.mark.parametrize("params, match", [({"max_depth": 0}, "max_depth"), ({"min_samples_leaf": 0}, "min_samples_leaf"),
                                           ({"criterion": "gain"}, "criterion"), ({"ccp_alpha": -1}, "ccp_alpha")])
def test_bad_parameters_get_a_clear_error(params, match):
    with pytest.raises(ValueError, match=match):
        CARTClassifier(**params).fit(np.eye(4), [0, 1, 0, 1])


def test_predict_checks_the_number_of_features():
    est = CARTClassifier().fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="features"):
        est.predict(np.eye(3))


def test_summary_has_the_cli_keys():
    X, y = skd.load_iris(return_X_y=True)
    est = CARTClassifier(max_depth=2).fit(X, y)
    out = est.summary(X, y)
    for key in ("objective", "train_accuracy", "misclassifications", "splits", "leaves", "depth", "optimal",
                "lower_bound", "upper_bound", "iterations", "seconds", "status"):
        assert key in out
    assert out["misclassifications"] == 6 and out["status"] == "done" and out["optimal"] is False


def _rebuilt_loss(solver):
    """The incumbent's training loss from a rebuilt tree (how bounds() was computed before the kernel kept it)."""
    tree = solver._build_tree()
    pred = tree.predict_index(solver.X)
    if solver.task == "classification":
        return float(np.dot(solver.w, pred != solver.y))
    return float(np.dot(solver.w, ((pred - solver.Y) ** 2).sum(axis=1)))


@pytest.mark.parametrize("estimator, kw", [
    (CARTClassifier, {"max_depth": 4}), (CARTClassifier, {"criterion": "entropy"}),
    (CARTClassifier, {"max_leaf_nodes": 6}), (CARTClassifier, {"min_samples_leaf": 3, "max_depth": 5}),
    (CARTRegressor, {"max_depth": 5}), (CARTRegressor, {"max_leaf_nodes": 9})])
def test_bounds_kept_by_the_kernel_equal_a_rebuild_at_every_step_and_the_tree_is_unchanged(estimator, kw):
    if estimator is CARTClassifier:
        X, y = skd.load_wine(return_X_y=True)
        w = np.random.default_rng(1).integers(1, 3, size=len(y)).astype(float)
    else:
        X, y = skd.load_diabetes(return_X_y=True)
        w = None
    whole = estimator(**kw).fit(X, y, sample_weight=w)
    search = estimator(**kw).search(X, y, sample_weight=w, record="full")
    steps = 0
    while not search.done:
        search.run(max_iterations=1)
        steps += 1
        lower, upper = search.solver.bounds()
        assert lower == 0.0
        assert upper == pytest.approx(_rebuilt_loss(search.solver), rel=1e-9, abs=1e-9), steps
    assert steps == search.solver.iterations + 1
    final = search.result().tree
    np.testing.assert_array_equal(final.feature, whole.tree_.feature)
    np.testing.assert_array_equal(final.threshold, whole.tree_.threshold)
    ref = (DecisionTreeClassifier if estimator is CARTClassifier else DecisionTreeRegressor)(random_state=0, **kw)
    ref.fit(X, y, sample_weight=w)
    assert final.leaves == ref.get_n_leaves()


def test_exact_gini_tie_is_broken_as_scikit_learn_does():
    """Issue 16, item 8: the cuts 0.75 and 1.25 both leave children's weighted Gini 58/15 (exactly); odtlab
    picked 1.25, scikit-learn 0.75. Both now compute scikit-learn's expression and keep the same cut."""
    X = np.array([[0.0], [0.0], [0.5], [1.0], [1.0], [1.5], [1.5], [1.5]])
    y = np.array([0, 1, 0, 0, 2, 1, 2, 2])
    ref = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y).tree_.threshold[0]
    assert CARTClassifier(max_depth=1).fit(X, y).tree_.threshold[0] == ref == 0.75


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_one_feature_trees_equal_scikit_learn_through_every_tie(criterion):
    """With one feature, scikit-learn's random feature order plays no part: on 300 small sets of few distinct
    values (exact ties at many nodes) every node's threshold equals scikit-learn's."""
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 300:
        n = int(rng.integers(4, 16))
        X = rng.integers(0, 6, (n, 1)) * 0.5
        y = rng.integers(0, int(rng.integers(2, 4)), n)
        if np.unique(y).size < 2:
            continue
        checked += 1
        ref = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y).tree_
        ours = CARTClassifier(criterion=criterion).fit(X, y).tree_
        assert sorted(ours.threshold[ours.split == 1]) == sorted(ref.threshold[ref.feature >= 0]), (X.ravel(), y)


def test_terminated_event_carries_the_result_bounds():
    """Issue 15, item 4: the Terminated caption read "bounds [0, 0]" where the result has bounds [0, 12], and
    SearchStarted read "bounds [0, inf]" where the solver's bounds were [0, loss of the root as a leaf]."""
    X, y = skd.load_wine(return_X_y=True)
    search = CARTClassifier(max_depth=2).search(X, y)
    assert search.history()[["lower", "upper"]].iloc[0].tolist() == [0.0, 107.0]
    result = search.run()
    first, last = ev.decode_all(search.events())[::search.events().size - 1]
    assert first.name == "SearchStarted" and (first.lower, first.upper) == (0.0, 107.0)
    assert last.name == "Terminated" and result.upper_bound > 0
    assert (last.lower, last.upper) == (result.lower_bound, result.upper_bound)
    assert f"bounds [0, {result.upper_bound:.6g}]" in search.describe(last)
