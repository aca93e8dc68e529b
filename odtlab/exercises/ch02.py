"""Chapter 02 (Branches: the objective, the MDP, the Bellman equations) on monk1-o."""
from fractions import Fraction

from odtlab.exercises.base import Reject, accept, as_number, exercise, reject
from odtlab.exercises.branchdata import H, P, counts, monk1, name

BRANCH_02_1 = {0: 0, 1: 1}


def _pair(answer, what):
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise Reject(f"give {what} as a pair (two numbers in a tuple); you gave {answer!r}.")
    return answer


@exercise("02.1", "H(l) and P(l) of a branch")
def mass_of_branch(answer):
    """Branches §1.3: H(l) = n_k*(l)/n and P(l) = n(l)/n for l = {x0=0, x1=1}."""
    h, p = (as_number(v, f"{w}(l)") for v, w in zip(_pair(answer, "(H(l), P(l))"), "HP"))
    branch, n = BRANCH_02_1, monk1().n_samples
    c = counts(branch)
    if (h, p) == (H(branch), P(branch)):
        return accept(f"H(l) = {H(branch)}, P(l) = {P(branch)}: the {c.max()} majority rows and all "
                      f"{c.sum()} rows of {name(branch)}, out of n = {n}.")
    if (h, p) == (P(branch), H(branch)):
        return reject("you swapped the two: H(l) counts only the majority class, P(l) every row of the branch.")
    if h in (c.max(), Fraction(int(c.max()), int(c.sum()))) or p == c.sum():
        return reject(f"both are fractions of all n = {n} rows, not counts or shares of the branch's own rows.")
    if h == Fraction(int(c.min()), n):
        return reject("H(l) is the mass of the majority class (the leaf's correct rows), not the minority.")
    return reject(f"count the rows of monk1-o with x0 = 0 and x1 = 1 ({name(branch)}), then those of their "
                  f"most frequent class; divide both by n = {n}.")
