# %% [markdown]
# # 12. Reproducing DPDT: Table 1 and operations against accuracy
#
# Kohler, Akrour and Preux measure how close DPDT gets to the optimal depth-3 tree, and at what cost, on the
# Quant-BnB data sets (**Table 1**): training accuracy with α = 0 for the optimum (Quant-BnB), CART, DPDT
# and Top-B in a "light" (8, 1, 1) and a "full" (8, 8, 8) configuration, and the number of **operations**
# ("computing candidate split nodes for subsets of the training data") each one needs. Its message, carried
# by the table's numbers (the paper has no figure of them; the one below is ours): DPDT reaches near-optimal
# accuracy with orders of magnitude fewer operations than the optimal solver. This chapter reruns Table 1
# with odtlab's runner:
#
# | paper | table spec | what is checked |
# |---|---|---|
# | Table 1, accuracies | `dpdt-table1` | Quant-BnB's optimum against the paper's; CART ≤ DPDT light ≤ DPDT full ≤ optimum |
# | Table 1, operations | `dpdt-table1` (also `dpdt-figure-ops`) | operations against accuracy (our figure), ours beside the paper's |
#
# **Quick and full mode.** By default (`ODTLAB_QUICK` unset or `1`) the quick rows (bank, wilt, bidding) run
# in this process. `ODTLAB_QUICK=0` runs all 7 shipped sets with a 1-hour limit (the paper
# gave Quant-BnB 24 h), one worker per core, resumable in `odtlab-results/`: measured 80 s on the 2-core
# development machine under load (the slowest runs: Quant-BnB at depth 3 on rice, about 25 s, and DPDT full
# on page, about 15 s). There, too, every optimum and every DPDT accuracy prints as the paper's. From a
# terminal:
#
# ```
# odtlab reproduce dpdt-table1 [--quick]          # also writes dpdt-table1.png
# ```
#
# The paper ignores running times on purpose (its solvers are in different languages); here, too, times
# appear only as ratios to CART in the same grid, in cells whose output is not checked.

# %%
from odtlab import datasets
from odtlab.experiments.reproduction import notebook_run as run, quick_from_env

QUICK = quick_from_env()
print("mode:", "quick" if QUICK else "full")

# %% [markdown]
# ## 1. Training accuracy at depth 3
#
# `ok` marks an optimum that prints as the paper's value; the other columns are heuristics, shown with
# their difference from the paper's numbers. Data sets that are not shipped are listed on the `no data:` line;
# in quick mode the shipped sets outside the quick rows are left out.

# %%
# NBVAL_CHECK_OUTPUT
t1 = run("dpdt-table1")
accuracy = [c.name for c in t1.spec.columns if c.name.endswith(" acc") and c.run]
print(t1.frame(accuracy, with_data=True).to_string())
print("no data:", ", ".join(t1.rows_without_data))
print(t1.legend.split("\n")[0])

# %%
s = t1.summary
assert s["differ"] == 0 and s["agree"] >= 3, s
acc = t1.comparison[t1.comparison["column"].isin(accuracy)].pivot(index="row", columns="column", values="ours")
acc = acc.dropna()
assert len(acc) >= 3
eps = 1e-12
assert (acc["CART acc"] <= acc["DPDT light acc"] + eps).all()             # Theorem 5.1: never worse than CART
assert (acc["DPDT light acc"] <= acc["DPDT full acc"] + eps).all()        # more candidates, never worse
assert (acc["DPDT full acc"] <= acc["Quant-BnB (opt) acc"] + eps).all()   # nothing beats the optimum
assert (acc["Top-B full acc"] <= acc["DPDT full acc"] + eps).all()         # DPDT >= Top-B at the same budget

