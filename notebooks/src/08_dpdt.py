# %% [markdown]
# # 8. DPDT: decision trees by dynamic programming over CART's candidates
#
# DPDT (Kohler, Akrour, Preux, KDD 2025, "Breiman meets Bellman") casts the induction of a depth-$D$ tree as
# a **Markov decision process** and solves it exactly by **backward induction**, over a small set of
# candidate splits that CART proposes at each state. Chapter 1 showed why that helps (greedy splits are
# myopic: XOR, the pathological set). This chapter opens the algorithm up:
#
# 1. the MDP (states, actions, transitions, rewards) and a 30-line reference implementation;
# 2. backward induction step by step, with the player, on the six-point example;
# 3. trees as policies: Prop. 4.1, $V(s_0) = -L_\alpha(T)$;
# 4. Theorem 5.1 (never worse than CART or any pruning of it), checked on every shipped continuous set;
# 5. the whole regularisation path in one run, and the supported points of the Pareto front (no refit);
# 6. cost: "operations" against the optimal solver Quant-BnB at depth 2 and 3 (the paper's Table 1 in
#    small);
# 7. boosting with DPDT trees.

# %%
# %matplotlib inline
import re
import time
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import train_test_split

from odtlab import bruteforce, datasets
from odtlab.experiments import published
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.dpdt import DPDTClassifier
from odtlab.solvers.quantbnb import QuantBnBClassifier
from odtlab.widgets import explore



# %% [markdown]
# ## 1. The MDP
#
# Training rows $\mathcal E = \{(x_i, y_i)\}_{i=1}^N$ (calligraphic, as in the paper), depth limit $D$, penalty
# $\alpha \ge 0$.
#
# * **States** $s = (X, d)$: a subset $X \subseteq \mathcal E$ of the rows and a depth $d \in \{0..D\}$; the start
#   state is $s_0 = (\mathcal E, 0)$.
# * **Actions** at $s$: a **leaf** with class $k$ (only the majority class matters), or a **split**
#   $(f, t)$ from the candidate set $\varphi(s)$ that a *split generator* returns. At depth $D$ only leaves: the
#   paper's §4 says the horizon forbids *class assignments* after $D$ transitions, which would leave a state at
#   depth $D$ no action; what it must forbid is a split there (docs/errata.md, DPDT D1).
# * **Transitions**: the split $(f, t)$ moves to $s_l = (X_l, d+1)$ with $X_l = \{x \in X: x_f \le t\}$ with
#   probability $p_l = |X_l|/|X|$, and to $s_r = (X \setminus X_l, d+1)$ with probability $p_r = 1 - p_l$. A
#   leaf ends the episode.
# * **Rewards**: a split earns $-\alpha$; a leaf earns minus its error rate, $-\frac{1}{|X|}\sum_{(x,y)\in X}
#   \mathbb 1[y \ne k]$.
#
# The split generator is what makes DPDT practical. With every split of every feature ("exhaustive") the
# optimal policy is the optimal tree, at a cost of $O((2Np)^D)$ states. DPDT's default runs a small
# **CART with at most $B$ leaves** on the state's rows and offers its split nodes, up to $B - 1$ of them (CART
# stops early on a pure or unsplittable subset); beyond the list of budgets $(B_0, B_1, \dots)$ it offers CART's
# single greedy split. That is the authors' code, which passes $B$ as scikit-learn's `max_leaf_nodes`; the
# paper's §5.2 writes `max_nodes` $= B$ instead (docs/errata.md, DPDT D2). A budget below 2 is raised to 2
# leaves, one candidate (`max_leaf_nodes` accepts no less), so $(16, 1, 1)$ is $(16, 2, 2)$. Backward induction
# then sets
#
# $$Q(s, \text{leaf}) = -\text{err}(X),\qquad Q(s, (f,t)) = -\alpha + p_l V(s_l) + p_r V(s_r),\qquad
# V(s) = \max_a Q(s, a).$$
#
# The paper's §5.1 calls the transition graph a directed acyclic graph (two paths of splits can reach the
# same subset of rows at the same depth); its §5.6 implementation, like odtlab's, does not merge such states
# and treats the MDP as a finite tree (each split leads to two fresh states), so one depth-first pass solves
# it. Here it is in plain Python with exact fractions, the candidates coming from odtlab's CART:

# %%
def reference_dpdt(X, y, D, budgets, alpha=Fraction(0)):
    """DPDT by the book: (V(s0), the tree as a nested dict, counters). Ties keep the earlier action (the leaf
    first, then CART's splits in node order). A budget below 2 is raised to 2 leaves, as in odtlab."""
    K = int(y.max()) + 1
    count = {"states": 0, "candidates": 0}

    def candidates(rows, depth):
        B = max(2, budgets[depth]) if depth < len(budgets) else 2  # beyond the list: greedy (one split)
        small = CARTClassifier(max_leaf_nodes=B).fit(X[rows], y[rows]).tree_
        return [(int(small.feature[v]), float(small.threshold[v])) for v in range(small.n_nodes) if small.split[v]]

    def solve(rows, depth):
        count["states"] += 1
        classes = np.bincount(y[rows], minlength=K)
        best_q = -Fraction(len(rows) - int(classes.max()), len(rows))  # Q(s, leaf)
        best_tree = {"leaf": True}
        if depth < D and best_q < 0:
            for f, t in candidates(rows, depth):
                go = X[rows, f] <= t
                count["candidates"] += 1
                p_left = Fraction(int(go.sum()), len(rows))
                v_left, tree_left = solve(rows[go], depth + 1)
                v_right, tree_right = solve(rows[~go], depth + 1)
                q = -alpha + p_left * v_left + (1 - p_left) * v_right
                if q > best_q:
                    best_q = q
                    best_tree = {"feature": f, "kind": "threshold", "threshold": t,
                                 "children": [tree_left, tree_right]}
        return best_q, best_tree

    value, tree = solve(np.arange(len(y)), 0)
    return value, tree, count


