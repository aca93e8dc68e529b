# %% [markdown]
# # 13. Generalisation: optimal trees under cross-validation
#
# Every solver in odtlab optimises a **training** objective. Branches maximises
# $H_\lambda = \text{accuracy} - \lambda\,S(T)$ ($S$ = number of splits). MurTree and Quant-BnB minimise
# training misclassifications at a given depth, and DPDT minimises them over its candidate splits. An
# optimal tree is the best tree **for the rows it was given**. Whether it also does better on rows it has
# not seen is an empirical question, which each paper answers its own way: Branches by cross-validation in
# Appendix F.2–F.4; MurTree by out-of-sample accuracy against tuned CART and random forests (§5.4);
# Quant-BnB by test error against CART and TAO on 27 data sets (§6.3); DPDT by random hyper-parameter
# search on the Grinsztajn benchmark (§6.2), which is not shipped. This chapter measures it:
#
# 1. the protocol: stratified, shuffled 5-fold cross-validation with a fixed seed and the same folds for
#    every method (the runner's split `cv5`);
# 2. Branches' F.2 table rerun beside the paper's numbers;
# 3. each optimal solver against CART of the **same size**: the same number of splits for Branches, the
#    same depth for MurTree, Quant-BnB and DPDT. At equal size the optimal tree's training accuracy is
#    guaranteed to be at least CART's;
# 4. deeper optimal trees and overfitting;
# 5. choosing λ for Branches by cross-validation and nested cross-validation, as Appendix F.4 suggests.
#
# **Quick and full mode.** By default (`ODTLAB_QUICK` unset or `1`), each experiment runs a small set of
# data sets in this process. That takes about a minute on two cores once the solvers are compiled:
# `make test` compiles and caches them before it runs the notebooks, and a cold numba cache adds a few
# minutes of compilation to the first run. `ODTLAB_QUICK=0` runs more data sets, deeper trees and the
# paper's 300 s limit per Branches fit, with the folds spread over all cores. Its expected run time is in
# the last section.
#
# Every number printed in a checked cell is deterministic, because the folds are fixed and the solvers
# are deterministic. Accuracies are rounded to three decimals, and comparisons are made on exact counts
# of correctly classified rows. Times appear only in unchecked cells.

# %%
from fractions import Fraction
import io
import json
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Image, display
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate

from odtlab import datasets
from odtlab.exercises import check
from odtlab.experiments import Folds, published, reproduce
from odtlab.experiments.reproduction import MARKERS
from odtlab.experiments.runs import load_dataset
from odtlab.experiments.tables import BRANCHES_DATA
from odtlab.solvers.branches import BranchesClassifier
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.dpdt import DPDTClassifier
from odtlab.solvers.murtree import MurTreeClassifier
from odtlab.solvers.quantbnb import QuantBnBClassifier

QUICK = os.environ.get("ODTLAB_QUICK", "1") != "0"
SEED = 0
N_JOBS = 1 if QUICK else -1                 # folds in this process, or one per core in full mode
BRANCHES_LIMIT = 60 if QUICK else 300       # seconds per Branches fit (the paper's limit is 300 s)
LIMIT = 60 if QUICK else 600                # seconds per MurTree / Quant-BnB fit (quick fits take < 1 s)
SECTIONS = {}                               # wall time per section, printed in the last (unchecked) cell
T0 = time.perf_counter()
pd.set_option("display.width", 200)
pd.set_option("display.max_columns", 30)
pd.set_option("display.max_rows", 200)
warnings.filterwarnings("ignore", message="The least populated class")  # inner folds of small classes


FOLDS = Folds(5, SEED)  # the runner's folds (split "cv5") as a scikit-learn splitter


