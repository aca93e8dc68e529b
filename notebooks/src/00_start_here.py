# %% [markdown]
# # 0. Start here: a tree, a search, its events
#
# odtlab is a kit for learning and researching **optimal decision trees**. Each of its algorithms (CART,
# Branches, MurTree, Quant-BnB and DPDT) is one numba kernel that runs as a *search*: you can run it to the
# end, stop it and resume it, or step through it event by event. A brute-force oracle (`odtlab.bruteforce`)
# checks them on small data: it enumerates the trees and returns the optimum directly, with no search to
# step through.
#
# This chapter shows the four things every later chapter uses:
#
# 1. loading a data set by name,
# 2. fitting a tree with a scikit-learn estimator,
# 3. reading and drawing the tree,
# 4. stepping through the search that built it, and reading its events as a table.
#
# The course map (learning outcomes, prerequisites, time per chapter, the order of the chapters, and one
# notation table for the four papers) is in [README.md](README.md) beside the chapters.
#
# **Exercises.** Most chapters end their sections with exercises. Write your answer in the cell
# `answer = ...`, run it, then run the `check("NN.k", answer)` cell below it: a green box means right, a
# red one says what is wrong. In the instructor's version a solution cell sits between the two.

# %%
import itertools

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from fractions import Fraction

from odtlab import datasets
from odtlab.exercises import check
from odtlab.solvers.cart import CARTClassifier

# %% [markdown]
# ## 1. Data sets by name
#
# Names are grouped by collection: `dl/` (the binarised DL8.5/MurTree benchmark), `branches/` (the
# Branches paper's categorical sets), `quantbnb/` (continuous, with a fixed train/test split), `gosdt/`,
# `sklearn/` and `gen/` (generated: XOR, the papers' worked examples, random sets with a seed).

# %%
# NBVAL_CHECK_OUTPUT
print(datasets.collections())
print(len(datasets.names("dl")), "dl/ sets, e.g.", datasets.names("dl")[:4])

# %%
data = datasets.load("sklearn/breast_cancer")
X, y = data.X, data.y
data.frame().iloc[:5, :6]

# %%
# NBVAL_CHECK_OUTPUT
print(data.n_samples, "rows,", data.n_features, data.kind, "features,", data.n_classes, "classes")

# %% [markdown]
# ## 2. A tree from an estimator
#
# `CARTClassifier` is CART (Breiman et al., 1984) in numba. It grows the tree greedily: each node takes
# the threshold that most reduces the Gini impurity. It behaves like scikit-learn's
# `DecisionTreeClassifier`; here is the check.

# %%
cart = CARTClassifier(max_depth=3).fit(X, y)
reference = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
assert cart.score(X, y) == reference.score(X, y)
assert cart.tree_.leaves == reference.get_n_leaves()

# %%
# NBVAL_CHECK_OUTPUT
print(f"training accuracy {cart.score(X, y):.4f} with {cart.tree_.splits} splits, depth {cart.tree_.depth}")

# %% [markdown]
# ## 3. Reading and drawing the tree
#
# `tree_` is an `odtlab.tree.Tree`: text with the feature names, a drawing, and every paper's
# objective: `accuracy − λ·splits` for Branches; for MurTree the misclassifications, which its main problem
# minimises under depth and node limits (Eq. 1), and its sparse objective `misclassifications + α·splits`
# (Eq. 19, α per feature node, that is per split); and so on.

# %%
# NBVAL_CHECK_OUTPUT
print(cart.tree_.to_text(feature_names=data.feature_names, class_names=["malignant", "benign"]))

# %%
cart.tree_

# %%
# NBVAL_CHECK_OUTPUT
tree = cart.tree_
print("misclassifications:", tree.misclassifications(X, y))
print("Branches' H_λ at λ = 0.01:", tree.branches_objective(X, y, 0.01, exact=True))

# %% [markdown]
# ## 4. The search behind the tree
#
# `cart.search(X, y)` gives the same search, not yet run. `steps()` advances it one iteration at a time
# and yields what the kernel did. For CART an iteration decides one node: split it, or make it a leaf.

# %%
# NBVAL_CHECK_OUTPUT
search = cart.search(X, y)
for event in itertools.islice(search.steps(), 6):
    print(search.describe(event))

# %% [markdown]
# A search can stop anywhere and keep its best tree: `snapshot()` shows the tree built so far (nodes not
# yet decided are leaves). Calling `run()` then finishes the same search.

# %%
# NBVAL_CHECK_OUTPUT
snap = search.snapshot()
print("after", snap.iterations, "iterations: tree with", snap.tree.splits, "splits,",
      int(snap.upper_bound), "training errors")
result = search.run()
print(result)
assert result.tree.predict(X).tolist() == cart.predict(X).tolist()

# %% [markdown]
# Every event is a record of one structured dtype, shared by all algorithms, so a whole search is a
# pandas table:

# %%
trace = search.trace()
trace[["event", "iteration", "depth", "node", "feature", "value", "i0", "f0"]].head(8)

# %%
# NBVAL_CHECK_OUTPUT
print(trace["event"].value_counts().sort_index().to_string())

# %% [markdown]
# ## Exercises
#
# ### Exercise 00.1: the errors of a shallower tree
#
# Fit `CARTClassifier(max_depth=2)` on the same rows and give the number of training rows it
# misclassifies.

# %% tags=["exercise"]
answer = ...  # an int

# %% tags=["solution"]
cart_d2 = CARTClassifier(max_depth=2).fit(X, y)
answer = int((cart_d2.predict(X) != y).sum())
assert check("00.1", answer).ok

# %%
check("00.1", answer)

# %% [markdown]
# ### Exercise 00.2: a regularised accuracy
#
# Branches scores a tree by $H_\lambda(T) = \text{accuracy} - \lambda \cdot \text{splits}$. Give it for the
# depth-2 tree of exercise 00.1 at λ = 0.02, as an exact `Fraction`, from its predictions and its number of
# splits (not with `branches_objective`).

# %% tags=["exercise"]
answer = ...  # a Fraction

# %% tags=["solution"]
tree_d2 = CARTClassifier(max_depth=2).fit(X, y).tree_
answer = Fraction(int((tree_d2.predict(X) == y).sum()), len(y)) - Fraction(2, 100) * tree_d2.splits
assert check("00.2", answer).ok

# %%
check("00.2", answer)

# %% [markdown]
# ### Exercise 00.3: events of a search
#
# How many `Leaf` events does the search of `CARTClassifier(max_depth=4)` on these rows emit? Predict it
# from the fitted tree, then count it in the search's `trace()`.

# %% tags=["exercise"]
answer = ...  # an int

# %% tags=["solution"]
cart_d4 = CARTClassifier(max_depth=4).fit(X, y)
answer = int((cart_d4.search(X, y).trace()["event"] == "Leaf").sum())
assert answer == cart_d4.tree_.leaves
assert check("00.3", answer).ok

# %%
check("00.3", answer)

# %% [markdown]
# ## Where to go next
#
# The numbered chapters build on this: greedy against optimal trees, Branches (the MDP, its search and
# its complexity), encodings, MurTree, Quant-BnB, DPDT, the reproductions of each paper's tables, and
# generalisation (chapter 13: optimal and greedy trees under cross-validation).
# Every widget in them replays the events of the same kernels you just stepped through.