# %% [markdown]
# The optimum agrees with the paper on every run, and CART and both DPDT configurations print the
# paper's values to three decimals on the quick rows. That needs one reading of the paper: its "light"
# (8, 1, 1) and "full" (8, 8, 8) give a budget-8 state an inner CART with 16 leaves, so 15 candidate
# splits (its text says "16 candidate root splits"; its operation counts fit 16 leaves: docs/errata.md,
# DPDT D2), which in odtlab's unit, the inner CART's `max_leaf_nodes` as in the reference code, is
# (16, 1, 1) and (16, 16, 16); a budget of 1 is raised to 2 leaves, one greedy candidate. The order
# CART ≤ DPDT light ≤ DPDT full ≤ optimum holds on every row, for three reasons: CART ≤ DPDT light by
# Theorem 5.1 (CART's tree is one of the policies of the MDP); light ≤ full because light's candidates at
# every state are among full's (its inner CARTs are smaller CARTs on the same rows); full ≤ optimum by the
# optimum's definition.
#
# **Top-B is where we differ** (bank: about 0.94 against the paper's 0.951 light and 0.974 full). The
# paper's Top-B light operation counts grow roughly with the number of features p: about 6–7 per feature on
# 13 of its 16 sets (bank 26 at p = 4, wilt 33 at p = 5, bidding 58 at p = 9, room 111 at p = 16), fewer on
# fault (111 at p = 27) and segment (68 at p = 18), and 701 on page (p = 10), an outlier. That fits no
# budget of (8, 1, 1) in DPDT's sense, and Top-B's thresholds are at observed values in the authors' code but
# at midpoints in DPDT. odtlab's Top-B takes the best-impurity cuts within the same budgets as DPDT, which is not the
# paper's Top-B: on bank its full configuration makes 13,965 operations where the paper's made 256 (the
# operations table below, and docs/errata.md, DPDT D3). So the two Top-B columns do not compare, and the
# paper's comparison of DPDT with Top-B at the same budget cannot be checked here; what holds is that
# DPDT full is at least as accurate as odtlab's Top-B full on every row (asserted above).
#
# ## 2. Operations against accuracy
#
# The figure plots each method's operations (log scale) against its training accuracy: the paper's points
# hollow, ours filled, one colour per method. The paper's claim is the shape: DPDT's points sit close to
# the optimum's accuracy at a small fraction of its operations, CART's far to the left and lower. Our
# Quant-BnB points do not show that: in odtlab's unit (below) they sit left of DPDT full's on bank and wilt
# and level with it on bidding (8339 against 8283); chapter 8 finds them less than ten times to the right of
# DPDT full's on raisin and segment.

# %%
t1.figure_image()

# %% tags=["nbval-ignore-output"]
print(t1.frame([c.name for c in t1.spec.columns if c.name.endswith(" ops")], with_data=True).to_string())

# %%
ops = t1.comparison[t1.comparison["column"].str.endswith(" ops")].pivot(index="row", columns="column",
                                                                       values="ours").dropna()
assert len(ops) >= 3
assert (ops["DPDT light ops"] < ops["DPDT full ops"]).all()
assert (ops["CART ops"] < ops["DPDT light ops"]).all()
quick_rows = ops.loc[["bank", "wilt", "bidding"]]
assert (quick_rows["Quant-BnB (opt) ops"] <= 1.01 * quick_rows["DPDT full ops"]).all()  # at or left of DPDT full

# %% [markdown]
# "Operations" is loosely defined in the paper. Our reading (docs/errata.md, DPDT D2) is that its DPDT
# column counts the nodes of every inner CART tree, and odtlab's DPDT counts those: on the quick rows its
# counts are within 4 % of the paper's DPDT counts
# (bank: 268 light and 8021 full, against 271 and 7990), except full on bidding, 11.5 % below (8283
# against 9360), which we cannot explain. CART's count is its number of nodes, as in the paper's CART
# column: 13 on bidding as in the paper, but 15 on bank and wilt against the paper's 13, although our
# CART, like scikit-learn's depth-3 tree, has the paper's training accuracy there (docs/errata.md,
# DPDT D3). Quant-BnB's count is odtlab's `evaluations` (as in chapter 8): its number of feature scans,
# each of which evaluates every threshold of one feature over one set of rows. The paper does not say how it
# counts Quant-BnB's operations in Table 1; its introduction counts N × p operations to find one node by
# trying every split (one per row and feature), so one of our scans stands for up to N of those, and the two
# columns do not compare.
#
# The checks behind these sentences:

