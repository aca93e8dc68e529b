# %% [markdown]
# # 2. Branches: the objective, the MDP and the Bellman equations
#
# Branches (Chaouki, Read and Bifet) finds the decision tree with the best **regularised accuracy**
#
# $$H_\lambda(T) = H(T) - \lambda\,S(T) = \text{accuracy} - \lambda \cdot \text{splits},$$
#
# over trees of **multi-way** splits on categorical features. It does so by casting tree building as a
# Markov decision process (MDP) whose returns are exactly $H_\lambda$. This chapter builds everything
# that the search of chapter 3 stands on:
#
# 1. branches, their canonical form, $H(l)$, $P(l)$ and multi-way splits;
# 2. the MDP (states, actions, rewards) and Props 3.1 and 3.2, checked on random policies;
# 3. the Bellman equations (Eq. 4 and Prop 4.1), solved by brute force on monk1-o and compared with
#    `BranchesClassifier`.
#
# Chapters 2–4 number theorems as the later revision of the paper does. The arXiv version keeps the
# numbers of Props 3.1–4.2. Its numbers for the rest are: Thm 4.3, 4.4 and Cor 4.5 for Thm 5.1, 5.2 and
# Cor 5.3, and Lemmas C.1 and C.2 for Lemmas B.1 and B.3.

# %%
import itertools
import math
from fractions import Fraction

import numpy as np

from odtlab import datasets
from odtlab.bruteforce import branches_optimum
from odtlab.exercises import check
from odtlab.solvers.branches import BranchesClassifier
from odtlab.tree import Tree
from odtlab.widgets import explore

# %% [markdown]
# ## 1. The data: monk1-o
#
# monk1-o is the MONK-1 problem with its six features kept categorical ("-o" for ordinal: the categories
# are only coded as integers $0 \dots C_i-1$; their order is never used). Features are numbered from 0 as
# well, $x_0 \dots x_5$, where the paper numbers them $1 \dots q$.

# %%
# NBVAL_CHECK_OUTPUT
data = datasets.load("branches/monk1-o")
X, y, C = data.X, data.y, data.n_categories
n, q = X.shape
K = data.n_classes
print(f"n = {n} rows, q = {q} features, K = {K} classes, C_i = {C.tolist()}")

# %% [markdown]
# ## 2. Branches
#
# A **branch** $l$ is a conjunction of equality tests $X^{(i)} = j$, each feature at most once. The empty
# conjunction is the root $\Omega$. We write a branch as a `dict` {feature: category}. Its **canonical
# form** sorts the tests by feature index: two orders of splitting that reach the same conjunction give
# the same key, which is what lets the search share (memoise) it.

# %%
def canonical(branch):
    """The canonical key of a branch: its tests sorted by feature index."""
    return tuple(sorted(branch.items()))


a = canonical({3: 0, 1: 2})
b = canonical({1: 2, 3: 0})
assert a == b == ((1, 2), (3, 0))
print(a)

# %% [markdown]
# For a branch $l$: $n(l)$ rows fall in it, $n_k(l)$ of class $k$. Its **mass** is $P(l) = n(l)/n$ and
# its **correctly classified mass** is $H(l) = n_{k^*(l)}(l)/n$ (the majority class $k^*$). So
# $P(l) - H(l) = e(l)/n$, where $e(l)$ counts the errors of a leaf at $l$. We keep all values exact with
# `Fraction`.

# %%
def rows(branch):
    mask = np.ones(n, dtype=bool)
    for i, j in branch.items():
        mask &= X[:, i] == j
    return mask


def counts(branch):
    return np.bincount(y[rows(branch)], minlength=K)


def H(branch):
    return Fraction(int(counts(branch).max()), n)


def P(branch):
    return Fraction(int(counts(branch).sum()), n)


def errors(branch):
    c = counts(branch)
    return int(c.sum() - c.max())


