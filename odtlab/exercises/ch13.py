"""Chapter 13 (generalisation): a fold's regularised accuracy, a λ chosen by cross-validation, and the
folds where a better fit generalises worse. All on the folds Folds(5, 0)."""
from fractions import Fraction
import functools
import numbers

from sklearn.model_selection import GridSearchCV

from odtlab import datasets
from odtlab.exercises.base import Reject, accept, as_number, exercise, judge, reject
from odtlab.experiments import Folds
from odtlab.solvers.branches import BranchesClassifier
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.murtree import MurTreeClassifier

FOLDS = Folds(5, 0)
GRID = [0.1, 0.05, 0.025, 0.01, 0.005]


@exercise("13.1", "The training H_λ of a fold's tree")
def fold_h_lambda(answer):
    """Branches at λ = 0.025 fitted on the training rows of fold 0 of monk3-o: H_λ on those rows."""
    data = datasets.load("branches/monk3-o")
    train, test = next(iter(FOLDS.split(data.X, data.y)))
    est = BranchesClassifier(lam=0.025).fit(data.X[train], data.y[train])
    tree, lam = est.tree_, Fraction(25, 1000)
    acc = Fraction(int((est.predict(data.X[train]) == data.y[train]).sum()), len(train))
    test_acc = Fraction(int((est.predict(data.X[test]) == data.y[test]).sum()), len(test))
    return judge(as_number(answer, "H_λ"), acc - lam * tree.splits, [
        (acc, "that is the training accuracy alone: subtract λ·S(T)."),
        (test_acc - lam * tree.splits, "H_λ is the training objective: use the fold's training rows, not its test rows."),
        (acc - lam * tree.leaves, "λ is charged per split, not per leaf."),
    ], f"accuracy {acc} on the {len(train)} training rows, {tree.splits} splits: H_λ = {acc - lam * tree.splits}.",
        "fit on data.X[train], then H_λ = training accuracy − λ·splits")


@functools.lru_cache(maxsize=None)
def _grid():
    data = datasets.load("branches/monk3-o")
    return GridSearchCV(BranchesClassifier(), {"lam": GRID}, cv=FOLDS, return_train_score=True).fit(data.X, data.y)


@exercise("13.2", "The λ that cross-validation picks")
def cv_lambda(answer):
    """GridSearchCV over GRID (largest λ first) on monk3-o with FOLDS: the best mean test accuracy, ties to
    the first, i.e. the largest λ."""
    value = float(as_number(answer, "λ"))
    search = _grid()
    res, chosen = search.cv_results_, search.best_params_["lam"]
    best = res["mean_test_score"].max()
    tied = [lam for lam, m in zip(GRID, res["mean_test_score"]) if m == best]
    if value == chosen:
        return accept(f"λ = {chosen:g} has the best mean test accuracy ({best:.3f})"
                      + (f", tied with {', '.join(f'{v:g}' for v in tied if v != chosen)}, and is the largest of them."
                         if len(tied) > 1 else "."))
    if value in tied:
        return reject("this λ ties for the best mean test accuracy; the grid is ordered largest first so that a tie "
                      "goes to the larger λ, the simpler tree.")
    if value == GRID[int(res["mean_train_score"].argmax())]:
        return reject("that λ has the best training accuracy; cross-validation chooses on the test folds.")
    if value not in GRID:
        return reject(f"pick one of the grid's values {GRID}.")
    return reject("compare the mean test accuracy over the 5 folds at each λ (GridSearchCV's cv_results_).")


@functools.lru_cache(maxsize=None)
def _fold_differences():
    """Per fold of dl/heart-cleveland: (Δ train rows, Δ test rows) of MurTree depth 3 minus CART depth 3."""
    data = datasets.load("dl/heart-cleveland")
    out = []
    for train, test in FOLDS.split(data.X, data.y):
        opt = MurTreeClassifier(max_depth=3).fit(data.X[train], data.y[train])
        cart = CARTClassifier(max_depth=3).fit(data.X[train], data.y[train])
        out.append(tuple(int((opt.predict(data.X[i]) == data.y[i]).sum() - (cart.predict(data.X[i]) == data.y[i]).sum())
                         for i in (train, test)))
    return out


@exercise("13.3", "Better fit, worse test: which folds?")
def fit_but_not_generalise(answer):
    """The folds of dl/heart-cleveland where MurTree (depth 3) classifies more training rows correctly than
    CART (depth 3) and fewer test rows."""
    if not isinstance(answer, (set, list, tuple)) or not all(isinstance(k, numbers.Integral) for k in answer):
        raise Reject(f"give the fold numbers (0 to 4) as a set, e.g. {{1, 3}}; you gave {answer!r}.")
    diffs = _fold_differences()
    reference = {k for k, (tr, te) in enumerate(diffs) if tr > 0 and te < 0}
    given = set(int(k) for k in answer)
    if given == reference:
        return accept(f"folds {sorted(reference)}: there the optimal tree fits the training rows better "
                      f"(Δ train rows per fold {[tr for tr, _ in diffs]}) and the test rows worse "
                      f"(Δ test rows {[te for _, te in diffs]}).")
    wrong_test = sorted(k for k in given if diffs[k][1] >= 0) if given <= set(range(5)) else None
    if wrong_test is None:
        return reject("folds are numbered 0 to 4.")
    if wrong_test:
        return reject(f"on fold(s) {wrong_test} the optimal tree is not worse on the test rows; compare the test "
                      "rows classified correctly by each tree.")
    return reject(f"you missed {len(reference - given)} fold(s) where the optimal tree wins on the training rows "
                  "and loses on the test rows.")