# %% [markdown]
# The six points of `gen/dpdt-example` (chapter 1: CART's depth-2 tree gets 4 of 6) with depth 2 and budget
# (3,): CART with 3 leaves at the root (2 candidate splits), greedy below.

# %%
# NBVAL_CHECK_OUTPUT
example = datasets.load("gen/dpdt-example")
Xe, ye = example.X, example.y
value, tree, count = reference_dpdt(Xe, ye, 2, (3,))
print(f"V(s0) = {value}, {count['states']} states, {count['candidates']} candidates; root split: "
      f"x{tree['feature']} <= {tree['threshold']}")
est = DPDTClassifier(max_depth=2, candidates=(3,)).fit(Xe, ye)
stats = est.result_.stats
print(f"odtlab: L_0 = {est.result_.objective}, {stats['states']} states, {stats['candidates']} candidates, "
      f"train accuracy {est.score(Xe, ye):.3f}")
print(est.tree_.to_text(feature_names=["x0", "x1"]))
assert -value == est.result_.objective and (count["states"], count["candidates"]) == (11, 5)
assert (stats["states"], stats["candidates"]) == (11, 5)
for alpha in (Fraction(1, 10), Fraction(3, 10)):
    v, _, _ = reference_dpdt(Xe, ye, 2, (3,), alpha)
    fitted = DPDTClassifier(max_depth=2, candidates=(3,), alpha=alpha).fit(Xe, ye)
    L = fitted.tree_.dpdt_objective(Xe, ye, alpha, exact=True)
    print(f"alpha = {alpha}: V(s0) = {v}; odtlab's tree: L_alpha = {L}")
    assert -v == L
v, _, count = reference_dpdt(Xe, ye, 2, (3, 1), Fraction(1, 10))  # a budget of 1 is raised to 2 leaves
fitted = DPDTClassifier(max_depth=2, candidates=(3, 1), alpha=Fraction(1, 10)).fit(Xe, ye)
assert -v == fitted.tree_.dpdt_objective(Xe, ye, Fraction(1, 10), exact=True)
assert count["candidates"] == fitted.result_.stats["candidates"]

# %% [markdown]
# odtlab's kernel (`odtlab.core.dpdt`) computes the same values in numba (on a tie it prefers the tree with
# fewer expected splits, then the earlier action, so tied trees may differ from the reference's): one
# iteration expands a state (its leaf value, its candidates from a presorted CART that returns exactly the
# baseline CART's splits) or backs up one candidate once both children are solved; only the current path is
# held (§5.6). Instead of a number per state it carries $V(s)$ as a function of $\alpha$ (section 5).
#
# ## 2. Backward induction, step by step
#
# The player steps through the search's events: *StateExpanded* (a state's rows and its leaf loss),
# *CandidateSplit* (an action offered by the generator), *BellmanBackup* ($Q(s,a)$ once $s_l$ and $s_r$ are
# solved), *StateSolved* ($V(s)$ and $\pi(s)$), *PolicyExtracted*. The graph shows the path from the root to
# the current state with every action and its Q-value; the panel compares the current state's actions.

# %% tags=["nbval-ignore-output"]
player = explore(DPDTClassifier(max_depth=2, candidates=(3,)), Xe, ye)
player

# %% [markdown]
# The same events, as text (`Search.steps()` yields them one by one; `describe` gives the paper-style
# caption):

# %%
# NBVAL_CHECK_OUTPUT
search = DPDTClassifier(max_depth=2, candidates=(3,)).search(Xe, ye)
events = list(search.steps())
for e in events:
    print(search.describe(e))

# %% [markdown]
# Reading the trace:
#
# * The root (6 rows, leaf loss 3 of 6) gets two candidates from CART(3 leaves): $x_0 \le 2$ (CART's own
#   root) and $x_0 \le 0.5$ (CART's second split).
# * Depth first: the left child of $x_0 \le 2$ (5 rows) has one candidate, $x_0 \le 0.5$, whose children are
#   at depth 2 and can only be leaves. Its backup gives $Q = -0.4$, **equal** to the leaf's $-2/5$: the tie
#   goes to the leaf (fewer expected splits), so that state is solved as a leaf. Back at the root,
#   $Q(x_0 \le 2) = \tfrac56(-0.4) + \tfrac16 \cdot 0 = -1/3$.
# * The second root candidate $x_0 \le 0.5$ leads to two states that $x_1 \le 1.5$ splits perfectly, so
#   $Q(x_0 \le 0.5) = 0$: the root's best action, and the tree labels all six points.
#
# The checks below read the same numbers from the events:

# %%
# NBVAL_CHECK_OUTPUT
root_candidates = [(e.feature, e.threshold) for e in events if e.name == "CandidateSplit" and e.state == 0]
root_backups = {int(e.candidate): Fraction(e.Q).limit_denominator(100) for e in events
                if e.name == "BellmanBackup" and e.state == 0}
