"""The one place where numba is configured for odtlab's kernels.

Every kernel is compiled with ``cache=True`` (the cache lives next to the source, or in
``NUMBA_CACHE_DIR``), so a notebook pays the compile cost once per machine, not per kernel start.
Kernels are written so that they also run as plain Python under ``NUMBA_DISABLE_JIT=1``, which the
coverage run of the test suite uses.
"""
from fractions import Fraction
import functools

import numba

njit = functools.partial(numba.njit, cache=True)


def as_ratio(value, max_denominator=10**6):
    """Return ``(p, q)`` with ``p / q == value`` exactly for decimal input such as 0.005 or "0.005".

    Regularisation weights (Branches' lambda, MurTree's alpha, DPDT's alpha) are read as the decimal
    the user wrote, so 0.005 becomes 1/200 and every objective can be compared in exact integers.
    """
    if isinstance(value, Fraction):
        frac = value
    else:
        frac = Fraction(str(value))
    frac = frac.limit_denominator(max_denominator)
    return frac.numerator, frac.denominator
