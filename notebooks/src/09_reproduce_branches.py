# %% [markdown]
# # 9. Reproducing Branches: Tables 2 and 3 and the λ sweep of F.3
#
# Chaouki, Read and Bifet compare Branches with OSDT, PyGOSDT and GOSDT (their **Table 2**) and with
# CART, DL8.5, MurTree and STreeD (**Table 3**), and show in Appendix F.3 (**Figs 7–11**) how the
# objective, the number of splits and the iterations move with λ. This chapter reruns those experiments
# with odtlab's experiment runner and prints our numbers beside the published ones (the later version of
# the paper, V-late; where the early version differs a cell shows `late / early`).
#
# | paper | table spec | what is checked |
# |---|---|---|
# | Table 2 | `branches-table2` | Branches' optimal $H_\lambda$ against the printed value; iterations, splits |
# | Table 3 | `branches-table3` | Branches and STreeD against the printed values and against each other |
# | F.3, Figs 7, 9, 11 | `branches-lambda` | $H_\lambda$, splits, iterations against λ (the figure); Branches = STreeD |
#
# **Quick and full mode.** By default (`ODTLAB_QUICK` unset or `1`) each table runs its quick rows, the
# ones that finish in seconds, in this process; the build took 94 s on the loaded 2-core development
# machine, compilation included. `ODTLAB_QUICK=0` runs every row with the paper's 300 s limit, one worker per core, and keeps
# the results in `odtlab-results/` so an interrupted run resumes. Estimated full-mode time on two cores
# (from the quick runs and the paper's times): Table 2 measured 6 minutes on the 2-core development machine
# under load (lymph runs into the 300 s limit, as in the paper; mushroom took about 3 minutes, sharing the
# cores with the other rows; alone, `benchmarks/bench_branches.py --hard` certified it in 38 s, the speed
# table of the repository's README.md), Table 3 about 30
# minutes (STreeD times out on five sets, as in the paper),
# F.3 a few hours (91 runnable rows × 3 runs; at the smallest λ the larger sets run into the limit). The
# same tables from a terminal:
#
# ```
# odtlab reproduce branches-table2 [--quick]
# odtlab reproduce branches-table3 [--quick]
# odtlab reproduce branches-lambda [--quick]      # also writes branches-lambda.png
# ```
#
# Times are never compared with the paper's seconds (another machine, another language): a time is shown
# only as a ratio to scikit-learn's CART run in the same grid, in cells whose output is not checked.

# %%
import numpy as np

from odtlab.experiments.reproduction import notebook_run as run, quick_from_env

QUICK = quick_from_env()
print("mode:", "quick" if QUICK else "full")

# %% [markdown]
# ## 1. Table 2: the optimal objective, splits and iterations
#
# Each row runs Branches with the λ of the paper's Table 5 on the paper's encoding: `-o` ordinal
# (multi-way splits), `-l` / `-f` one-hot with the last / first category dropped, and the un-suffixed
# sets, which are the authors' drop-first files. `ok` means our proven optimum prints as the paper's
# value at the paper's precision (the paper truncates: 0.8125 is printed 0.812). Rows whose data is not
# shipped are marked `[no data]`, not left out.

# %%
# NBVAL_CHECK_OUTPUT
t2 = run("branches-table2")
print(t2.frame(["H_lambda", "status", "splits"]).to_string())
print(t2.legend)

# %%
s = t2.summary
assert s["differ"] == 0 and s["agree"] >= 12, s
assert s["rows_without_data"] == 2          # kr-vs-kp and kr-vs-kp-o: the paper's files are not shipped

