"""Hypothesis strategies shared by the test modules."""
import numpy as np
from hypothesis import strategies as st


@st.composite
def labelled_binary(draw, rows, features, classes):
    """(X, y): an n x p matrix of 0/1 features and n labels in 0..K-1, with n, p and K drawn from the inclusive
    ranges ``rows``, ``features`` and ``classes``."""
    n = draw(st.integers(*rows))
    p = draw(st.integers(*features))
    K = draw(st.integers(*classes))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=p, max_size=p), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    return X, y