# %%
# NBVAL_CHECK_OUTPUT
for branch in [{}, {4: 0}, {0: 1, 1: 1}]:
    print(f"{str(canonical(branch)):18}  n={counts(branch).sum():3d}  H={str(H(branch)):7}  "
          f"P={str(P(branch)):7}  e={errors(branch)}")
    assert P(branch) - H(branch) == Fraction(errors(branch), n)

# %% [markdown]
# ### Exercise 02.1: $H(l)$ and $P(l)$ by hand
#
# For the branch $l = \{x0=0, x1=1\}$ of monk1-o, give $(H(l), P(l))$ as exact fractions of all $n$
# rows. Use `X`, `y` and numpy, not the helpers `H` and `P` above.

# %% tags=["exercise"]
answer = ...  # (H(l), P(l)), e.g. (Fraction(1, 2), Fraction(3, 4))

# %% tags=["solution"]
in_l = (X[:, 0] == 0) & (X[:, 1] == 1)
class_counts = np.bincount(y[in_l], minlength=K)
answer = (Fraction(int(class_counts.max()), n), Fraction(int(in_l.sum()), n))
assert check("02.1", answer).ok

# %%
check("02.1", answer)

# %% [markdown]
# ### Multi-way splits
#
# Splitting $l$ on an unused feature $i$ gives exactly $C_i$ children $l \wedge X^{(i)}=j$, some possibly
# empty (then $H = P = 0$). The children partition $l$, so their masses add up to $P(l)$, and a split can
# only add correctly classified mass: $\sum_j H(l_j) \ge H(l)$.

# %%
def children(branch, i):
    return [{**branch, i: j} for j in range(C[i])]


for branch in [{}, {4: 0}, {0: 1, 1: 1}]:
    for i in set(range(q)) - set(branch):
        kids = children(branch, i)
        assert len(kids) == C[i]
        assert sum(P(k) for k in kids) == P(branch)
        assert sum(H(k) for k in kids) >= H(branch)

# %% [markdown]
# How many branches are there? Each feature is either absent or equal to one of its $C_i$ categories, so
# there are $\prod_i (C_i + 1)$ branches. A branch with $h$ tests is reached along $h!$ split orders,
# which is the sharing that memoisation exploits.

# %%
# NBVAL_CHECK_OUTPUT
n_branches = math.prod(int(c) + 1 for c in C)
enumerated = sum(1 for h in range(q + 1) for feats in itertools.combinations(range(q), h)
                 for _ in itertools.product(*[range(C[i]) for i in feats]))
assert enumerated == n_branches
orders = sum(math.factorial(h) * math.prod(int(C[i]) for i in feats)
             for h in range(q + 1) for feats in itertools.combinations(range(q), h))
print(f"{n_branches} branches; {orders} (branch, split order) pairs without sharing")

# %% [markdown]
# ### Trees and $H_\lambda$
#
# A tree is the set of its leaves, which are branches that partition the data. $H(T) = \sum_u H(l_u)$ is
# the training accuracy, and $S(T)$ counts splits (internal nodes), not leaves. Here is the tree that
# `BranchesClassifier` finds at λ = 0.01; we recompute its $H_\lambda$ from its leaves as branches.

# %%
lam = Fraction(1, 100)
est = BranchesClassifier(lam=0.01).fit(X, y)
tree = est.tree_


def leaf_branches(tree, node=0, branch=None):
    """The leaves of an odtlab Tree as branches (dicts)."""
    branch = {} if branch is None else branch
    kids = tree._kids(node)
    if len(kids) == 0:
        return [branch]
    f = int(tree.feature[node])
    return [leaf for j, kid in enumerate(kids) for leaf in leaf_branches(tree, kid, {**branch, f: j})]


leaves = leaf_branches(tree)
assert sum(P(l) for l in leaves) == 1  # the leaves partition the data
H_lam = sum(H(l) for l in leaves) - lam * tree.splits
assert H_lam == tree.branches_objective(X, y, lam, exact=True)

