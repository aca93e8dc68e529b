"""Chapter 04 (Branches: how much work it does): Thm 5.2's κ, Cor 5.3 with its erratum, Γ."""
from fractions import Fraction
import functools
import math

from odtlab import datasets
from odtlab.exercises.base import as_int, as_number, exercise, judge
from odtlab.solvers.branches import BranchesClassifier


def gamma_bound(q, C, kappa):
    """Thm 5.2 / Cor 5.3: Σ_{h=0..κ} (q − h) C^(h+1) binom(q, h)."""
    return sum((q - h) * C ** (h + 1) * math.comb(q, h) for h in range(kappa + 1))


@functools.lru_cache(maxsize=None)
def _tic_tac_toe(lam):
    data = datasets.load("branches/tic-tac-toe-o")
    est = BranchesClassifier(lam=lam).fit(data.X, data.y)
    accuracy = Fraction(int((est.predict(data.X) == data.y).sum()), data.n_samples)
    return data, est.tree_.splits, accuracy


@exercise("04.1", "Thm 5.2's κ for tic-tac-toe-o")
def theorem_kappa(answer):
    """κ = min{⌊S(T*) − 1 + (1 − H(T*))/λ⌋, q} for the optimal tree at λ = 0.1."""
    data, S, acc = _tic_tac_toe("0.1")
    lam, q = Fraction(1, 10), data.n_features
    raw = S - 1 + (1 - acc) / lam
    reference = min(math.floor(raw), q)
    return judge(as_number(answer, "κ"), reference, [
        (raw, "κ is a number of tests: take the floor."),
        (math.floor(S + (1 - acc) / lam), "the bound is S(T*) − 1 + (1 − H(T*))/λ: you left out the − 1."),
        (min(math.floor(S - 1 + acc / lam), q), "use the optimal tree's error mass 1 − H(T*), not its accuracy."),
        (q, f"κ is capped at q = {q}, but here the formula gives less: fit the optimal tree first."),
    ], f"S(T*) = {S}, H(T*) = {acc}: κ = ⌊{S} − 1 + {1 - acc}/{lam}⌋ = {reference}.",
        "fit BranchesClassifier(lam=0.1), read S(T*) (splits) and H(T*) (training accuracy), then apply Thm 5.2")


@exercise("04.2", "Corollary 5.3's cap, corrected")
def corollary_kappa(answer):
    """The corrected cap κ = min{⌊(K − 1)/(Kλ)⌋ − 1, q} for K = 3 classes, λ = 0.1, q = 8 features."""
    K, lam, q = 3, Fraction(1, 10), 8
    reference = min(math.floor(Fraction(K - 1) / (K * lam)) - 1, q)
    return judge(as_number(answer, "κ"), reference, [
        (min(math.floor(1 / (K * lam)) - 1, q), "that is the cap as the paper prints it, ⌊1/(Kλ)⌋ − 1; its own "
                                                "proof gives (K − 1)/(Kλ) (the erratum of this chapter)."),
        (min(math.floor(Fraction(K - 1) / (K * lam)), q), "the cap is ⌊(K − 1)/(Kλ)⌋ − 1: you left out the − 1."),
        (Fraction(K - 1) / (K * lam) - 1, "κ is a number of tests: take the floor."),
    ], f"⌊(K − 1)/(Kλ)⌋ − 1 = ⌊{Fraction(K - 1) / (K * lam)}⌋ − 1 = {reference} (below q = {q}).",
        "κ = min{⌊(K − 1)/(Kλ)⌋ − 1, q}")


@exercise("04.3", "The evaluation bound Γ")
def gamma_value(answer):
    """Γ(q = 4, C = 3, κ = 2) = Σ_{h=0..2} (q − h) C^(h+1) binom(q, h)."""
    q, C, kappa = 4, 3, 2
    reference = gamma_bound(q, C, kappa)
    return judge(as_int(answer, "Γ"), reference, [
        (reference - q * C, "the sum starts at h = 0: the root's expansion evaluates q·C children too."),
        (sum((q - h) * C ** h * math.comb(q, h) for h in range(kappa + 1)),
         "a branch with h tests has (q − h)·C children and there are binom(q, h)·C^h such branches: C^(h+1)."),
        (gamma_bound(q, C, kappa - 1), "h runs up to κ included."),
        (sum(C ** (h + 1) * math.comb(q, h) for h in range(kappa + 1)),
         "each expanded branch has (q − h) unused features, each split into C children."),
    ], f"Γ = {' + '.join(str((q - h) * C ** (h + 1) * math.comb(q, h)) for h in range(kappa + 1))} "
       f"= {reference}.", "Γ = Σ_{h=0}^{κ} (q − h) C^(h+1) binom(q, h)")