root_solved = next(e for e in events if e.name == "StateSolved" and e.state == 0)
print("root candidates:", root_candidates)
print("Q per root action: leaf", Fraction(root_solved.Q_leaf).limit_denominator(100),
      {f"x0 <= {t}": str(root_backups[c]) for c, (f, t) in enumerate(root_candidates)})
print(f"chosen at the root: candidate {root_solved.action}, V(s0) = {root_solved.V + 0.0:g}")
assert root_candidates == [(0, 2.0), (0, 0.5)]
assert root_backups == {0: Fraction(-1, 3), 1: Fraction(0)} and root_solved.action == 1
tied = next(e for e in events if e.name == "StateSolved" and e.state == 1)
assert tied.action == -1 and tied.V == tied.Q_leaf == -0.4  # the tie goes to the leaf
names = [e.name for e in events]
assert names.count("StateExpanded") == names.count("StateSolved") == 11 and names.count("BellmanBackup") == 5

# %% [markdown]
# The player replays exactly these events; drive it from Python:

# %%
# NBVAL_CHECK_OUTPUT
player.run_to_end()
print(re.sub(r"<[^>]+>", "", player.caption.value))
assert player.k == len(events)

# %% [markdown]
# ## 3. Trees as policies (Prop. 4.1)
#
# A deterministic policy $\pi$ gives a tree by the extraction $E(\pi, s)$ (the paper's $E$, not the data $\mathcal E$): a leaf if $\pi(s)$ is a class,
# else the node $\pi(s)$ with children $E(\pi, s_l)$ and $E(\pi, s_r)$. Prop. 4.1: the expected return of
# $\pi$ is $J_\alpha(\pi) = -L_\alpha(E(\pi, s_0))$, with $C(T)$ the expected number of splits. So the optimal
# policy is the best tree *among those the generator's actions can build*. On the pathological set of
# chapter 1 (depth 3, budget (8,)), for a range of $\alpha$, $-V(s_0)$ (the search's objective) equals
# $L_\alpha$ recomputed from the extracted tree:

# %%
# NBVAL_CHECK_OUTPUT
patho = datasets.load("gen/dpdt-pathological")
Xp, yp = patho.X, patho.y
for alpha in map(Fraction, ("0", "0.05", "0.1", "0.104", "0.105", "0.2")):
    fitted = DPDTClassifier(max_depth=3, candidates=(8,), alpha=alpha).fit(Xp, yp)
    tree = fitted.tree_
    L = tree.dpdt_objective(Xp, yp, alpha, exact=True)
    print(f"alpha = {float(alpha):5}: accuracy {tree.accuracy(Xp, yp):.4f}, C(T) = {tree.expected_splits(Xp):.4f}, "
          f"{tree.splits} splits, -V(s0) = {fitted.result_.objective:.5f}, L_alpha = {float(L):.5f}")
    assert abs(fitted.result_.objective - L) < 1e-12  # the objective is a float, L_alpha an exact fraction

# %%
# NBVAL_CHECK_OUTPUT
patho_path = DPDTClassifier(max_depth=3, candidates=(8,)).fit(Xp, yp).regularisation_path()
print(f"{len(patho_path)} trees on the path; the leaf from alpha = {float(patho_path[-1]['alpha']):.4f}")
assert len(patho_path) == 2 and abs(float(patho_path[-1]["alpha"]) - 0.2592 / 2.5023) < 1e-4

# %% [markdown]
# Up to $\alpha = 0.2592 / 2.5023 \approx 0.1036$ the perfect tree ($C = 2.5023$) wins; from there on, a single
# leaf (error 0.2592) does, so the row at 0.104 already shows the leaf. With budget (8,) no intermediate tree
# is on DPDT's path here (section 5 computes all the breakpoints at once):
#
# ## 4. Theorem 5.1: never worse than CART, nor any pruning of it
#
# Let $T_0$ be CART's depth-$D$ tree and $T_1, \dots, T_M$ its rooted prunings (what post-pruning can return).
# Then $L_\alpha(\text{DPDT}) \le \min_i L_\alpha(T_i)$. The paper states it for $\alpha > 0$; the argument
# below holds for every $\alpha \ge 0$.
#
# *Proof (completed; the paper's stops after defining $C$).* (1) The root of CART($X$, $B$ leaves) is CART's
# greedy split of $X$, so at every state the greedy split is an available action. (2) CART is recursive: the
# subtree CART grows at a child is CART run on the child's rows. So "play the greedy split where $T_i$ splits,
# the leaf where $T_i$ has a leaf" is a valid policy, and it extracts $T_i$. (3) By Prop. 4.1 its return is
# $-L_\alpha(T_i)$, and the optimal policy's return is at least that. ∎ (It needs the inner CART to be the
# baseline CART: same criterion, same rules, same ties. odtlab's tests check this on every state.)
#
# Numerically, on every shipped continuous classification set, at depth 3 with budget (8, 3). DPDT's
# $L_\alpha$ is linear between the breakpoints of its path, and $\min_i L_\alpha(T_i)$ is concave (a minimum
# of lines), so their difference is concave on each interval and is at its least at an endpoint: checking at
# every breakpoint covers all $\alpha$ up to the last one. Beyond it DPDT's side is the leaf's constant error,
# and the minimum over prunings (the leaf is one of them) is concave and constant from some $\alpha$ on, hence
# non-decreasing: there too the difference is least at the last breakpoint. (The cell also checks between
# breakpoints and one unit past the last.)
# `pruning_lines` lists (errors, sum of split-node rows) of every pruning.

