# %% [markdown]
# # 11. Reproducing Quant-BnB: optimal depth-2 and depth-3 trees, the lower bounds, regression
#
# Mazumder, Meng and Wang compare their lower bounds at depth 2 (**Table 2**), time Quant-BnB against other
# optimal solvers (**Table 3**: the MIP BinOCT, which takes continuous features, and MurTree and DL8.5, which
# need binary ones; with the optimal training accuracies of **Table 6**) and solve regression trees
# (**Table 7**). This chapter reruns them with odtlab's runner:
#
# | paper | table spec | what is checked |
# |---|---|---|
# | Tables 3 and 6 | `quantbnb-table3` | the optimal training accuracy (%) against Table 6's "Opt"; the same optimum as ConTree and as MurTree on the equivalent binarisation |
# | Table 2 | `quantbnb-table2` | W0 and W2 find W1's optimum; their time and pruning relative to W1 (the figure) |
# | Table 7 | `quantbnb-table7` | optimal squared error at depths 2 and 3, CART's excess over it |
#
# **Quick and full mode.** By default (`ODTLAB_QUICK` unset or `1`) each table runs its quick rows in this
# process (every shipped row that Quant-BnB and ConTree solve in seconds; the build took 72 s on the shared
# 2-core development machine, compilation included, and several times that when the machine was heavily
# loaded). `ODTLAB_QUICK=0` runs every row whose data is shipped with the paper's limits (10 minutes in Table
# 2, 4 hours in Tables 3 and 7), one worker per core, resumable in `odtlab-results/`. Estimated full-mode
# time on two cores: Table 3 about ten hours, nearly all of it MurTree on the equivalent binarisation
# (thousands of binary features): at depth 3 the paper's MurTree needed 142 s on bank, 432 s on raisin and
# 6252 s on bidding, and ran past the 4-hour limit on rice, page, segment and wilt; Quant-BnB's own depth-3
# runs take from a fraction of a second (bank) to about half a minute (rice). Table 2 measured 100 s on the
# 2-core development machine under load (all 20 bound checks agree), Table 7 about 15 minutes. From a
# terminal:
#
# ```
# odtlab reproduce quantbnb-table3 [--quick]
# odtlab reproduce quantbnb-table2 [--quick]     # also writes quantbnb-table2.png
# odtlab reproduce quantbnb-table7 [--quick]
# ```
#
# Times appear only as ratios of two runs of the same grid, beside the same ratio of the paper's times, in
# cells whose output is not checked.

# %%
from odtlab.experiments.reproduction import notebook_run as run, quick_from_env

QUICK = quick_from_env()
print("mode:", "quick" if QUICK else "full")

# %% [markdown]
# ## 1. Tables 3 and 6: the optimal trees
#
# Table 6 prints the training accuracy (%) of the optimal depth-2 and depth-3 trees that Table 3's runs
# certify, and CART's. Our Quant-BnB must print the same optimum at the paper's precision (`ok`). ConTree
# (pycontree, a modern solver for continuous features, not in the paper) and MurTree on the *equivalent*
# binarisation (one 0/1 feature per midpoint between consecutive values, Table 6's "equiv. conv.") solve
# the same problem and must find the same number of errors. Data sets that are not here are marked
# `[no data]`: the nine sets of the paper that are not in the Quant-BnB repository (avila, bean, eeg and skin
# in this table) and the repository's larger files, which are not shipped (fault, htru, magic, occupancy and
# room here). In quick mode two shipped rows are not run, and so not printed; the cell after the table names
# them.

# %%
# NBVAL_CHECK_OUTPUT
t3 = run("quantbnb-table3")
print(t3.frame(["train acc % (opt)", "CART train acc %", "= ConTree", "= MurTree (equiv. binarised)"])
      .to_string())
print(t3.legend)

# %%
# NBVAL_CHECK_OUTPUT
from odtlab.experiments.reproduction import has_data, shown_rows

not_run = [r.label for r in t3.spec.rows if has_data(r) and r.label not in shown_rows(t3.spec, QUICK)]
print("shipped rows not run in this mode:", ", ".join(not_run) or "none")

# %%
s = t3.summary
assert s["differ"] == 0 and s["agree"] >= 12, s
same = t3.comparison[t3.comparison["column"] == "= ConTree"]
assert same["agree"].notna().sum() >= 6 and same["agree"].dropna().all()

# %% [markdown]
# Every optimum that was computed agrees with Table 6, and with ConTree. In quick mode page d=3 and rice d=3
# are not run (too slow for the quick build; Table 6 prints 97.1 % and 93.8 %); `ODTLAB_QUICK=0` runs
# them. CART's training accuracy matches the paper's CART column too (the same scikit-learn tree, the same
# data). In quick mode MurTree is left out: on the equivalent binarisation it has thousands of binary
# features (4078 for bank, 20329 for wilt), which is the paper's point; `ODTLAB_QUICK=0` runs it.
#
# The paper's speed claim, as ratios within one grid (MurTree / Quant-BnB beside the paper's, when
# MurTree ran; Quant-BnB / CART, which the paper does not print). Where the paper prints "< 0.1" s for
# Quant-BnB (bank at depth 2), its ratio is computed with 0.1 s and is therefore a lower bound:

# %% tags=["nbval-ignore-output"]
print(t3.frame(times=True, with_data=True).to_string())

