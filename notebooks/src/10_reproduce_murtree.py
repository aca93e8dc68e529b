# %% [markdown]
# # 10. Reproducing MurTree: the techniques, scalability and the comparison with DL8.5
#
# Demirović et al. measure each of MurTree's techniques on its own (**Tables 1–3**: the dataset cache,
# incremental counting and the similarity bound, feature and node order), how the run time grows with the
# number of rows and with depth (**Table 4**, the scalability study) and how MurTree compares with DL8.5
# at depths 4 and 5 (**Table 5**). The paper prints times only. This chapter reruns the experiments with
# odtlab's runner and shows:
#
# | paper | table spec | what is checked |
# |---|---|---|
# | Table 5 | `murtree-table5` | the optimal misclassifications against the published optima (MurTree's README, DL8.5, STreeD) and against STreeD in the same grid |
# | Table 4 | `murtree-table4` | time with the rows duplicated k = 1..4 times over the time at k = 1, beside the paper's (the figure) |
# | Tables 1–3 | `murtree-table1` … `murtree-table3` | every variant finds the same optimum; its time ratio beside the paper's |
#
# **Quick and full mode.** By default (`ODTLAB_QUICK` unset or `1`) each table runs its quick rows in this
# process (under a minute once the solvers are compiled). `ODTLAB_QUICK=0` runs every row whose data is
# shipped with the paper's 10-minute limit, one worker per core, and keeps the results in `odtlab-results/`
# (resumable). Estimated full-mode time on two cores: Table 5 one to two hours (76 runnable rows; at depth
# 5 the DL8.5-style peer runs into the limit on several sets, as DL8.5 did in the paper), Table 4 about 30
# minutes (22 runnable rows), Tables 1–3 a few minutes each (only the DL-group sets ionosphere, pendigits
# and segment are shipped). From a terminal:
#
# ```
# odtlab reproduce murtree-table5 [--quick]
# odtlab reproduce murtree-table4 [--quick]      # also writes murtree-table4.png
# odtlab reproduce murtree-table1 [--quick]      # and murtree-table2, murtree-table3
# ```
#
# Times are never compared with the paper's seconds: a time is shown as a ratio of two runs of the same
# grid, beside the same ratio of the paper's own times, in cells whose output is not checked.

# %%
from odtlab.experiments.reproduction import notebook_run as run, quick_from_env

QUICK = quick_from_env()
print("mode:", "quick" if QUICK else "full")

# %% [markdown]
# ## 1. Table 5: optimal trees at depths 2–5 against a DL8.5-style search
#
# Full trees ($2^d - 1$ nodes) on the whole data set, minimising misclassifications. The paper's DL8.5 is
# not a PyPI package here; its search lives on in STreeD (pystreed, the same group's successor), which is
# the DL8.5-style peer. The published optima come from MurTree's README and were re-run with DL8.5, STreeD
# and the MurTree binary; depths 2 and 3 are odtlab's additions.

# %%
# NBVAL_CHECK_OUTPUT
t5 = run("murtree-table5")
print(t5.frame(["misclassifications", "= STreeD", "depth", "splits"], with_data=True)
      .to_string())
print(f"{len(t5.rows_without_data)} rows without data (the NL, Nina and Hu groups of murtree-data, and "
      "letter, splice-1, vehicle and yeast of its DL group, are not on this machine)")
print(t5.legend.split("\n")[0])

# %%
s = t5.summary
assert s["differ"] == 0 and s["agree"] >= 21, s
same = t5.comparison[t5.comparison["column"] == "= STreeD"]
assert same["agree"].notna().sum() >= 18 and same["agree"].dropna().all()

# %% [markdown]
# Every published optimum agrees (anneal 137, 112 and 91 misclassifications at depths 2, 3 and 4) and
# every other row agrees with STreeD's optimum. The paper's claim is about speed: MurTree solved all 47
# sets at depth 4 within ten minutes where DL8.5 timed out on 19. The ratio of the DL8.5-style peer's
# time to MurTree's, beside the paper's DL8.5 / MurTree ratio (the paper rounds to whole seconds and
# prints "< 0.5", so its small ratios are coarse):

# %% tags=["nbval-ignore-output"]
print(t5.frame(times=True, with_data=True).to_string())

# %% [markdown]
# The rows of Table 5 whose data set is not shipped, marked rather than hidden:

# %%
# NBVAL_CHECK_OUTPUT
names = sorted({r.split(" d=")[0] for r in t5.rows_without_data})
print(len(names), "data sets:", ", ".join(names))

# %% [markdown]
# ## 2. Table 4: scalability in the number of rows, and depth
#
# Each data set is duplicated k = 1, 2, 3, 4 times (the same rows again: the optimal tree does not
# change, its misclassifications are multiplied by k) and solved at depth 4. The paper finds the time
# "roughly linear in |D|", because most of it is spent in the depth-two solver, which counts over the rows.
# The figure shows time(k) / time(1) for ours (solid) and the paper's (dashed), with the linear line.

# %%
t4 = run("murtree-table4")
t4.figure_image()

# %% tags=["nbval-ignore-output"]
print(t4.frame(times=True, with_data=True).to_string())
print(t4.frame(["cache entries (k)"], with_data=True).to_string())

# %%
import json

