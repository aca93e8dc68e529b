"""Branches against GOSDT (gosdt 1.0.4) on binary (one-hot) data.

GOSDT minimises misclassification rate + lambda * leaves. With binary features every tree has
leaves = splits + 1, so GOSDT's objective is 1 - H_lambda + lambda for every tree and both solvers certify
the same optimum: H_lambda* = 1 - gosdt + lambda. gosdt 1.0.4's predict breaks on scikit-learn >= 1.8
so only ``fit`` and ``result_.upperbound`` are used.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from odtlab import datasets
from odtlab.search import Search
from odtlab.solvers.branches import BranchesSolver
from optional import need

gosdt = need("gosdt")
pytestmark = pytest.mark.peers


def gosdt_h(X, y, lam):
    clf = gosdt.GOSDTClassifier(regularization=lam, allow_small_reg=True, time_limit=600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(pd.DataFrame(X), y)
    assert str(clf.result_.status).endswith("CONVERGED")
    return 1.0 - clf.result_.upperbound + lam


def branches_h(X, y, lam):
    result = Search(BranchesSolver(X, y, lam=lam), record="none").run()
    assert result.optimal
    return result.objective


@pytest.mark.parametrize("name, lam", [("monk1-l", 0.01),
                                       pytest.param("monk3-f", 0.001, marks=pytest.mark.slow)])  # gosdt: ~10 s
def test_same_optimum_as_gosdt_on_one_hot_sets(shared_data, name, lam):
    d = datasets.load(f"branches/{name}")
    assert d.kind == "binary"
    assert branches_h(d.X, d.y, lam) == pytest.approx(gosdt_h(d.X, d.y, lam), abs=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_same_optimum_as_gosdt_on_random_binary_data(seed):
    rng = np.random.default_rng(seed)
    n, q = rng.integers(20, 80), rng.integers(2, 7)
    X = rng.integers(0, 2, size=(n, q))
    K = 2 + seed % 2
    y = (X[:, 0] + X[:, 1] * (K - 1) + (rng.random(n) < 0.2)) % K
    lam = [0.005, 0.01, 0.02, 0.05][seed % 4]
    assert branches_h(X, y, lam) == pytest.approx(gosdt_h(X, y, lam), abs=1e-6)
