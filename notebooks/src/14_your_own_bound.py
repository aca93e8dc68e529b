# %% [markdown]
# # 14. Research: your own bound
#
# MurTree prunes a subtree problem $(\mathcal{D}, d, n, UB)$ when a lower bound on its optimal cost
# $T(\mathcal{D}, d, n)$ exceeds $UB$ (Algorithm 1, lines 22–24), and returns the leaf when the bound equals the
# leaf's cost (lines 25–26). Its bounds are the cache's (§4.6.3–4.6.4: Eq. 17 after a failed search, Prop. 10–11
# from a subtree solved or bounded with another budget; a subtree solved with this budget is returned at lines 9–14,
# before any bound is asked), the similarity bound (§4.5, Eq. 9), and **0** when the cache has nothing (§4.6.4). This chapter adds a bound of our own, combined with MurTree's by taking the larger (so it
# replaces the 0 where the cache has nothing), written as a small Python function:
#
# ```python
# def my_bound(counts, depth, nodes):   # counts[k]: weight of the rows of D with class k
#     return ...                        # a float >= 0 and <= T(D, depth, nodes) for every D with these counts
# MurTreeClassifier(max_depth=4, lower_bound=my_bound)
# ```
#
# The search uses the larger of the function's value (rounded up: costs are integers) and its own bound.
# odtlab compiles the function alone as a first-class numba function; the kernel, compiled once and shared by
# all bounds and by searches without one, calls it through a pointer (the numbers behind that choice are in `odtlab.bounds`).
#
# We write the paper's trivial bound 0 as a function (`zero`), a stronger sound bound (`classes_left`), which we
# prove, a variant of it between the two (`smallest_class`), and an unsound one (`leaf_cost`); we check them
# against the brute-force oracle, measure them on benchmark sets with the experiment runner beside a weaker
# variant of MurTree's own bounds (the similarity bound switched off), and watch `check_bound` catch the unsound
# one.

# %%
import json
import time

import numpy as np
import pandas as pd

from odtlab import MurTreeClassifier
from odtlab import experiments as ex
from odtlab.bounds import UnsoundBoundError
from odtlab.bruteforce import binary_optimum

pd.set_option("display.width", 160)

# %% [markdown]
# ## 1. Four bounds
#
# `zero` is the paper's bound for a subproblem the cache knows nothing about. `classes_left` is larger than `zero`
# wherever a subtree's at most $n + 1$ leaves are fewer than its data's classes of positive weight; `smallest_class`
# is a weaker form of it (one lost class instead of all of them). `leaf_cost` claims that no split ever helps:
# it is **not** a lower bound.

# %%
def zero(counts, depth, nodes):
    return 0.0


def classes_left(counts, depth, nodes):
    s = np.sort(counts)              # class weights, smallest first
    k = len(s) - (nodes + 1)         # classes that no leaf can predict
    return float(s[:k].sum()) if k > 0 else 0.0


def smallest_class(counts, depth, nodes):
    return float(np.min(counts)) if nodes + 1 < len(counts) else 0.0


def leaf_cost(counts, depth, nodes):
    return float(counts.sum() - counts.max())


# %% [markdown]
# **Why `classes_left` is sound.** A tree with at most $n$ feature nodes is a binary tree with at most $n + 1$
# leaves, and each leaf predicts one class, so at most $n + 1$ classes are predicted anywhere in the tree. Every
# row whose class is not predicted by any leaf is misclassified. If $P$ is the set of predicted classes,
# $|P| \le n + 1$, the tree misclassifies at least $\sum_{k \notin P} |\mathcal{D}_k|$, which is smallest when
# $P$ holds the $n + 1$ heaviest classes: $T(\mathcal{D}, d, n) \ge$ the weight of the $K - (n + 1)$ lightest
# classes. The argument uses only the class counts, so it holds for every data set with those counts, as the
# signature demands. On two classes it is 0 for every $n \ge 1$: it can only help with more classes than leaves.
#
# `smallest_class` is sound because it never exceeds `classes_left`: when $K > n + 1$ the lightest class is one
# of the $K - (n + 1)$ lightest, and otherwise both are 0. (Here $K$ counts every class of the problem, so a class
# of weight 0 in this subproblem makes `smallest_class` 0.)

# %%
counts = np.array([5, 1, 3, 0, 2])
print([classes_left(counts, 2, n) for n in range(4)], [smallest_class(counts, 2, n) for n in range(4)],
      zero(counts, 2, 1), leaf_cost(counts, 2, 1))