# %%
def pruning_lines(tree):
    """(misclassified rows, sum over split nodes of their rows) of every rooted pruning of a fitted tree."""
    def lines(v):
        errors = int(round(tree.n_samples[v] - tree.value[v].max()))
        out = {(errors, 0)}
        if tree.split[v]:
            left, right = tree._kids(v)
            out |= {(el + er, sl + sr + int(round(tree.n_samples[v])))
                    for el, sl in lines(left) for er, sr in lines(right)}
        return out
    return lines(0)


def check_theorem_5_1(X, y, depth=3, candidates=(8, 3)):
    dpdt = DPDTClassifier(max_depth=depth, candidates=candidates, record="none").fit(X, y)
    cart = CARTClassifier(max_depth=depth).fit(X, y)
    path = dpdt.regularisation_path()
    n = len(y)
    prunings = pruning_lines(cart.tree_)
    alphas = [Fraction(0)] + [a for seg in path[1:] for a in (seg["alpha"],)]
    alphas += [(a + b) / 2 for a, b in zip(alphas, alphas[1:])] + [alphas[-1] + 1]
    for alpha in alphas:
        ours = min(seg["loss"] + alpha * seg["expected_splits"] for seg in path)
        assert ours <= min(Fraction(e, n) + alpha * Fraction(s, n) for e, s in prunings)
    return cart.score(X, y), dpdt.score(X, y), len(path), len(prunings)


shipped = [name for name in datasets.names() if datasets.info(name)["kind"] == "continuous"
           and datasets.info(name)["task"] == "classification" and datasets.info(name)["available"]
           and not name.startswith("gen/random")]

# %%
# NBVAL_CHECK_OUTPUT
print(f"{'data set':24} {'N':>6} {'p':>3}  {'CART':>6} {'DPDT':>6}  path trees  prunings")
for name in shipped:
    data = datasets.load(name)
    cart_acc, dpdt_acc, trees, prunings = check_theorem_5_1(data.X, data.y)
    print(f"{name:24} {len(data.y):6d} {data.X.shape[1]:3d}  {cart_acc:6.4f} {dpdt_acc:6.4f}  {trees:10d}  "
          f"{prunings:8d}")
    assert dpdt_acc >= cart_acc

# %% [markdown]
# At $\alpha = 0$ DPDT is at least as accurate as CART everywhere (the theorem), strictly on all but
# gen/dpdt-example (14 of 15). The paper says "$B = 1$ gives the greedy tree"; our reading is that with one
# candidate per state (budget (2,), a 2-leaf CART) the MDP's only trees are the prunings of CART's tree, so
# DPDT returns the best pruning at each $\alpha$, which at $\alpha = 0$ is as accurate as CART's tree.
# Checked on bank, page and raisin (every tree on the path of budget (2,) is a pruning of CART's tree):

# %%
# NBVAL_CHECK_OUTPUT
for name in ("quantbnb/bank", "quantbnb/page", "quantbnb/raisin"):
    data = datasets.load(name)
    greedy = DPDTClassifier(max_depth=3, candidates=(2,), record="none").fit(data.X, data.y)
    cart = CARTClassifier(max_depth=3).fit(data.X, data.y)
    n, prunings = len(data.y), pruning_lines(cart.tree_)
    lines = {(seg["loss"], seg["expected_splits"]) for seg in greedy.regularisation_path()}
    print(f"{name:16} CART {cart.score(data.X, data.y):.4f}, DPDT (2,) {greedy.score(data.X, data.y):.4f}, "
          f"{len(lines)} trees on its path, all prunings of CART's tree")
    assert greedy.score(data.X, data.y) == cart.score(data.X, data.y)
    assert lines <= {(Fraction(e, n), Fraction(s, n)) for e, s in prunings}

# %% [markdown]
# ## 5. The regularisation path and the supported Pareto points
#
# The MDP does not depend on $\alpha$ (only the split reward does), and $V_s(\alpha) = \max_T(-\text{err}_T -
# \alpha C_T)$ over the trees the state can build is convex, piecewise linear and non-increasing. odtlab's
# kernel carries it exactly as the upper envelope of the lines of the candidate trees (for a split: $-\alpha$
# plus the sum of its children's envelopes weighted by $p_l$ and $p_r$; then the max over all candidates and the
# leaf). One search therefore gives **every** $\alpha$ at which DPDT's tree changes, with the tree. The
# authors' code evaluates a fixed grid of 100 $\alpha$ values in one backward induction; odtlab carries exact
# envelopes and finds the exact breakpoints.
#
# Sweeping $\alpha$ finds only the *supported* points of the Pareto front of (expected splits, training
# error): those on its lower convex hull. A tree that no other tree beats on both counts, but that lies above
# the hull, is optimal for no $\alpha$ and does not appear.
#
# On bank (Quant-BnB's copy, with its test split), depth 3, budget (8, 3):

# %%
# NBVAL_CHECK_OUTPUT
bank = datasets.load("quantbnb/bank")
est_bank = DPDTClassifier(max_depth=3, candidates=(8, 3)).fit(bank.X, bank.y)
iterations = est_bank.search_.solver.iterations
front = est_bank.get_pareto_front(bank.X_test, bank.y_test)
print(f"{'alpha from':>11} {'to':>8}  {'train err':>9} {'C(T)':>6} {'splits':>6}  {'test acc':>8}")
for row in front.itertuples():
    print(f"{float(row.alpha):11.5f} {float(row.alpha_end):8.5f}  {float(row.train_loss):9.4f} "
          f"{float(row.train_expected_splits):6.3f} {row.splits:6d}  {row.score:8.4f}")
