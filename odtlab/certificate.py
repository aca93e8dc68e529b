"""When a search may say ``optimal``: the certification rule shared by every exact solver.

A finished search of an exact solver (Branches, MurTree, Quant-BnB, DPDT with the exhaustive generator) reports
status ``optimal`` only when the tree it returns passes this check; otherwise its status is ``uncertified`` and
``Result.stats["certificate"]`` says why. The rule:

* **Counting objectives** (misclassifications, H_lambda, errors + alpha * splits, DPDT's L_alpha with integer
  weights): the returned tree's objective, recomputed from the data as a :class:`fractions.Fraction`, equals the
  certified lower bound exactly.
* **Squared error** (Quant-BnB, MurTree and DPDT regressors): the searches compare sums of targets centred on
  their weighted mean, and every such float64 sum is within ``delta = 4 n eps sum_i w_i |y_i - ybar|^2`` of its
  exact value (:func:`resolution`; n rows, eps the float64 unit round-off, the factor 4 covers the difference of
  two sums and the inclusion-exclusion of MurTree's pair counts). A search that stops prunes only trees at
  least its tie tolerance ``delta`` worse than its incumbent, so the optimum is certified to lie above
  ``U - slack`` with ``slack = 3 delta`` (:data:`SLACK_DELTAS`). The status is ``optimal`` when the returned
  tree's squared error ``L``, recomputed from the data (each row's residual squared, summed exactly by
  :func:`math.fsum`: relative error below 3 eps), satisfies ``|L - U| + slack <= SSE_RTOL * L + phi``: the
  tolerance is in units of the optimum, never of the root's squared error, plus ``phi = sum_i w_i ((n + 1) eps
  |prediction_i|)^2`` (:func:`rounding_floor`), what rounding the leaf means to float64 adds to L. A perfect fit
  (``L <= phi``) is optimal outright, since no tree has a negative loss.
* A search that cannot meet the rule says so: squares that overflow float64 (centred targets near 1e154 and
  above), targets closer than :data:`SMALLEST_SPREAD` (their squares are subnormal), or a float resolution
  coarser than ``SSE_RTOL`` of the optimum (one target far from the others dominates the centred sums) give
  status ``uncertified`` with the reason.
"""
import math

import numpy as np

SSE_RTOL = 1e-9  # relative tolerance of a certified squared error, in units of the optimum
SLACK_DELTAS = 3  # the certified lower bound of a finished regression search is U - 3 delta
_EPS = np.finfo(np.float64).eps / 2  # unit round-off
SMALLEST_SPREAD = 1e-140  # targets closer than this have squares below float64's normal range (1e-308)


def centred(Y, weight=None):
    """``Y`` minus its weighted column means, as float64 (n, m): what the regression searches sum."""
    Y = np.asarray(Y, dtype=np.float64).reshape(len(Y), -1)
    w = np.ones(Y.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    total = w.sum()
    mean = (w @ Y) / total if total > 0 else np.zeros(Y.shape[1])
    return Y - mean


def resolution(Yc, weight=None):
    """delta = 4 n eps sum_i w_i |y_i - ybar|^2: the largest error of a float64 sum of centred targets, their
    squares or their squared error over any subset of the rows (inf when the squares overflow)."""
    Yc = np.asarray(Yc, dtype=np.float64).reshape(len(Yc), -1)
    w = np.ones(Yc.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = float(np.max(np.abs(Yc))) if Yc.size else 0.0
        if scale == 0.0:
            return 0.0
        q = float(w @ ((Yc / scale) ** 2).sum(axis=1)) * scale * scale
    return 4.0 * Yc.shape[0] * _EPS * q if math.isfinite(q) else math.inf


def below(bound, slack):
    """A squared-error bound lowered by a search's float slack, never below 0 (the least squared error)."""
    value = bound - slack
    return value if value > 0 else 0.0


def squared_error(residuals, weight=None):
    """sum_i w_i r_i^2 summed exactly (``math.fsum``) from float64 residuals; inf on overflow."""
    r = np.asarray(residuals, dtype=np.float64).reshape(len(residuals), -1)
    w = np.ones(r.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = w[:, None] * r * r
    return math.fsum(terms.ravel().tolist())


def sse_certificate(tree, X, Y, upper, slack, weight=None, penalty=0.0):
    """``(L, reason)``: the tree's objective L = squared error + ``penalty`` recomputed from the data, and None
    when it certifies the finished search's value ``upper`` (see the module docstring), else the reason it does
    not. ``slack`` is the search's float slack (``SLACK_DELTAS * delta``)."""
    pred = tree.predict_index(X)
    Y = np.asarray(Y, dtype=np.float64).reshape(pred.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        r = pred - Y
    loss = squared_error(r, weight) + penalty
    if not (math.isfinite(loss) and math.isfinite(upper) and math.isfinite(slack)):
        return loss, (f"overflow: the squared error ({loss:.6g}) or the centred targets' squares exceed float64, "
                      f"so no bound can be certified")
    spread = float(np.max(np.abs(Y - Y.mean(axis=0)))) if Y.size else 0.0
    if 0.0 < spread < SMALLEST_SPREAD:
        return loss, (f"underflow: the targets differ by at most {spread:.3g}, whose squares float64 holds only "
                      f"as subnormal numbers, so no bound can be certified")
    gap = abs(loss - upper) + slack
    if gap <= SSE_RTOL * loss:
        return loss, None
    floor = rounding_floor(pred, weight, Y.shape[0])
    if loss <= floor or gap <= SSE_RTOL * loss + floor:  # a perfect fit up to the rounding of the leaf means (no
        return loss, None  # tree has a negative loss), or the gap within the tolerance plus that rounding
    return loss, (f"float64 cannot certify this optimum: the search's sums resolve the squared error {loss:.9g} "
                  f"only to +-{gap:.3g} (relative {gap / loss:.3g}), above the certified tolerance {SSE_RTOL:g} of "
                  f"the optimum; "
                  f"the targets' spread (one far from the others) dominates the centred sums")


def rounding_floor(pred, weight, n):
    """sum_i w_i ((n + 1) eps |prediction_i|)^2: what the rounding of the leaf means (each a float sum of at most
    n targets, divided) can add to the squared error of a perfect fit."""
    p = np.asarray(pred, dtype=np.float64).reshape(n, -1)
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        return float(w @ (((n + 1) * _EPS * p) ** 2).sum(axis=1))


def exact_certificate(recomputed, lower):
    """None when the recomputed exact objective equals the certified lower bound, else the reason."""
    if recomputed == lower:
        return None
    return f"the returned tree's recomputed objective {recomputed} differs from the certified bound {lower}"