# %% [markdown]
# `classes_left` with 0 feature nodes (one leaf) is the leaf's cost, 11 - 5 = 6; each extra node frees one more
# class (3, 1, then 0 with 3 nodes: 4 leaves for 4 classes of positive weight). (The search itself never asks
# about 0 nodes: a subtree with no node left is its leaf.) `smallest_class` is 0 throughout because class 3 has
# weight 0; `zero` is 0, and `leaf_cost` claims 6 with one node, twice `classes_left`'s 3.

# %%
assert [classes_left(counts, 2, n) for n in range(4)] == [6.0, 3.0, 1.0, 0.0]
assert [smallest_class(counts, 2, n) for n in range(4)] == [0.0, 0.0, 0.0, 0.0]
assert [smallest_class(counts[counts > 0], 2, n) for n in range(4)] == [1.0, 1.0, 1.0, 0.0]

# %% [markdown]
# ## 2. Against the oracle on small data
#
# Forty small random problems with labels drawn from three to six classes, for each of our two sound bounds. `check_bound=True`
# solves, without our bound, every subproblem whose bound ours raised and compares the two; the optimum is then
# compared with the brute-force oracle `odtlab.bruteforce.binary_optimum`.

# %%
rng = np.random.default_rng(14)
raised, checked = {"classes_left": 0, "smallest_class": 0}, {"classes_left": 0, "smallest_class": 0}
for trial in range(40):
    n_rows, p, K = rng.integers(6, 30), rng.integers(2, 5), rng.integers(3, 7)
    X, y = rng.integers(0, 2, size=(n_rows, p)), rng.integers(0, K, size=n_rows)
    depth = int(rng.integers(1, 4))
    nodes = int(rng.integers(1, 2 ** depth))
    optimum = binary_optimum(X, y, depth, nodes).value
    for bound in (classes_left, smallest_class):
        est = MurTreeClassifier(max_depth=depth, max_nodes=nodes, lower_bound=bound, check_bound=True,
                                record="none").fit(X, y)
        assert est.result_.objective == optimum
        raised[bound.__name__] += est.result_.stats["user_bound_raises"]
        checked[bound.__name__] += est.result_.stats["user_bound_checks"]
print("80 optima equal the oracle's; subproblem bounds raised:", raised, "distinct ones checked:", checked)

# %% [markdown]
# ## 3. An unsound bound is caught
#
# `leaf_cost` says a subtree can never beat its leaf. On four rows that one feature separates perfectly it
# claims 2 where the optimum is 0. (The greedy start would find that split before any bound is asked, so it is
# off here.) Without a check the search believes the bound and returns the leaf:

# %%
X4, y4 = np.array([[0], [0], [1], [1]]), np.array([0, 0, 1, 1])
wrong = MurTreeClassifier(max_depth=1, greedy_start=False, lower_bound=leaf_cost).fit(X4, y4)
print(wrong.result_.objective, "misclassifications, but the oracle finds", binary_optimum(X4, y4, 1).value)

# %%
try:
    MurTreeClassifier(max_depth=1, greedy_start=False, lower_bound=leaf_cost, check_bound=True).fit(X4, y4)
except UnsoundBoundError as error:
    print(error)

# %% [markdown]
# The error names the subproblem (its budgets, rows, weight and class counts), the value of the bound and the
# optimum that contradicts it.
#
# ## 4. On benchmark sets, with the experiment runner
#
# The runner takes the bound by name, `"module:function"`; in this process (`n_jobs=1`) our functions live in
# the notebook's module `__main__`. Four multi-class sets (3 to 7 classes) and two two-class `dl/` sets, in two
# settings: depth 3 with at most 3 feature nodes, and depth 3 with the sparse objective (misclassifications + 1
# per feature node, no node limit beyond the depth's 7; Algorithm 6 asks for budgets 1, 2, ..., 7 in turn).
# `None` is MurTree's own bounds alone; `no_similarity` is a weaker variant of them, MurTree without the
# similarity bound (§4.5, `similarity_bound=False`).

