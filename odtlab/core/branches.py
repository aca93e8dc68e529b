"""Branches (Chaouki, Read, Bifet): the numba kernel of the best-first search over multi-way branches.

A *branch* l is a conjunction of tests ``X_i = j`` with each feature at most once (Section 3). The search
keeps, per branch, an upper bound R(l) >= R*(l) (the best regularised accuracy of a subtree rooted at l),
the incumbent lower bound G(l) (the paper's ``value_greedy``), and, once l is expanded, one split record
per unused feature holding Q(l, i) = -lambda + sum_j R(l ∧ X_i = j) (Eqs. 5-6). New branches start at the
Purification Bound R = max{H, P - lambda} (Prop 4.2, Eq. 8); a branch whose errors are at most lambda * n
is a settled leaf at birth. One iteration is Selection, Expansion and Backpropagation (Section 4.2 and
Appendix D.2); the printed Algorithm 1 of Appendix E is corrected here (its slips are docs/errata.md,
Branches E1-E7).

Exact arithmetic: with lambda = p / D, every value is an integer in units of 1 / (n * D)
(computed in int64, stored in int32 when n * D < 2**30, see :func:`state_dtype`).
A leaf is worth H = D * n_{k*}(l) and the Purification Bound of a split is P - lambda = D * n(l) - p * n.
Ties are therefore real ties, broken by the documented rules; a float implementation (the paper's)
breaks some of them by rounding noise, which is why its iteration counts differ slightly.

What is stored (Appendix D.1). A branch's values change only once it is expanded:
before that R = P - lambda and G = H are fixed by its counts. So the memo holds the *expanded* branches
(and the root), keyed by their canonical key, and a child that is not an expanded branch is written
inline in its parent's child slot as its counts (n(l), n_{k*}). That covers children complete at birth
(settled: errors <= lambda * n, empty, or without split actions) and open children not yet expanded.
When Selection reaches an open inline child, the expansion stores it in the memo and re-points the slot
of every expanded parent (the branch minus one of its tests, looked up by key) to it, so every parent
reads its current values exactly as with a memo of all branches: the search, its iteration counts and
its trees are those of the paper's algorithm. A child that is not memoised is re-counted when another
parent is expanded; the expansion counts all its children anyway. No row lists are kept either: an
expansion rebuilds the rows of its branch as a bitset (the AND of its tests' row bitsets, Appendix D.2's
data extraction) and counts classes per category with popcounts, or with one pass over the row list
when that is shorter.

State (numpy arrays; the driver grows them when the kernel returns ``STATUS_GROW``):

* ``ND`` (int32 or int64, :func:`state_dtype`; one 32- or 64-byte row per memo branch, the fields Selection
  and Backpropagation touch): R, G,
  H, first split record (-1 before expansion: only the root, before the first iteration), flags, number
  of split actions, best incumbent feature (-1: leaf), depth S(l).
* ``NC`` (int32, one row per memo branch, read for events and trees): n(l), n_{k*}, majority class,
  completion reason.
* ``KEYS`` (int64, W words per branch): the canonical key as a mixed-radix code: feature i
  adds (j + 1) * RADIX[i] to word WORD[i], so the key is independent of the order of the tests and a
  child's key is its parent's plus one term. W > 1 once the radix product passes 62 bits (one-hot data).
* ``TABLE`` (int64, size x 2, size a power of two): open addressing, (node id, first key word), with
  ``OCC`` (uint8) a tag byte per slot (0: empty), see :func:`lookup`.
* ``RC`` (ND's type, one row of 3 + max C_i words per split record): Q, done (sum of R over children
  moved to the complete side), feature * 2^32 + number of open children (cleaned lazily), then
  one slot per child in category order: ``node * 4 + open`` for a memo branch, ``n(l) * 2^32 + n_{k*} * 4
  + 2 + open`` for an inline child (int32: 2^16 and 2^17 instead of 2^32, see :func:`state_dtype`; the
  int32 layout halves the bytes of the search state and of what Selection reads on one-hot data, where a
  record is 5 words). A record and its children share a cache line or two, which is what
  Selection and Backpropagation read at every level. The records of a branch are contiguous and kept in
  binary max-heap order in place, so the best split is always the branch's first record (ties broken by the documented rules below).
  Once a branch is complete only its best-G record is read again (INFER_INCUMBENT): :func:`release` keeps
  that one and frees the others for the next expansion with as many split actions. A branch with more than
  ``keep + 2`` split actions keeps only its ``keep`` best records, its incumbent's and one record of
  feature q holding a bound on the Q of the others (lazy split records, :func:`keep_best`, with the proof);
  Selection expands it again when that bound is its top.
* ``FREE`` (int64, q + 1): ``FREE[s]`` the first row of a free block of s records (-1: none), the blocks of
  one size linked through the Q of their first row.
* ``counters`` (int64, ``CN`` in the code): C_ITER, C_NODES ..., so the search resumes exactly between calls.
"""
from collections import namedtuple

import numpy as np

from odtlab.bounds import bound_logged
from odtlab.core import events as ev
from odtlab.core._jit import COMPILED, intrinsic, njit, overload, types
from odtlab.core.arrays import copy_flat
from odtlab.core.events import LEVEL_FULL, LEVEL_SUMMARY, STATUS_BUDGET, STATUS_BUFFER, STATUS_DONE, STATUS_GROW

# ---- the search's three groups: Params (read-only scalars), Data (read-only arrays), State (what it writes) ----
Params = namedtuple("Params", "n q K lam den max_depth child_rule tie_break key_words cmax events_per_iteration "
                   "scale keep")
Params.__doc__ = """The search's options and sizes (int64 scalars): n rows, q features, K classes; ``lam`` the split
penalty in units of 1 / (n * D), i.e. p * n for lambda = p / D, and ``den`` = D; ``max_depth`` (-1: none);
``child_rule`` (RULE_*) and ``tie_break`` (TIE_*); ``key_words`` W of a branch key, ``cmax`` the largest C_i,
the records one iteration writes at most (:func:`events_per_iteration`); ``scale`` = 1 / (n * D), the value
of one unit (float), computed once: a division in the loop would add a ZeroDivisionError path, whose
reference-count decrements numba's pruning cannot remove; ``keep`` the split records an expansion keeps
with more than ``keep + 2`` split actions (lazy split records, :func:`keep_best`; q or more: all)."""
Data = namedtuple("Data", "Xt y BITS YB CAT RADIX WORD")
Data.__doc__ = """The problem, read-only (:func:`prepare`): codes feature-major ``Xt`` (q x n, int32), class codes
``y``, the row bitsets ``BITS[i, j]`` of X_i = j and ``YB[k]`` of class k, ``CAT`` = C_i per feature, and
the key's ``RADIX`` / ``WORD`` per feature."""
State = namedtuple("State", "counters ND NC KEYS TABLE OCC RC FREE")
State.__doc__ = """Everything the search writes (see the module docstring for each array): ``counters`` (C_*), the memo
``ND`` / ``NC`` / ``KEYS``, its hash table ``TABLE`` / ``OCC``, the split records ``RC`` and their free
blocks ``FREE``. The driver grows ``ND``, ``NC``, ``KEYS``, ``RC`` and rebuilds ``TABLE`` / ``OCC``
(``STATUS_GROW``); the search resumes exactly from it."""
RULE_MIN_G, RULE_MIN_H, RULE_FIRST = 0, 1, 2
TIE_PAPER, TIE_PROVEN = 0, 1

ROOT = 0  # the memo node of the root Omega

# ---- counters (State.counters) ---------------------------------------------------------------------------
(C_ITER, C_EVALS, C_NODES, C_RECS, C_EXPANDED, C_LAZY, C_INIT, C_GROW, C_NEED_NODES,
 C_NEED_RECS, C_REEXPANDED) = range(11)
N_COUNTERS = 11
GROW_NODES, GROW_RECS = 1, 2

# ---- node tables ------------------------------------------------------------------------------------------
D_R, D_G, D_H, D_REC, D_FLAGS, D_NACT, D_BEST, D_DEPTH = range(8)
ND_COLS = 8
I_N, I_NBEST, I_PRED, I_REASON = range(4)
NC_COLS = 4
F_COMPLETE, F_EXPANDED, F_LEAF, F_SETTLED, F_MEMO_HIT = 1, 2, 4, 8, 16

# completion reasons (NodeCompleted.reason)
REASON_NONE, REASON_NO_ACTIONS, REASON_SETTLED, REASON_LEAF, REASON_SPLIT = -1, 0, 1, 2, 3

# ---- split records and child slots ------------------------------------------------------------------------
R_Q, R_DONE, R_META, R_KIDS = range(4)  # R_KIDS + j: the slot of the child of category j
S_OPEN, S_INLINE = 1, 2
MAX_ROWS = (1 << 30) - 1  # n(l) and n_{k*} of an inline child take 30 bits each in an int64 slot
# the int32 layout (ND and RC of int32): a slot holds n(l) << 17 | n_{k*} << 2 | flags with n(l) < 2**14, a
# memo slot node * 4 + flags, a record's meta feature << 16 | open children, and values (units 1 / (n * D))
# stay within +-n * D
NARROW_ROWS, NARROW_UNITS, NARROW_NODES, NARROW_RECS = 1 << 14, 1 << 30, 1 << 29, (1 << 31) - 1


def state_dtype(n, den, q, cmax):
    """The integer type of the node table ND and the split records RC: int32 when every field fits (n below
    2**14 rows, n * D below 2**30, fewer than 2**15 features and 2**16 categories), else int64. Half as many
    bytes per record is half the memory traffic of Selection and Backpropagation and twice the records per
    gigabyte; the search, its values and its events are the same."""
    if n < NARROW_ROWS and n * den < NARROW_UNITS and q < 1 << 15 and cmax < 1 << 16:
        return np.int32
    return np.int64


@njit(inline="always")
def _meta_shift(RC):
    """Bits of a record's meta word below the feature (the rest: number of open children)."""
    return 32 if RC.itemsize == 8 else 16


@njit(inline="always")
def _count_shift(RC):
    """Bit where n(l) starts in an inline slot (n_{k*} sits between bit 2 and it)."""
    return 32 if RC.itemsize == 8 else 17