# duplicating the rows k times multiplies the optimal misclassifications by k: the same tree stays optimal
r = t4.runs[(t4.runs["algorithm"] == "murtree") & (t4.runs["status"] == "optimal")].copy()
r["k"] = r["dataset"].str.extract(r"duplicate=(\d)", expand=False).fillna("1").astype(int)
r["set"] = r["dataset"].str.replace(r"\[duplicate=\d\]", "", regex=True)
per_set = r.assign(per_copy=r["objective"] / r["k"]).groupby(["set", "params"])["per_copy"]
assert len(r) >= 12 and (per_set.nunique() == 1).all()
# and the search itself is the same at every k: the same calls, rows counted and cache entries
work = r["stats"].map(lambda t: tuple(json.loads(t)[key] for key in ("subtree_calls", "counted_rows", "cache_entries")))
assert (work.groupby([r["set"], r["params"]]).nunique() == 1).all()

# %% [markdown]
# Our ratios stay close to 1, while the paper's grow with k. The reason is not a fixed cost: odtlab's
# MurTree merges identical rows into one row weighted by its count before the search, so a data set
# duplicated k times gives exactly the same search, with the same SolveSubtree calls, the same rows
# counted and the same cache entries (checked above); only the weights, and the misclassifications, are
# multiplied by k. What grows with k is reading and merging the rows. The paper's counting goes over
# every instance, which is why its times grow with |D| (its integer seconds hide this on the fast rows,
# e.g. anneal: 1, 1, 1, 2 s). The rows without data:

# %%
# NBVAL_CHECK_OUTPUT
print(", ".join(sorted({r.split(" d=")[0] for r in t4.rows_without_data})))

# %% [markdown]
# ## 3. Tables 1–3: each technique finds the same optimum
#
# The variants change how fast the optimum is found, never the optimum: the branch and the dataset cache
# (Table 1), counting from scratch or incrementally, with or without the similarity lower bound (Table 2),
# Gini or in-order features and post-order or dynamic node selection (Table 3). The `=` columns check that
# every variant returns the default configuration's objective.

# %%
# NBVAL_CHECK_OUTPUT
variants = {n: run(f"murtree-table{n}") for n in (1, 2, 3)}
for n, rep in variants.items():
    checks = [c.name for c in rep.spec.columns if c.check.startswith("run:")]
    print(f"Table {n}:", rep.frame(checks, with_data=True).to_string(), sep="\n")
    print("  no data:", ", ".join(rep.rows_without_data))

# %%
for rep in variants.values():
    assert rep.summary["differ"] == 0 and rep.summary["agree"] >= 1, rep.summary

# %% [markdown]
# Time ratios of the variants beside the paper's. The paper computes 15 trees (1 to 15 nodes) reusing one
# cache; odtlab runs one search for the best tree with at most 15 nodes, so only ratios between variants
# compare, and on a data set solved in a fraction of a second they are mostly noise. Cache entries are not
# comparable either: one search on segment needs a few thousand fewer entries than fifteen.

# %% tags=["nbval-ignore-output"]
for n, rep in variants.items():
    print(f"Table {n}:", rep.frame(times=True, with_data=True).to_string(), sep="\n")

# %% [markdown]
# ## What differs from the paper, and why
#
# * Only part of the DL group of murtree-data is shipped (not `letter`, over 4 MiB, nor splice-1, vehicle
#   and yeast) and none of the NL, Nina and Hu groups: 28 of the 47 data sets of Table 5 and most rows of
#   Tables 1–4 have no data here; they are listed above.
# * DL8.5 itself is not run: STreeD is the DL8.5-style peer, so the time ratio compares MurTree with a
#   modern descendant of DL8.5, not with the 2020 DL8.5.
# * The paper's Tables 1–4 time 15 trees (n = 1..15 nodes) per run; odtlab times one search with a node
#   limit. The paper's Table 3 |F| column is corrupted in the text (docs/errata.md, MurTree M4).
# * All optima are checked; none differs.

# %% [markdown]
# ## References
#
# The papers' errata are collected in `docs/errata.md`, the data's origin and licences in `docs/data.md`;
# BibTeX entries for everything below are in `docs/references.bib` (keys in brackets).
#
# * E. Demirović, A. Lukina, E. Hebrard, J. Chan, J. Bailey, C. Leckie, K. Ramamohanarao, P. J. Stuckey.
#   *MurTree: Optimal Decision Trees via Dynamic Programming and Search.* Journal of Machine Learning Research
#   23(26), 2022. [`demirovic2022murtree`]
# * G. Aglin, S. Nijssen, P. Schaus. *Learning Optimal Decision Trees Using Caching Branch-and-Bound Search.*
#   Proceedings of the AAAI Conference on Artificial Intelligence 34, 3146–3153, 2020. [`aglin2020dl85`]
# * J. G. M. van der Linden, M. de Weerdt, E. Demirović. *Necessary and Sufficient Conditions for Optimal
#   Decision Trees using Dynamic Programming.* Advances in Neural Information Processing Systems 36, 2023.
#   [`vanderlinden2023streed`]
# * F. Pedregosa et al. *Scikit-learn: Machine Learning in Python.* Journal of Machine Learning Research 12,
#   2825–2830, 2011. [`pedregosa2011sklearn`]