# %%
DATA = ["branches/zoo-f", "branches/lymph-f", "branches/balance-f", "branches/car-eval-f", "dl/vote", "dl/anneal"]
BOUNDS = [None, "__main__:zero", "__main__:smallest_class", "__main__:classes_left"]
SETTINGS = {"3 nodes": {"depth": 3, "nodes": 3}, "alpha 1": {"depth": 3, "alpha": 1}}
params = [dict(setting, lower_bound=bound) for setting in SETTINGS.values() for bound in BOUNDS]
params += [dict(setting, similarity_bound=False) for setting in SETTINGS.values()]
table = ex.run_grid(ex.grid(["murtree"], DATA, params), n_jobs=1, progress=False)


def variant(p):
    p = json.loads(p)
    return "no_similarity" if p.get("similarity_bound") is False else str(p.get("lower_bound")).rpartition(":")[2]


table["bound"] = table["params"].map(variant)
table["setting"] = table["params"].map(lambda p: "alpha 1" if "alpha" in json.loads(p) else "3 nodes")
table["raises"] = table["stats"].map(lambda s: json.loads(s).get("user_bound_raises", 0))

# %% [markdown]
# Subtree calls (Algorithm 1) per variant, weakest first, and how many subproblem bounds each of our two bounds
# raised:

# %%
# NBVAL_CHECK_OUTPUT
rows = ["dataset", "setting"]
VARIANTS = ["no_similarity", "None", "zero", "smallest_class", "classes_left"]
wide = table.pivot_table(index=rows, columns="bound", values="iterations")[VARIANTS].astype(int)
raises = table.pivot_table(index=rows, columns="bound", values="raises")
wide["raised_smallest"] = raises["smallest_class"].astype(int)
wide["raised_left"] = raises["classes_left"].astype(int)
wide["objective"] = table.groupby(rows)["objective"].first()
print(wide.reindex(DATA, level=0).to_string())

# %% [markdown]
# Every variant finds the same optimum on every set and setting (MurTree's own bound gives the reference), and
# the two-class sets never see a positive value:

# %%
assert (table.groupby(rows)["objective"].nunique() == 1).all()
assert (table.status == "optimal").all()
assert (wide.loc[["dl/vote", "dl/anneal"], ["raised_smallest", "raised_left"]] == 0).all().all()
assert (wide["zero"] == wide["None"]).all()

# %% [markdown]
# `zero` never raises a bound, so it runs exactly MurTree's search. On zoo with 3 nodes, `classes_left` at the
# root is the weight of the 7 - 4 = 3 lightest classes, 17, the optimum: the greedy tree the search starts from
# costs 17 too (odtlab starts from the greedy tree by default; the paper starts from the leaf, §4.2), so the root
# is asked with $UB = 16$, its bound 17 exceeds that (lines 23–24), and one call proves the greedy tree optimal. On zoo with the sparse objective it saves a
# fifth of the calls; elsewhere the count is unchanged or grows by a few calls (up to 8 more, on car-eval): a
# stronger bound is not always a faster search.

# %%
assert wide.loc[("branches/zoo-f", "3 nodes"), "classes_left"] == 1
assert wide.loc[("branches/zoo-f", "3 nodes"), "objective"] == 17
zoo_sparse = wide.loc[("branches/zoo-f", "alpha 1")]
assert zoo_sparse["classes_left"] <= 0.8 * zoo_sparse["None"]
more = wide["classes_left"] - wide["None"]
assert more.max() == 8 and more.idxmax()[0] == "branches/car-eval-f"
assert (more.drop("branches/zoo-f", level=0) >= 0).all()

# %% [markdown]
# The weaker `smallest_class` raises bounds on the same sets, but on zoo it loses both of `classes_left`'s gains
# (it runs MurTree's own counts there), while it costs the same extra calls on car-eval.

# %%
assert (wide.loc["branches/zoo-f", "smallest_class"] == wide.loc["branches/zoo-f", "None"]).all()
assert (wide.loc["branches/car-eval-f", "smallest_class"] == wide.loc["branches/car-eval-f", "classes_left"]).all()

# %% [markdown]
# The weaker variant of MurTree's own bounds, without the similarity bound, changes no count by more than 3, and
# where it changes one the count drops: on these sets at depth 3 the similarity bound saves no subtree call (a
# weaker bound is not always a slower search either).

# %%
fewer = wide["None"] - wide["no_similarity"]
assert fewer.min() == 0 and 0 < fewer.max() <= 3

# %% [markdown]
# Time (not checked: it depends on the machine) includes at most one call of the bound per subtree call (none
# when $UB < 0$, when no depth or node is left, or when the cache holds the optimum):