# ---- event kinds (Branches block 64..95, odtlab.core.events): the steps of Section 4.2 -------------------
# ``state`` (Init, SelectCandidate, ChildEvaluated, Expansion, NodeCompleted): the branch's F_* flags then
EV_INIT = 64
emit_init = ev.event_kind(
    EV_INIT, "Init", "branches",
    {"root": "node", "lam": "value", "n": "i0", "q": "i1", "K": "i2", "R": "upper", "G": "lower",
     "H": "f0", "P": "f1", "state": "flags"},
    "Init: root with n={n}, q={q}, K={K}, lambda={lam:g}: H={H:.6g}, R=max(H, 1-lambda)={R:.6g}",
    "The root is evaluated before the loop (Appendix D.2). state: 1 complete, 4 leaf optimal, "
    "8 settled (H >= P - lambda).").emit
EV_ITERATION_START = 65
emit_iteration_start = ev.event_kind(
    EV_ITERATION_START, "IterationStart", "branches",
    {"root_R": "upper", "root_G": "lower", "memo_size": "i0", "evaluations": "i1", "expanded": "i2",
     "gap": "f0"},
    "Iteration {iteration}: R(root)={root_R:.6g}, G(root)={root_G:.6g}, memo {memo_size}").emit
EV_SELECT_STEP = 66
emit_select_step = ev.event_kind(
    EV_SELECT_STEP, "SelectStep", "branches",
    {"node_id": "node", "previous": "parent", "chosen_feature": "feature", "Q": "value", "R": "upper",
     "G": "lower", "chosen_child": "i0", "category": "i1", "rule": "i2", "runner_up_Q": "f0",
     "runner_up_feature": "f1", "n_open": "flags"},
    "Select: at node {node_id} follow feature {chosen_feature} (Q={Q:.6g}) to child {chosen_child}",
    "One descent step of Selection; its SelectCandidate events list the open children. rule: 0 min_G, "
    "1 min_H, 2 first. runner_up_*: the second split of the node's heap (NaN / -1 if none; feature q: the bound "
    "on the split records the branch dropped, keep_best).").emit
EV_SELECT_CANDIDATE = 67
CANDIDATE_CHOSEN, CANDIDATE_COMPLETE = 1, 2  # SelectCandidate's state bits
emit_select_candidate = ev.event_kind(
    EV_SELECT_CANDIDATE, "SelectCandidate", "branches",
    {"child_id": "node", "node_id": "parent", "feature": "feature", "category": "value", "R": "upper",
     "G": "lower", "n_l": "i0", "n_best": "i1", "H": "f0", "state": "flags"},
    "Candidate child {child_id} (category {category:g}): G={G:.6g}, R={R:.6g}",
    "An open child of the split followed by a SelectStep. state: 1 chosen, 2 already complete.").emit
EV_SELECTION = 68
emit_selection = ev.event_kind(
    EV_SELECTION, "Selection", "branches",
    {"leaf_id": "node", "previous": "parent", "feature": "feature", "R": "upper", "G": "lower",
     "path_length": "i0", "n_actions": "i1", "H": "f0", "leaf_complete": "flags"},
    "Selection ends at node {leaf_id} (path of {path_length})",
    "End of the descent; the path is the iteration's SelectStep nodes followed by leaf_id. "
    "leaf_complete = 1: the branch was completed through another parent (lazy completion).").emit
EV_CHILD_EVALUATED = 69
emit_child_evaluated = ev.event_kind(
    EV_CHILD_EVALUATED, "ChildEvaluated", "branches",
    {"child_id": "node", "parent_id": "parent", "feature": "feature", "category": "value", "R": "upper",
     "G": "lower", "n_l": "i0", "n_best": "i1", "pred": "i2", "H": "f0", "bound": "f1", "state": "flags"},
    "Child {child_id} of {parent_id} (feature {feature}, category {category:g}): n={n_l}, H={H:.6g}, "
    "R={R:.6g}",
    "A child built (or found in the memo) during Expansion. bound = P - lambda. state bits: 1 complete, "
    "4 leaf optimal, 8 settled at birth, 16 memo hit.").emit
EV_SPLIT_SCORED = 70
emit_split_scored = ev.event_kind(
    EV_SPLIT_SCORED, "SplitScored", "branches",
    {"node_id": "node", "feature": "feature", "Q": "value", "R_before": "upper", "g": "lower",
     "n_open": "i0", "n_children": "i1", "done": "f0", "complete": "flags"},
    "Split of node {node_id} on feature {feature}: Q={Q:.6g}, {n_open}/{n_children} children open",
    "Q(l, i) = -lambda + sum of the children's R (Eqs. 5-6); done = -lambda + sum of R over complete "
    "children; g = -lambda + sum of the children's G (the split's incumbent value).").emit
EV_EXPANSION = 71
emit_expansion = ev.event_kind(
    EV_EXPANSION, "Expansion", "branches",
    {"node_id": "node", "best_feature": "feature", "best_Q": "value", "R_after": "upper", "G": "lower",
     "reason": "i0", "incumbent_feature": "i1", "n_actions": "i2", "R_before": "f0", "H": "f1",
     "state": "flags"},
    "Expansion of node {node_id}: R {R_before:.6g} -> {R_after:.6g}, best feature {best_feature}",
    "reason: -1 still open, 2 leaf dominates, 3 best split complete.").emit
EV_BACKPROP_STEP = 72
CHANGE_TOP, CHANGE_COMPLETE, CHANGE_G = 1, 2, 4  # BackpropStep's changes bits
emit_backprop_step = ev.event_kind(
    EV_BACKPROP_STEP, "BackpropStep", "branches",
    {"node_id": "node", "child_id": "parent", "feature": "feature", "Q_after": "value", "R_after": "upper",
     "G_after": "lower", "n_removed": "i0", "top_feature": "i1", "reason": "i2", "Q_before": "f0",
     "R_before": "f1", "changes": "flags"},
    "Backprop at node {node_id} via feature {feature}: Q {Q_before:.6g} -> {Q_after:.6g}",
    "changes bits: 1 heap top changed, 2 node became complete, 4 G improved. The children moved to the "
    "complete side are the ChildClosed events before it. top_feature: the split on top of the heap after the "
    "step (q: the bound on the split records the branch dropped, keep_best).").emit
EV_CHILD_CLOSED = 73
emit_child_closed = ev.event_kind(
    EV_CHILD_CLOSED, "ChildClosed", "branches",
    {"child_id": "node", "node_id": "parent", "feature": "feature", "category": "value", "R": "upper",
     "G": "lower"},
    "Child {child_id} of node {node_id} is complete (R*={R:.6g})",
    "One removed_completed_children element of a BackpropStep.").emit
EV_NODE_COMPLETED = 74
emit_node_completed = ev.event_kind(
    EV_NODE_COMPLETED, "NodeCompleted", "branches",
    {"node_id": "node", "parent_id": "parent", "best_feature": "feature", "category": "value", "R": "upper",
     "G": "lower", "reason": "i0", "state": "flags"},
    "Node {node_id} complete: R*={R:.6g}",
    "reason: 0 no_features, 1 settled_at_birth, 2 leaf_dominates, 3 best_split_complete. A child "
    "completed at birth and kept out of the memo has node_id -1; its parent, feature and category "
    "name it (category 0 for a memo branch).").emit
EV_ITERATION_END = 75
END_ROOT_COMPLETE, END_EXPANDED = 1, 2  # IterationEnd's state bits
emit_iteration_end = ev.event_kind(
    EV_ITERATION_END, "IterationEnd", "branches",
    {"root_R": "upper", "root_G": "lower", "memo_size": "i0", "evaluations": "i1", "expanded": "i2",
     "gap": "f0", "state": "flags"},
    "After iteration {iteration}: R(root)={root_R:.6g}, G(root)={root_G:.6g}, gap {gap:.3g}",
    "The level-summary event. state bits: 1 root complete, 2 the iteration expanded a branch.").emit
EV_TERMINATED = 76
emit_terminated = ev.event_kind(
    EV_TERMINATED, "Terminated", "branches",
    {"objective": "value", "root_R": "upper", "root_G": "lower", "iterations": "i0", "evaluations": "i1",
     "memo_size": "i2", "expanded": "f1", "root_feature": "feature", "optimal": "flags"},
    "Terminated after {iterations} iterations: optimal H_lambda = {objective:.6g}",
    "The root is complete (Thm 5.1): root_feature is the optimal tree's root split (-1: a single "
    "leaf).").emit

_M30 = (1 << 30) - 1


def events_per_iteration(n_categories, max_depth):
    """An upper bound on the records one iteration writes at level full: the selection steps with their
    candidates, one expansion with every child and split, and the backpropagation of the whole path.
    Features with one category are never split on; ``max_depth`` < 0: no limit."""
    C = np.asarray(n_categories, dtype=np.int64)
    return int(_events_per_iteration(C, int(-1 if max_depth is None else max_depth)))


@njit
def _events_per_iteration(C, max_depth):
    q = 0
    cmax = 1
    total = 0
    for i in range(C.shape[0]):
        if C[i] >= 2:
            q += 1
            total += C[i]
            if C[i] > cmax:
                cmax = C[i]
    path = q if max_depth < 0 else min(q, max_depth)
    selection = path * (1 + cmax) + 1  # SelectStep + SelectCandidate per open child, Selection
    expansion = 2 * total + q + 2  # ChildEvaluated (+ NodeCompleted) per child, SplitScored, Expansion
    backprop = path * (2 + cmax)  # BackpropStep + NodeCompleted + ChildClosed per child
    return 4 + selection + expansion + backprop


@njit
def prepare(X, y, C, K, max_depth):
    """The search's read-only inputs from int64 codes X (n x q), class codes y and C, in one pass:
    ``(Xt, y32, BITS, YB, RADIX, WORD, W, events_per_iteration)``. ``Xt`` is X feature-major as int32,
    ``BITS[i, j]`` the row bitset of X_i = j and ``YB[k]`` the one of class k (row r at bit r % 64 of word
    r // 64). RADIX and WORD give the mixed-radix key: feature i adds (j + 1) * RADIX[i] to
    word WORD[i] (-1 for a feature with one category, never split on); a new word starts before the radix
    product reaches 2**62, so W = number of words."""
    n, q = X.shape
    cmax = 1
    for i in range(q):
        if C[i] > cmax:
            cmax = C[i]
    nw = (n + 63) // 64
    Xt = np.empty((q, n), np.int32)
    y32 = np.empty(n, np.int32)
    BITS = np.zeros((q, cmax, nw), np.uint64)
    YB = np.zeros((K, nw), np.uint64)
    for r in range(n):
        w = r >> 6
        b = np.uint64(1) << np.uint64(r & 63)
        k = y[r]
        y32[r] = k
        YB[k, w] |= b
        for i in range(q):
            c = X[r, i]
            Xt[i, r] = c
            BITS[i, c, w] |= b
    RADIX = np.ones(q, np.int64)
    WORD = np.full(q, -1, np.int64)
    w = 0
    prod = 1
    limit = (1 << 62) - 1
    for i in range(q):
        if C[i] < 2:
            continue
        base = C[i] + 1
        if prod > limit // base:  # prod * base would reach 2**62
            w += 1
            prod = 1
        RADIX[i] = prod
        WORD[i] = w
        prod *= base
    return Xt, y32, BITS, YB, RADIX, WORD, w + 1, _events_per_iteration(C, max_depth)