# %%
# NBVAL_CHECK_OUTPUT
print(f"{tree.splits} splits, {tree.leaves} leaves ({sum(P(l) == 0 for l in leaves)} empty), "
      f"H(T) = {sum(H(l) for l in leaves)}, H_λ(T) = {H_lam} = {float(H_lam):g}")

# %% [markdown]
# ## 3. The MDP (Section 3.3)
#
# * **States**: sub-trees, i.e. sets of branches. A one-branch state $\{l\}$ is a *unit state*.
# * **Actions at a unit state $l$**: the terminal action $\bar a$ (stop, $l$ becomes a leaf, and moves to
#   the absorbing state $\bar l$), or split on an unused feature $i$ (move to $\mathrm{Ch}(l, i)$). At a
#   general state every branch acts at once.
# * **Rewards**: $r(l, \bar a) = H(l)$, $r(l, i) = -\lambda$, and $0$ once absorbed.
#
# A policy $\pi$ picks an action for every branch. We draw random policies: at each branch, stop with
# some probability, else split on a random unused feature. The rollout below walks the MDP state by
# state and sums the rewards; it also records the tree $T^\pi$ that $\pi$ grows.

# %%
def rollout(policy, lam):
    """Run ``policy(branch) -> None (stop) or a feature`` from Ω. Returns (return, steps, tree as dict)."""
    state = [({}, {})]  # (branch, its node in the tree being built)
    root = state[0][1]
    total, steps = Fraction(0), 0
    while state:  # one MDP step: every non-absorbed branch acts at once
        steps += 1
        nxt = []
        for branch, node in state:
            i = policy(branch)
            if i is None:
                total += H(branch)  # r(l, ā) = H(l); l moves to the absorbing state
                node["leaf"] = True
            else:
                total -= lam  # r(l, i) = -λ
                node.update(feature=i, kind="category", children=[{} for _ in range(C[i])])
                nxt += [(kid, child) for kid, child in zip(children(branch, i), node["children"])]
        state = nxt
    return total, steps, root


def random_policy(rng, p_stop):
    def policy(branch):
        unused = [i for i in range(q) if i not in branch]
        if not unused or rng.random() < p_stop:
            return None
        return int(rng.choice(unused))
    return policy


# %% [markdown]
# **Prop 3.1 (finite absorption).** Every trajectory is absorbed after finitely many steps. Its proof,
# by induction on $q - S(l)$, gives at most $q + 1$ steps from $\Omega$: each split uses up one feature.
# **Prop 3.2.** The return of $\pi$ from $\Omega$ is $H_\lambda(T^\pi)$. We check both on 300 random
# policies, computing $H_\lambda(T^\pi)$ independently with `Tree.branches_objective`.

# %%
rng = np.random.default_rng(0)
for trial in range(300):
    p_stop = rng.choice([0.2, 0.5, 0.8])
    lam_t = Fraction(int(rng.integers(0, 11)), 100)
    ret, steps, root = rollout(random_policy(rng, p_stop), lam_t)
    t = Tree.from_dict(root, q).fit_leaves(X, y)
    assert steps <= q + 1  # Prop 3.1 (the bound from its proof)
    assert steps == t.depth + 1
    assert ret == t.branches_objective(X, y, lam_t, exact=True)  # Prop 3.2

# %% [markdown]
# ### Exercise 02.2: the return of a one-split policy
#
# The policy "split Ω on $x_4$, then stop at every child" grows a tree with one split. Give its return at
# λ = 0.01 exactly, by summing the rewards of its MDP steps by hand (numpy on `X`, `y`; not `rollout`).

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
majority_x4 = [np.bincount(y[X[:, 4] == j], minlength=K).max() for j in range(C[4])]
answer = -Fraction(1, 100) + Fraction(int(sum(majority_x4)), n)
assert check("02.2", answer).ok