def show(fig):
    """Display a figure as a PNG whatever the matplotlib backend (``make`` sets MPLBACKEND=Agg), then close it."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    display(Image(buffer.getvalue()))


STATUSES = ["optimal", "done", "time_limit", "memory_limit", "iteration_limit", "interrupted"]


def splits(est, X, y):
    """A scorer: the number of splits of the fitted tree (the S(T) of H_lambda)."""
    return est.tree_.splits


def tree_scorer(key):
    """A scorer reporting the fitted tree's size or the search's status (an index into STATUSES). Scorers
    let cross_validate report these without returning the fitted estimators, whose searches can hold
    gigabytes (Branches' memo on mushroom)."""
    def score(est, X, y):
        if key == "status":
            return STATUSES.index(est.result_.status)
        return getattr(est.tree_, key)
    return score


SCORING = {"accuracy": "accuracy", "splits": splits}
TREE_SCORING = {"accuracy": "accuracy", **{k: tree_scorer(k) for k in ("splits", "leaves", "depth", "status")}}


def evaluate(est, dataset, **labels):
    """5-fold cross-validation of one estimator on one data set: one row per fold, with the numbers of
    correctly classified rows (exact integers, used for every comparison) beside the accuracies."""
    cv = cross_validate(est, dataset.X, dataset.y, cv=FOLDS, scoring=TREE_SCORING, return_train_score=True,
                        n_jobs=N_JOBS)
    sizes = [(len(tr), len(te)) for tr, te in FOLDS.split(dataset.X, dataset.y)]
    rows = []
    for fold, (n_train, n_test) in enumerate(sizes):
        train, test = cv["train_accuracy"][fold], cv["test_accuracy"][fold]
        rows.append(dict(labels, fold=fold, train_acc=train, test_acc=test, n_test=n_test,
                         train_correct=round(train * n_train), test_correct=round(test * n_test),
                         splits=int(cv["test_splits"][fold]), leaves=int(cv["test_leaves"][fold]),
                         depth=int(cv["test_depth"][fold]), status=STATUSES[int(cv["test_status"][fold])],
                         seconds=cv["fit_time"][fold]))
    return pd.DataFrame(rows)


def pm(values, digits=3):
    """'mean±std' over the folds (population std, as the runner and the paper)."""
    return f"{np.mean(values):.{digits}f}±{np.std(values):.{digits}f}"


# %% [markdown]
# ## 1. The folds
#
# `Folds(5, seed)` (from `odtlab.experiments`) hands the runner's split `"cv5"` to scikit-learn's `cv=`.
# When every class has at least five rows it is exactly scikit-learn's
# `StratifiedKFold(5, shuffle=True, random_state=seed)`. When a class is smaller (zoo has a class of 4
# animals), scikit-learn would warn and give uneven folds. The runner instead deals each class's shuffled
# rows to the folds in turn.
#
# Shuffling matters. The paper does not say how its folds were cut, and we suspect file order: on sorted
# data that gives below-chance test accuracy, as in the paper's balance row (0.373 on a file that its
# Table 5 lists with 576 rows and two classes).

# %%
# NBVAL_CHECK_OUTPUT
monk = datasets.load("branches/monk1-l")
sk = StratifiedKFold(5, shuffle=True, random_state=SEED).split(monk.X, monk.y)
assert all(np.array_equal(np.sort(a), b) and np.array_equal(np.sort(c), d)
           for (a, c), (b, d) in zip(sk, FOLDS.split(monk.X, monk.y)))
zoo = datasets.load("branches/zoo-f")
print("zoo class sizes:", np.bincount(zoo.y).tolist())
print("zoo test folds, rows per class:")
for fold, (_, te) in enumerate(FOLDS.split(zoo.X, zoo.y)):
    print(f"  fold {fold}: {len(te)} rows {np.bincount(zoo.y[te], minlength=7).tolist()}")

# %% [markdown]
# ### Exercise 13.1: a regularised accuracy on one fold
#
# Fit `BranchesClassifier(lam=0.025)` on the training rows of fold 0 of `branches/monk3-o` (the folds
# `FOLDS`) and give its training $H_\lambda$ = accuracy − λ·splits on those rows, as an exact `Fraction`.

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
monk3 = datasets.load("branches/monk3-o")
train0, _ = next(iter(FOLDS.split(monk3.X, monk3.y)))
fit0 = BranchesClassifier(lam=0.025).fit(monk3.X[train0], monk3.y[train0])
acc0 = Fraction(int((fit0.predict(monk3.X[train0]) == monk3.y[train0]).sum()), len(train0))
answer = acc0 - Fraction(25, 1000) * fit0.tree_.splits
assert check("13.1", answer).ok

# %%
check("13.1", answer)

# %% [markdown]
# ## 2. Branches, Appendix F.2, beside the paper
#
# The table spec `branches-cv` (the same as `odtlab reproduce branches-cv`) runs three methods on the
# paper's one-hot sets, 5 folds each:
#
# * Branches with the λ of the paper's Table 5;
# * STreeD with the same cost per split;
# * scikit-learn's CART with default settings, which grows the tree until its leaves are pure. The paper
#   does not give its CART settings, and its monk1-l training accuracy below 1 shows that they were not
#   these.
#
# Quick mode runs three rows. The paper's kr-vs-kp file is not shipped, and its row says so.

# %%
t = time.perf_counter()
cvrep = reproduce("branches-cv", quick=QUICK, n_jobs=1 if QUICK else None, progress=False,
                  out=None if QUICK else "odtlab-results")
SECTIONS["2 branches-cv"] = time.perf_counter() - t
COLS = ["train acc", "train obj", "test acc", "splits"]


def f2_table(rep, alg):
    """Our mean±std beside the paper's cell, for one algorithm of the F.2 tables."""
    c = rep.comparison[rep.comparison["column"].isin([f"{alg} {k}" for k in COLS])].copy()
    c["ours"] = [MARKERS[mk] if mk else "" if np.isnan(m) else f"{m:.1f}±{s:.1f}" if col.endswith("splits")
                 else f"{m:.3f}±{s:.3f}" for m, s, col, mk in zip(c["ours"], c["ours_std"], c["column"], c["marker"])]
    c["column"] = c["column"].str.replace(f"{alg} ", "")
    t = c.pivot(index="row", columns="column", values=["ours", "paper_text"]).swaplevel(axis=1)
    t = t[[(k, w) for k in COLS for w in ("ours", "paper_text")]]
    t.columns = pd.MultiIndex.from_tuples([(k, "paper" if w == "paper_text" else w) for k, w in t.columns])
    t.index.name = None
    return t.loc[list(dict.fromkeys(c["row"]))]


# %%
# NBVAL_CHECK_OUTPUT
for alg in ("Branches", "STreeD", "CART"):
    print(f"--- {alg} (ours: shuffled stratified folds, seed 0; paper: V-late Tables 7, 9, 10)")
    print(f2_table(cvrep, alg).to_string())

# %% [markdown]
# Two properties of the runner's fold rows are checked below on every fold:
#
# * Branches is optimal for $H_\lambda$ on each training fold, so its training $H_\lambda$ is at least
#   CART's (the paper, F.2: "CART never achieved optimality, in terms of the training objective
#   $H_\lambda$").
# * STreeD solves the same problem, so where both solvers are proven optimal their training $H_\lambda$
#   are equal. Their **test** accuracies can still differ, as the paper remarks in F.2: several trees can
#   be optimal, and a leaf that no training row reaches predicts a class that the objective does not
#   decide.

# %%
# NBVAL_CHECK_OUTPUT
lam_of = {r["dataset"]: float(r["λ"]) for r in published.BRANCHES_TABLE5}
runs = cvrep.runs[cvrep.runs["status"].isin(["optimal", "done", "time_limit"])].copy()
runs["lam"] = runs["params"].map(lambda p: json.loads(p).get("lam"))
lam_by_set = runs.dropna(subset=["lam"]).groupby("dataset")["lam"].first()
runs["h"] = runs["train_accuracy"] - runs["dataset"].map(lam_by_set) * runs["splits"]
by = runs.pivot_table(index=["dataset", "fold"], columns="algorithm", values=["h", "test_loss", "optimal"],
                      aggfunc="first")
proven = by[("optimal", "branches")].astype(bool)
assert proven.sum() >= 15
assert (by[("h", "branches")][proven] >= by[("h", "sklearn-cart")][proven] - 1e-12).all()
print(f"Branches' training H_lambda >= CART's on all {int(proven.sum())} folds where Branches is proven optimal")
if ("optimal", "streed") in by:
    both = proven & by[("optimal", "streed")].fillna(False).astype(bool)
    assert both.sum() >= 15 and np.allclose(by[("h", "branches")][both], by[("h", "streed")][both], rtol=0, atol=1e-12)
    moved = by[both & (by[("test_loss", "branches")] != by[("test_loss", "streed")])]
    print(f"STreeD's training H_lambda = Branches' on all {int(both.sum())} folds where both are proven optimal;")
    print("their test errors differ on:", ", ".join(f"{d.split('/')[1]} fold {f}" for d, f in moved.index))
ours = cvrep.comparison.set_index(["row", "column"])
for row in ("monk1-l", "monk3-f", "zoo"):
    assert abs(ours.loc[(row, "Branches train obj"), "diff"]) <= 0.01
    assert abs(ours.loc[(row, "Branches splits"), "diff"]) <= 1
assert ours.loc[("monk1-l", "Branches test acc"), "ours"] == 1.0

# %% [markdown]
# **Where we differ from the paper, and why.**
#
# * **The training columns agree.** Branches reaches 100 % training accuracy on the MONK and zoo sets,
#   as in the paper. The objective agrees within 0.01 and the mean number of splits within one split (both
#   checked above).
# * **The test columns do not, and cannot be scored.** The paper's folds are unknown and were probably
#   neither shuffled nor stratified. On monk1-l each of our folds finds a
#   7-split tree that classifies its whole test fold correctly (1.000±0.000; the data follow the MONK-1
#   rule exactly). The paper reports 0.844±0.196. A standard deviation that large on 25-row folds means
#   that at least one fold was far from representative, which is what file-order folds on sorted data
#   produce.
# * **CART** here is scikit-learn's default tree with `random_state=0`, not the paper's (see above), so
#   its splits and objective differ (monk1-l: 16.4 splits here, 9.2 in the paper).
# * **balance** (full mode only): the paper's Table 5 lists 576 rows and two classes, the shipped file
#   (the UCI one) has 625 rows and three. Its numbers are not comparable with the paper's.
#
# ## 3. Optimal against CART of the same size
#
# A fair comparison gives CART the same budget. Then the training comparison is a theorem rather than an
# experiment, and the test comparison is the experiment:
#
# | solver | data | CART's budget | why optimal ≥ CART on the training rows |
# |---|---|---|---|
# | Branches (paper λ) | the one-hot sets of F.2 | the same number of splits $S$ (best-first CART with $S + 1$ leaves) | CART's tree is in Branches' space, and $S_C \le S$, so $\text{acc}_B - \lambda S \ge \text{acc}_C - \lambda S_C$ gives $\text{acc}_B \ge \text{acc}_C$ |
# | MurTree | DL8.5's binarised sets | the same depth | every depth-$d$ tree on 0/1 features is in MurTree's space |
# | Quant-BnB | continuous sets | depth 2 (2 and 3 in full mode) | every threshold tree of that depth is in Quant-BnB's space |
# | DPDT, candidates (8, 3) | continuous sets | depth 3 (3 to 5 in full mode) | Theorem 5.1: CART's own split is among the candidates of every state, so CART's tree is a policy of the MDP |
#
# CART here is odtlab's `CARTClassifier` (Gini), the same greedy procedure that generates DPDT's
# candidates. All the solvers are scikit-learn estimators, so `cross_validate` runs them unchanged.

# %%
BR_SETS = ["monk1-l", "monk1-f", "monk2-f", "monk3-f", "zoo"]
MT_SETS = ["hepatitis", "lymph", "heart-cleveland", "primary-tumor", "vote", "breast-wisconsin"]
MT_DEPTHS = [1, 2, 3, 4]
CONT_SETS = ["sklearn/iris", "sklearn/wine", "sklearn/breast_cancer", "quantbnb/raisin", "quantbnb/bank"]
QB_DEPTHS, DPDT_DEPTHS = [2], [3]
if not QUICK:
    BR_SETS += ["monk2-l", "monk3-l", "tic-tac-toe", "car-eval", "balance", "mushroom"]  # lymph: see section 6
    MT_SETS += ["anneal", "tic-tac-toe", "australian-credit", "diabetes", "german-credit", "soybean", "ionosphere",
                "audiology", "kr-vs-kp", "mushroom", "hypothyroid", "segment"]
    MT_DEPTHS += [5]
    CONT_SETS += ["quantbnb/segment", "quantbnb/rice", "quantbnb/wilt", "quantbnb/page", "quantbnb/bidding"]
    QB_DEPTHS, DPDT_DEPTHS = [2, 3], [3, 4, 5]


def branches_vs_cart(label):
    """Branches at the paper's lambda, then in each fold a best-first CART with as many splits."""
    data, lam = load_dataset(BRANCHES_DATA[label]), lam_of[label]
    br = evaluate(BranchesClassifier(lam=lam, time_limit=BRANCHES_LIMIT), data, family="Branches", data=label,
                  method="optimal", budget=f"λ={lam:g}")
    carts = []
    for fold, (tr, te) in enumerate(FOLDS.split(data.X, data.y)):
        s = int(br.loc[fold, "splits"])
        assert s >= 1, "a one-leaf optimum would need a one-leaf CART"
        cart = CARTClassifier(max_leaf_nodes=s + 1).fit(data.X[tr], data.y[tr])
        train_ok, test_ok = (int((cart.predict(data.X[i]) == data.y[i]).sum()) for i in (tr, te))
        carts.append(dict(family="Branches", data=label, method="CART", budget=f"λ={lam:g}", fold=fold,
                          train_acc=train_ok / len(tr), test_acc=test_ok / len(te), n_test=len(te),
                          train_correct=train_ok, test_correct=test_ok, splits=cart.tree_.splits,
                          leaves=cart.tree_.leaves, depth=cart.tree_.depth, status=cart.result_.status,
                          seconds=np.nan))
    return pd.concat([br, pd.DataFrame(carts)], ignore_index=True)


def depth_vs_cart(family, make, spec, depth):
    """An optimal solver at a depth against CART at the same depth."""
    data, label = load_dataset(spec), spec.split("/")[-1]
    opt = evaluate(make(depth), data, family=family, data=label, method="optimal", budget=f"depth {depth}")
    cart = evaluate(CARTClassifier(max_depth=depth), data, family=family, data=label, method="CART",
                    budget=f"depth {depth}")
    return pd.concat([opt, cart], ignore_index=True)


t = time.perf_counter()
frames = [branches_vs_cart(label) for label in BR_SETS]
frames += [depth_vs_cart("MurTree", lambda d: MurTreeClassifier(max_depth=d, time_limit=LIMIT), f"dl/{name}", d)
           for name in MT_SETS for d in MT_DEPTHS]
frames += [depth_vs_cart("Quant-BnB", lambda d: QuantBnBClassifier(max_depth=d, time_limit=LIMIT), spec, d)
           for spec in CONT_SETS for d in QB_DEPTHS]
frames += [depth_vs_cart("DPDT", lambda d: DPDTClassifier(max_depth=d, candidates=(8, 3)), spec, d)
           for spec in CONT_SETS for d in DPDT_DEPTHS]
folds = pd.concat(frames, ignore_index=True)
SECTIONS["3 optimal vs CART"] = time.perf_counter() - t
CELL = ["family", "data", "budget"]

# %% [markdown]
# The guarantee holds on every fold where the optimal solver finished (status `optimal`; DPDT reports
# `done`, and its guarantee is Theorem 5.1): its training accuracy is at least that of CART with the same
# budget. The table counts, per family, the folds where the optimal tree is better, equal or worse than
# CART on the training rows and on the test rows (exact counts of correctly classified rows).

# %%
# NBVAL_CHECK_OUTPUT
pair = folds.pivot_table(index=CELL + ["fold"], columns="method", values=["train_correct", "test_correct"],
                         aggfunc="first")
status = folds[folds["method"] == "optimal"].set_index(CELL + ["fold"])["status"]
finished = status.isin(["optimal", "done"])
d_train = pair[("train_correct", "optimal")] - pair[("train_correct", "CART")]
d_test = pair[("test_correct", "optimal")] - pair[("test_correct", "CART")]
finished = finished.reindex(d_train.index)
assert (d_train[finished] >= 0).all()
fam = d_train.index.get_level_values("family")
counts = pd.DataFrame({"folds": finished.groupby(fam, sort=False).size(),
                       "finished": finished.groupby(fam, sort=False).sum(),
                       "train: better": (d_train > 0).groupby(fam, sort=False).sum(),
                       "train: equal": (d_train == 0).groupby(fam, sort=False).sum(),
                       "test: better": (d_test > 0).groupby(fam, sort=False).sum(),
                       "test: equal": (d_test == 0).groupby(fam, sort=False).sum(),
                       "test: worse": (d_test < 0).groupby(fam, sort=False).sum()})
counts.index.name = None
print(counts.to_string())
lost = (d_train > 0) & (d_test < 0)
print("folds where the optimal tree is strictly better on the training rows and strictly worse on the test rows:",
      int(lost.sum()))
assert lost.groupby(fam).sum().min() >= 1           # in every family

# %% [markdown]
# ### Exercise 13.3: a better fit that generalises worse
#
# On `dl/heart-cleveland` at depth 3 (MurTree against CART, rows of `folds`), on which folds does the
# optimal tree classify more training rows correctly than CART, and fewer test rows? Give a set of fold
# numbers.

# %% tags=["exercise"]
answer = ...  # a set of ints, e.g. {1, 3}

# %% tags=["solution"]
heart = folds[(folds["data"] == "heart-cleveland") & (folds["budget"] == "depth 3")]
heart = heart.pivot_table(index="fold", columns="method", values=["train_correct", "test_correct"])
answer = {int(k) for k, r in heart.iterrows()
          if r[("train_correct", "optimal")] > r[("train_correct", "CART")]
          and r[("test_correct", "optimal")] < r[("test_correct", "CART")]}
assert check("13.3", answer).ok

# %%
check("13.3", answer)

# %% [markdown]
# The same results as mean ± std over the five folds, per data set and budget. Δ test rows is the number
# of test rows, summed over the folds, that the optimal tree classifies correctly minus CART's number: it
# is exact, whereas a difference of mean accuracies over folds of unequal sizes can read "−0.000".

# %%
# NBVAL_CHECK_OUTPUT
table = {}
for key, f in folds.groupby(CELL, sort=False):
    o, c = f[f["method"] == "optimal"], f[f["method"] == "CART"]
    table[key] = {"optimal train": pm(o["train_acc"]), "CART train": pm(c["train_acc"]),
                      "optimal test": pm(o["test_acc"]), "CART test": pm(c["test_acc"]),
                      "Δ test rows": f"{o['test_correct'].sum() - c['test_correct'].sum():+d}",
                      "of": int(o["n_test"].sum()), "splits opt/CART": f"{o['splits'].mean():.1f} / {c['splits'].mean():.1f}"}
wide = pd.DataFrame(table).T
print(wide.to_string())

# %% [markdown]
# The same numbers as a picture: each data set's training (hollow) and test (filled) accuracy, mean ± std
# over the folds, for the optimal tree (dark blue) and CART (orange). MurTree is shown at depth 3; its
# other depths are the subject of the next section.

# %%
shown = folds[(folds["family"] != "MurTree") | (folds["budget"] == "depth 3")]
fams = list(dict.fromkeys(shown["family"]))
fig, axes = plt.subplots(1, len(fams), figsize=(3.6 * len(fams), 3.8), sharey=True)
for ax, family in zip(axes, fams):
    f = shown[shown["family"] == family]
    g = f.groupby(["data", "budget", "method"], sort=False)[["train_acc", "test_acc"]].agg(["mean", "std"])
    names = list(dict.fromkeys(zip(f["data"], f["budget"])))
    x = np.arange(len(names))
    for dx, method, color in ((-0.12, "optimal", "#0b3c5d"), (0.12, "CART", "#e69f00")):
        sub = g.xs(method, level="method").reindex(names)
        ax.errorbar(x + dx, sub[("train_acc", "mean")], sub[("train_acc", "std")], fmt="o", mfc="none",
                    color=color, capsize=2, label=f"{method} train")
        ax.errorbar(x + dx, sub[("test_acc", "mean")], sub[("test_acc", "std")], fmt="o", color=color, capsize=2,
                    label=f"{method} test")
    multi = len({b for _, b in names}) > 1
    ax.set_xticks(x, [f"{n} {b.replace('depth ', 'd')}" if multi else n for n, b in names], rotation=60, fontsize=7)
    ax.set_title(family + (" (depth 3)" if family == "MurTree" else ""))
    ax.grid(alpha=0.3)
axes[0].set_ylabel("accuracy, 5 folds (mean ± std)")
axes[-1].legend(fontsize=7, loc="lower right")
show(fig)

# %% [markdown]
# **Reading it.** On the training folds the optimal trees are never worse, as they must be, and they are
# strictly better on most folds. On the test folds the picture is mixed: the optimal tree wins some folds,
# loses others, and ties on the rest (the same number of correct test rows, not necessarily the same tree).
# The counts above put the claim of this chapter in numbers: in every family there are folds where the
# optimal tree is strictly better than CART on the training rows and strictly worse on the test rows
# (checked). **Optimal training accuracy does not
# imply better test accuracy.**
#
# Does a larger training advantage at least predict a test advantage? The cell below compares, per data
# set and budget, the training gain (optimal − CART, mean accuracy) with the test gain.

# %%
# NBVAL_CHECK_OUTPUT
cells = folds.groupby(CELL + ["method"], sort=False)[["train_acc", "test_acc"]].mean().unstack("method")
gain = pd.DataFrame({"train gain": cells[("train_acc", "optimal")] - cells[("train_acc", "CART")],
                     "test gain": cells[("test_acc", "optimal")] - cells[("test_acc", "CART")]})
rows = folds[folds["method"] == "optimal"].groupby(CELL, sort=False)["n_test"].sum()
delta = folds.assign(s=np.where(folds["method"] == "optimal", 1, -1) * folds["test_correct"]).groupby(CELL)["s"].sum()
better, worse = int((delta > 0).sum()), int((delta < 0).sum())
print(f"{len(delta)} data set x budget cells: optimal better on test rows in {better}, worse in {worse}, "
      f"equal in {len(delta) - better - worse}")
rho = gain["train gain"].rank().corr(gain["test gain"].rank())
print(f"Spearman correlation of training gain and test gain over these cells: {rho:.2f}")
top = gain.sort_values("test gain", ascending=False).head(3)
print("largest test gains:", "; ".join(f"{k[0]} {k[1]} ({k[2]}): train {v['train gain']:+.3f}, test "
                                       f"{v['test gain']:+.3f}" for k, v in top.iterrows()))
print(f"median training gain: {gain['train gain'].median():+.3f}")
assert worse >= 1 and better > worse and worse >= 0.5 * better   # more often better, not by much
assert rho < 0.5                                                  # loosely related at best
assert (top["train gain"] > gain["train gain"].median()).all()    # the big test gains have big training gains

# %%
fig, ax = plt.subplots(figsize=(5.5, 4))
for (family, f), marker in zip(gain.groupby(level="family", sort=False), "osD^"):
    ax.scatter(f["train gain"], f["test gain"], marker=marker, label=family, alpha=0.8)
ax.axhline(0, color="k", lw=0.6)
ax.axvline(0, color="k", lw=0.6)
ax.set_xlabel("training gain over CART (mean accuracy)")
ax.set_ylabel("test gain over CART (mean accuracy)")
ax.set_title("Same size: optimal minus CART, per data set and budget")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
show(fig)

# %% [markdown]
# Most test gains and losses are small. In quick mode a test fold holds 20 to 220 rows, so one row moves the
# accuracy by 0.5 to 5 points, and the standard deviations above are larger than most differences. The
# training gain is never negative, but it is only loosely related to the test gain: the rank correlation
# above is well below 0.5 (checked), and the points of the plot fall on both sides of the horizontal axis.
#
# The largest test gains do come with training gains above the median (checked); in this run they are
# the optimal MONK-1 trees and the optimal depth-2 tree on wine (printed). MONK-1's labels follow a short
# logical rule, which the optimal monk1-l tree recovers in every fold (1.000 on every test fold) and the
# greedy tree of the same size does not. There the greedy tree is far from the optimum and the optimum
# captures real structure. Where CART is already close to the
# optimum on the training rows, the remaining difference is a matter of fitting the sample, and it goes
# either way on the test rows.
#
# The honest summary: at equal size an optimal tree is a better **fit**. On these small benchmarks it is
# better on unseen rows in more data sets than it is worse, but not by much (checked: more cells better
# than worse, and neither count below half the other), by margins mostly within the fold-to-fold spread.
#
# ## 4. Deeper optimal trees overfit
#
# MurTree runs at depths 1 to 4 (5 in full mode) on DL8.5's sets, with CART at the same depths. Optimal
# training accuracy can only grow with depth, because a depth-$d$ tree is also a depth-$(d+1)$ tree. So the
# training curves rise and the gap between training and test widens. The test curves follow no single
# pattern: on at least half of the sets they peak at a shallower depth, on others they still rise at the
# deepest one (counted below).

# %%
mt = folds[folds["family"] == "MurTree"].copy()
mt["depth_budget"] = mt["budget"].str.replace("depth ", "").astype(int)
sets = list(dict.fromkeys(mt["data"]))
ncol = 3
nrow = int(np.ceil(len(sets) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(12, 3.1 * nrow), squeeze=False)
for ax, name in zip(axes.flat, sets):
    f = mt[mt["data"] == name].groupby(["method", "depth_budget"])[["train_acc", "test_acc"]].agg(["mean", "std"])
    for method, color in (("optimal", "#0b3c5d"), ("CART", "#e69f00")):
        s = f.loc[method]
        for col, style in (("train_acc", "--"), ("test_acc", "-")):
            ax.plot(s.index, s[(col, "mean")], style, color=color, marker="o", ms=3,
                    label=f"{'MurTree' if method == 'optimal' else 'CART'} {col[:-4]}")
            ax.fill_between(s.index, s[(col, "mean")] - s[(col, "std")], s[(col, "mean")] + s[(col, "std")],
                            color=color, alpha=0.12)
    ax.set_title(name)
    ax.set_xticks(MT_DEPTHS)
    ax.set_xlabel("depth")
    ax.grid(alpha=0.3)
for ax in axes.flat[len(sets):]:
    ax.axis("off")
axes[0, 0].set_ylabel("accuracy (mean ± std)")
axes[0, 0].legend(fontsize=7)
show(fig)

# %%
# NBVAL_CHECK_OUTPUT
opt = mt[mt["method"] == "optimal"].pivot_table(index=["data", "fold"], columns="depth_budget",
                                                values=["train_correct", "train_acc", "test_acc"])
proven_mt = mt[mt["method"] == "optimal"].pivot_table(index=["data", "fold"], columns="depth_budget", values="status",
                                                      aggfunc=lambda s: (s == "optimal").all())
steps = opt["train_correct"].diff(axis=1).iloc[:, 1:].to_numpy()
both = proven_mt.iloc[:, 1:].to_numpy(bool) & proven_mt.iloc[:, :-1].to_numpy(bool)
assert ((steps >= 0) | ~both).all() and both.mean() > 0.9          # one depth deeper is never worse
gap = (opt["train_acc"] - opt["test_acc"]).groupby("data", sort=False).mean()
test = opt["test_acc"].groupby("data", sort=False).mean()
deepest = MT_DEPTHS[-1]
depth_table = pd.DataFrame({f"gap d={d}": gap[d].map(lambda v: f"{round(v, 3) + 0.0:.3f}") for d in MT_DEPTHS})
depth_table["best test depth"] = test.idxmax(axis=1)                          # the shallowest among ties
depth_table["test at best"] = test.max(axis=1).map("{:.3f}".format)
depth_table[f"test at d={deepest}"] = test[deepest].map("{:.3f}".format)
depth_table.index.name = None
print("MurTree, train-test gap (mean over folds) by depth:")
print(depth_table.loc[sets].to_string())
wider = int((gap[deepest] > gap[2]).sum())
shallower = int((test.idxmax(axis=1) < deepest).sum())
print(f"gap wider at depth {deepest} than at depth 2 on {wider} of {len(sets)} sets; "
      f"best test accuracy at a depth below {deepest} on {shallower} of {len(sets)} sets")
assert wider >= 0.8 * len(sets) and shallower >= 0.5 * len(sets)

# %% [markdown]
# On most sets the train–test gap is wider at the deepest depth than at depth 2, and on at least half of
# them the best test accuracy comes at a shallower depth (both counts are printed and checked above); in
# this run lymph and primary-tumor are best at depth 4 (printed). Depth is a complexity knob, like λ. The
# optimal solver uses whatever budget it is given, so the budget decides how much it overfits, not the
# solver. That is why the next section chooses the budget by cross-validation.
#
# ## 5. Choosing λ (Branches, Appendix F.4)
#
# The paper's λ values "were chosen through experimentation to yield well behaved DTs in terms of accuracy
# and sparsity" (F.4), and it suggests cross-validation instead. Its Figs 12–23 show box plots over the five folds against λ, but the images are not in the text. We run the
# same experiment on the ordinal (categorical) sets, where Branches' multi-way splits are native and fast.
# The grid is that of `odtlab reproduce branches-lambda-cv`, λ ∈ {0.1, 0.05, 0.025, 0.01, 0.005, 0.0025,
# 0.001}, plus λ = 0.0001. On the quick-mode sets 0.0001 is below $1/n$, so a split that classifies even
# one more training row correctly is worth its cost (a gain of one row that needs several splits need not
# be). That does not by itself make the optimum fit every training row, but in this run it does on
# car-eval-o, balance-o and tic-tac-toe-o (checked in §5.3), so the grid reaches the unregularised end, as
# CART's `ccp_alpha = 0` does in §5.3. The grid is ordered largest first, so that `GridSearchCV` breaks a
# tie in mean accuracy towards the simpler tree.
#
# ### 5.1 The F.4 curves

# %%
LAMBDAS = [0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.001, 0.0001]
RUNNER_LAMBDAS = LAMBDAS[:7]                # the grid of the branches-lambda-cv table spec
LAM_SETS = ["monk1-o", "monk2-o", "monk3-o", "car-eval-o", "balance-o", "tic-tac-toe-o"]
if not QUICK:
    LAM_SETS += ["zoo-o", "lymph-o", "nursery-o", "mushroom-o"]


def lambda_grid(spec, cv=FOLDS):
    """Branches over the lambda grid, 5 folds: scikit-learn's cv_results_ (train and test scores per fold)."""
    search = GridSearchCV(BranchesClassifier(time_limit=BRANCHES_LIMIT), {"lam": LAMBDAS}, cv=cv, scoring=SCORING,
                          refit=False, return_train_score=True, n_jobs=N_JOBS)
    data = load_dataset(spec)
    return search.fit(data.X, data.y).cv_results_


def per_fold(res, what):
    """(n_lambdas, 5) array of one score over the folds."""
    return np.array([res[f"split{k}_{what}"] for k in range(5)]).T


t = time.perf_counter()
curves = {name: lambda_grid(f"branches/{name}") for name in LAM_SETS}
SECTIONS["5.1 lambda curves"] = time.perf_counter() - t

# %%
fig, axes = plt.subplots(2, len(LAM_SETS), figsize=(2.4 * len(LAM_SETS), 5.2), sharex=True, squeeze=False)
pos = np.arange(len(LAMBDAS))
for j, name in enumerate(LAM_SETS):
    res, top, bottom = curves[name], axes[0, j], axes[1, j]
    for what, color, dx in (("train_accuracy", "#999999", -0.18), ("test_accuracy", "#0b3c5d", 0.18)):
        top.boxplot(list(per_fold(res, what)), positions=pos + dx, widths=0.3, manage_ticks=False,
                    boxprops={"color": color}, medianprops={"color": color}, whiskerprops={"color": color},
                    capprops={"color": color}, flierprops={"markeredgecolor": color, "markersize": 3})
    top.axvline(LAMBDAS.index(lam_of[name]), color="#d55e00", lw=0.8, ls=":")
    top.set_title(name)
    bottom.boxplot(list(per_fold(res, "test_splits")), positions=pos, widths=0.5, manage_ticks=False)
    bottom.set_xticks(pos, [f"{v:g}" for v in LAMBDAS], rotation=70, fontsize=7)
    bottom.set_xlabel("λ")
    top.grid(alpha=0.3)
    bottom.grid(alpha=0.3)
axes[0, 0].set_ylabel("accuracy: train (grey), test (blue)")
axes[1, 0].set_ylabel("splits")
fig.suptitle("Branches over 5 folds against λ (dotted: the paper's λ)", fontsize=10)
show(fig)

# %% [markdown]
# A small λ buys training accuracy with splits. Test accuracy follows only up to a point, and that point
# depends on the data. The table gives, per set, the mean test accuracy at each λ, the λ that
# cross-validation picks (the largest λ among the best), and the paper's λ from Table 5.

# %%
# NBVAL_CHECK_OUTPUT
rows = {}
for name, res in curves.items():
    acc = res["mean_test_accuracy"]
    best, paper = int(np.argmax(acc)), LAMBDAS.index(lam_of[name])      # argmax: the first best, the largest lambda
    rows[name] = {**{f"{lam:g}": f"{m:.3f}" for lam, m in zip(LAMBDAS, acc)},
                  "CV λ": f"{LAMBDAS[best]:g}", "paper λ": f"{lam_of[name]:g}",
                  "splits at CV λ": f"{res['mean_test_splits'][best]:.1f}",
                  "splits at paper λ": f"{res['mean_test_splits'][paper]:.1f}"}
print("mean test accuracy over the 5 folds, by λ:")
print(pd.DataFrame(rows).T.to_string())
m3 = curves["monk3-o"]
assert m3["mean_test_accuracy"][LAMBDAS.index(0.001)] < m3["mean_test_accuracy"].max()
assert m3["mean_test_splits"][LAMBDAS.index(0.001)] >= 3 * m3["mean_test_splits"][int(np.argmax(m3["mean_test_accuracy"]))]
for name in ("car-eval-o", "balance-o", "tic-tac-toe-o"):
    best = int(np.argmax(curves[name]["mean_test_accuracy"]))
    assert LAMBDAS[best] <= 0.001 < lam_of[name] and 50 <= curves[name]["mean_test_splits"][best] <= 90

# %% [markdown]
# ### Exercise 13.2: the λ that cross-validation picks
#
# Restrict the grid to λ ∈ {0.1, 0.05, 0.025, 0.01, 0.005} (largest first, as in `GridSearchCV`'s grid
# above). Which λ does 5-fold cross-validation with `FOLDS` pick for Branches on monk3-o? Read it from
# `curves`.

# %% tags=["exercise"]
answer = ...  # one of the five λ

# %% tags=["solution"]
short = curves["monk3-o"]["mean_test_accuracy"][:5]  # LAMBDAS starts with the same five, in that order
answer = LAMBDAS[int(np.argmax(short))]  # argmax: the first best, the largest λ among ties
assert check("13.2", answer).ok

# %%
check("13.2", answer)

# %% [markdown]
# The paper's λ is the cross-validated one on some sets and not on others, in both directions (checked
# above):
#
# * **monk3** has 5 % label noise. The paper's λ = 0.001 lets Branches fit it with 11 splits. A larger λ
#   keeps about 3 splits and does better on the held-out folds.
# * **car-eval-o, balance-o and tic-tac-toe-o** are deterministic functions of many interacting
#   attributes. Test accuracy keeps improving down to λ = 0.001 or below, with 50 to 90 splits: the
#   paper's λ is too large for accuracy.
#
# Those 50–90-split trees are not the "well-behaved trees" the paper chose λ for. Cross-validation
# optimises accuracy, whereas the paper's hand-tuning traded accuracy for trees a person can read. Both
# are legitimate aims, but only the first is a statement about generalisation.
#
# ### 5.2 The same numbers from the runner
#
# `odtlab reproduce branches-lambda-cv` runs the same sweep through the experiment runner, on the paper's
# one-hot sets (in quick mode, monk1-l only). Its folds are the ones above, so scikit-learn's
# `GridSearchCV` and the runner must agree fold by fold.

# %%
# NBVAL_CHECK_OUTPUT
t = time.perf_counter()
lamrep = reproduce("branches-lambda-cv", quick=True, n_jobs=1, progress=False)
runner = lamrep.runs[(lamrep.runs["algorithm"] == "branches") & (lamrep.runs["dataset"] == "branches/monk1-l")]
runner = runner.assign(lam=runner["params"].map(lambda p: json.loads(p)["lam"]))
grid = lambda_grid("branches/monk1-l")
n_test = np.array([len(te) for _, te in FOLDS.split(monk.X, monk.y)])
assert sorted(runner["lam"].unique()) == sorted(RUNNER_LAMBDAS)
for i, lam in enumerate(RUNNER_LAMBDAS):
    r = runner[runner["lam"] == lam].sort_values("fold")
    assert np.array_equal(r["n_test"].to_numpy(), n_test)
    assert np.array_equal(r["test_loss"].to_numpy(), np.rint(n_test * (1 - per_fold(grid, "test_accuracy")[i])))
    assert np.array_equal(r["splits"].to_numpy(), per_fold(grid, "test_splits")[i])
SECTIONS["5.2 runner cross-check"] = time.perf_counter() - t
print(f"monk1-l, {len(RUNNER_LAMBDAS)} λ x 5 folds: the runner and GridSearchCV agree on every test error and tree size")

# %% [markdown]
# ### 5.3 Nested cross-validation: an honest estimate
#
# Picking the λ with the best cross-validated accuracy and then reporting that accuracy is optimistic,
# because the same folds chose λ and scored it. The honest estimate is **nested**:
#
# 1. in each outer fold, `GridSearchCV` chooses λ by an inner 5-fold cross-validation of the outer
#    training rows only;
# 2. it refits Branches on those rows with the chosen λ;
# 3. the outer test fold scores that tree.
#
# For comparison, CART gets the same treatment for its own complexity knob, the cost-complexity pruning
# parameter `ccp_alpha` ∈ the λ grid ∪ {0}. It runs on the full one-hot encoding of the same data, which
# is its natural input.

# %%
def nested(name):
    data = datasets.load(f"branches/{name}")
    hot = datasets.load(f"branches/{name}", encoding="one-hot")
    chosen_scoring = {"accuracy": "accuracy", "lam": lambda g, X, y: g.best_params_["lam"],
                      "splits": lambda g, X, y: g.best_estimator_.tree_.splits}
    br = cross_validate(GridSearchCV(BranchesClassifier(time_limit=BRANCHES_LIMIT), {"lam": LAMBDAS}, cv=FOLDS),
                        data.X, data.y, cv=FOLDS, scoring=chosen_scoring, n_jobs=N_JOBS)
    cart = cross_validate(GridSearchCV(CARTClassifier(), {"ccp_alpha": LAMBDAS + [0.0]}, cv=FOLDS),
                          hot.X, hot.y, cv=FOLDS, n_jobs=N_JOBS)
    chosen = [float(v) for v in br["test_lam"]]
    # the outer fold's tree is the fit of 5.1 at the chosen lambda: same rows, deterministic solver
    same = per_fold(curves[name], "test_accuracy")[[LAMBDAS.index(lam) for lam in chosen], range(5)]
    assert np.array_equal(br["test_accuracy"], same)
    fixed = per_fold(curves[name], "test_accuracy")[LAMBDAS.index(lam_of[name])]
    return {"λ chosen per fold": " ".join(f"{v:g}" for v in chosen),
            "splits": f"{br['test_splits'].mean():.1f}",
            "Branches, nested": pm(br["test_accuracy"]),
            "Branches, best λ (optimistic)": f"{curves[name]['mean_test_accuracy'].max():.3f}",
            "Branches, paper λ": pm(fixed),
            "CART, nested": pm(cart["test_score"]),
            "_nested": br["test_accuracy"].mean(), "_best": curves[name]["mean_test_accuracy"].max(),
            "_cart": cart["test_score"].mean(), "_paper": fixed.mean(), "_chosen": chosen}


t = time.perf_counter()
nest = pd.DataFrame({name: nested(name) for name in LAM_SETS}).T
SECTIONS["5.3 nested CV"] = time.perf_counter() - t

# %%
# NBVAL_CHECK_OUTPUT
print(nest[[c for c in nest.columns if not c.startswith("_")]].to_string())
num = nest[["_nested", "_best", "_cart", "_paper"]].astype(float)
optimism = num["_best"] - num["_nested"]
assert (optimism >= -1e-12).all()
print(f"\nmean over the {len(num)} sets: Branches nested {num['_nested'].mean():.3f}, best λ (optimistic) "
      f"{num['_best'].mean():.3f}, paper λ {num['_paper'].mean():.3f}; CART nested {num['_cart'].mean():.3f}")
print(f"optimism of the best-λ figure over the nested one: {optimism.min():.3f} to {optimism.max():.3f}")
wins, losses = int((num["_nested"] > num["_cart"] + 1e-12).sum()), int((num["_nested"] < num["_cart"] - 1e-12).sum())
print(f"sets where nested Branches beats nested CART: {wins} | loses: {losses}")
assert losses > wins
moving = int(sum(len(set(c)) > 1 for c in nest["_chosen"]))
print(f"the chosen λ differs between outer folds on {moving} of {len(nest)} sets")
assert moving >= 0.5 * len(nest)

# %% [markdown]
# Three things to read in this table.
#
# * **The optimism is measurable.** In each outer fold the nested tree is exactly §5.1's tree at the chosen
#   λ (checked), so the two estimates differ only in how λ is picked. On every set here, reporting the
#   best point of the λ sweep gives at least the nested figure (checked), and the printed range shows by
#   how much more. The best point of a sweep overstates generalisation; the nested estimate does not.
# * **The chosen λ moves from fold to fold** on most sets (printed, and checked on at least half of
#   them). With 122 to 1,728 rows (the quick-mode sets) λ is not sharply determined, and the inner cross-validation's choice is
#   noisy. Even a stable choice need not be the outer best: car-eval-o picks 0.0001 in every fold, where
#   §5.1's best is 0.001.
# * **Branches against CART**, both tuned the same way, is compared in the last line, and CART wins more
#   sets than it loses. Optimality of the training objective is not a generalisation guarantee. The
#   complexity penalty, chosen on held-out data, is what controls generalisation, for the optimal tree as
#   for the greedy one.
#
# Why does CART win on car-eval-o, balance-o and tic-tac-toe-o? Not because Branches is held back by
# its λ grid. At λ = 0.0001 and at `ccp_alpha = 0`, both methods fit every training row, and CART's tree
# still does better on the test folds (checked below).
#
# The difference is in the form of the splits. Branches splits a categorical feature into one child per
# category. CART on the one-hot encoding asks one category against the rest and keeps the other rows
# together. On these sets that shares data between categories that behave alike. This is a likely
# explanation, not something measured here. The encodings chapter (5) shows the other side of the same
# choice: multi-way splits make the search much easier, while the optimal tree can be smaller or larger
# (on monk1 the full one-hot optimum has 6 splits, the ordinal one 10).

# %%
# NBVAL_CHECK_OUTPUT
for name in ("car-eval-o", "balance-o", "tic-tac-toe-o"):
    hot = datasets.load(f"branches/{name}", encoding="one-hot")
    full = cross_validate(CARTClassifier(), hot.X, hot.y, cv=FOLDS, return_train_score=True)
    res, last = curves[name], LAMBDAS.index(0.0001)
    assert (per_fold(res, "train_accuracy")[last] == 1).all() and (full["train_score"] == 1).all()
    assert full["test_score"].mean() > res["mean_test_accuracy"][last]
    print(f"{name:14} train 1.000 for both; test: Branches λ=0.0001 {pm(per_fold(res, 'test_accuracy')[last])}, "
          f"unpruned CART (one-hot) {pm(full['test_score'])}")

# %% [markdown]
# ## 6. Summary, and the full mode
#
# * At equal size, an optimal tree's training accuracy is at least CART's on every fold (checked for
#   Branches, MurTree, Quant-BnB and DPDT), and usually strictly higher.
# * Its test accuracy is not guaranteed to be higher. In every family some folds are won on the training
#   rows and lost on the test rows. Over the data set × budget cells the optimal tree is better on test in
#   more cells than it is worse, but not by much (neither count is below half the other, in this run and
#   in the full run's 77 against 48), and mostly by margins within the fold-to-fold spread. Its largest
#   test gains come where the greedy tree is far from the optimum on the training rows: MONK-1 here, whose
#   rule the optimal tree recovers, and the continuous segment set in the full run.
# * Tuned the same way, by nested cross-validation, multi-way Branches trees lose to binary CART trees on
#   most of the categorical sets here.
# * Deeper optimal trees fit their training folds better and better, and the train–test gap widens; on
#   at least half of the sets the best test accuracy comes at a shallower depth than the deepest (4 of 6
#   here, 15 of 18 in the full run), not on all. The
#   budgets (depth, λ) must be chosen on held-out data, and the accuracy of the chosen model must be
#   estimated by nested cross-validation.
# * The Branches paper's F.2 training columns are reproduced. Its test columns depend on its folds, which
#   were probably not shuffled, so they are not comparable.
#
# **Full mode**: run `ODTLAB_QUICK=0 python notebooks/build.py 13_generalisation`, or run the notebook
# with the variable set. Every check above also runs in full mode. It adds:
#
# * `branches-cv` on every row, run by the experiment runner on all cores, with results kept in
#   `odtlab-results/` so that an interrupted run resumes (`odtlab reproduce branches-cv` reads the same
#   store);
# * Branches at the paper's λ on 11 one-hot sets. lymph is left out: it does not finish within the 300 s
#   limit, as in the paper, and its memo grows by about 3 GB a minute;
# * MurTree on 18 sets at depths 1–5;
# * Quant-BnB at depths 2 and 3, and DPDT at depths 3–5, on 10 continuous sets;
# * the λ study and the nested cross-validation on 10 ordinal sets.
#
# Measured on a shared two-core machine:
#
# * Sections 3–5 take about 17 minutes and need 10 GB of memory: Branches on mushroom keeps a 4 GB memo
#   per fold, and two folds run at once.
# * `branches-cv` in full is the long part, two hours or more. STreeD and Branches runs on car-eval,
#   nursery, lymph and balance reach the 300 s limit, as in the paper. Some of them need 8 GB (STreeD on
#   car-eval, Branches on lymph), so with two workers the operating system may kill one. The runner then
#   retries the run and finally records it as `crashed`.
#
# The full run gave the same picture on more data. Over 151 data set × budget cells the optimal tree was
# better on the test rows in 77, worse in 48 and equal in 26. Its largest gains were on the continuous
# segment set, where CART's greedy first split is poor: +0.31 in test accuracy at depth 3 for Quant-BnB,
# with a training gain of the same size. Deeper MurTree trees widened the train–test gap on 17 of 18 sets,
# and the best test depth was below 5 on 15 of them. Tuned by nested cross-validation, Branches lost to
# CART on 7 of the 10 ordinal sets.

# %% tags=["nbval-ignore-output"]
print(f"mode: {'quick' if QUICK else 'full'}; this run took {time.perf_counter() - T0:.0f} s")
print("wall seconds by section:", {k: round(v, 1) for k, v in SECTIONS.items()})
print("fit seconds by family (section 3):", folds.groupby("family", sort=False)["seconds"].sum().round(1).to_dict())