# ------------------------------------------------------------------------------------------------------------
# the memo: open addressing over mixed-radix keys
# ------------------------------------------------------------------------------------------------------------

@njit(inline="always")
def _mix(h, w):
    """Fold one key word into the hash without int64 overflow (so it runs the same without JIT)."""
    h = ((h & _M30) * 2654435761) ^ (h >> 30)
    h ^= (w & _M30) * 2246822519
    h ^= ((w >> 30) & _M30) * 3266489917
    h ^= (w >> 60) * 668265263
    return h ^ (h >> 29)


@njit(inline="always")
def _hash(key):
    h = 0x5BD1E995
    for w in range(key.shape[0]):
        h = _mix(h, key[w])
    return h


@njit(inline="always")
def _tag(h):
    """The slot's tag in ``OCC``: 0 for an empty slot, else 128 + 7 hash bits that the slot index does not use."""
    return np.uint8(128 | ((h >> 40) & 127))


@njit(inline="always")
def lookup(TABLE, OCC, KEYS, key):
    """Find ``key`` in the memo: ``(node, slot)``, node -1 when absent (``slot`` is then the free slot).

    ``OCC`` holds one tag byte per slot (0: empty), small enough to stay in cache: most keys looked up are
    not in the memo, and the probe reads the table only at a slot whose tag matches the key's (a wrong
    match once in 128 occupied slots), so an absent key rarely touches the table."""
    h = _hash(key)
    tag = _tag(h)
    mask = TABLE.shape[0] - 1
    s = h & mask
    while True:
        t = OCC[s]
        if t == 0:
            return -1, s
        if t == tag and TABLE[s, 1] == key[0]:
            v = TABLE[s, 0]
            same = True
            for w in range(1, key.shape[0]):
                if KEYS[v, w] != key[w]:
                    same = False
                    break
            if same:
                return v, s
        s = (s + 1) & mask


@njit(inline="always")
def insert(TABLE, OCC, slot, v, key):
    """Store node v with ``key`` at the free ``slot`` that :func:`lookup` returned."""
    TABLE[slot, 0] = v
    TABLE[slot, 1] = key[0]
    OCC[slot] = _tag(_hash(key))


@njit
def rehash(TABLE, OCC, KEYS, n_nodes):
    """Fill an empty table (tags all 0) with nodes 0..n_nodes-1 (after the driver enlarged it)."""
    for v in range(n_nodes):
        node, s = lookup(TABLE, OCC, KEYS, KEYS[v])
        insert(TABLE, OCC, s, v, KEYS[v])


# ------------------------------------------------------------------------------------------------------------
# split records: a binary max-heap in place over each expanded branch's records (ties: the paper leaves them open)
# ------------------------------------------------------------------------------------------------------------

@njit(inline="always")
def rec_feature(RC, r):
    return RC[r, R_META] >> _meta_shift(RC)


@njit(inline="always")
def rec_open(RC, r):
    return RC[r, R_META] & ((1 << _meta_shift(RC)) - 1)


@njit(inline="always")
def rec_meta(RC, feature, n_open):
    return (feature << _meta_shift(RC)) | n_open


@njit(inline="always")
def _better(RC, a, b, tie):
    """Does record a come before record b? Larger Q first; on equal Q the paper's heapq order puts the
    smaller done sum first (the less proven split, ``TIE_PAPER``), ``TIE_PROVEN`` the larger; then the
    smaller feature index."""
    qa = RC[a, R_Q]
    qb = RC[b, R_Q]
    if qa != qb:
        return qa > qb
    da = RC[a, R_DONE]
    db = RC[b, R_DONE]
    if da != db:
        return da < db if tie == TIE_PAPER else da > db
    return RC[a, R_META] < RC[b, R_META]  # the feature sits in the high bits


@njit(inline="always")
def swap_records(RC, a, b):
    """Swap split records ``a`` and ``b`` (field by field: a row slice assignment compiles a shape check)."""
    for f in range(RC.shape[1]):
        tmp = RC[a, f]
        RC[a, f] = RC[b, f]
        RC[b, f] = tmp


@njit(inline="always")
def copy_record(RC, dst, src):
    """Copy split record ``src`` over ``dst`` (field by field, as :func:`swap_records`)."""
    for f in range(RC.shape[1]):
        RC[dst, f] = RC[src, f]


@njit(inline="always")
def sift_down(RC, base, size, pos, tie):
    """Restore the heap order of records base..base+size-1 below position ``pos`` (records are swapped)."""
    while True:
        c = 2 * pos + 1
        if c >= size:
            return
        if c + 1 < size and _better(RC, base + c + 1, base + c, tie):
            c += 1
        if not _better(RC, base + c, base + pos, tie):
            return
        swap_records(RC, base + pos, base + c)
        pos = c


@njit
def runner_up(RC, base, size, tie):
    """The record ranked second in a branch's heap (a child of the top), or -1."""
    if size < 2:
        return -1
    if size > 2 and _better(RC, base + 2, base + 1, tie):
        return base + 2
    return base + 1


@njit(inline="always")
def refresh(ND, NC, RC, v):
    """Refresh (Eq. 6, Appendix D.2): R(l) = max{H(l), Q(l, top)}; l is complete when the leaf wins (ties go to the
    leaf) or when the top split has no open child. Returns the completion reason, or REASON_NONE."""
    top = ND[v, D_REC]
    q = RC[top, R_Q]
    h = ND[v, D_H]
    ND[v, D_R] = h if h >= q else q
    if ND[v, D_FLAGS] & F_COMPLETE:
        return REASON_NONE
    if h >= q:
        ND[v, D_FLAGS] |= F_COMPLETE | F_LEAF
        NC[v, I_REASON] = REASON_LEAF
        return REASON_LEAF
    if rec_open(RC, top) == 0:
        ND[v, D_FLAGS] |= F_COMPLETE
        NC[v, I_REASON] = REASON_SPLIT
        return REASON_SPLIT
    return REASON_NONE


# ------------------------------------------------------------------------------------------------------------
# branches
# ------------------------------------------------------------------------------------------------------------

def _popcount_swar(x):
    """Number of set bits of a uint64 (SWAR, no multiplication): the plain-Python version."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return np.int64(x & np.uint64(0x7F))


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's ctpop (one POPCNT instruction where the CPU has it) of an unsigned 64-bit integer."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(x), codegen


if not COMPILED:  # no numba, or the coverage run: intrinsics only exist compiled
    popcount = _popcount_swar
else:
    @njit(inline="always")
    def popcount(x):
        """Number of set bits of a uint64."""
        return _ctpop(x)


@intrinsic
def _borrowed(typingctx, group):
    """The arrays of ``group`` (an array or a tuple of arrays, scalars and groups) without their reference count
    (meminfo and parent NULL): numba's increments and decrements of such an array are a NULL test, not an
    atomic operation. Only for arrays that outlive the call, such as a kernel's arguments."""
    if not isinstance(group, (types.Array, types.BaseTuple)):
        return None

    def borrow(context, builder, ty, value):
        if not isinstance(ty, types.Array):  # a scalar, or a group inside the group (a researcher's bound):
            context.nrt.incref(builder, ty, value)  # a new reference, as the caller releases what it gets
            return value
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
        ary.parent = context.get_constant_null(types.pyobject)
        return ary._getvalue()

    def codegen(context, builder, signature, args):
        ty, value = signature.args[0], args[0]
        if isinstance(ty, types.Array):
            return borrow(context, builder, ty, value)
        for i, t in enumerate(ty.types):
            value = builder.insert_value(value, borrow(context, builder, t, builder.extract_value(value, i)), i)
        return value

    return group(group), codegen


if not COMPILED:  # no numba, or the coverage run: nothing is reference-counted
    def borrowed(group):
        """The group itself."""
        return group
else:
    @njit(inline="always")
    def borrowed(group):
        """``group``'s arrays borrowed for the duration of a kernel call (:func:`_borrowed`): the kernel unpacks
        its groups through it, so that handing arrays to the inlined procedures costs no atomic
        reference-count updates."""
        return _borrowed(group)


@njit
def bitset_rows(RB, rows):
    """Write the indices of the set bits of the bitset RB into ``rows``; return their number."""
    m = 0
    for w in range(RB.shape[0]):
        word = RB[w]
        while word != np.uint64(0):
            low = word & (~word + np.uint64(1))
            rows[m] = w * 64 + popcount(low - np.uint64(1))
            m += 1
            word ^= low
    return m


@njit(inline="always")
def majority(ccnt, j, K):
    """k* of the child of category j (Eq. 4): its most frequent class in the counts ``ccnt[j * K + k]``, the
    lowest on ties."""
    base = j * K
    best = 0
    top = ccnt[base]  # held in a register: the loop reads each count once
    for kk in range(1, K):
        c = ccnt[base + kk]
        if c > top:
            best = kk
            top = c
    return best


@njit(inline="always")
def leaf_value(den, n_best):
    """H(l) = n_{k*}(l) / n (Eq. 4), the value of the leaf action at l, in units of 1 / (n * D)."""
    return den * n_best


@njit(inline="always")
def purification_bound(den, lam, n_l):
    """The Purification Bound of a split of a branch with n(l) rows (Prop 4.2, Eq. 7): Q(l, a) = -lambda +
    n(l) / n, the value of a split that makes every child pure, in units of 1 / (n * D). A branch not
    expanded yet has R(l) = max{H(l), this} (Eq. 8); when H(l) reaches it (errors <= lambda * n) no split
    can beat the leaf and l is settled at birth."""
    return den * n_l - lam


