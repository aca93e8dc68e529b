"""Bounds that visibly meet (issue 15, item 5): MurTree and Quant-BnB lower bounds rise during the search, in
``search.history()`` and in every player, and stay certified (non-decreasing, at most the optimum)."""
import numpy as np
import pytest

from odtlab import MurTreeClassifier, QuantBnBClassifier, datasets
from odtlab.widgets import explore


def _stepped_lower_bounds(search):
    """The lower bounds of ``search.history()`` when every kernel call advances one iteration (as a player)."""
    for _ in search.steps(record="summary"):
        pass
    return search.history()["lower"].to_numpy(), search.result()


def _assert_rises_to_the_optimum(lower, result):
    assert np.unique(lower).size > 2, lower  # not 0 until a jump at the end
    assert np.all(np.diff(lower) >= 0) and result.optimal
    assert lower.max() == result.lower_bound == result.objective


@pytest.mark.parametrize("depth", [3, 4])
def test_murtree_bound_probing_raises_the_lower_bound(shared_data, depth):
    data = datasets.load("dl/australian-credit")
    lower, result = _stepped_lower_bounds(MurTreeClassifier(max_depth=depth, bound_probing=True).search(data.X, data.y))
    _assert_rises_to_the_optimum(lower, result)
    plain = MurTreeClassifier(max_depth=depth).fit(data.X, data.y).result_
    assert plain.objective == result.objective


@pytest.mark.parametrize("depth", [2, 3])
def test_quantbnb_lower_bound_is_the_smallest_alive_bound_and_rises(shared_data, depth):
    data = datasets.load("quantbnb/bank")
    lower, result = _stepped_lower_bounds(QuantBnBClassifier(max_depth=depth).search(np.asarray(data.X, float), data.y))
    _assert_rises_to_the_optimum(lower, result)


def test_every_murtree_player_probes():
    """explore() turns bound_probing on in a clone; the estimator the user passed keeps its parameters."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (60, 6))
    y = (X[:, 0] ^ X[:, 1]) | X[:, 2]
    est = MurTreeClassifier(max_depth=2)
    player = explore(est, X, y)
    assert player.search.solver.params.probing == 1
    assert est.bound_probing is False and MurTreeClassifier().bound_probing is False
