"""Chapter 02 (Branches: the objective, the MDP, the Bellman equations) on monk1-o."""
from fractions import Fraction

from odtlab.exercises.base import accept, as_number, as_pair, exercise, judge, reject
from odtlab.exercises.branchdata import H, P, counts, monk1, name

BRANCH_02_1 = {0: 0, 1: 1}


@exercise("02.1", "H(l) and P(l) of a branch")
def mass_of_branch(answer):
    """Branches §1.3: H(l) = n_k*(l)/n and P(l) = n(l)/n for l = {x0=0, x1=1}."""
    h, p = as_pair(answer, "(H(l), P(l))")
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


LAM = Fraction(1, 100)


def _stump(i):
    """(Σ_j H(l_j), the H(l_j)) of the children of Ω on feature i."""
    kids = [H({i: j}) for j in range(int(monk1().n_categories[i]))]
    return sum(kids), kids


@exercise("02.2", "The return of a one-split policy")
def stump_return(answer):
    """Prop 3.2: the policy 'split Ω on x4, then stop everywhere' returns −λ + Σ_j H(x4=j), at λ = 0.01."""
    total, kids = _stump(4)
    reference = -LAM + total
    return judge(as_number(answer, "the return"), reference, [
        (total, "the split itself has reward −λ: subtract λ once."),
        (total - LAM * len(kids), f"λ is paid once per split, not once per child ({len(kids)} children)."),
        (-LAM + H({}), "stopping at a child l_j earns H(l_j), its majority mass, not the root's H(Ω)."),
        (-LAM + sum(P({4: j}) for j in range(len(kids))), "a leaf earns H(l) (its correctly classified mass), "
                                                          "not P(l) (its whole mass)."),
    ], f"−λ + Σ_j H(x4=j) = {reference}, the H_λ of the one-split tree (Prop 3.2).",
        "one MDP step splits Ω on x4 (reward −λ), the next stops at each of its children (reward H(l_j))")


@exercise("02.3", "The λ at which a split stops paying")
def stump_break_even(answer):
    """The λ at which the one-split tree on x4 and the single leaf have the same H_λ: Σ_j H(x4=j) − H(Ω)."""
    total, kids = _stump(4)
    reference = total - H({})
    n = monk1().n_samples
    return judge(as_number(answer, "λ"), reference, [
        (total, "compare with the leaf: the split pays when −λ + Σ_j H(l_j) ≥ H(Ω)."),
        (reference / len(kids), "the tree has one split, so one λ: do not divide by the number of children."),
        (reference * n, "λ is on the scale of H, a share of all n rows: do not multiply by n."),
    ], f"λ = Σ_j H(x4=j) − H(Ω) = {reference}; below it the split on x4 beats the leaf at Ω.",
        "solve −λ + Σ_j H(x4=j) = H(Ω) for λ")