@njit(inline="always")
def new_node(params, CN, ND, NC, KEYS, TABLE, OCC, key, slot, depth, n_l, n_best, pred, has_actions):
    """INITIALISE (Algorithm 1, lines 56-76): store a new branch in the memo with R = max{H, P - lambda}
    (Prop 4.2, Eq. 8), complete at once when it cannot be split or the leaf wins."""
    v = CN[C_NODES]
    CN[C_NODES] = v + 1
    CN[C_EVALS] += 1
    for w in range(key.shape[0]):
        KEYS[v, w] = key[w]
    insert(TABLE, OCC, slot, v, key)
    h = leaf_value(params.den, n_best)
    bound = purification_bound(params.den, params.lam, n_l)
    ND[v, D_H] = h
    ND[v, D_G] = h
    ND[v, D_REC] = -1
    ND[v, D_NACT] = 0
    ND[v, D_BEST] = -1
    ND[v, D_DEPTH] = depth
    NC[v, I_N] = n_l
    NC[v, I_NBEST] = n_best
    NC[v, I_PRED] = pred
    if h >= bound:  # errors <= lambda * n: a settled leaf
        ND[v, D_R] = h
        ND[v, D_FLAGS] = F_COMPLETE | F_LEAF | F_SETTLED
        NC[v, I_REASON] = REASON_SETTLED
    elif not has_actions:
        ND[v, D_R] = h
        ND[v, D_FLAGS] = F_COMPLETE | F_LEAF
        NC[v, I_REASON] = REASON_NO_ACTIONS
    else:
        ND[v, D_R] = bound
        ND[v, D_FLAGS] = 0
        NC[v, I_REASON] = REASON_NONE
    return v


@njit
def init_root(params, y, WORD, CN, ND, NC, KEYS, TABLE, OCC):
    """Evaluate the root before the loop (Appendix D.2): R(Omega) = max{H, 1 - lambda}. ``params`` as a plain
    tuple, the arrays one by one, as :func:`branches_kernel` gets them (numba types a namedtuple in Python)."""
    params = Params(*params)
    n = params.n
    counts = np.zeros(params.K, np.int64)
    for r in range(n):
        counts[y[r]] += 1
    pred = majority(counts, 0, params.K)
    key = np.zeros(params.key_words, np.int64)
    for w in range(key.shape[0]):
        KEYS[0, w] = 0
    has_actions = False  # some feature has two categories or more (WORD[i] >= 0)
    for i in range(WORD.shape[0]):
        if WORD[i] >= 0:
            has_actions = params.max_depth != 0
    node, slot = lookup(TABLE, OCC, KEYS, key)
    return new_node(params, CN, ND, NC, KEYS, TABLE, OCC, key, slot, np.int64(0), n, counts[pred], pred,
                    has_actions)


@njit(inline="always")
def inline_slot(RC, n_l, n_best, is_open):
    """The slot of a child written inline: n(l) and n_{k*} above the two flag bits (layout of RC's width)."""
    return (n_l << _count_shift(RC)) | (n_best << 2) | S_INLINE | (S_OPEN if is_open else 0)


@njit(inline="always")
def inline_n(RC, s):
    sh = _count_shift(RC)
    return (s >> sh) & ((1 << (sh - 2)) - 1)


@njit(inline="always")
def inline_best(RC, s):
    return (s >> 2) & ((1 << (_count_shift(RC) - 2)) - 1)


@njit(inline="always")
def select_child(ND, RC, r, c_i, rule, den):
    """The open child Selection follows: min G (V-late D.2 and the authors' code), min H (V-early) or the
    first open one; ties go to the lowest category. An inline child has G = H. Returns its category."""
    best = -1
    best_val = 0
    for j in range(c_i):
        s = RC[r, R_KIDS + j]
        if s & S_OPEN == 0:
            continue
        if rule == RULE_FIRST:
            return j
        if s & S_INLINE:
            val = den * inline_best(RC, s)
        elif rule == RULE_MIN_G:
            val = ND[s >> 2, D_G]
        else:
            val = ND[s >> 2, D_H]
        if best < 0 or val < best_val:
            best = j
            best_val = val
    return best


@njit(inline="always")
def find_record(ND, RC, v, feature):
    """The split record of expanded branch v for ``feature`` (records are in heap order)."""
    base = ND[v, D_REC]
    for r in range(base, base + ND[v, D_NACT]):
        if rec_feature(RC, r) == feature:
            return r
    return -1


@njit(inline="always")
def release(ND, RC, FREE, v):
    """Free the split records of branch v once it is complete: Selection and Backpropagation never read them
    again (they stop at complete branches), and INFER_INCUMBENT reads only the record of its best-G split
    (none for a leaf), which stays as the block's first row. The other rows go to ``FREE[size]``, a list of
    free blocks of ``size`` rows linked through their first row's Q, which the next expansion with as many
    split actions reuses. Only addresses change: the search, its trees and its events stay the same."""
    base = ND[v, D_REC]
    size = ND[v, D_NACT]
    keep = 0
    if ND[v, D_BEST] >= 0 and not ND[v, D_FLAGS] & F_LEAF:
        r = find_record(ND, RC, v, ND[v, D_BEST])
        if r != base:
            copy_record(RC, base, r)
        keep = 1
    if size > keep:
        free_block(RC, FREE, base + keep, size - keep)
    ND[v, D_NACT] = keep


@njit(inline="always")
def free_block(RC, FREE, base, size):
    """Put the ``size`` records from row ``base`` on the free list ``FREE[size]`` (linked through their first
    row's Q), for the next block of as many records (:func:`take_records`)."""
    RC[base, R_Q] = FREE[size]
    FREE[size] = base


@njit(inline="always")
def link_parents(RADIX, WORD, ND, KEYS, TABLE, OCC, RC, v, n_test, test_f, test_c, key):
    """Point the inline slot of branch v in every expanded parent (v minus one of its first ``n_test`` tests)
    to its memo node: the kernel re-points the slot in the parent Selection came through itself (the last
    test), without a lookup."""
    for t in range(n_test):
        f = test_f[t]
        for w in range(key.shape[0]):
            key[w] = KEYS[v, w]
        key[WORD[f]] -= (test_c[t] + 1) * RADIX[f]
        p, slot = lookup(TABLE, OCC, KEYS, key)
        if p < 0 or ND[p, D_REC] < 0:
            continue
        r = find_record(ND, RC, p, f)  # -1: a record p dropped (:func:`keep_best`), rebuilt from the memo
        if r >= 0 and RC[r, R_KIDS + test_c[t]] & S_INLINE:
            RC[r, R_KIDS + test_c[t]] = v * 4 + S_OPEN


# ------------------------------------------------------------------------------------------------------------
# the kernel: Algorithm 1 of Appendix E, one procedure per function
# ------------------------------------------------------------------------------------------------------------
# The kernel unpacks its groups once per call (:func:`borrowed`) and hands each procedure the arrays it
# touches. numba increments and decrements the reference count of every array an inlined function receives
# (a group: of each of its arrays) at every call, and its pruning leaves most of them in a kernel this size
# (perf put a fifth of a monk2-f run's samples in NRT_incref / NRT_decref before the arrays were borrowed).

Work = namedtuple("Work", "ints bits bound")
Work.__doc__ = """Scratch memory of the kernel (not part of the resumable state; the solver makes it once, :func:`make_work`),
two arrays so that a kernel call types two arguments rather than twelve; :func:`scratch` cuts them into
Selection's ``path`` of memo nodes and its tests (``test_f[t]``, ``test_c[t]``: feature and category of
step t), a branch ``key``; the split actions ``act`` of the selected branch (``used[i]`` = 1 marks its
tested features); Expansion's data extraction: the branch's rows as a bitset ``RB`` (``RBY[k]``: its rows
of class k, ``pk[k]`` their number) or a row list ``rows``, and the counts of one feature's categories,
``cnt[j]`` rows and ``ccnt[j * K + k]`` of class k; ``bound``: a researcher's bound (:data:`UserBound`), or None."""

Split = namedtuple("Split", "leaf depth feature categories word radix record child_actions")
Split.__doc__ = """The scalars of one SPLIT(l, a) call (:func:`split`): the branch ``leaf`` (memo node) at ``depth``,
the action's ``feature`` i with C_i ``categories`` and its key ``word`` / ``radix``, the split ``record``
row it fills, and whether the children have split actions left (``child_actions``)."""


def make_work(params, n_words, bound=None):
    """The kernel's scratch memory (:class:`Work`); ``n_words`` = 64-bit words of a row bitset (plain Python:
    two allocations, where a compiled call would cost more in typing its arguments); ``bound`` a
    :data:`UserBound` or None."""
    q, K, cmax = params.q, params.K, params.cmax
    ints = (q + 2) + 2 * (q + 1) + params.key_words + 2 * q + params.n + K + cmax + cmax * K
    return Work(np.zeros(ints, np.int64), np.zeros((K + 1) * n_words, np.uint64), bound)


@njit(inline="always")
def scratch(params, work):
    """The scratch arrays of :class:`Work`, views of its two arrays in the order of its docstring: ``path,
    test_f, test_c, key, act, used, rows, RB, RBY, pk, cnt, ccnt``."""
    q, K, cmax = params.q, params.K, params.cmax
    ints, bits = work.ints, work.bits
    nw = bits.shape[0] // (K + 1)
    a = q + 2
    b = a + q + 1
    c = b + q + 1
    d = c + params.key_words
    e = d + q
    f = e + q
    g = f + params.n
    h = g + K
    i = h + cmax
    return (ints[:a], ints[a:b], ints[b:c], ints[c:d], ints[d:e], ints[e:f], ints[f:g], bits[:nw],
            bits[nw:].reshape((K, nw)), ints[g:h], ints[h:i], ints[i:i + cmax * K])


@njit(inline="always")
def split_actions(params, WORD, used, act, test_f, plen):
    """The split actions A(l) minus the leaf action of the selected branch (Algorithm 1, line 26): every
    feature with two or more categories that its ``plen`` tests ``test_f`` do not use; none at
    ``max_depth``. Written to ``act``; returns their number."""
    n_act = 0
    if params.max_depth < 0 or plen < params.max_depth:
        for t in range(plen):
            used[test_f[t]] = 1
        for i in range(params.q):
            if WORD[i] >= 0 and not used[i]:
                act[n_act] = i
                n_act += 1
        for t in range(plen):
            used[test_f[t]] = 0
    return n_act


