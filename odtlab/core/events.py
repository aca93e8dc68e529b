"""One event record for every algorithm, and the codes every kernel shares.

A kernel advances a search and writes what it did into a preallocated buffer of ``EVENT_DTYPE``
records. The fields are generic (node, parent, feature, value, bounds, a few spare numbers); what each
field means for a given event kind is declared once in :mod:`odtlab.events`, where records are decoded
into Python objects named after the papers' own steps.

Kind codes are grouped by algorithm in blocks of 32 so a code never changes meaning:

=========  =========  ===========================================================
block      algorithm  kinds
=========  =========  ===========================================================
0..31      generic    search started, incumbent improved, bounds, terminated
32..63     CART       node split, leaf made
64..95     Branches   Init, IterationStart, SelectStep, Selection, ChildEvaluated, ...
96..127    MurTree    subtree entered, cache hit, similarity bound, depth-two solve, ...
128..159   Quant-BnB  iteration, upper bound, lower bound, eliminate, refine, exhaustive
160..191   DPDT       state expanded, candidate splits, Bellman backup, policy extracted
=========  =========  ===========================================================
"""
import numpy as np

from odtlab.core._jit import njit

EVENT_DTYPE = np.dtype(
    [
        ("iteration", np.int64),  # the search's iteration counter when the event happened
        ("kind", np.int16),  # one of the codes below
        ("depth", np.int16),  # depth of `node` in the search (or tree) where that applies
        ("flags", np.int32),  # bit set or small enum, meaning per kind
        ("node", np.int64),  # node / state id in the algorithm's own table
        ("parent", np.int64),  # its parent id, or -1
        ("feature", np.int64),  # feature index, or -1
        ("value", np.float64),  # category, threshold or Q-value, per kind
        ("upper", np.float64),  # upper bound in the objective's units
        ("lower", np.float64),  # lower bound in the objective's units
        ("i0", np.int64),  # spare integers, named per kind in odtlab.events
        ("i1", np.int64),
        ("i2", np.int64),
        ("f0", np.float64),  # spare floats, named per kind in odtlab.events
        ("f1", np.float64),
    ]
)

# Record levels: chosen when a kernel is compiled, so "none" carries no event code at all.
LEVEL_NONE = 0
LEVEL_SUMMARY = 1
LEVEL_FULL = 2
LEVELS = {"none": LEVEL_NONE, "summary": LEVEL_SUMMARY, "full": LEVEL_FULL}

# What a kernel call returns as its status.
STATUS_DONE = 0  # the search is finished (optimal, or exhausted)
STATUS_BUDGET = 1  # it spent the iterations it was given
STATUS_BUFFER = 2  # the event buffer has no room for another iteration
STATUS_GROW = 3  # an array is full: the driver grows it (see the solver's `grow`) and calls again
STATUS_NAMES = {STATUS_DONE: "done", STATUS_BUDGET: "budget", STATUS_BUFFER: "buffer", STATUS_GROW: "grow"}

# Generic kinds (0..31), used by every algorithm.
SEARCH_STARTED = 0
INCUMBENT = 1  # a better tree was found: upper/lower hold the new bounds
BOUNDS = 2  # the certified bounds moved
TERMINATED = 3  # the search finished: flags = 1 when optimal

# CART (32..63)
CART_SPLIT = 32  # node split: feature, value = threshold, f0 = impurity decrease, i0 = n_samples
CART_LEAF = 33  # node made a leaf: i0 = n_samples, f0 = impurity, i1 = reason code


@njit(inline="always")
def emit(events, k, iteration, kind, depth, flags, node, parent, feature, value, upper, lower,
         i0, i1, i2, f0, f1):
    """Write one record at position ``k`` and return ``k + 1``."""
    e = events[k]
    e["iteration"] = iteration
    e["kind"] = kind
    e["depth"] = depth
    e["flags"] = flags
    e["node"] = node
    e["parent"] = parent
    e["feature"] = feature
    e["value"] = value
    e["upper"] = upper
    e["lower"] = lower
    e["i0"] = i0
    e["i1"] = i1
    e["i2"] = i2
    e["f0"] = f0
    e["f1"] = f1
    return k + 1