# %%
check("02.2", answer)

# %% [markdown]
# Conversely, every tree is $T^\pi$ of some policy: follow the tree's splits and stop at its leaves. So
# **the tree of an optimal policy is an optimal tree**, $T^* = T^{\pi^*}$ (Section 3.3). Here is the
# policy of the tree found above; its return is that tree's $H_\lambda$.

# %%


def tree_policy(branch):
    """Follow ``tree``: the feature it splits on at this branch, or None at a leaf."""
    node = 0
    for _ in range(len(branch)):
        f = int(tree.feature[node])
        node = tree._kids(node)[branch[f]]
    kids = tree._kids(node)
    return None if len(kids) == 0 else int(tree.feature[node])


ret, steps, _ = rollout(tree_policy, lam)
assert ret == H_lam
print("return of the tree's policy:", ret)

# %% [markdown]
# Returns add up over the branches of a state, so the optimal value of a state is the sum of the optimal
# values of its branches: $R^*(T) = \sum_u R^*(l_u)$. That is why the algorithm only ever stores values
# of *unit* states, one per branch.
#
# ## 4. The Bellman equations (Eq. 4 and Prop 4.1)
#
# The terminal action's value is known from the data (Eq. 4), and Prop 4.1 gives the other two:
#
# $$Q^*(l, \bar a) = H(l), \qquad Q^*(l, i) = -\lambda + \sum_{j} R^*(l \wedge X^{(i)}=j), \qquad
# R^*(l) = \max_{a \in A(l)} Q^*(l, a).$$
#
# Solved by recursion over branches with a memo on the canonical key, this is a brute-force dynamic
# program. Values are kept as exact `Fraction`s. A tie between the leaf and a split goes to the leaf.

# %%
def solve(lam):
    memo = {}

    def R(branch):
        key = canonical(branch)
        if key not in memo:
            best = H(branch)  # Q*(l, ā)
            if P(branch) > 0:
                for i in range(q):
                    if i not in branch:
                        best = max(best, Q(branch, i))
            memo[key] = best
        return memo[key]

    def Q(branch, i):
        return -lam + sum(R(kid) for kid in children(branch, i))

    return R, Q, memo


R_star, Q_star, memo = solve(lam)

# %%
# NBVAL_CHECK_OUTPUT
print(f"R*(Ω) = {R_star({})} at λ = {lam}, after solving {len(memo)} of {n_branches} branches")
print("Q*(Ω, ā) =", H({}))
for i in range(q):
    print(f"Q*(Ω, {data.feature_names[i]}) = {Q_star({}, i)}")

# %% [markdown]
# Empty branches are leaves worth 0 and are not split further, which is why the DP solves fewer than all
# branches. The optimum is the best action at the root, $R^*(\Omega) = \max_a Q^*(\Omega, a)$:

# %%
assert R_star({}) == max([H({})] + [Q_star({}, i) for i in range(q)])

# %% [markdown]
# ### Three answers that must agree
#
# odtlab's brute-force oracle `branches_optimum` (a numba enumeration), our Python DP, and the Branches
# search itself:

# %%
# NBVAL_CHECK_OUTPUT
oracle = branches_optimum(X, y, lam, n_categories=C)
print("brute-force oracle:", oracle.value)
print("our Bellman DP:    ", R_star({}))
print("BranchesClassifier:", est.result_.objective, f"({est.result_.stats['iterations']} iterations, "
      f"{est.result_.stats['evaluations']} evaluations)")
assert oracle.value == R_star({}) == tree.branches_objective(X, y, lam, exact=True)
assert est.result_.optimal

# %% [markdown]
# ### The player
#
# Chapter 3 opens the search that `BranchesClassifier` runs. The player already shows it here. With the
# filter below it stops at the end of each iteration. The root's upper bound $R(\Omega)$ falls, and the
# value $G(\Omega)$ of the best tree found so far rises. $G$ is an incumbent that odtlab keeps; the
# search of the paper's Section 4.2 needs none. The two meet at the $R^*(\Omega)$ of the DP above.