@njit(inline="always")
def needs_room(params, CN, ND, TABLE, RC, FREE, n_act):
    """Before an expansion changes anything: does it need larger arrays (a memo node, ``n_act`` split records
    past the free blocks, and the block of at most ``keep + 2`` that :func:`keep_best` takes)? If so, the sizes
    go to ``CN[C_GROW / C_NEED_*]`` for the driver."""
    grow = 0
    if CN[C_NODES] + 1 > ND.shape[0] or 2 * (CN[C_NODES] + 1) > TABLE.shape[0]:
        grow |= GROW_NODES
    fresh = n_act if FREE[n_act] < 0 else 0  # rows taken past CN[C_RECS]
    if lazy_records(params, n_act):
        fresh += params.keep + 2
    if CN[C_RECS] + fresh > RC.shape[0]:
        grow |= GROW_RECS
    if grow:
        CN[C_GROW] = grow
        CN[C_NEED_NODES] = CN[C_NODES] + 1
        CN[C_NEED_RECS] = CN[C_RECS] + fresh
    return grow != 0


@njit(inline="always")
def extract_rows(YB, BITS, RB, RBY, pk, test_f, test_c, plen):
    """The selected branch's rows as a bitset ``RB``, the AND of its ``plen`` tests' row bitsets (Appendix
    D.2's data extraction), with its rows of each class ``RBY[k]`` and their numbers ``pk[k]``."""
    K, nw = YB.shape[0], YB.shape[1]
    for w in range(nw):
        RB[w] = YB[0, w]
        for kk in range(1, K):
            RB[w] |= YB[kk, w]
    for t in range(plen):
        for w in range(nw):
            RB[w] &= BITS[test_f[t], test_c[t], w]
    for kk in range(K):
        pk[kk] = 0
        for w in range(nw):
            RBY[kk, w] = RB[w] & YB[kk, w]
            pk[kk] += popcount(RBY[kk, w])


@njit(inline="always")
def child_key(KEYS, key, v, word, radix, c):
    """The key of branch v's child of category c on a feature with key ``word`` and ``radix``, into ``key``."""
    for w in range(key.shape[0]):
        key[w] = KEYS[v, w]
    key[word] += (c + 1) * radix


@njit(inline="always")
def memoise_selected(params, CN, ND, NC, KEYS, TABLE, OCC, RC, key, pk, inline, c, depth):
    """INITIALISE's ``memo.add`` (Algorithm 1, line 75) for a selected branch with ``key`` at ``depth`` that
    was the inline child of category c of split record ``inline``: store it (its class counts ``pk``) and
    point its slot to it. Returns its node."""
    s = RC[inline, R_KIDS + c]
    pred = 0
    for kk in range(1, params.K):
        if pk[kk] > pk[pred]:
            pred = kk
    found, slot = lookup(TABLE, OCC, KEYS, key)
    v = new_node(params, CN, ND, NC, KEYS, TABLE, OCC, key, slot, depth, inline_n(RC, s), inline_best(RC, s), pred,
                 True)
    CN[C_EVALS] -= 1  # it was counted when its parent was expanded
    RC[inline, R_KIDS + c] = v * 4 + S_OPEN
    return v


@njit(inline="always")
def count_by_bitsets(BITS, RB, RBY, pk, cnt, ccnt, i, c_i, m):
    """Class counts of every category of feature i among the selected branch's m rows (``cnt[j]``,
    ``ccnt[j * K + k]``) by popcounts of bitset intersections, the last category and the last class by
    subtraction (V-early B.2)."""
    K, nw = RBY.shape[0], RB.shape[0]
    for kk in range(K):
        ccnt[(c_i - 1) * K + kk] = pk[kk]
    cnt[c_i - 1] = m
    for j in range(c_i - 1):
        tot = 0
        for w in range(nw):
            tot += popcount(RB[w] & BITS[i, j, w])
        cnt[j] = tot
        cnt[c_i - 1] -= tot
        for kk in range(K - 1):
            s_jk = 0
            for w in range(nw):
                s_jk += popcount(RBY[kk, w] & BITS[i, j, w])
            ccnt[j * K + kk] = s_jk
            tot -= s_jk
        ccnt[j * K + K - 1] = tot
        for kk in range(K):
            ccnt[(c_i - 1) * K + kk] -= ccnt[j * K + kk]


@njit(inline="always")
def count_by_rows(Xt, y, rows, cnt, ccnt, i, c_i, K, m):
    """The same counts by one pass over the branch's row list ``rows[:m]`` (:func:`bitset_rows`)."""
    for j in range(c_i):
        cnt[j] = 0
    for t in range(c_i * K):
        ccnt[t] = 0
    for t in range(m):
        row = rows[t]
        c = Xt[i, row]
        cnt[c] += 1
        ccnt[c * K + y[row]] += 1


@njit
def report_init(params, CN, ND, NC, events, k):
    """Init, and Terminated when the root is complete at birth (level summary and full)."""
    scale = params.scale
    flags = ND[ROOT, D_FLAGS]
    k = emit_init(events, k, CN[C_ITER], root=ROOT, lam=params.lam * scale, n=params.n, q=params.q,
                  K=params.K, R=ND[ROOT, D_R] * scale, G=ND[ROOT, D_G] * scale, H=ND[ROOT, D_H] * scale,
                  P=NC[ROOT, I_N] * params.den * scale, state=flags)
    if flags & F_COMPLETE:
        k = report_terminated(params, ND, CN, events, k, CN[C_ITER])
    return k


@njit
def report_terminated(params, ND, CN, events, k, it):
    scale = params.scale
    return emit_terminated(events, k, it, node=ROOT, objective=ND[ROOT, D_R] * scale, root_R=ND[ROOT, D_R] * scale,
                           root_G=ND[ROOT, D_G] * scale, iterations=CN[C_ITER], evaluations=CN[C_EVALS],
                           memo_size=CN[C_NODES], expanded=CN[C_EXPANDED] * 1.0, root_feature=ND[ROOT, D_BEST],
                           optimal=1)


@njit(inline="always")
def report_select_step(params, ND, NC, RC, CAT, events, k, it, v, r, j, previous):
    """SelectStep at branch v (split record r, child category j) and a SelectCandidate per open child."""
    lam, den, scale = params.lam, params.den, params.scale
    i = rec_feature(RC, r)
    s = RC[r, R_KIDS + j]
    ru = runner_up(RC, r, ND[v, D_NACT], params.tie_break)
    ru_q = np.nan
    ru_f = -1.0
    if ru >= 0:
        ru_q = RC[ru, R_Q] * scale
        ru_f = rec_feature(RC, ru) * 1.0
    k = emit_select_step(events, k, it, depth=ND[v, D_DEPTH], node_id=v, previous=previous, chosen_feature=i,
                         Q=RC[r, R_Q] * scale, R=ND[v, D_R] * scale, G=ND[v, D_G] * scale,
                         chosen_child=-1 if s & S_INLINE else s >> 2, category=j, rule=params.child_rule,
                         runner_up_Q=ru_q, runner_up_feature=ru_f, n_open=rec_open(RC, r))
    for jj in range(CAT[i]):
        sj = RC[r, R_KIDS + jj]
        if sj & S_OPEN == 0:
            continue
        fl = CANDIDATE_CHOSEN if jj == j else 0
        if sj & S_INLINE:  # a branch not expanded yet: R = P - lambda, G = H (Eq. 8)
            c = -1
            depth = ND[v, D_DEPTH] + 1
            n_l, n_best = inline_n(RC, sj), inline_best(RC, sj)
            R = purification_bound(den, lam, n_l)
            G = H = leaf_value(den, n_best)
        else:
            c = sj >> 2
            depth = ND[c, D_DEPTH]
            n_l, n_best = NC[c, I_N], NC[c, I_NBEST]
            R, G, H = ND[c, D_R], ND[c, D_G], ND[c, D_H]
            if ND[c, D_FLAGS] & F_COMPLETE:
                fl |= CANDIDATE_COMPLETE
        k = emit_select_candidate(events, k, it, depth=depth, child_id=c, node_id=v, feature=i, category=jj * 1.0,
                                  R=R * scale, G=G * scale, n_l=n_l, n_best=n_best, H=H * scale, state=fl)
    return k


@njit
def report_completed(params, ND, RC, events, k, it, v, depth, parent, reason):
    """NodeCompleted of memo branch v at ``depth`` (``parent`` on the path, -1 for the root) for ``reason``
    (REASON_*); a branch completed by its best split names that split's feature (its top record)."""
    scale = params.scale
    return emit_node_completed(events, k, it, depth=depth, node_id=v, parent_id=parent,
                               best_feature=rec_feature(RC, ND[v, D_REC]) if reason == REASON_SPLIT else -1,
                               category=0.0, R=ND[v, D_R] * scale, G=ND[v, D_G] * scale, reason=reason,
                               state=ND[v, D_FLAGS])


@njit
def report_iteration_start(params, ND, CN, events, k, it):
    scale = params.scale
    R, G = ND[ROOT, D_R], ND[ROOT, D_G]
    return emit_iteration_start(events, k, it, node=ROOT, root_R=R * scale, root_G=G * scale, memo_size=CN[C_NODES],
                                evaluations=CN[C_EVALS], expanded=CN[C_EXPANDED], gap=(R - G) * scale)


@njit
def report_iteration_end(params, ND, CN, events, k, it, flags):
    scale = params.scale
    R, G = ND[ROOT, D_R], ND[ROOT, D_G]
    return emit_iteration_end(events, k, it, node=ROOT, root_R=R * scale, root_G=G * scale, memo_size=CN[C_NODES],
                              evaluations=CN[C_EVALS], expanded=CN[C_EXPANDED], gap=(R - G) * scale, state=flags)


@njit(inline="always")
def report_child(params, ND, events, k, it, sp, j, c, n_l, n_best, pred, state):
    """ChildEvaluated of child j of SPLIT ``sp`` (:func:`split`): memo branch ``c``, or (c = -1) a leaf
    for good (``state`` has F_COMPLETE; then also its NodeCompleted) or a branch not expanded yet (state
    0), whose R and G follow from ``n_l`` rows, ``n_best`` of class ``pred`` (Eq. 8). Written in SPLIT's
    loop, which has these values at hand (a second pass over the slots after the loop recomputed k* per child)."""
    lam, den, scale = params.lam, params.den, params.scale
    h = leaf_value(den, n_best)
    bound = purification_bound(den, lam, n_l)
    if c >= 0:
        R, G = ND[c, D_R], ND[c, D_G]
    else:
        R, G = h if state & F_COMPLETE else bound, h
    k = emit_child_evaluated(events, k, it, depth=sp.depth + 1, child_id=c, parent_id=sp.leaf, feature=sp.feature,
                             category=j * 1.0, R=R * scale, G=G * scale, n_l=n_l, n_best=n_best, pred=pred,
                             H=h * scale, bound=bound * scale, state=state)
    if c < 0 and state & F_COMPLETE:
        k = emit_node_completed(events, k, it, depth=sp.depth + 1, node_id=-1, parent_id=sp.leaf,
                                best_feature=sp.feature, category=j * 1.0, R=h * scale, G=h * scale,
                                reason=REASON_SETTLED if state & F_SETTLED else REASON_NO_ACTIONS, state=state)
    return k