assert est_bank.search_.solver.iterations == iterations  # the front needed no refit
assert front["alpha"].is_monotonic_increasing and front["train_expected_splits"].is_monotonic_decreasing
assert front["score"].is_monotonic_decreasing  # on bank, test accuracy rises with every tree of the path
K = len(np.unique(bank.y))
assert front["alpha"].iloc[-1] < 1 - 1 / K  # above 1 - 1/K a single leaf is always best

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
by_size = front.iloc[::-1]  # increasing C(T): the supported points (lower convex hull of (C, error))
C = by_size["train_expected_splits"].astype(float)
ax1.step(C, by_size["train_loss"].astype(float), where="post", color="#0072B2", label="train error (path)")
ax1.plot(C, by_size["train_loss"].astype(float), "o", color="#0072B2")
ax1.plot(front["expected_splits"], 1 - front["score"], "s", color="#E69F00", label="test error")
ax1.set_xlabel("expected number of splits C(T)")
ax1.set_ylabel("error")
ax1.set_title("bank, depth 3: DPDT's path (supported Pareto points)")
ax1.legend()
alphas = np.linspace(0, float(front["alpha"].iloc[-1]) * 1.3, 400)
for row in front.itertuples():
    ax2.plot(alphas, float(row.train_loss) + alphas * float(row.train_expected_splits), lw=0.8, color="#999999")
envelope = np.min([float(r.train_loss) + alphas * float(r.train_expected_splits) for r in front.itertuples()], axis=0)
ax2.plot(alphas, envelope, color="#D55E00", lw=2.5, label="-V(s0) = min over the path's trees")
for a in front["alpha"].iloc[1:]:
    ax2.axvline(float(a), color="#D55E00", lw=0.5, ls=":")
ax2.set_xlabel("alpha")
ax2.set_ylabel("L_alpha")
ax2.set_title("each tree is a line; DPDT's value is their lower envelope")
ax2.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# The left plot is the trade-off between training error and the expected number of splits at the path's
# trees; on bank the test error (orange) falls with every added split too (test accuracy 0.5345, 0.8109,
# 0.9164, 0.9818): at depth 3 more splits have not yet stopped paying off on unseen data. The right plot is
# the same front in the dual view: every tree is the line $\text{err}_T + \alpha C_T$, and the breakpoints of
# their lower envelope are the $\alpha$ values in the table. This is the analogue of cost-complexity pruning
# (Breiman's weakest-link path), with $C(T)$ in place of the number of leaves and over all trees DPDT's MDP
# contains rather than over the prunings of one tree.
#
# ## 6. Cost against optimal solvers: the paper's Table 1 in small
#
# Table 1 of the paper compares, at depth 3 and $\alpha = 0$, DPDT's train accuracy and number of
# **operations** with CART and the optimal solver Quant-BnB. Two things must be settled to compare with it:
#
# * **What is counted.** The paper counts "computing candidate split nodes for subsets of the training data".
#   Its CART column (7–15) is the node count of one depth-3 CART tree. Our reading, which the counts below
#   fit (docs/errata.md, DPDT D2), is that its DPDT column counts the same way, and odtlab's `operations`
#   does: the nodes (splits and leaves) of every inner CART tree it fits, $2k + 1$ for a CART with $k$ splits.
#   `candidates` counts the candidate splits (each is a Bellman backup).
# * **What "light (8, 1, 1)" and "full (8, 8, 8)" mean.** In the reference code a budget of 8 is CART's
#   `max_leaf_nodes`: 7 root candidates, then one greedy split per state, at most $7 + 14 + 28 = 49$ candidates
#   and at most
#   $15 + 14\cdot3 + 28\cdot3 = 141$ CART nodes, while the paper reports 220–301. Its text says "16 candidate
#   root splits". No reading of a budget of 8 gives exactly 16; what fits its counts is an inner CART with
#   **16 leaves**, that is 15 splits, so 15 root candidates and at most $31 + 30\cdot3 + 60\cdot3 = 301$ CART
#   nodes for light. It reproduces both the paper's operation counts and its accuracies (below). So the
#   paper's light and full are `candidates=(16, 1, 1)` and `(16, 16, 16)` here (docs/errata.md, DPDT D2).
#
# On the shipped quantbnb/ sets (Quant-BnB at depth 3 only where it takes a few seconds):

# %%
paper_acc = {row["dataset"]: row for row in published.DPDT_TABLE1_ACCURACY}
paper_ops = {row["dataset"]: row for row in published.DPDT_TABLE1_OPERATIONS}
quantbnb_sets = [name for name in shipped if name.startswith("quantbnb/")]
QUICK_DEPTH_3 = {"bank", "raisin", "wilt", "bidding", "segment"}
for warm_up in (CARTClassifier(max_depth=3), DPDTClassifier(max_depth=3), QuantBnBClassifier(max_depth=3)):
    warm_up.fit(bank.X[:60], bank.y[:60])  # load the compiled kernels before anything is timed