# %%
print(table.pivot_table(index=rows, columns="bound", values="seconds")[VARIANTS]
      .reindex(DATA, level=0).round(3).to_string())

# %% [markdown]
# ## 5. What a new bound costs
#
# A new function is compiled alone, not the kernel, and what that costs depends on what the function calls:
# about 0.03–0.1 s of CPU for plain arithmetic (the first bound a process compiles also pays numba's one-off
# start-up, 0.8–2.4 s); a function that calls `np.sort` or `np.min` also compiles numba's implementation of it,
# up to about 2 s of CPU (less once this process has compiled that implementation for another function). A function already in numba's disk cache is only loaded (milliseconds). Below, a fifth
# bound's compilation and a first fit with it, timed apart in CPU seconds (not checked: they depend on the
# machine and on what this process compiled before).

# %%
from odtlab.bounds import compiled


def two_lightest(counts, depth, nodes):  # sound: at most classes_left (two of the lost classes, not all)
    s = np.sort(counts)
    k = min(len(s) - (nodes + 1), 2)
    return float(s[:k].sum()) if k > 0 else 0.0


t = time.process_time()
compiled(two_lightest)
t_compile = time.process_time() - t
t = time.process_time()
MurTreeClassifier(max_depth=2, lower_bound=two_lightest).fit(X4, y4)
print(f"compiling the bound: {t_compile:.2f} s; then the first fit with it: {time.process_time() - t:.2f} s (CPU)")

# %% [markdown]
# ## 6. The same function in Quant-BnB
#
# Quant-BnB (chapter 07) takes the same function: `QuantBnBClassifier(bound=...)` (the keyword is `bound`, as
# Quant-BnB's `lower_bound` already chooses among the paper's $W_0$, $W_1$, $W_2$). Its trees are perfect (a
# degenerate threshold makes a leaf), so it always asks about depth 2 and 3 feature nodes, the best depth-2 tree
# on a set of rows, in two places (`odtlab.solvers.quantbnb` has the proof):
#
# * at depth 2, about the middle rows of a slice $[t_{j-1}, t_j]$ of root thresholds (the rows whose side the
#   slice leaves open): for each pair of child features, every tree in the slice loses at least $W_0$ (eq. 9) on
#   the other rows plus at least the best depth-2 loss on the middle rows (Lemma B.2, the step that proves
#   $W_2 \le L_2$), so $W_0$ + ⌈our bound⌉ is a lower bound for that pair, and Proposition 4.1 eliminates child
#   features with the larger of it and the $W$ in use (by default $W_0$ plus odtlab's similarity bound, which is
#   not in the paper);
# * at depth 3, about the left and the right set of each root threshold. odtlab evaluates Proposition C.1's
#   chain (55) with each side's depth-2 loss found by an inner Quant-BnB solve (odtlab's design, not the paper's
#   pruning of its $\Phi$ sets); a solve is cut off at the incumbent's loss minus the other side's lower bound,
#   and skipped when its own lower bound, raised by ours, already reaches that cutoff.
#
# With 3 nodes, `classes_left` is the weight of the $K - 4$ lightest classes, so it is positive only on sets of
# rows with more than 4 classes present. quantbnb/segment has 7 of nearly equal size: at depth 2 all 1848 rows, at depth 3 its first 300 rows
# (to keep the chapter short).

# %%
from odtlab import QuantBnBClassifier, datasets
from odtlab.bruteforce import continuous_optimum

segment = datasets.load("quantbnb/segment")
Xs, ys = np.asarray(segment.X, float), np.asarray(segment.y)
runs = []
for depth, n_rows in ((2, len(ys)), (3, 300)):
    for bound in (None, classes_left):
        result = QuantBnBClassifier(max_depth=depth, bound=bound, record="none").fit(Xs[:n_rows], ys[:n_rows]).result_
        runs.append(dict(depth=depth, rows=n_rows, bound=getattr(bound, "__name__", "None"),
                         objective=int(result.objective), tuples=result.stats["iterations"],
                         inner_solves=result.stats.get("inner_solves", 0),
                         raised=result.stats.get("user_bound_raises", 0)))
quant = pd.DataFrame(runs).set_index(["depth", "rows", "bound"])

# %%
# NBVAL_CHECK_OUTPUT
print(quant.to_string())

# %% [markdown]
# The same optimum with and without the bound; with it, the search processes fewer tuples at depth 2 and runs
# fewer inner solves at depth 3.