# %%
c = t1.comparison.set_index(["row", "column"])
dpdt_dev = {(r, m): c.loc[(r, m), "ours"] / c.loc[(r, m), "paper"] - 1
            for r in ("bank", "wilt", "bidding") for m in ("DPDT light ops", "DPDT full ops")}
assert all(abs(d) < 0.04 for k, d in dpdt_dev.items() if k != ("bidding", "DPDT full ops"))
assert -0.12 < dpdt_dev["bidding", "DPDT full ops"] < -0.11
assert c.loc[("bidding", "CART ops"), "ours"] == 13 and c.loc[("bank", "CART ops"), "ours"] == 15
assert c.loc[("bank", "Top-B full ops"), "ours"] == 13965 and c.loc[("bank", "Top-B full ops"), "paper"] == 256
assert c.loc[("wilt", "CART ops"), "ours"] == 15 and c.loc[("bank", "CART ops"), "paper"] == 13
assert (c.loc[("bank", "DPDT light ops"), "ours"], c.loc[("bank", "DPDT full ops"), "ours"]) == (268, 8021)
assert (c.loc[("bidding", "DPDT full ops"), "ours"], c.loc[("bidding", "DPDT full ops"), "paper"]) == (8283, 9360)
per_feature = {r: c.loc[(r, "Top-B light ops"), "paper"] / datasets.load(f"quantbnb/{r}").X.shape[1]
               for r in ("bank", "wilt", "bidding")}
assert all(6 <= v <= 7 for v in per_feature.values()), per_feature  # the paper's Top-B light: 6-7 per feature

# %% [markdown]
# Times, as ratios to CART in the same grid (the paper does not report times):

# %% tags=["nbval-ignore-output"]
print(t1.frame(times=True, with_data=True).to_string())

# %% [markdown]
# ## What differs from the paper, and why
#
# * The optimal accuracies agree with the paper's on every row run (the three quick rows here).
# * Nine of the sixteen data sets are not shipped (not in the authors' repository, or too large to ship);
#   they are listed on the `no data:` line.
# * The paper's budgets are read as a 16-leaf inner CART per budget-8 state (docs/errata.md, DPDT D2);
#   with that reading DPDT's accuracies match the paper's, and its operation counts too, except full on
#   bidding (11.5 % below).
# * Top-B is lower than the paper's and its operation counts far higher: its budget and thresholds are
#   ambiguous in the paper (docs/errata.md, DPDT D3). Quant-BnB's operations are in odtlab's unit.
# * Custard (a deep-RL DQN learner) is not run, and its column is left out.

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * H. Kohler, R. Akrour, P. Preux. *Breiman meets Bellman: Non-Greedy Decision Trees with MDPs.* Proceedings of
#   the 31st ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD '25), 2025.
#   doi:10.1145/3711896.3736868. [`kohler2025dpdt`]
# * R. Mazumder, X. Meng, H. Wang. *Quant-BnB: A Scalable Branch-and-Bound Method for Optimal Decision Trees
#   with Continuous Features.* Proceedings of the 39th International Conference on Machine Learning (ICML), PMLR
#   162, 2022. [`mazumder2022quantbnb`]
# * L. Breiman, J. H. Friedman, R. A. Olshen, C. J. Stone. *Classification and Regression Trees.* Wadsworth,
#   1984. [`breiman1984cart`]
# * F. Pedregosa et al. *Scikit-learn: Machine Learning in Python.* Journal of Machine Learning Research 12,
#   2825–2830, 2011. [`pedregosa2011sklearn`]