table, seconds = [], {}
for name in quantbnb_sets:
    data = datasets.load(name)
    short = name.split("/")[1]
    row = {"set": short}
    t0 = time.perf_counter()
    cart = CARTClassifier(max_depth=3, record="none").fit(data.X, data.y)
    seconds[short, "cart"] = time.perf_counter() - t0
    row["cart"] = (cart.score(data.X, data.y), cart.tree_.n_nodes)
    for label, cands in (("light", (16, 1, 1)), ("full", (16, 16, 16)), ("ref (8,1,1)", (8, 1, 1))):
        t0 = time.perf_counter()
        est = DPDTClassifier(max_depth=3, candidates=cands, record="none").fit(data.X, data.y)
        seconds[short, label] = time.perf_counter() - t0
        row[label] = (est.score(data.X, data.y), est.result_.stats["operations"], est.result_.stats["candidates"])
    if short in QUICK_DEPTH_3:
        t0 = time.perf_counter()
        opt = QuantBnBClassifier(max_depth=3).fit(data.X, data.y)
        seconds[short, "opt"] = time.perf_counter() - t0
        row["opt"] = (opt.score(data.X, data.y), opt.result_.stats["evaluations"], opt.result_.status)
    table.append(row)

# %%
# NBVAL_CHECK_OUTPUT
print("train accuracy at depth 3 (paper's value in brackets); operations = nodes of the inner CART trees")
print(f"{'set':8} {'CART':>15} {'DPDT light (16,1,1)':>24} {'DPDT full (16,16,16)':>26} {'(8,1,1)':>14} "
      f"{'Quant-BnB':>15}")
for row in table:
    s = row["set"]
    pa, po = paper_acc[s], paper_ops[s]
    cart_acc, cart_nodes = row["cart"]
    light, full, ref = row["light"], row["full"], row["ref (8,1,1)"]
    opt = f"{row['opt'][0]:.3f} [{pa['Quant-BnB (opt)']}]" if "opt" in row else "not run"
    print(f"{s:8} {cart_acc:.3f} [{pa['CART']}] {light[0]:.3f} [{pa['DPDT light']}] "
          f"{light[1]:4d} [{po['DPDT light']:>3}]"
          f"  {full[0]:.3f} [{pa['DPDT full']}] {full[1]:5d} [{po['DPDT full']:>5}]  {ref[0]:.3f} {ref[1]:4d}"
          f"  {opt:>15}")
    assert abs(light[1] - int(po["DPDT light"])) <= 0.05 * int(po["DPDT light"])
    assert abs(full[1] - int(po["DPDT full"])) <= 0.15 * int(po["DPDT full"])
    assert round(light[0], 3) >= float(pa["DPDT light"]) - 0.001 and round(full[0], 3) >= float(pa["DPDT full"]) - 0.001
    assert ref[2] <= 7 + 14 + 28 and ref[1] <= 141
    if "opt" in row:
        assert row["opt"][2] == "optimal" and full[0] <= row["opt"][0]

# %% [markdown]
# Every DPDT accuracy matches or beats the paper's. The operation counts, as a deviation from the paper's:

# %%
# NBVAL_CHECK_OUTPUT
deviation = {label: {row["set"]: row[label][1] / int(paper_ops[row["set"]][f"DPDT {label}"]) - 1 for row in table}
             for label in ("light", "full")}
for label, dev in deviation.items():
    print(f"DPDT {label:5} operations / paper's - 1:", ", ".join(f"{s} {d:+.1%}" for s, d in dev.items()))
assert max(abs(d) for d in deviation["light"].values()) < 0.04
assert max(abs(d) for s, d in deviation["full"].items() if s != "bidding") < 0.01
assert -0.12 < deviation["full"]["bidding"] < -0.11

# %% [markdown]
# Light agrees within 4 % and full within 1 %, except full on bidding, 11.5 % below the paper's (the
# accuracies agree there too); we have no explanation for that row and report it. The reference code's
# (8, 1, 1) gets the same accuracy as (16, 1, 1) on all sets but rice, at half the cost.
#
# As a fraction of the optimum, with each solver's own count: DPDT's operations (inner-CART nodes) and
# Quant-BnB's `evaluations` (feature scans, each over the rows of one subset; the paper does not say how it
# counts Quant-BnB's operations, so these two units do not compare with its 10⁴–10⁸):

# %%
# NBVAL_CHECK_OUTPUT
ratio = {}
for row in table:
    s = row["set"]
    if "opt" not in row:
        continue
    ratio[s] = {label: row[label][0] / row["opt"][0] for label in ("light", "full")}
    print(f"{s:8}  DPDT light {ratio[s]['light']:.4f} of the optimum, full {ratio[s]['full']:.4f};  "
          f"operations light {row['light'][1]:5d}, full {row['full'][1]:5d};  Quant-BnB evaluations {row['opt'][1]:6d}")
assert all(r["full"] >= 0.99 for r in ratio.values()) and min(r["light"] for r in ratio.values()) < 0.92
assert all(row["opt"][1] < row["full"][1] for row in table if row["set"] in ("bank", "wilt"))
assert all(row["opt"][1] < 10 * row["full"][1] for row in table if "opt" in row)

# %% [markdown]
# Full DPDT comes within 1 % of the optimum on these five sets; light does not everywhere (segment: 0.9152 of
# the optimum). Counted in odtlab's units, Quant-BnB is not orders of magnitude above DPDT full here: its count
# is less than ten times DPDT full's on all five sets, and lower on bank and wilt. Times relative to CART (one
# run, after warming up every solver; unchecked, since they vary with the machine's load):

# %% tags=["nbval-ignore-output"]
for row in table:
    s = row["set"]
    opt = f"{seconds[s, 'opt'] / seconds[s, 'cart']:7.1f}" if "opt" in row else "not run"
    print(f"{s:8}  time / CART: DPDT light {seconds[s, 'light'] / seconds[s, 'cart']:6.1f}, "
          f"full {seconds[s, 'full'] / seconds[s, 'cart']:7.1f};  Quant-BnB {opt}")