@njit
def report_split(params, ND, events, k, it, sp, q_sum, g_sum, n_open, done):
    """SplitScored of SPLIT ``sp`` (:func:`split`), after the ChildEvaluated of its children: Q(l, i) = ``q_sum``
    (Eq. 5), the split's incumbent ``g_sum``."""
    scale = params.scale
    return emit_split_scored(events, k, it, depth=sp.depth, node_id=sp.leaf, feature=sp.feature, Q=q_sum * scale,
                             R_before=ND[sp.leaf, D_R] * scale, g=g_sum * scale, n_open=n_open,
                             n_children=sp.categories, done=(done - params.lam) * scale, complete=n_open == 0)


@njit
def report_expansion(params, ND, RC, path, events, k, it, leaf, n_act, r_before, reason):
    """Expansion of branch ``leaf`` into ``n_act`` split records (R was ``r_before``), and its
    NodeCompleted when ``reason`` completed it (:func:`expand`)."""
    scale = params.scale
    plen = ND[leaf, D_DEPTH]
    rec0 = ND[leaf, D_REC]
    k = emit_expansion(events, k, it, depth=plen, node_id=leaf, best_feature=rec_feature(RC, rec0),
                       best_Q=RC[rec0, R_Q] * scale, R_after=ND[leaf, D_R] * scale, G=ND[leaf, D_G] * scale,
                       reason=reason, incumbent_feature=ND[leaf, D_BEST], n_actions=n_act,
                       R_before=r_before * scale, H=ND[leaf, D_H] * scale, state=ND[leaf, D_FLAGS])
    if reason != REASON_NONE:
        k = report_completed(params, ND, RC, events, k, it, leaf, plen, path[plen - 1] if plen > 0 else -1, reason)
    return k


@njit(inline="always")
def report_backprop_step(params, ND, RC, path, events, k, it, t, i, change, removed, reason):
    """BackpropStep at ``path[t]`` whose top split was on feature i (``change``: that split's Q, the
    branch's R and G before the step, and the split's new Q), and its NodeCompleted when ``reason``
    completed it (:func:`backpropagate`)."""
    scale = params.scale
    q_before, r_before, g_before, q_after = change
    v = path[t]
    r = ND[v, D_REC]
    fl = CHANGE_TOP if rec_feature(RC, r) != i else 0
    if reason != REASON_NONE:
        fl |= CHANGE_COMPLETE
    if ND[v, D_G] > g_before:
        fl |= CHANGE_G
    k = emit_backprop_step(events, k, it, depth=t, node_id=v, child_id=path[t + 1], feature=i,
                           Q_after=q_after * scale, R_after=ND[v, D_R] * scale,
                           G_after=ND[v, D_G] * scale, n_removed=removed, top_feature=rec_feature(RC, r),
                           reason=reason, Q_before=q_before * scale, R_before=r_before * scale, changes=fl)
    if reason != REASON_NONE:
        k = report_completed(params, ND, RC, events, k, it, v, t, path[t - 1] if t > 0 else -1, reason)
    return k


@njit(inline="always")
def select(level, params, ND, NC, RC, CAT, path, test_f, test_c, events, k, it):
    """SELECT (Algorithm 1, lines 14-23): from the root, follow each expanded, open branch's best split
    (the top of its heap, line 18) to the open child the child rule picks (line 19: min G by default,
    Appendix D.2), until a branch that is not expanded, is complete or has the dropped bound of
    :func:`keep_best` on top (expanded again). A child not in the memo yet ends
    the descent (``inline``: the record holding its slot, else -1). Changes nothing but the path; at level
    full it writes each step's events (:func:`report_select_step`). Returns ``(v, plen, inline, k)``:
    ``path[:plen + 1]`` the memo nodes of the path, ``v`` the last, ``test_f / test_c[:plen]`` its tests."""
    v = ROOT
    plen = 0
    path[0] = ROOT
    inline = -1
    while (ND[v, D_FLAGS] & (F_EXPANDED | F_COMPLETE)) == F_EXPANDED:
        r = ND[v, D_REC]
        i = rec_feature(RC, r)
        if i == params.q:  # the dropped bound is the top: expand v again (:func:`keep_best`)
            break
        j = select_child(ND, RC, r, CAT[i], params.child_rule, params.den)
        s = RC[r, R_KIDS + j]
        if level >= LEVEL_FULL:
            previous = path[plen - 1] if plen > 0 else -1
            k = report_select_step(params, ND, NC, RC, CAT, events, k, it, v, r, j, previous)
        test_f[plen] = i  # the branch's tests are the steps of the path
        test_c[plen] = j
        plen += 1
        if s & S_INLINE:
            inline = r  # its category is test_c[plen - 1]
            break
        v = s >> 2
        path[plen] = v
    return v, plen, inline, k


@njit(inline="always")
def take_records(CN, RC, FREE, n_act):
    """The first row of a block of ``n_act`` split records for an expansion: a free block of that size (see
    :func:`release`), else fresh rows past ``CN[C_RECS]``."""
    rec0 = FREE[n_act]
    if rec0 >= 0:
        FREE[n_act] = RC[rec0, R_Q]
    else:
        rec0 = CN[C_RECS]
        CN[C_RECS] = rec0 + n_act
    return rec0


@njit(inline="always")
def split(level, params, ND, RC, CN, KEYS, TABLE, OCC, key, cnt, ccnt, events, k, it, sp, ubound):
    """SPLIT (Algorithm 1, lines 77-96) of the selected branch ``sp.leaf`` on feature ``sp.feature`` into
    split record ``sp.record`` (:class:`Split`), from the category counts ``cnt`` / ``ccnt``
    (:func:`count_by_bitsets`): each child l_ij is a leaf for good (settled, errors <= lambda * n, or without
    split actions: R = H), a branch not expanded yet (INITIALISE, lines 56-76: R = max{H, P - lambda},
    :func:`purification_bound`) or a memo branch (its R), found by its key (``key`` holds the leaf's).
    Q(l, i) = -lambda + sum of the children's R (Eq. 5, line 88), done = the part from complete children
    (line 90); the split's incumbent G = -lambda + sum of their G may improve G(l). A researcher's bound
    ``ubound`` may settle an open child (:func:`bound_settles`). At level full each child's ChildEvaluated
    (:func:`report_child`: a leaf for good, settled when its errors are at most lambda * n or a researcher's
    bound settled it; a branch not expanded yet; or a memo branch) is written in the loop, then SplitScored.
    Returns k."""
    K, lam, den = params.K, params.lam, params.den
    leaf, i, r, wi = sp.leaf, sp.feature, sp.record, sp.word
    q_sum = -lam
    g_sum = -lam
    done = 0
    n_open = 0
    for j in range(sp.categories):
        best_k = majority(ccnt, j, K)
        n_best = ccnt[j * K + best_k]
        h = leaf_value(den, n_best)
        bound = purification_bound(den, lam, cnt[j])
        settled = h >= bound or (sp.child_actions and bound_settles(ubound, params, ccnt, j, cnt[j] - n_best, sp))
        c = -1
        if settled or not sp.child_actions:  # complete at birth: a leaf for good
            CN[C_EVALS] += 1
            RC[r, R_KIDS + j] = inline_slot(RC, cnt[j], n_best, False)
            q_sum += h
            g_sum += h
            done += h
            state = F_COMPLETE | F_LEAF | (F_SETTLED if settled else 0)  # by Eq. 8, or by a researcher's bound
        else:
            key[wi] = KEYS[leaf, wi] + (j + 1) * sp.radix
            c, slot = lookup(TABLE, OCC, KEYS, key)
            if c < 0:  # not expanded yet: R = P - lambda, G = H (Eq. 8)
                CN[C_EVALS] += 1
                RC[r, R_KIDS + j] = inline_slot(RC, cnt[j], n_best, True)
                q_sum += bound
                g_sum += h
                n_open += 1
                state = 0
            else:
                state = ND[c, D_FLAGS]
                q_sum += ND[c, D_R]
                g_sum += ND[c, D_G]
                if state & F_COMPLETE:
                    done += ND[c, D_R]
                    RC[r, R_KIDS + j] = c * 4
                else:
                    n_open += 1
                    RC[r, R_KIDS + j] = c * 4 + S_OPEN
                state |= F_MEMO_HIT
        if level >= LEVEL_FULL:
            k = report_child(params, ND, events, k, it, sp, j, c, cnt[j], n_best, best_k, state)
    key[wi] = KEYS[leaf, wi]
    RC[r, R_Q] = q_sum
    RC[r, R_DONE] = done
    RC[r, R_META] = rec_meta(RC, i, n_open)
    if g_sum > ND[leaf, D_G]:
        ND[leaf, D_G] = g_sum
        ND[leaf, D_BEST] = i
    if level >= LEVEL_FULL:
        k = report_split(params, ND, events, k, it, sp, q_sum, g_sum, n_open, done)
    return k


@njit(inline="always")
def lazy_records(params, n_act):
    """Does an expansion with ``n_act`` split actions keep only its best records (:func:`keep_best`)?"""
    return n_act > params.keep + 2