# %% [markdown]
# Every optimum the paper's runs reached agrees, except balance: the paper's Branches finished it (0.693 in
# 54 s) on a file without the "B" rows, so our 0.6344 on the shipped file is printed but not scored (see
# below). The notes under the table are the paper's errata
# (docs/errata.md, Branches T1–T5):
#
# * **tic-tac-toe-o**: V-early prints 0.832, V-late 0.773; brute force gives 0.7730, so V-early is wrong.
# * **nursery**: V-early prints 0.820 for a run that did not finish; V-late's optimum 0.772 (which MurTree
#   also finds) is the one compared.
# * **balance-o**: Table 5 says 576 rows and 2 classes, but the printed 0.671 is the optimum on all 625 rows
#   with 3 classes, which is the shipped file (brute force 0.6716): it agrees. The one-hot **balance** row
#   is the other way round: the paper's file drops the 49 "B" rows (576 rows, 2 classes), the shipped one
#   keeps them, so its objective is printed but never scored.
# * **nursery-o** (Table 5 prints K = 4, the data has 5 classes) and **lymph / lymph-o** (Table 5 swaps
#   their numbers of features) are misprints in the data table only; the objectives agree. The lymph row
#   (it runs into the 300 s limit) and mushroom (minutes) are printed in full mode only.
#
# Iterations are not a checked number: they depend on how ties between equally good branches are
# broken. We land within a factor of about two of the paper's counts on every row whose optimum is
# checked (the full table: 0.67 to 2.0 times the paper's).

# %% tags=["nbval-ignore-output"]
print(t2.frame(["iterations", "evaluations"]).to_string())

# %%
c = t2.comparison
solved = c.loc[(c["column"] == "H_lambda") & (c["agree"] == True), "row"]  # noqa: E712
c = c[(c["column"] == "iterations") & c["row"].isin(solved) & c["paper"].notna()]
assert len(c) >= 10 and (c["ours"] / c["paper"]).between(0.4, 2.5).all(), c[["row", "ours", "paper"]]

# %% [markdown]
# Time, as a ratio to CART in the same grid. The paper's ratio divides its Branches time by its CART
# time from Table 3, printed to 0.002 s, so it is coarse; our Branches is a compiled kernel, theirs is
# Python, so only the order of magnitude across data sets is worth reading.

# %% tags=["nbval-ignore-output"]
print(t2.frame(times=True).to_string())

# %% [markdown]
# ## 2. Table 3: Branches, STreeD and CART on the one-hot sets
#
# STreeD (pystreed, the `streed` peer) optimises the same $H_\lambda$ with a cost per split; the paper
# capped it at depth 20 and 80 nodes, and pystreed refuses a node limit together with a cost per split, so
# only the depth limit is kept. `= STreeD` checks that both optimal solvers return the same objective.
# CART is scikit-learn's tree with default settings (the paper does not give its settings), so its
# $H_\lambda$ is shown for information. The paper's MurTree and DL8.5 columns minimise misclassifications
# at depth 20 with 80 nodes, a different problem, and are printed, not run.

# %%
# NBVAL_CHECK_OUTPUT
t3 = run("branches-table3")
print(t3.frame(["STreeD H_lambda", "Branches H_lambda", "= STreeD", "CART H_lambda"]).to_string())
print(t3.legend)

# %%
s = t3.summary
assert s["differ"] == 0 and s["agree"] >= 15, s
same = t3.comparison[t3.comparison["column"] == "= STreeD"]
assert same["agree"].dropna().all() and same["agree"].notna().sum() >= 5
c = t3.comparison
best = c[(c["column"] == "Branches H_lambda") & (c["ours_status"] == "optimal")].set_index("row")["ours"]
cart = c[c["column"] == "CART H_lambda"].set_index("row")["ours"].reindex(best.index)
assert len(best) >= 5 and (cart <= best + 1e-12).all()   # CART can never beat the optimum

# %% [markdown]
# CART's $H_\lambda$ differs from the paper's on monk1-l (0.850 against 0.863) and monk1-f: a different
# CART (scikit-learn's defaults, and ties between equally good splits broken by a random feature order)
# grows a different tree. As in the paper, CART stays below the optimum, except on zoo, where it prints the
# same value to three decimals.

# %% tags=["nbval-ignore-output"]
print(t3.frame(times=True).to_string())

# %% [markdown]
# ## 3. F.3: how the optimum moves with λ
#
# The paper's Figs 7–11 plot, for each data set, $H_\lambda$, accuracy, splits, time and iterations
# against λ. Their images are not in the text and the λ grid is not given, so these are odtlab's own curves
# on the grid (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1), with STreeD's optimum as a cross: the two
# solvers must agree at every λ.

# %%
# NBVAL_CHECK_OUTPUT
lam = run("branches-lambda")
print(lam.frame(["H_lambda", "train acc", "splits", "= STreeD"]).to_string())

# %%
lam.figure_image()