# %% [markdown]
# At depth 2 Quant-BnB runs on all of them, and DPDT with odtlab's default budget (8, 3) comes within 1 % of
# the optimum with under a hundred operations:

# %%
# NBVAL_CHECK_OUTPUT
print(f"{'set':8} {'CART':>6} {'DPDT (8,3)':>10} {'operations':>10} {'optimum':>8}")
for name in quantbnb_sets:
    data = datasets.load(name)
    cart = CARTClassifier(max_depth=2).fit(data.X, data.y).score(data.X, data.y)
    est = DPDTClassifier(max_depth=2, candidates=(8, 3), record="none").fit(data.X, data.y)
    opt = QuantBnBClassifier(max_depth=2).fit(data.X, data.y)
    acc, best = est.score(data.X, data.y), opt.score(data.X, data.y)
    print(f"{name.split('/')[1]:8} {cart:6.4f} {acc:10.4f} {est.result_.stats['operations']:10d} {best:8.4f}")
    assert cart <= acc <= best and acc >= 0.99 * best and opt.result_.status == "optimal"
    assert est.result_.stats["operations"] < 100

# %% [markdown]
# With `generator="exhaustive"` every cut is a candidate and DPDT *is* an optimal solver (Prop. 4.1): its
# search then ends with status "optimal" and certified bounds. It is only practical on small data; on 40 bank
# rows at depth 2 it agrees with the brute-force oracle and with Quant-BnB:

# %%
# NBVAL_CHECK_OUTPUT
Xs, ys = bank.X[:40], bank.y[:40]
exhaustive = DPDTClassifier(max_depth=2, generator="exhaustive").fit(Xs, ys)
oracle = bruteforce.dpdt_optimum(Xs, ys, 2, 0)
quant = QuantBnBClassifier(max_depth=2).fit(Xs, ys)
L_exhaustive = exhaustive.tree_.dpdt_objective(Xs, ys, 0, exact=True)
print(f"exhaustive DPDT: L_0 = {L_exhaustive} ({exhaustive.result_.status}, bounds "
      f"[{exhaustive.result_.lower_bound:.4f}, {exhaustive.result_.upper_bound:.4f}], "
      f"{exhaustive.result_.stats['candidates']} candidates); oracle {oracle.value}; "
      f"Quant-BnB {quant.tree_.misclassifications(Xs, ys)} error(s)")
assert L_exhaustive == oracle.value == Fraction(quant.tree_.misclassifications(Xs, ys), len(ys))
assert exhaustive.result_.status == "optimal" and exhaustive.result_.lower_bound == exhaustive.result_.upper_bound

# %% [markdown]
# ## 7. Boosting with DPDT trees
#
# DPDT's estimators are scikit-learn estimators that accept `sample_weight` (weights enter the losses, the
# transition probabilities and the inner CART), so AdaBoost can use them as base learners, as in the paper's
# §7. On breast_cancer with a held-out quarter, 30 rounds of depth-2 trees:

# %%
# NBVAL_CHECK_OUTPUT
cancer = datasets.load("sklearn/breast_cancer")
X_train, X_test, y_train, y_test = train_test_split(cancer.X, cancer.y, test_size=0.25, random_state=0,
                                                    stratify=cancer.y)
boosted = {}
for label, base in (("CART", CARTClassifier(max_depth=2, record="none")),
                    ("DPDT (8, 3)", DPDTClassifier(max_depth=2, candidates=(8, 3), record="none"))):
    boosted[label] = AdaBoostClassifier(estimator=base, n_estimators=30, random_state=0).fit(X_train, y_train)
    single = base.fit(X_train, y_train)
    print(f"{label:12} single tree: train {single.score(X_train, y_train):.4f} test {single.score(X_test, y_test):.4f}"
          f";  AdaBoost x30: train {boosted[label].score(X_train, y_train):.4f} "
          f"test {boosted[label].score(X_test, y_test):.4f}")
assert boosted["DPDT (8, 3)"].score(X_train, y_train) >= 0.99

# %%
fig, ax = plt.subplots(figsize=(7, 3.5))
for (label, model), colour in zip(boosted.items(), ("#999999", "#D55E00")):
    ax.plot(range(1, 31), list(model.staged_score(X_test, y_test)), color=colour, label=f"AdaBoost, {label} trees")
ax.set_xlabel("boosting rounds")
ax.set_ylabel("test accuracy")
ax.set_title("breast_cancer: AdaBoost with depth-2 base trees")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# The test accuracy after a few of the rounds:

# %%
# NBVAL_CHECK_OUTPUT
staged = {label: list(model.staged_score(X_test, y_test)) for label, model in boosted.items()}
ROUNDS = (1, 2, 3, 5, 10, 20, 30)
print(f"{'rounds':12}" + "".join(f"{r:>8d}" for r in ROUNDS))
for label, scores in staged.items():
    print(f"{label:12}" + "".join(f"{scores[r - 1]:8.4f}" for r in ROUNDS))
cart_s, dpdt_s = staged["CART"], staged["DPDT (8, 3)"]
assert all(d > c for r, (c, d) in enumerate(zip(cart_s[:16], dpdt_s[:16]), 1) if r != 2) and dpdt_s[1] == cart_s[1]
assert cart_s[-1] > dpdt_s[-1]

