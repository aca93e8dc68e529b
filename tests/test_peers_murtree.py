"""MurTree against pystreed (STreeD, C++ by the MurTree group): equal optimal misclassifications on every
available dl/ benchmark set at depths 2 and 3 (pystreed's accuracy task, full trees), and equal optimal squared
errors for the regressor (pystreed's "regression" task) on two data sets at depths 2 and 3."""
import numpy as np
import pytest

from odtlab import datasets
from odtlab.solvers.murtree import MurTreeClassifier, MurTreeRegressor
from optional import need

pystreed = need("pystreed")

# over a second each with JIT (loading the file included); the others take 0.05-0.5 s, about 5 s in all
SLOW = {"dl/ionosphere", "dl/pendigits", "dl/mushroom", "dl/segment", "dl/letter", "dl/splice-1", "dl/vehicle"}
SETS = datasets.names("dl", available_only=True)


@pytest.mark.peers
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in SETS])
def test_same_optimum_as_pystreed(name, depth):
    data = datasets.load(name)
    X, y = np.asarray(data.X), np.asarray(data.y)
    ours = MurTreeClassifier(max_depth=depth, record="none").fit(X, y)
    theirs = pystreed.STreeDClassifier(optimization_task="accuracy", max_depth=depth, time_limit=600).fit(X, y)
    errors = int(np.count_nonzero(theirs.predict(X) != y))
    assert ours.result_.optimal
    assert ours.result_.objective == errors == int(np.count_nonzero(ours.predict(X) != y))


def _regression_sets():
    """sklearn/diabetes with its ten features binarised at quantiles (62 columns), and dl/anneal's binary features
    with a target made of a few of them plus noise."""
    from odtlab.encoders import ThresholdBinarizer

    diabetes = datasets.load("sklearn/diabetes")
    X = ThresholdBinarizer(method="quantiles", n_quantiles=8).fit_transform(np.asarray(diabetes.X))
    yield "sklearn/diabetes", X.astype(np.int64), np.asarray(diabetes.y, dtype=float)
    anneal = datasets.load("dl/anneal")
    Xa = np.asarray(anneal.X).astype(np.int64)
    rng = np.random.default_rng(0)
    ya = 2.0 * Xa[:, 3] - 1.5 * Xa[:, 10] * Xa[:, 20] + Xa[:, 40] + rng.normal(0, 0.3, len(Xa))
    yield "dl/anneal-synthetic", Xa, ya


@pytest.mark.peers
@pytest.mark.parametrize("depth", [2, 3])
def test_regressor_same_optimum_as_pystreed(depth):
    """Equal squared errors, except that pystreed 1.x with its defaults can stop slightly above the optimum (on
    dl/anneal-synthetic at depth 3: 70.33649 against our 70.33475, a valid tree re-scored from its predictions);
    given an upper bound just above our optimum it then finds a tree of our cost. So: never worse than pystreed,
    and pystreed confirms the optimum when told where to look."""
    for name, X, y in _regression_sets():
        ours = MurTreeRegressor(max_depth=depth, record="none").fit(X, y)
        assert ours.result_.optimal, name
        assert ours.tree_.squared_error(X, y) == pytest.approx(ours.result_.objective, rel=1e-9), name
        theirs = pystreed.STreeDRegressor(optimization_task="regression", max_depth=depth, time_limit=600).fit(X, y)
        sse = float(((theirs.predict(X) - y) ** 2).sum())
        assert ours.result_.objective <= sse * (1 + 1e-9), name
        if name == "sklearn/diabetes":
            assert ours.result_.objective == pytest.approx(sse, rel=1e-9)
        hinted = pystreed.STreeDRegressor(optimization_task="regression", max_depth=depth, time_limit=600,
                                          upper_bound=ours.result_.objective * (1 + 1e-6)).fit(X, y)
        assert float(((hinted.predict(X) - y) ** 2).sum()) == pytest.approx(ours.result_.objective, rel=1e-9), name