# %% [markdown]
# ## 2. Table 2: the lower bounds at depth 2
#
# Quant-BnB cuts the root-threshold interval of each tuple into slices and, in each slice, eliminates a
# child feature when the smallest lower bound W over its partners (the row or column minimum of W) exceeds
# the best tree found (Proposition 4.1, eqs. 14 and 15); a slice is dropped only when no left or no right
# child feature is left. W0 bounds the two children separately; W1 (the paper's choice, with $s'$ extra
# points) and W2 (all points) also bound the middle block more tightly. A tighter bound eliminates earlier,
# but costs more per tuple. The paper's Table 2 uses only data sets with $n \ge 10^4$, none of which is
# shipped, so its rows are marked and the shipped sets are added (no paper cells). odtlab has no exact-L2
# bound, so the L2 column is not run here; chapter 7, §5, emulates L2 as exhaustive search with $s = n + 1$
# on small sets. The bounds must never change the optimum:

# %%
# NBVAL_CHECK_OUTPUT
t2 = run("quantbnb-table2")
print(t2.frame(["W0 = W1", "W2 = W1"]).to_string())
print(t2.legend)

# %%
assert t2.summary["differ"] == 0 and t2.summary["agree"] >= 6, t2.summary

# %% [markdown]
# The figure shows, per data set, the time of each bound over W1's (left, log scale: the paper's hollow,
# ours filled) and the number of stump-evaluation passes over W1's (right). Passes are Quant-BnB's
# `evaluations` counter: the feature scans a run actually does. Bounding the middle block (W1, W2) adds
# scans per tuple, and the pruning it buys saves scans later, so the balance can go either way: W1 needs
# more passes than W0 on some sets, and W2 needs fewer than W1 on every shipped set, but not always fewer
# than W0.

# %%
t2.figure_image()

# %% tags=["nbval-ignore-output"]
print(t2.frame([c.name for c in t2.spec.columns if c.name.startswith(("time", "passes"))]).to_string())

# %%
def passes(column):
    """The ratio column of passes per shipped row (the 'evaluations' counter, independent of the machine)."""
    return t2.comparison[t2.comparison["column"] == column].dropna(subset=["ours"]).set_index("row")["ours"]


p0, p2 = passes("passes W0 / W1"), passes("passes W2 / W1")
assert len(p2) >= 3 and (p2 < 1).all()  # W2 needs fewer passes than W1 on every shipped set
assert (p0 > 1).any() and (p2 > p0).any()  # W1 more than W0 somewhere, and W2 more than W0 somewhere

# %% [markdown]
# The paper's reading: W0 and W1 cost about the same, and the tighter W2 pays for its pruning with a
# superlinear cost per tuple (it finished only on htru within 10 minutes). Our time ratios are printed but
# not checked: they vary from run to run and from machine to machine, and on the small shipped sets most
# runs are too short to rank W0 against W1. What is checked is the count of passes above.
#
# ## 3. Table 7: regression
#
# The paper prints Quant-BnB's times and ORT's training-loss gaps only, no optimal losses, so nothing here
# can be scored against it. What can be checked: the optimum is never worse than CART's tree of the same
# depth (CART / opt ≥ 1).

# %%
# NBVAL_CHECK_OUTPUT
t7 = run("quantbnb-table7")
print(t7.frame(["squared error (opt)", "CART / opt squared error", "ORT gap % (paper)"], with_data=True)
      .to_string())
print("no data:", ", ".join(t7.rows_without_data))

# %%
excess = t7.comparison[t7.comparison["column"] == "CART / opt squared error"].dropna(subset=["ours"])
assert len(excess) >= 3 and (excess["ours"] >= 1 - 1e-9).all()

# %% tags=["nbval-ignore-output"]
print(t7.frame(times=True, with_data=True).to_string())

# %% [markdown]
# ## What differs from the paper, and why
#
# * The optimal accuracies agree with Table 6 on every row that was run (quick mode leaves out page d=3
#   and rice d=3); ConTree agrees on every run.
# * Nine data sets of the paper were not found in the Quant-BnB repository (avila, bean, eeg, skin, casp,
#   energy, gas, news, query2), and eight more are in it but larger and not shipped with the test data
#   (htru, magic, room, carbon, grid, query1, fault, occupancy; `odtlab data fetch` downloads them). Their
#   rows are marked.
# * Table 2 therefore has no paper row to compare; odtlab has no exact-L2 bound, so Table 2's L2 column is
#   not run (chapter 7 emulates it by exhaustive search on small sets).
# * The MIPs ORT (Table 7) and BinOCT (Table 3) are not peers here: ORT's column is printed from the paper,
#   not run, and BinOCT's is not reproduced.
# * avila: Table 2 prints n = 10432, Tables 3 and 5 print 10430 (docs/errata.md, Quant-BnB Q3).

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * R. Mazumder, X. Meng, H. Wang. *Quant-BnB: A Scalable Branch-and-Bound Method for Optimal Decision Trees
#   with Continuous Features.* Proceedings of the 39th International Conference on Machine Learning (ICML), PMLR
#   162, 2022. [`mazumder2022quantbnb`]
# * C. E. Briţa, J. G. M. van der Linden, E. Demirović. *Optimal Classification Trees for Continuous Feature
#   Data Using Dynamic Programming with Branch-and-Bound.* Proceedings of the AAAI Conference on Artificial
#   Intelligence 39, 2025. [`brita2025contree`]
# * E. Demirović, A. Lukina, E. Hebrard, J. Chan, J. Bailey, C. Leckie, K. Ramamohanarao, P. J. Stuckey.
#   *MurTree: Optimal Decision Trees via Dynamic Programming and Search.* Journal of Machine Learning Research
#   23(26), 2022. [`demirovic2022murtree`]
# * L. Breiman, J. H. Friedman, R. A. Olshen, C. J. Stone. *Classification and Regression Trees.* Wadsworth,
#   1984. [`breiman1984cart`]
# * F. Pedregosa et al. *Scikit-learn: Machine Learning in Python.* Journal of Machine Learning Research 12,
#   2825–2830, 2011. [`pedregosa2011sklearn`]