# %% [markdown]
# Boosting lifts both; the DPDT-boosted model is ahead in each of the first 16 rounds but the second (a
# tie), and after 30 rounds boosted CART is ahead on this test set (0.9441 against 0.9301). On one small set
# this is an illustration, not evidence: the paper's Figure 6 aggregates dozens of data sets and 15 shuffles
# of a random search.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell to fill in (replace the `...`) and a `check` that says what is right or wrong. They
# use the six points of section 1 (`gen/dpdt-example`) at depth 2 with `candidates=(3,)`: CART with 3 leaves at
# the root, greedy below.
#
# **08.1** One backward-induction step: $Q(s_0, x_0 \le 2)$ at $\alpha = 0$. Answer with a Fraction.

# %%
from odtlab.exercises import check

six = datasets.load("gen/dpdt-example")
X6, y6 = six.X, six.y


def error_share(labels):
    """The misclassified share of a leaf on these labels."""
    return Fraction(int(len(labels) - np.bincount(labels, minlength=2).max()), len(labels))

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
go_left = X6[:, 0] <= 2
yl, inner = y6[go_left], X6[go_left, 0] <= 0.5  # the left child's own CART candidate: x0 <= 0.5
v_left = max(-error_share(yl), -(Fraction(int(inner.sum()), len(yl)) * error_share(yl[inner])
                                 + Fraction(int((~inner).sum()), len(yl)) * error_share(yl[~inner])))
p_left = Fraction(int(go_left.sum()), len(y6))
answer = p_left * v_left + (1 - p_left) * -error_share(y6[~go_left])
assert check("08.1", answer).ok

# %%
check("08.1", answer)

# %% [markdown]
# **08.2** The same Q at $\alpha = 1/10$: every split now costs $\alpha$ (and the children are solved at that
# $\alpha$ too).

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
alpha = Fraction(1, 10)
v_left = max(-error_share(yl), -alpha - (Fraction(int(inner.sum()), len(yl)) * error_share(yl[inner])
                                         + Fraction(int((~inner).sum()), len(yl)) * error_share(yl[~inner])))
answer = -alpha + p_left * v_left + (1 - p_left) * -error_share(y6[~go_left])
assert check("08.2", answer).ok

# %%
check("08.2", answer)

# %% [markdown]
# **08.3** Which split does the optimal policy play at the root at $\alpha = 0$? Answer with a tuple
# `(feature, threshold)`.

# %% tags=["exercise"]
answer = ...  # (feature, threshold)

# %% tags=["solution"]
tree6 = DPDTClassifier(max_depth=2, candidates=(3,)).fit(X6, y6).tree_
answer = (int(tree6.feature[0]), float(tree6.threshold[0]))
assert check("08.3", answer).ok

# %%
check("08.3", answer)

# %% [markdown]
# **08.4** Let $T$ be DPDT's tree at $\alpha = 0$. From which $\alpha$ on is the single leaf at least as good as
# $T$, that is $L_\alpha(\text{leaf}) \le L_\alpha(T)$? Answer with a Fraction.

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
expected_splits = tree6.dpdt_objective(X6, y6, 1, exact=True) - Fraction(tree6.misclassifications(X6, y6), len(y6))
answer = (error_share(y6) - Fraction(tree6.misclassifications(X6, y6), len(y6))) / expected_splits
assert check("08.4", answer).ok

# %%
check("08.4", answer)

# %% [markdown]
# ## Summary
#
# * DPDT's MDP: states (rows, depth); actions: leaf or a candidate split from a small CART on the state's rows;
#   rewards $-\alpha$ per split and minus the error rate per leaf. Backward induction over this finite tree of
#   states returns the best tree among those the candidates can build (Prop. 4.1).
# * Since the greedy split is always a candidate, the result is never worse than CART or any pruning of it, at
#   every $\alpha$ (Theorem 5.1), checked here on every shipped continuous set.
# * One search gives the exact regularisation path, that is the supported points of the Pareto front of
#   (expected splits, error); no refit.
# * Reading the paper's "operations" as the nodes of the inner CART trees, and its light/full configurations
#   as inner CARTs with 16 leaves (odtlab's reading, docs/errata.md, DPDT D2), odtlab reproduces its DPDT
#   accuracies on the shipped sets and its counts (light within 4 %, full within 1 % except bidding, 11.5 %
#   below). Full DPDT comes within 1 % of the optimum on the five sets where Quant-BnB runs here, light not
#   everywhere (segment: 0.9152 of it). In odtlab's own units Quant-BnB's count stays within ten times DPDT
#   full's on these sets (below it on bank and wilt), not the paper's orders of magnitude above.

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * H. Kohler, R. Akrour, P. Preux. *Breiman meets Bellman: Non-Greedy Decision Trees with MDPs.* Proceedings of
#   the 31st ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD '25), 2025.
#   doi:10.1145/3711896.3736868. [`kohler2025dpdt`]
# * L. Breiman, J. H. Friedman, R. A. Olshen, C. J. Stone. *Classification and Regression Trees.* Wadsworth,
#   1984. [`breiman1984cart`]
# * F. Pedregosa et al. *Scikit-learn: Machine Learning in Python.* Journal of Machine Learning Research 12,
#   2825–2830, 2011. [`pedregosa2011sklearn`]
# * R. Mazumder, X. Meng, H. Wang. *Quant-BnB: A Scalable Branch-and-Bound Method for Optimal Decision Trees
#   with Continuous Features.* Proceedings of the 39th International Conference on Machine Learning (ICML), PMLR
#   162, 2022. [`mazumder2022quantbnb`]