# %% [markdown]
# Two facts hold for any data set, and the curves show them: the optimal $H_\lambda$ can only fall as λ
# grows (every tree's $H_\lambda$ falls), and so can the optimal number of splits (if a larger λ chose a
# bigger tree, swapping the two optimal trees would improve one of them). The iterations (the figure's right
# panel, not printed and not checked) fall by one to four orders of magnitude over the grid, and they keep
# falling where the optimal number of splits stays the same (monk3-f from λ = 0.01 to 0.1, two splits
# throughout): a larger λ lets the Purification bound settle branches sooner.

# %%
c = lam.comparison
assert c.loc[c["column"] == "= STreeD", "agree"].dropna().all()
for column in ("H_lambda", "splits"):
    v = c[(c["column"] == column) & c["ours"].notna()].copy()
    v["set"] = v["row"].str.split(" lambda=").str[0]
    v["lam"] = v["row"].str.split("lambda=").str[1].astype(float)
    for name, g in v.groupby("set"):
        g = g.sort_values("lam")
        assert (np.diff(g["ours"].to_numpy()) <= 1e-12).all(), (column, name)

# %% [markdown]
# ## What differs from the paper, and why
#
# * Every optimum the paper's runs finished is reproduced at the printed precision, with the errata above,
#   except balance (a different file, not scored): in quick mode 20 checked objectives, 20 agree. The
#   full mode adds mushroom and lymph, where the paper's Branches timed out; they have no published optimum
#   to check, and ours goes further (full mode; not shown here): on mushroom it proves the optimum 0.945
#   (the paper's run stopped at 0.938; OSDT, MurTree and STreeD print 0.945), and on lymph it stops at the
#   limit with 0.819 against the paper's 0.808.
# * **kr-vs-kp / kr-vs-kp-o** have no data here: the paper's 37-column one-hot file is not in the authors'
#   repository (odtlab ships DL8.5's 73-column version, a different problem) and there is no ordinal file.
# * **balance** is not scored: the shipped one-hot file keeps the "B" class the paper removed.
# * Iterations differ within tie-breaking; times are compared only as ratios within one grid.
# * Cross-validation (F.2) and the choice of λ (F.4) are the subject of chapter 13.

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * A. Chaouki, J. Read, A. Bifet. *Branches: A Fast Dynamic Programming and Branch & Bound Algorithm for
#   Optimal Decision Trees.* arXiv:2406.02175, 2024 (the later revision is the one reproduced).
#   [`chaouki2024branches`]
# * X. Hu, C. Rudin, M. Seltzer. *Optimal Sparse Decision Trees.* Advances in Neural Information Processing
#   Systems 32, 2019. [`hu2019osdt`]
# * J. Lin, C. Zhong, D. Hu, C. Rudin, M. Seltzer. *Generalized and Scalable Optimal Sparse Decision Trees.*
#   Proceedings of the 37th International Conference on Machine Learning (ICML), PMLR 119, 6150–6160, 2020.
#   [`lin2020gosdt`]
# * J. G. M. van der Linden, M. de Weerdt, E. Demirović. *Necessary and Sufficient Conditions for Optimal
#   Decision Trees using Dynamic Programming.* Advances in Neural Information Processing Systems 36, 2023.
#   [`vanderlinden2023streed`]
# * G. Aglin, S. Nijssen, P. Schaus. *Learning Optimal Decision Trees Using Caching Branch-and-Bound Search.*
#   Proceedings of the AAAI Conference on Artificial Intelligence 34, 3146–3153, 2020. [`aglin2020dl85`]
# * E. Demirović, A. Lukina, E. Hebrard, J. Chan, J. Bailey, C. Leckie, K. Ramamohanarao, P. J. Stuckey.
#   *MurTree: Optimal Decision Trees via Dynamic Programming and Search.* Journal of Machine Learning Research
#   23(26), 2022. [`demirovic2022murtree`]
# * L. Breiman, J. H. Friedman, R. A. Olshen, C. J. Stone. *Classification and Regression Trees.* Wadsworth,
#   1984. [`breiman1984cart`]
# * F. Pedregosa et al. *Scikit-learn: Machine Learning in Python.* Journal of Machine Learning Research 12,
#   2825–2830, 2011. [`pedregosa2011sklearn`]
