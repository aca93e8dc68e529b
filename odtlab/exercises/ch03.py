"""Chapter 03 (Branches: the search) on monk1-o at λ = 0.01: the Purification Bound, settled at birth,
one Expansion and one Selection."""
from fractions import Fraction

from odtlab.exercises.base import Reject, accept, as_number, exercise, judge, reject
from odtlab.exercises.branchdata import H, P, R_star, children, counts, monk1, name

LAM = Fraction(1, 100)
BRANCH = {4: 1}


def bound(branch, lam=LAM):
    """The Purification Bound (Prop 4.2): max{H(l), P(l) − λ}."""
    return max(H(branch), P(branch) - lam)


@exercise("03.1", "The Purification Bound of a branch")
def purification_bound(answer):
    """R(l) = max{H(l), P(l) − λ} for l = {x4=1}, λ = 0.01 (Prop 4.2)."""
    value = as_number(answer, "the bound")
    exact = R_star(BRANCH, LAM)
    reference = bound(BRANCH)
    if value == exact and exact != reference:
        return reject(f"that is R*(l) itself, found by solving the sub-tree; the bound is what {name(BRANCH)} gets "
                      "at birth, before any look at its children: max{H(l), P(l) − λ}.")
    if value < exact:
        return reject(f"your bound is below R*(l) for branch {name(BRANCH)}: the bound must hold for every split, "
                      "so it assumes a split that makes every child pure: P(l) − λ.")
    return judge(value, reference, [
        (P(BRANCH), "a split costs λ: the bound of splitting is P(l) − λ."),
    ], f"max{{H, P − λ}} = max{{{H(BRANCH)}, {P(BRANCH) - LAM}}} = {reference} ≥ R*(l) = {exact}.",
        "R(l) = max{H(l), P(l) − λ}, with H and P as fractions of all n rows")


@exercise("03.2", "The λ at which a branch is settled at birth")
def settled_lambda(answer):
    """The least λ at which l = {x4=1} is settled at birth: e(l) ≤ λn, i.e. λ = e(l)/n."""
    c, n = counts(BRANCH), monk1().n_samples
    e = int(c.sum() - c.max())
    return judge(as_number(answer, "λ"), Fraction(e, n), [
        (Fraction(e, int(c.sum())), f"divide the errors by all n = {n} rows, not by the branch's own {c.sum()}."),
        (Fraction(e - 1, n), "at λ = e(l)/n the leaf already ties the bound, H(l) = P(l) − λ, which settles it."),
        (Fraction(int(c.max()), n), "that is H(l); the rule compares the leaf's errors e(l) with λn."),
    ], f"e(l) = {e} errors, settled at birth from λ = e(l)/n = {Fraction(e, n)} on.",
        "a branch is settled at birth when its leaf's errors satisfy e(l) ≤ λ·n")


@exercise("03.3", "Q of a root split after the first Expansion")
def expansion_q(answer):
    """After Ω's expansion, Q(Ω, x4) = −λ + Σ_j R(x4=j), each child at its Purification Bound."""
    kids = children({}, 4)
    reference = -LAM + sum(bound(k) for k in kids)
    return judge(as_number(answer, "Q(Ω, x4)"), reference, [
        (-LAM + sum(H(k) for k in kids), "a new child is valued by its bound max{H, P − λ}, not by H alone."),
        (-LAM + sum(R_star(k, LAM) for k in kids), "the search does not know R*(l_j) yet: it uses each child's "
                                                  "Purification Bound."),
        (sum(bound(k) for k in kids), "the split costs λ: Q(l, i) = −λ + Σ_j R(l_j)."),
        (-LAM + sum(P(k) - LAM for k in kids), "a child whose leaf beats P − λ keeps the leaf's H: take the max."),
    ], f"Q(Ω, x4) = −λ + Σ_j max{{H, P − λ}} = {reference}.",
        "Q(Ω, x4) = −λ + Σ_j max{H(x4=j), P(x4=j) − λ}")


@exercise("03.4", "Predict a Selection")
def predict_selection(answer):
    """Iteration 3 on monk1-o follows the root split x5; Selection goes into the open child with the smallest
    G, which for a child never expanded is G = H (its leaf)."""
    if not isinstance(answer, dict):
        raise Reject(f"give the branch as a dict {{feature: category}}, e.g. {{5: 1}}; you gave {answer!r}.")
    n = monk1().n_samples
    open_kids = [k for k in children({}, 5) if (P(k) - H(k)) * n > LAM * n]
    chosen = min(open_kids, key=H)
    if answer == chosen:
        return accept(f"{name(chosen)} has the smallest G = H = {H(chosen)} among the open children of x5.")
    if set(answer) != {5}:
        return reject("Selection follows the split x5 from Ω, so the branch it ends at is {5: j} for some j.")
    if answer in open_kids:
        return reject(f"{name(answer)} is open, but Selection takes the open child with the smallest G "
                      "(incumbent value, = H for a leaf), where the bound is least proven.")
    return reject(f"{name(answer)} is not a child the search can go into: pick among x5's open children.")
