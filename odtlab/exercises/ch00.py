"""Chapter 00 (start here): a CART tree on breast_cancer, its objectives and its search's events."""
from fractions import Fraction
import functools

from odtlab import datasets
from odtlab.exercises.base import Reject, as_int, as_number, exercise, judge
from odtlab.solvers.cart import CARTClassifier


@functools.lru_cache(maxsize=None)
def _cart(depth):
    data = datasets.load("sklearn/breast_cancer")
    return data, CARTClassifier(max_depth=depth).fit(data.X, data.y)


def _count(answer, what):
    value = as_number(answer, what)
    if 0 < value < 1:
        raise Reject(f"{value} looks like a share; {what} is a count of rows or nodes.")
    return as_int(value, what)


@exercise("00.1", "Training errors of a depth-2 CART tree")
def cart_errors(answer):
    """Misclassified training rows of CARTClassifier(max_depth=2) on sklearn/breast_cancer."""
    data, cart = _cart(2)
    errors = cart.tree_.misclassifications(data.X, data.y)
    return judge(_count(answer, "the number of errors"), errors, [
        (_cart(3)[1].tree_.misclassifications(data.X, data.y),
         "that is the depth-3 tree of the chapter; this exercise asks for max_depth=2."),
        (data.n_samples - errors, "you counted the rows classified correctly; count the misclassified ones."),
    ], f"the depth-2 tree misclassifies {errors} of the {data.n_samples} training rows.",
        "fit CARTClassifier(max_depth=2) and count the rows where predict(X) differs from y")


@exercise("00.2", "Branches' regularised accuracy of a CART tree")
def cart_h_lambda(answer):
    """H_λ(T) = accuracy − λ·splits (Branches §1.3) of the depth-2 CART tree at λ = 0.02, exact."""
    data, cart = _cart(2)
    tree, lam = cart.tree_, Fraction(2, 100)
    accuracy = Fraction(data.n_samples - tree.misclassifications(data.X, data.y), data.n_samples)
    reference = accuracy - lam * tree.splits
    assert reference == tree.branches_objective(data.X, data.y, "0.02", exact=True)
    return judge(as_number(answer, "H_λ"), reference, [
        (accuracy, "that is the accuracy alone: subtract λ times the number of splits."),
        (accuracy - lam * tree.leaves, f"you charged λ per leaf ({tree.leaves}); Branches charges per split "
                                       f"(internal node), and this tree has {tree.splits}."),
        (accuracy - lam * tree.n_nodes, "you charged λ per node; Branches charges only the splits."),
        (1 - accuracy - lam * tree.splits, "start from the accuracy, not the error rate."),
    ], f"H_λ = {accuracy} − {lam}·{tree.splits} = {reference}.",
        "H_λ = (correct rows)/n − λ·(number of splits)")


@exercise("00.3", "Leaf events of a CART search")
def cart_leaf_events(answer):
    """The number of Leaf events of the search of CARTClassifier(max_depth=4) on breast_cancer."""
    data, cart = _cart(4)
    trace = cart.search(data.X, data.y).trace()
    leaves = int((trace["event"] == "Leaf").sum())
    return judge(_count(answer, "the number of Leaf events"), leaves, [
        (cart.tree_.splits, "that is the number of Split events: one per internal node."),
        (cart.tree_.n_nodes, "that counts every decided node; a Leaf event is emitted only for the leaves."),
        (2 ** 4, "2^4 is the most a depth-4 tree can have; CART stops early where a node is pure."),
        (len(trace), "that is every event, SearchStarted and Terminated included."),
    ], f"one Leaf event per leaf of the tree, {leaves}.",
        "each iteration of CART's search decides one node: a Split or a Leaf")
