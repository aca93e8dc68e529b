"""MurTree against pystreed (STreeD, C++ by the MurTree group): equal optimal misclassifications on every
available dl/ benchmark set at depths 2 and 3 (pystreed's accuracy task, full trees)."""
import numpy as np
import pytest

from odtlab import datasets
from odtlab.solvers.murtree import MurTreeClassifier

pystreed = pytest.importorskip("pystreed")

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