# %% tags=["nbval-ignore-output"]
mdp_player = explore(BranchesClassifier(lam=0.01), X, y)
mdp_player.show_kinds(["IterationEnd", "Terminated"])
mdp_player

# %%
# NBVAL_CHECK_OUTPUT
mdp_player.run_to_end()
final = mdp_player.search.result()
assert final.optimal and final.objective == float(R_star({}))
print(f"{mdp_player.slider.max + 1} frames; the search ends optimal, R(Ω) = G(Ω) = {final.objective:.4f}")

# %% [markdown]
# The optimal tree satisfies the Bellman equations: at each internal node its split attains $R^*$, and
# at each leaf stopping does. Reading the tree off the DP and comparing with the classifier's tree:

# %%
def optimal_policy(branch):
    """Greedy with respect to Q*: stop on ties (sparsest tree)."""
    best, action = H(branch), None
    if P(branch) > 0:
        for i in range(q):
            if i not in branch and Q_star(branch, i) > best:
                best, action = Q_star(branch, i), i
    return action


ret, _, root = rollout(optimal_policy, lam)
dp_tree = Tree.from_dict(root, q).fit_leaves(X, y)
assert ret == R_star({})
assert dp_tree.splits == tree.splits
assert (dp_tree.predict(X) == tree.predict(X)).all()

# %% [markdown]
# ### The optimum as λ moves
#
# Each tree is a line $H(T) - \lambda S(T)$ in λ, so $R^*(\Omega)$ is the upper envelope of those lines:
# convex and piecewise linear, with fewer splits as λ grows. The classifier agrees with the DP at every λ.

# %%
# NBVAL_CHECK_OUTPUT
for lam_k in ["0.001", "0.01", "0.02", "0.05", "0.1", "0.3"]:
    R_k, _, _ = solve(Fraction(lam_k))
    fit = BranchesClassifier(lam=lam_k).fit(X, y)
    assert fit.result_.objective == float(R_k({}))
    assert fit.tree_.branches_objective(X, y, lam_k, exact=True) == R_k({})
    print(f"λ = {lam_k:5}  R*(Ω) = {float(R_k({})):.4f}  splits {fit.tree_.splits:2d}  "
          f"accuracy {fit.score(X, y):.4f}")

# %% [markdown]
# ### Exercise 02.3: the λ at which a split stops paying
#
# At which λ do the one-split tree of exercise 02.2 and the single leaf have the same $H_\lambda$? Below it
# the split on $x_4$ beats the leaf at Ω. Give it exactly.

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
stump_accuracy = Fraction(int(sum(np.bincount(y[X[:, 4] == j], minlength=K).max() for j in range(C[4]))), n)
answer = stump_accuracy - H({})  # -λ + accuracy(stump) = H(Ω)
assert check("02.3", answer).ok

# %%
check("02.3", answer)

# %% [markdown]
# ## Summary
#
# * A tree's return in the MDP is its $H_\lambda$ (Prop 3.2), and every trajectory ends (Prop 3.1).
# * Optimal values satisfy the Bellman equations (Eq. 4, Prop 4.1) over branches, so a DP over the
#   $\prod_i (C_i+1)$ canonical branches finds the optimum, at any λ.
# * Chapter 3 shows how Branches avoids solving most of them: it bounds $R^*$ from above before it knows
#   it (the Purification Bound) and expands only branches that could still matter.

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * A. Chaouki, J. Read, A. Bifet. *Branches: A Fast Dynamic Programming and Branch & Bound Algorithm for
#   Optimal Decision Trees.* arXiv:2406.02175, 2024 (the later revision is the one reproduced).
#   [`chaouki2024branches`]
