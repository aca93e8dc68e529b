"""The one place where numba is configured for odtlab's kernels.

Every kernel is compiled with ``cache=True`` (the cache lives next to the source, or in
``NUMBA_CACHE_DIR``), so a notebook pays the compile cost once per machine, not per kernel start.
Kernels are written so that they also run as plain Python under ``NUMBA_DISABLE_JIT=1``, which the
coverage run of the test suite uses.
"""
from fractions import Fraction
import functools
import warnings

import numba

njit = functools.partial(numba.njit, cache=True)


def as_ratio(value, max_denominator=10**6):
    """Return ``(p, q)`` with ``p / q == value`` exactly for decimal input such as 0.005 or "0.005".

    Regularisation weights (Branches' lambda, MurTree's alpha, DPDT's alpha) are read as the decimal
    the user wrote, so 0.005 becomes 1/200 and every objective can be compared in exact integers. The
    denominator is at most ``max_denominator`` (10^6), which keeps the kernels' integer arithmetic within
    int64; any other value (0.1234567, 1/3) is rounded to the nearest fraction with such a denominator,
    with a warning naming both.
    """
    exact = value if isinstance(value, Fraction) else Fraction(str(value))
    frac = exact.limit_denominator(max_denominator)
    if frac != exact:
        warnings.warn(f"the weight {value!r} has no exact fraction with a denominator <= {max_denominator}; "
                      f"odtlab reads it as {frac} (every objective is exact for that value)", UserWarning,
                      stacklevel=3)
    return frac.numerator, frac.denominator