# %%
d2, d3 = quant.loc[2].droplevel(0), quant.loc[3].droplevel(0)
assert d2.objective.nunique() == 1 and d3.objective.nunique() == 1
assert d2.loc["classes_left", "tuples"] < d2.loc["None", "tuples"]
assert d3.loc["classes_left", "inner_solves"] < d3.loc["None", "inner_solves"]

# %% [markdown]
# Against the oracle on small problems (random feature values, three to six classes), with `check_bound=True`:
# each value that raised a bound is compared with the optimal depth-2 loss of its rows, found by Quant-BnB
# without the bound, and the final optimum with the brute-force oracle `continuous_optimum`.

# %%
rng = np.random.default_rng(7)
raised = checked = 0
for trial in range(12):
    n_rows, K, depth = int(rng.integers(8, 14)), int(rng.integers(3, 7)), 2 + trial % 2
    X, y = rng.integers(0, 5, size=(n_rows, 2)).astype(float), np.arange(n_rows) % K
    est = QuantBnBClassifier(max_depth=depth, bound=classes_left, check_bound=True).fit(X, y)
    assert est.result_.objective == continuous_optimum(X, y, depth).value
    raised += est.result_.stats["user_bound_raises"]
    checked += est.result_.stats["user_bound_checks"]
assert checked > 0
print("12 optima equal the oracle's; bounds raised:", raised, "distinct ones checked:", checked)

# %% [markdown]
# And `check_bound` catches `leaf_cost` here too, naming the rows (a stretch of one feature's sorted values), the
# value and the optimum:

# %%
try:
    QuantBnBClassifier(max_depth=2, bound=leaf_cost, check_bound=True).fit(Xs[:60], ys[:60])
except UnsoundBoundError as error:
    print(error)

# %% [markdown]
# ## 7. Branches
#
# Branches (chapters 02–05) maximises $H_\lambda$ and has no node budget, so its bound takes the price of a split
# instead: `BranchesClassifier(bound=f)` with `f(counts, depth, penalty)`, where `counts` are a branch's class
# counts, `depth` the splits still allowed below it (`max_depth` less the branch's depth; −1 without a
# `max_depth`) and `penalty` $= \lambda N$ the price of one split in errors ($N$ the number of training rows:
# 101 on zoo, so 5.05 at $\lambda = 0.05$). `f` must be a lower bound on the branch's least cost, errors plus
# `penalty` per split. Branches uses it in one place only: when an expansion creates a child that Eq. 8 leaves
# open and that still has split actions, and `f` reaches the leaf's errors, the leaf is optimal and the child is
# settled as a leaf at birth. A smaller value is ignored: unlike MurTree's, `f` never tightens $R(l)$
# (`odtlab.solvers.branches` says why this use is sound).
#
# On binary features $S$ splits make at most $S + 1$ leaves, so for each $S$ the rows of the classes outside
# the $S + 1$ largest, plus $S$ penalties, bound the cost of a tree with $S$ splits, and the smallest over $S$
# bounds every tree. This holds only on binary data such as zoo-f: on ordinal data one split on a feature with
# $C_i$ categories makes $C_i$ leaves.

# %%
from odtlab import BranchesClassifier


def classes_left_per_split(counts, depth, penalty):
    s = np.sort(counts)[::-1]        # class weights, heaviest first
    best, kept = float(s.sum() - s[0]), s[0]
    for splits in range(1, len(s)):
        kept += s[splits]
        best = min(best, float(s.sum() - kept) + splits * penalty)
    return best


zoo = datasets.load("branches/zoo-f")  # 20 binary features, 7 classes
rows = []
for lam in ("0.05", "0.01"):
    for bound in (None, classes_left_per_split):
        result = BranchesClassifier(lam=lam, bound=bound, record="none").fit(zoo.X, zoo.y).result_
        rows.append(dict(lam=lam, bound=getattr(bound, "__name__", "None"), H=round(result.objective, 6),
                         iterations=result.stats["iterations"]))
branches_runs = pd.DataFrame(rows).set_index(["lam", "bound"])

# %%
# NBVAL_CHECK_OUTPUT
print(branches_runs.to_string())

# %% [markdown]
# The same optimum with and without the bound, in fewer iterations.

# %%
for lam in ("0.05", "0.01"):
    runs_lam = branches_runs.loc[lam]
    assert runs_lam.H.nunique() == 1
    assert runs_lam.loc["classes_left_per_split", "iterations"] < runs_lam.loc["None", "iterations"]