@njit
def keep_best(params, ND, RC, FREE, CN, leaf, rec0, n_act):
    """Lazy split records: of the ``n_act`` records from ``rec0`` (a max-heap) the branch ``leaf`` keeps the
    ``keep`` best by Q (Eq. 5), the one of its incumbent's split (``D_BEST``, which INFER_INCUMBENT reads) and a
    *dropped bound*: a record of feature q (no feature) whose Q is the largest Q of the others and whose
    one open child is never followed. They move to a block of their own (:func:`take_records`); the
    ``n_act`` rows are freed. Returns (first row, number of records).

    Soundness. A record's Q(l, i) = -lambda + sum_j R(l_ij) only falls, as every R(l_ij) only falls
    (upper bounds are only lowered, Prop 4.2 and Eq. 6), so the dropped bound B >= Q(l, i) for every dropped
    i at any later time, and R(l) = max{H(l), kept Q's, B} >= max{H(l), max_i Q(l, i)} = the paper's R(l) >=
    R*(l): every bound the search reports stays an upper bound, exactly as a record not updated since its
    expansion is (Backpropagation updates only the split Selection followed). l completes only when the
    leaf beats every record (H >= B included) or a kept record with no open child is the top (its Q is then
    exact and >= B >= every dropped Q): the completion tests of Eq. 6 on the full set. The dropped bound
    loses every tie on Q (its done sum is the one :func:`_better` ranks last, its feature q the largest), so
    the top after an expansion is a kept record. When Selection reaches a branch whose top is the dropped
    bound (:func:`select`), the kernel expands it again: it counts the rows again, rebuilds every record
    from the memo's current R's (a dropped record's children that were expanded since are memo branches) and
    keeps the best again; B can only fall. A dropped record has no slot to re-point (:func:`link_parents`).
    Not inlined: it runs only in the expansions that drop records, and its arrays are borrowed (:func:`borrowed`)."""
    tie = params.tie_break
    n_keep = params.keep
    for t in range(n_keep):  # pop the n_keep best to the end of the heap, the best last
        last = rec0 + n_act - 1 - t
        swap_records(RC, rec0, last)
        sift_down(RC, rec0, n_act - 1 - t, np.int64(0), tie)
    rest = n_act - n_keep
    g = -1  # the incumbent's split, when it is not among the best
    for r in range(rec0, rec0 + rest):
        if rec_feature(RC, r) == ND[leaf, D_BEST]:
            g = r
    dropped = -(1 << 62)
    for r in range(rec0, rec0 + rest):
        if r != g and RC[r, R_Q] > dropped:
            dropped = RC[r, R_Q]
    size = n_keep + (2 if g >= 0 else 1)
    block = take_records(CN, RC, FREE, size)
    for t in range(n_keep):
        copy_record(RC, block + t, rec0 + n_act - 1 - t)
    if g >= 0:
        copy_record(RC, block + n_keep, g)
    s = block + size - 1
    for f in range(RC.shape[1]):
        RC[s, f] = 0
    RC[s, R_Q] = dropped
    RC[s, R_DONE] = NARROW_UNITS if tie == TIE_PAPER else -NARROW_UNITS
    RC[s, R_META] = rec_meta(RC, params.q, 1)
    free_block(RC, FREE, rec0, n_act)
    for pos in range(size // 2 - 1, -1, -1):
        sift_down(RC, block, size, pos, tie)
    return block, size


@njit(inline="always")
def expand(level, params, ND, NC, RC, FREE, CN, path, events, k, it, leaf, rec0, n_act):
    """The end of EXPAND (Algorithm 1, lines 24-34) of the selected branch ``leaf``, after one SPLIT per split
    action into the ``n_act`` records from ``rec0``: they become a max-heap on Q (the paper's queue), of
    which :func:`keep_best` keeps the best when there are more than ``keep + 2`` (a re-expansion frees the
    branch's previous records first); then R(l) = max{H(l), Q of the top} (line 28, Eq. 6) and l is
    complete when the leaf wins or the top split has no open child (:func:`refresh`). ``path`` names l's
    parent in events. Returns k."""
    r_before = ND[leaf, D_R]
    for pos in range(n_act // 2 - 1, -1, -1):
        sift_down(RC, rec0, n_act, pos, params.tie_break)
    size = n_act
    if ND[leaf, D_FLAGS] & F_EXPANDED:  # a re-expansion (:func:`keep_best`): its old records go
        free_block(RC, FREE, ND[leaf, D_REC], ND[leaf, D_NACT])
        CN[C_REEXPANDED] += 1
    else:
        CN[C_EXPANDED] += 1
    if lazy_records(params, n_act):
        rec0, size = keep_best(params, ND, RC, FREE, CN, leaf, rec0, n_act)
    ND[leaf, D_REC] = rec0
    ND[leaf, D_NACT] = size
    ND[leaf, D_FLAGS] |= F_EXPANDED
    reason = refresh(ND, NC, RC, leaf)
    if level >= LEVEL_FULL:
        k = report_expansion(params, ND, RC, path, events, k, it, leaf, n_act, r_before, reason)
    if reason != REASON_NONE:
        release(ND, RC, FREE, leaf)
    return k


@njit(inline="always")
def backpropagate(level, params, ND, NC, RC, FREE, CAT, path, events, k, it, plen):
    """BACKPROPAGATE (Algorithm 1, lines 35-55) from the selected branch's parent up to the root: at each
    branch on the path, recompute the Q of the split Selection followed (still the top of its heap) from
    its children's R, moving the children completed since to the complete side (line 44, errata E2),
    restore the heap and refresh R(l) and completeness (lines 48-53); G(l) improves with the split's
    incumbent. At level full a ChildClosed precedes each move and a BackpropStep ends each step
    (:func:`report_backprop_step`). Returns k."""
    lam, den = params.lam, params.den
    for t in range(plen - 1, -1, -1):
        v = path[t]
        r = ND[v, D_REC]  # the split Selection followed is still the top of v's heap
        q_before = RC[r, R_Q]
        r_before = ND[v, D_R]
        g_before = ND[v, D_G]
        i = rec_feature(RC, r)
        done = RC[r, R_DONE]
        n_open = rec_open(RC, r)
        q_sum = -lam + done
        g_sum = -lam + done
        removed = 0
        for j in range(CAT[i]):
            s = RC[r, R_KIDS + j]
            if s & S_OPEN == 0:
                continue
            if s & S_INLINE:  # not expanded yet
                q_sum += purification_bound(den, lam, inline_n(RC, s))
                g_sum += leaf_value(den, inline_best(RC, s))
                continue
            c = s >> 2
            if ND[c, D_FLAGS] & F_COMPLETE:  # move it to the complete side (docs/errata.md, Branches E2)
                if level >= LEVEL_FULL:
                    k = emit_child_closed(events, k, it, depth=ND[c, D_DEPTH], child_id=c, node_id=v, feature=i,
                                          category=j * 1.0, R=ND[c, D_R] * params.scale, G=ND[c, D_G] * params.scale)
                done += ND[c, D_R]
                q_sum += ND[c, D_R]
                g_sum += ND[c, D_R]
                RC[r, R_KIDS + j] = c * 4
                n_open -= 1
                removed += 1
            else:
                q_sum += ND[c, D_R]
                g_sum += ND[c, D_G]
        RC[r, R_DONE] = done
        RC[r, R_META] = rec_meta(RC, i, n_open)
        RC[r, R_Q] = q_sum
        if g_sum > ND[v, D_G]:
            ND[v, D_G] = g_sum
            ND[v, D_BEST] = i
        sift_down(RC, r, ND[v, D_NACT], np.int64(0), params.tie_break)
        reason = refresh(ND, NC, RC, v)
        if level >= LEVEL_FULL:
            k = report_backprop_step(params, ND, RC, path, events, k, it, t, i, (q_before, r_before, g_before, q_sum),
                                     removed, reason)
        if reason != REASON_NONE:
            release(ND, RC, FREE, v)
    return k


@njit
def branches_kernel(data, params, state, work, events, max_iterations, level):
    """The Branches kernel: ``branches_kernel(data, params, state, work, events, max_iterations, level) ->
    (n_events, status)`` (:class:`Data`, :class:`Params`, :class:`State`, scratch :class:`Work`, each as a plain
    tuple in its fields' order, the record level last) runs at most ``max_iterations`` iterations of Algorithm
    1's loop (lines 4-12): :func:`select`,
    then, unless the selected branch is already complete (lazy completion), its expansion: :func:`split` on
    every split action (:func:`count_by_bitsets` or :func:`count_by_rows` count the children first) and
    :func:`expand`; then :func:`backpropagate` (Section 4.2, Appendix D.2). Before an iteration changes
    anything it checks the event buffer (``STATUS_BUFFER``) and the room the expansion of the selected branch
    needs (``STATUS_GROW``, sizes in ``counters[C_NEED_*]``); the driver then calls again.

    ``level`` is a run-time argument (the solver's kernel is ``LevelKernel(branches_kernel, level)``): one
    compilation serves the three record levels, and every event is written behind ``if level >= ...``, out
    of the hot loops. The procedures take arrays, never a group; the kernel unpacks its groups through
    :func:`borrowed`, so that no array handed to them costs an atomic reference-count update, and they are
    inlined (``inline="always"``): as plain calls, the six run once per iteration or per completed branch
    (:func:`split_actions`, :func:`needs_room`, :func:`extract_rows`, :func:`memoise_selected`,
    :func:`link_parents`, :func:`release`) cut the cold compile from about 26 s to 21 s of CPU, but the fits
    of ``benchmarks/bench_branches.py``'s quick cases took a median 1.16x the CPU time of the previous kernel's
    (1.05x inlined). Events are written where their values are at hand, behind the level test: in the loops
    (ChildClosed in :func:`backpropagate`'s) or by ``report_*`` functions, inlined where they run per step or
    per child (:func:`report_select_step`, :func:`report_child`, :func:`report_backprop_step`), plain calls
    where they run once per iteration, per split or per completed branch (inlined too, these cost about 10 %
    more cold compile time). Written after their loops by plain calls, which pass every array as its fields
    and re-read what the loop had at hand, the events made the kernel alone take about 1.45x b223f85's CPU time
    at level full on lymph-o (that kernel wrote them in its loops, compiled per level).

    The groups arrive as plain tuples (``BranchesSolver.advance`` passes ``tuple(group)``) and the kernel
    names ``params`` and ``work`` again (``Params(*params)``, ``Work(*work)``): numba types a plain tuple of
    arrays and scalars in C, from its fingerprint, and a namedtuple in Python, item by item (about 4 us more
    per call, about 1 % of a sub-millisecond search).

    Iteration numbers in events (the convention of every odtlab kernel): the events of the k-th iteration,
    IterationStart to IterationEnd, carry ``iteration = k`` (from 1), and ``counters[C_ITER]`` is k once it
    is over; Init, and a Terminated emitted before any iteration, carry the iterations done before (0).
    """
    params, work = Params(*params), Work(*work)
    Xt, y, BITS, YB, CAT, RADIX, WORD = borrowed(data)
    CN, ND, NC, KEYS, TABLE, OCC, RC, FREE = borrowed(state)
    events = borrowed(events)
    epi, K, nw = params.events_per_iteration, params.K, YB.shape[1]
    k = np.int64(0)
    if level >= LEVEL_SUMMARY and CN[C_INIT] == 0:
        if k + epi > events.shape[0]:
            return k, STATUS_BUFFER
        CN[C_INIT] = 1
        k = report_init(params, CN, ND, NC, events, k)
    if ND[ROOT, D_FLAGS] & F_COMPLETE:
        return k, STATUS_DONE
    ubound = work.bound
    path, test_f, test_c, key, act, used, rows, RB, RBY, pk, cnt, ccnt = scratch(params, borrowed(work))
    done_it = 0
    while done_it < max_iterations:
        if level >= LEVEL_SUMMARY and k + epi > events.shape[0]:
            return k, STATUS_BUFFER
        k_start = k
        it = CN[C_ITER] + 1  # this is the it-th iteration (events carry it; Init carries 0)
        if level >= LEVEL_FULL:
            k = report_iteration_start(params, ND, CN, events, k, it)
        v, plen, inline, k = select(level, params, ND, NC, RC, CAT, path, test_f, test_c, events, k, it)
        lazy = inline < 0 and (ND[v, D_FLAGS] & F_COMPLETE) != 0  # completed through another parent
        n_act = 0
        if not lazy:
            n_act = split_actions(params, WORD, used, act, test_f, plen)
            if needs_room(params, CN, ND, TABLE, RC, FREE, n_act):  # nothing changed yet
                return k_start, STATUS_GROW
            extract_rows(YB, BITS, RB, RBY, pk, test_f, test_c, plen)
            if inline >= 0:
                f, c = test_f[plen - 1], test_c[plen - 1]
                child_key(KEYS, key, v, WORD[f], RADIX[f], c)
                v = memoise_selected(params, CN, ND, NC, KEYS, TABLE, OCC, RC, key, pk, inline, c, plen)
                path[plen] = v
                link_parents(RADIX, WORD, ND, KEYS, TABLE, OCC, RC, v, plen - 1, test_f, test_c, key)
        if level >= LEVEL_FULL:
            scale = params.scale
            k = emit_selection(events, k, it, depth=ND[v, D_DEPTH], leaf_id=v,
                               previous=path[plen - 1] if plen > 0 else -1,
                               feature=test_f[plen - 1] if plen > 0 else -1, R=ND[v, D_R] * scale,
                               G=ND[v, D_G] * scale, path_length=plen + 1, n_actions=n_act,
                               H=ND[v, D_H] * scale, leaf_complete=lazy)
        if lazy:
            CN[C_LAZY] += 1
        else:  # EXPAND (lines 24-34): SPLIT on every split action (lines 25-27), then the queue and R(l)
            m = NC[v, I_N]
            child_actions = n_act > 1 and (params.max_depth < 0 or plen + 1 < params.max_depth)
            rec0 = take_records(CN, RC, FREE, n_act)
            for w in range(key.shape[0]):
                key[w] = KEYS[v, w]
            listed = False
            for a in range(n_act):
                i = act[a]
                if (CAT[i] - 1) * K * nw <= 3 * m:  # whichever touches less memory
                    count_by_bitsets(BITS, RB, RBY, pk, cnt, ccnt, i, CAT[i], m)
                else:
                    if not listed:
                        bitset_rows(RB, rows)
                        listed = True
                    count_by_rows(Xt, y, rows, cnt, ccnt, i, CAT[i], K, m)
                k = split(level, params, ND, RC, CN, KEYS, TABLE, OCC, key, cnt, ccnt, events, k, it,
                          Split(v, plen, i, CAT[i], WORD[i], RADIX[i], rec0 + a, child_actions), ubound)
            k = expand(level, params, ND, NC, RC, FREE, CN, path, events, k, it, v, rec0, n_act)
        k = backpropagate(level, params, ND, NC, RC, FREE, CAT, path, events, k, it, plen)
        CN[C_ITER] = it
        done_it += 1
        finished = (ND[ROOT, D_FLAGS] & F_COMPLETE) != 0
        if level >= LEVEL_SUMMARY:
            k = report_iteration_end(params, ND, CN, events, k, it,
                                     (END_ROOT_COMPLETE if finished else 0) | (0 if lazy else END_EXPANDED))
            if finished:
                k = report_terminated(params, ND, CN, events, k, it)
        if finished:
            return k, STATUS_DONE
        if bound_logged(ubound):  # the solver checks the bound's values before the search goes on
            return k, STATUS_BUDGET
    return k, STATUS_BUDGET


@njit
def infer_incumbent(ND, RC, CAT, den, lam):
    """INFER_INCUMBENT (INFER, Algorithm 1, lines 97-113, on the incumbent): from the root, follow every
    branch's best-G split; a leaf-optimal, never-improved or non-memo branch is a leaf. Returns (value,
    feature, first, n_children) in breadth-first order (children of node t are first[t] .. first[t] +
    n_children[t] - 1; feature -1 for a leaf) and value = the tree's H_lambda in units of 1 / (n * D), which is >= G(root)."""
    cap = 64
    code = np.empty(cap, RC.dtype)  # the slot code of each tree node (the root: node 0), RC's layout
    feature = np.empty(cap, np.int64)
    first = np.empty(cap, np.int64)
    n_children = np.empty(cap, np.int64)
    code[0] = 0
    m = 1
    t = 0
    value = 0
    while t < m:
        s = code[t]
        feature[t] = -1
        first[t] = m
        n_children[t] = 0
        if s & S_INLINE:
            value += den * inline_best(RC, s)
            t += 1
            continue
        v = s >> 2
        f = ND[v, D_BEST]
        if f < 0 or ND[v, D_FLAGS] & F_LEAF:
            value += ND[v, D_H]
            t += 1
            continue
        r = find_record(ND, RC, v, f)
        c_f = CAT[f]
        if m + c_f > cap:
            cap = 2 * (m + c_f)
            code = _grow_copy(code, cap)
            feature = _grow_copy(feature, cap)
            first = _grow_copy(first, cap)
            n_children = _grow_copy(n_children, cap)
        for j in range(c_f):
            code[m + j] = RC[r, R_KIDS + j]
        feature[t] = f
        n_children[t] = c_f
        m += c_f
        value -= lam
        t += 1
    return value, feature[:m].copy(), first[:m].copy(), n_children[:m].copy()


@njit
def _grow_copy(a, cap):
    out = np.empty(cap, a.dtype)
    copy_flat(out[:a.shape[0]], a)
    return out


@njit
def node_counts(Xt, y, feature, first, K):
    """Class counts of the training rows reaching each node of a tree in :func:`infer_incumbent`'s form
    (as float64, what :meth:`odtlab.tree.Tree.set_node_values` takes): each row is routed from the root."""
    counts = np.zeros((feature.shape[0], K), np.float64)
    for r in range(y.shape[0]):
        k = y[r]
        t = 0
        counts[0, k] += 1.0
        while feature[t] >= 0:
            t = first[t] + Xt[feature[t], r]
            counts[t, k] += 1.0
    return counts


# --------------------------------------------------------------------------------------------------
# a researcher's bound (odtlab.bounds): ``BranchesClassifier(bound=f)``
# --------------------------------------------------------------------------------------------------
# Where it enters (the design is odtlab.solvers.branches' docstring): when SPLIT meets an open child l, f(class
# counts of l, split depth left, lambda * n) bounds from below the least regularised cost e(T) + lambda * n * S(T)
# of a subtree T at l, so D * n(l) - D * f bounds R*(l) from above, beside the Purification Bound (Eq. 8).
# When it reaches H(l) (f >= e(l)) the leaf is optimal and l is settled at birth. With None (no bound) numba
# compiles the functions below to nothing (``@overload``).

#: The kernel's form of a researcher's bound: ``fn(counts, depth, penalty)`` (a compiled first-class function,
#: or the plain Python function without numba), ``check`` = 1 logs every value that settled a branch,
#: ``penalty`` = lambda * n (float), ``counts`` (int64[K]) scratch for a child's class counts; ``nlog`` =
#: [logged values, branches settled by fn] and per logged value ``log`` (int64 rows: ``BL_*``, the branch is
#: the memo branch ``parent`` and the test X_feature = category) and ``value`` (what fn returned). The solver
#: checks and clears the log after every kernel call; the kernel stops after an iteration that logged a value.
UserBound = namedtuple("UserBound", "fn check penalty counts nlog log value")
BL_STATUS, BL_PARENT, BL_FEATURE, BL_CATEGORY = range(4)
BOUND_SETTLED, BOUND_INVALID = 1, 2


def make_user_bound(fn, check, penalty, K, q, cmax):
    """An empty :data:`UserBound` for K classes: room for the values of one expansion (q splits of at most
    ``cmax`` children)."""
    cap = q * cmax
    return UserBound(fn, int(bool(check)), float(penalty), np.zeros(K, np.int64), np.zeros(2, np.int64),
                     np.zeros((cap, 4), np.int64), np.zeros(cap))


def bound_settles(ubound, params, ccnt, j, errors, sp):
    """True when fn proves the leaf optimal at child j of SPLIT ``sp``: fn(its class counts ``ccnt[j * K:]``,
    the split depth left below it (-1: no max_depth), lambda * n) >= its errors e(l) = n(l) - n_{k*}(l), the
    leaf's cost. A NaN or negative value is logged and not used; in check mode a value that settles is logged,
    and not used when the log is full, so every value the search uses is checked."""
    if ubound is None:
        return False
    K = params.K
    counts = ubound.counts
    for c in range(K):
        counts[c] = ccnt[j * K + c]
    depth = params.max_depth - sp.depth - 1 if params.max_depth >= 0 else -1
    v = ubound.fn(counts, depth, ubound.penalty)
    if not v >= 0.0:
        status = BOUND_INVALID
    elif v >= errors:
        status = BOUND_SETTLED if ubound.check == 1 else 0
    else:
        return False
    nlog = ubound.nlog
    if status != 0:
        e = nlog[0]
        if e >= ubound.log.shape[0]:
            return False
        ubound.log[e, BL_STATUS] = status
        ubound.log[e, BL_PARENT] = sp.leaf
        ubound.log[e, BL_FEATURE] = sp.feature
        ubound.log[e, BL_CATEGORY] = j
        ubound.value[e] = v
        nlog[0] = e + 1
    if status == BOUND_INVALID:
        return False
    nlog[1] += 1
    return True


@overload(bound_settles)
def _bound_settles(ubound, params, ccnt, j, errors, sp):
    if isinstance(ubound, types.NoneType):
        return lambda ubound, params, ccnt, j, errors, sp: False
    return bound_settles
