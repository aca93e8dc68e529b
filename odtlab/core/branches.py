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
  that one and frees the others for the next expansion with as many split actions.
* ``FREE`` (int64, q + 1): ``FREE[s]`` the first row of a free block of s records (-1: none), the blocks of
  one size linked through the Q of their first row.
* ``CN`` (int64): counters, so the search resumes exactly between calls.
"""
import numpy as np

from odtlab.core import events as ev
from odtlab.core._jit import COMPILED, intrinsic, njit, types
from odtlab.core.events import LEVEL_FULL, LEVEL_SUMMARY, STATUS_BUDGET, STATUS_BUFFER, STATUS_DONE, STATUS_GROW

# ---- parameters PA ---------------------------------------------------------------------------------------
P_N, P_Q, P_K, P_LAM, P_DEN, P_MAXDEPTH, P_RULE, P_TIE, P_W, P_CMAX, P_EPI = range(11)
N_PARAMS = 11
RULE_MIN_G, RULE_MIN_H, RULE_FIRST = 0, 1, 2
TIE_PAPER, TIE_PROVEN = 0, 1

# ---- counters CN -----------------------------------------------------------------------------------------
(C_ITER, C_EVALS, C_NODES, C_RECS, C_EXPANDED, C_LAZY, C_INIT, C_GROW, C_NEED_NODES,
 C_NEED_RECS) = range(10)
N_COUNTERS = 10
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
    "1 min_H, 2 first. runner_up_*: the second split of the node's heap (NaN / -1 if none).").emit
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
    "complete side are the ChildClosed events before it.").emit
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
        for f in range(RC.shape[1]):
            tmp = RC[base + pos, f]
            RC[base + pos, f] = RC[base + c, f]
            RC[base + c, f] = tmp
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
def new_node(PA, CN, ND, NC, KEYS, TABLE, OCC, key, slot, depth, n_l, n_best, pred, has_actions):
    """A new branch (Appendix D.2): store a branch with its Purification Bound R = max{H, P - lambda} (Prop 4.2)."""
    v = CN[C_NODES]
    CN[C_NODES] = v + 1
    CN[C_EVALS] += 1
    for w in range(key.shape[0]):
        KEYS[v, w] = key[w]
    insert(TABLE, OCC, slot, v, key)
    h = PA[P_DEN] * n_best
    bound = PA[P_DEN] * n_l - PA[P_LAM]
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
def init_root(y, PA, WORD, CN, ND, NC, KEYS, TABLE, OCC):
    """Evaluate the root before the loop (Appendix D.2): R(Omega) = max{H, 1 - lambda}."""
    n = PA[P_N]
    counts = np.zeros(PA[P_K], np.int64)
    for r in range(n):
        counts[y[r]] += 1
    pred = 0
    for k in range(counts.shape[0]):
        if counts[k] > counts[pred]:
            pred = k
    key = np.zeros(PA[P_W], np.int64)
    for w in range(key.shape[0]):
        KEYS[0, w] = 0
    has_actions = PA[P_MAXDEPTH] != 0 and (WORD >= 0).any()
    node, slot = lookup(TABLE, OCC, KEYS, key)
    return new_node(PA, CN, ND, NC, KEYS, TABLE, OCC, key, slot, 0, n, counts[pred], pred, has_actions)


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
            for f in range(RC.shape[1]):
                RC[base, f] = RC[r, f]
        keep = 1
    if size > keep:
        RC[base + keep, R_Q] = FREE[size - keep]
        FREE[size - keep] = base + keep
    ND[v, D_NACT] = keep


@njit(inline="always")
def link_parents(PA, RADIX, WORD, ND, KEYS, TABLE, OCC, RC, v, n_test, test_f, test_c, key):
    """Point the inline slot of branch v in every expanded parent (v minus one of its first ``n_test`` tests)
    to its memo node: the kernel re-points the slot in the parent Selection came through itself (the last
    test), without a lookup."""
    W = PA[P_W]
    for t in range(n_test):
        f = test_f[t]
        for w in range(W):
            key[w] = KEYS[v, w]
        key[WORD[f]] -= (test_c[t] + 1) * RADIX[f]
        p, slot = lookup(TABLE, OCC, KEYS, key)
        if p < 0 or ND[p, D_REC] < 0:
            continue
        r = find_record(ND, RC, p, f)
        if RC[r, R_KIDS + test_c[t]] & S_INLINE:
            RC[r, R_KIDS + test_c[t]] = v * 4 + S_OPEN


# ------------------------------------------------------------------------------------------------------------
# the kernel
# ------------------------------------------------------------------------------------------------------------

def make_kernel(level):
    """The Branches kernel compiled for a record level (``LEVEL_NONE`` has no event code at all).

    ``kernel(Xt, y, BITS, YB, PA, CAT, RADIX, WORD, CN, ND, NC, KEYS, TABLE, OCC, RC, FREE, events,
    max_iterations) -> (n_events, status)`` runs at most ``max_iterations`` iterations of Selection,
    Expansion and Backpropagation (Section 4.2, Appendix D.2). ``Xt`` holds the codes feature-major (q x n),
    ``BITS[i, j]`` the row bitset of ``X_i = j`` and ``YB[k]`` the one of class k. Before an iteration
    changes anything it checks the event buffer (``STATUS_BUFFER``) and the room the expansion of the
    selected branch needs (``STATUS_GROW``, sizes in ``CN[C_NEED_*]``); the driver then calls again.

    The helpers an iteration calls (lookup, select_child, find_record, new_node, link_parents, refresh,
    sift_down, release) are inlined (``inline="always"``): a call of a compiled function passes its arrays
    with atomic reference-count updates, about a tenth of the time of a one-hot search (monk1-f).

    Iteration numbers in events (the convention of every odtlab kernel): the events of the k-th iteration,
    IterationStart to IterationEnd, carry ``iteration = k`` (from 1), and ``CN[C_ITER]`` is k once it is
    over; Init, and a Terminated emitted before any iteration, carry the iterations done before (0).
    """

    @njit
    def kernel(Xt, y, BITS, YB, PA, CAT, RADIX, WORD, CN, ND, NC, KEYS, TABLE, OCC, RC, FREE, events,
               max_iterations):
        n = PA[P_N]
        q = PA[P_Q]
        K = PA[P_K]
        lam = PA[P_LAM]
        den = PA[P_DEN]
        maxdepth = PA[P_MAXDEPTH]
        rule = PA[P_RULE]
        tie = PA[P_TIE]
        W = PA[P_W]
        cmax = PA[P_CMAX]
        epi = PA[P_EPI]
        scale = 1.0 / (n * den)
        root = 0
        k = 0

        if level >= LEVEL_SUMMARY and CN[C_INIT] == 0:
            if k + epi > events.shape[0]:
                return k, STATUS_BUFFER
            CN[C_INIT] = 1
            flags = ND[root, D_FLAGS]
            k = emit_init(events, k, CN[C_ITER], root=root, lam=lam * scale, n=n, q=q, K=K,
                          R=ND[root, D_R] * scale, G=ND[root, D_G] * scale, H=ND[root, D_H] * scale,
                          P=NC[root, I_N] * den * scale, state=flags)
            if flags & F_COMPLETE:
                k = emit_terminated(events, k, CN[C_ITER], node=root, objective=ND[root, D_R] * scale,
                                    root_R=ND[root, D_R] * scale, root_G=ND[root, D_G] * scale,
                                    iterations=CN[C_ITER], evaluations=CN[C_EVALS], memo_size=CN[C_NODES],
                                    expanded=CN[C_EXPANDED] * 1.0, root_feature=ND[root, D_BEST], optimal=1)
        if ND[root, D_FLAGS] & F_COMPLETE:
            return k, STATUS_DONE

        path = np.empty(q + 2, np.int64)
        key = np.empty(W, np.int64)
        test_f = np.empty(q + 1, np.int64)
        test_c = np.empty(q + 1, np.int64)
        act = np.empty(q, np.int64)
        rows = np.empty(n, np.int64)
        cnt = np.zeros(cmax, np.int64)
        ccnt = np.zeros(cmax * K, np.int64)
        used = np.zeros(q, np.bool_)
        nw = YB.shape[1]
        RB = np.empty(nw, np.uint64)
        RBY = np.empty((K, nw), np.uint64)
        pk = np.zeros(K, np.int64)

        done_it = 0
        while done_it < max_iterations:
            if level >= LEVEL_SUMMARY and k + epi > events.shape[0]:
                return k, STATUS_BUFFER
            k_start = k
            it = CN[C_ITER] + 1  # this is the it-th iteration (events carry it; Init carries 0)
            if level >= LEVEL_FULL:
                k = emit_iteration_start(events, k, it, node=root, root_R=ND[root, D_R] * scale,
                                         root_G=ND[root, D_G] * scale, memo_size=CN[C_NODES],
                                         evaluations=CN[C_EVALS], expanded=CN[C_EXPANDED],
                                         gap=(ND[root, D_R] - ND[root, D_G]) * scale)

            # ---- Selection (reads only): follow each branch's best split, which is its first record ----
            v = root
            plen = 0
            path[0] = root
            inline = -1  # slot of the selected child when it is not in the memo yet
            while (ND[v, D_FLAGS] & (F_EXPANDED | F_COMPLETE)) == F_EXPANDED:
                r = ND[v, D_REC]
                i = rec_feature(RC, r)
                j = select_child(ND, RC, r, CAT[i], rule, den)
                s = RC[r, R_KIDS + j]
                if level >= LEVEL_FULL:
                    ru = runner_up(RC, r, ND[v, D_NACT], tie)
                    ru_q = np.nan
                    ru_f = -1.0
                    if ru >= 0:
                        ru_q = RC[ru, R_Q] * scale
                        ru_f = rec_feature(RC, ru) * 1.0
                    k = emit_select_step(events, k, it, depth=ND[v, D_DEPTH], node_id=v,
                                         previous=path[plen - 1] if plen > 0 else -1, chosen_feature=i,
                                         Q=RC[r, R_Q] * scale, R=ND[v, D_R] * scale, G=ND[v, D_G] * scale,
                                         chosen_child=-1 if s & S_INLINE else s >> 2, category=j, rule=rule,
                                         runner_up_Q=ru_q, runner_up_feature=ru_f, n_open=rec_open(RC, r))
                    for jj in range(CAT[i]):
                        sj = RC[r, R_KIDS + jj]
                        if sj & S_OPEN == 0:
                            continue
                        fl = CANDIDATE_CHOSEN if jj == j else 0
                        if sj & S_INLINE:
                            hj = den * inline_best(RC, sj)
                            k = emit_select_candidate(events, k, it, depth=ND[v, D_DEPTH] + 1, child_id=-1,
                                                      node_id=v, feature=i, category=jj * 1.0,
                                                      R=(den * inline_n(RC, sj) - lam) * scale, G=hj * scale,
                                                      n_l=inline_n(RC, sj), n_best=inline_best(RC, sj),
                                                      H=hj * scale, state=fl)
                        else:
                            c = sj >> 2
                            if ND[c, D_FLAGS] & F_COMPLETE:
                                fl |= CANDIDATE_COMPLETE
                            k = emit_select_candidate(events, k, it, depth=ND[c, D_DEPTH], child_id=c, node_id=v,
                                                      feature=i, category=jj * 1.0, R=ND[c, D_R] * scale,
                                                      G=ND[c, D_G] * scale, n_l=NC[c, I_N], n_best=NC[c, I_NBEST],
                                                      H=ND[c, D_H] * scale, state=fl)
                test_f[plen] = i  # the branch's tests are the steps of the path
                test_c[plen] = j
                plen += 1
                if s & S_INLINE:
                    inline = r  # the record holding it; its category is test_c[plen - 1]
                    break
                v = s >> 2
                path[plen] = v
            lazy = inline < 0 and (ND[v, D_FLAGS] & F_COMPLETE) != 0

            # ---- room for the expansion (nothing changed yet) ----
            n_act = 0
            if not lazy:
                if maxdepth < 0 or plen < maxdepth:
                    for t in range(plen):
                        used[test_f[t]] = True
                    for i in range(q):
                        if WORD[i] >= 0 and not used[i]:
                            act[n_act] = i
                            n_act += 1
                    for t in range(plen):
                        used[test_f[t]] = False
                grow = 0
                if CN[C_NODES] + 1 > ND.shape[0] or 2 * (CN[C_NODES] + 1) > TABLE.shape[0]:
                    grow |= GROW_NODES
                fresh = n_act if FREE[n_act] < 0 else 0  # rows taken past CN[C_RECS]
                if CN[C_RECS] + fresh > RC.shape[0]:
                    grow |= GROW_RECS
                if grow:
                    CN[C_GROW] = grow
                    CN[C_NEED_NODES] = CN[C_NODES] + 1
                    CN[C_NEED_RECS] = CN[C_RECS] + fresh
                    return k_start, STATUS_GROW

            # ---- Expansion ----
            if not lazy:
                # the branch's rows as a bitset, the AND of its tests (Appendix D.2's data extraction)
                for w in range(nw):
                    RB[w] = YB[0, w]
                    for kk in range(1, K):
                        RB[w] |= YB[kk, w]
                for t in range(plen):
                    for w in range(nw):
                        RB[w] &= BITS[test_f[t], test_c[t], w]
                for kk in range(K):  # class counts of the branch; RBY[k]: its rows of class k
                    pk[kk] = 0
                    for w in range(nw):
                        RBY[kk, w] = RB[w] & YB[kk, w]
                        pk[kk] += popcount(RBY[kk, w])
                if inline >= 0:  # store the selected branch in the memo and link its expanded parents
                    s = RC[inline, R_KIDS + test_c[plen - 1]]
                    pred = 0
                    for kk in range(1, K):
                        if pk[kk] > pk[pred]:
                            pred = kk
                    for w in range(W):
                        key[w] = KEYS[v, w]
                    key[WORD[test_f[plen - 1]]] += (test_c[plen - 1] + 1) * RADIX[test_f[plen - 1]]
                    c, slot = lookup(TABLE, OCC, KEYS, key)
                    v = new_node(PA, CN, ND, NC, KEYS, TABLE, OCC, key, slot, plen, inline_n(RC, s), inline_best(RC, s),
                                 pred, True)
                    CN[C_EVALS] -= 1  # it was counted when its parent was expanded
                    path[plen] = v
                    RC[inline, R_KIDS + test_c[plen - 1]] = v * 4 + S_OPEN
                    link_parents(PA, RADIX, WORD, ND, KEYS, TABLE, OCC, RC, v, plen - 1, test_f, test_c, key)
            leaf = v
            if level >= LEVEL_FULL:
                k = emit_selection(events, k, it, depth=ND[leaf, D_DEPTH], leaf_id=leaf,
                                   previous=path[plen - 1] if plen > 0 else -1,
                                   feature=test_f[plen - 1] if plen > 0 else -1, R=ND[leaf, D_R] * scale,
                                   G=ND[leaf, D_G] * scale, path_length=plen + 1, n_actions=n_act,
                                   H=ND[leaf, D_H] * scale, leaf_complete=lazy)
            if lazy:
                CN[C_LAZY] += 1
            else:
                r_before = ND[leaf, D_R]
                depth_c = plen + 1
                child_actions = n_act > 1 and (maxdepth < 0 or depth_c < maxdepth)
                m = NC[leaf, I_N]
                listed = False
                rec0 = FREE[n_act]
                if rec0 >= 0:  # a free block of n_act rows (see release)
                    FREE[n_act] = RC[rec0, R_Q]
                else:
                    rec0 = CN[C_RECS]
                    CN[C_RECS] = rec0 + n_act
                for w in range(W):
                    key[w] = KEYS[leaf, w]
                for a in range(n_act):
                    i = act[a]
                    c_i = CAT[i]
                    r = rec0 + a
                    wi = WORD[i]
                    # class counts of every category of feature i: popcounts of bitset intersections
                    # (the last category and the last class by subtraction, V-early B.2) or one pass over
                    # the row list, whichever touches less memory
                    if (c_i - 1) * K * nw <= 3 * m:
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
                    else:
                        if not listed:
                            bitset_rows(RB, rows)
                            listed = True
                        for j in range(c_i):
                            cnt[j] = 0
                        for t in range(c_i * K):
                            ccnt[t] = 0
                        for t in range(m):
                            row = rows[t]
                            c = Xt[i, row]
                            cnt[c] += 1
                            ccnt[c * K + y[row]] += 1
                    q_sum = -lam
                    g_sum = -lam
                    done = 0
                    n_open = 0
                    for j in range(c_i):
                        best_k = 0
                        for kk in range(1, K):
                            if ccnt[j * K + kk] > ccnt[j * K + best_k]:
                                best_k = kk
                        n_best = ccnt[j * K + best_k]
                        h = den * n_best
                        bound = den * cnt[j] - lam
                        settled = h >= bound
                        if settled or not child_actions:  # complete at birth: a leaf for good
                            CN[C_EVALS] += 1
                            RC[r, R_KIDS + j] = inline_slot(RC, cnt[j], n_best, False)
                            q_sum += h
                            g_sum += h
                            done += h
                            if level >= LEVEL_FULL:
                                fl = F_COMPLETE | F_LEAF | (F_SETTLED if settled else 0)
                                k = emit_child_evaluated(events, k, it, depth=depth_c, child_id=-1, parent_id=leaf,
                                                         feature=i, category=j * 1.0, R=h * scale, G=h * scale,
                                                         n_l=cnt[j], n_best=n_best, pred=best_k, H=h * scale,
                                                         bound=bound * scale, state=fl)
                                k = emit_node_completed(events, k, it, depth=depth_c, node_id=-1, parent_id=leaf,
                                                        best_feature=i, category=j * 1.0, R=h * scale, G=h * scale,
                                                        reason=REASON_SETTLED if settled else REASON_NO_ACTIONS,
                                                        state=fl)
                            continue
                        key[wi] = KEYS[leaf, wi] + (j + 1) * RADIX[i]
                        c, slot = lookup(TABLE, OCC, KEYS, key)
                        if c < 0:  # not expanded yet: R = P - lambda, G = H (Eq. 8)
                            CN[C_EVALS] += 1
                            RC[r, R_KIDS + j] = inline_slot(RC, cnt[j], n_best, True)
                            q_sum += bound
                            g_sum += h
                            n_open += 1
                            if level >= LEVEL_FULL:
                                k = emit_child_evaluated(events, k, it, depth=depth_c, child_id=-1, parent_id=leaf,
                                                         feature=i, category=j * 1.0, R=bound * scale, G=h * scale,
                                                         n_l=cnt[j], n_best=n_best, pred=best_k, H=h * scale,
                                                         bound=bound * scale, state=0)
                            continue
                        q_sum += ND[c, D_R]
                        g_sum += ND[c, D_G]
                        if ND[c, D_FLAGS] & F_COMPLETE:
                            done += ND[c, D_R]
                            RC[r, R_KIDS + j] = c * 4
                        else:
                            n_open += 1
                            RC[r, R_KIDS + j] = c * 4 + S_OPEN
                        if level >= LEVEL_FULL:
                            k = emit_child_evaluated(events, k, it, depth=depth_c, child_id=c, parent_id=leaf,
                                                     feature=i, category=j * 1.0, R=ND[c, D_R] * scale,
                                                     G=ND[c, D_G] * scale, n_l=cnt[j], n_best=n_best, pred=best_k,
                                                     H=h * scale, bound=bound * scale,
                                                     state=ND[c, D_FLAGS] | F_MEMO_HIT)
                    key[wi] = KEYS[leaf, wi]
                    RC[r, R_Q] = q_sum
                    RC[r, R_DONE] = done
                    RC[r, R_META] = rec_meta(RC, i, n_open)
                    if g_sum > ND[leaf, D_G]:
                        ND[leaf, D_G] = g_sum
                        ND[leaf, D_BEST] = i
                    if level >= LEVEL_FULL:
                        k = emit_split_scored(events, k, it, depth=plen, node_id=leaf, feature=i, Q=q_sum * scale,
                                              R_before=r_before * scale, g=g_sum * scale, n_open=n_open,
                                              n_children=c_i, done=(done - lam) * scale, complete=n_open == 0)
                for pos in range(n_act // 2 - 1, -1, -1):
                    sift_down(RC, rec0, n_act, pos, tie)
                ND[leaf, D_REC] = rec0
                ND[leaf, D_NACT] = n_act
                ND[leaf, D_FLAGS] |= F_EXPANDED
                CN[C_EXPANDED] += 1
                reason = refresh(ND, NC, RC, leaf)
                if level >= LEVEL_FULL:
                    k = emit_expansion(events, k, it, depth=plen, node_id=leaf, best_feature=rec_feature(RC, rec0),
                                       best_Q=RC[rec0, R_Q] * scale, R_after=ND[leaf, D_R] * scale,
                                       G=ND[leaf, D_G] * scale, reason=reason, incumbent_feature=ND[leaf, D_BEST],
                                       n_actions=n_act, R_before=r_before * scale, H=ND[leaf, D_H] * scale,
                                       state=ND[leaf, D_FLAGS])
                    if reason != REASON_NONE:
                        k = emit_node_completed(events, k, it, depth=plen, node_id=leaf,
                                                parent_id=path[plen - 1] if plen > 0 else -1,
                                                best_feature=rec_feature(RC, rec0) if reason == REASON_SPLIT else -1,
                                                category=0.0, R=ND[leaf, D_R] * scale, G=ND[leaf, D_G] * scale,
                                                reason=reason, state=ND[leaf, D_FLAGS])
                if reason != REASON_NONE:
                    release(ND, RC, FREE, leaf)

            # ---- Backpropagation, from the selected branch's parent up to the root ----
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
                        q_sum += den * inline_n(RC, s) - lam
                        g_sum += den * inline_best(RC, s)
                        continue
                    c = s >> 2
                    if ND[c, D_FLAGS] & F_COMPLETE:  # move it to the complete side (docs/errata.md, Branches E2)
                        done += ND[c, D_R]
                        q_sum += ND[c, D_R]
                        g_sum += ND[c, D_R]
                        RC[r, R_KIDS + j] = c * 4
                        n_open -= 1
                        removed += 1
                        if level >= LEVEL_FULL:
                            k = emit_child_closed(events, k, it, depth=ND[c, D_DEPTH], child_id=c, node_id=v,
                                                  feature=i, category=j * 1.0, R=ND[c, D_R] * scale,
                                                  G=ND[c, D_G] * scale)
                    else:
                        q_sum += ND[c, D_R]
                        g_sum += ND[c, D_G]
                RC[r, R_DONE] = done
                RC[r, R_META] = rec_meta(RC, i, n_open)
                RC[r, R_Q] = q_sum
                if g_sum > ND[v, D_G]:
                    ND[v, D_G] = g_sum
                    ND[v, D_BEST] = i
                sift_down(RC, r, ND[v, D_NACT], 0, tie)
                reason = refresh(ND, NC, RC, v)
                if level >= LEVEL_FULL:
                    fl = CHANGE_TOP if rec_feature(RC, r) != i else 0
                    if reason != REASON_NONE:
                        fl |= CHANGE_COMPLETE
                    if ND[v, D_G] > g_before:
                        fl |= CHANGE_G
                    k = emit_backprop_step(events, k, it, depth=t, node_id=v, child_id=path[t + 1], feature=i,
                                           Q_after=q_sum * scale, R_after=ND[v, D_R] * scale,
                                           G_after=ND[v, D_G] * scale, n_removed=removed,
                                           top_feature=rec_feature(RC, r), reason=reason, Q_before=q_before * scale,
                                           R_before=r_before * scale, changes=fl)
                    if reason != REASON_NONE:
                        k = emit_node_completed(events, k, it, depth=t, node_id=v,
                                                parent_id=path[t - 1] if t > 0 else -1,
                                                best_feature=rec_feature(RC, r) if reason == REASON_SPLIT else -1,
                                                category=0.0, R=ND[v, D_R] * scale, G=ND[v, D_G] * scale,
                                                reason=reason, state=ND[v, D_FLAGS])
                if reason != REASON_NONE:
                    release(ND, RC, FREE, v)

            CN[C_ITER] = it
            done_it += 1
            finished = (ND[root, D_FLAGS] & F_COMPLETE) != 0
            if level >= LEVEL_SUMMARY:
                k = emit_iteration_end(events, k, it, node=root, root_R=ND[root, D_R] * scale,
                                       root_G=ND[root, D_G] * scale, memo_size=CN[C_NODES], evaluations=CN[C_EVALS],
                                       expanded=CN[C_EXPANDED], gap=(ND[root, D_R] - ND[root, D_G]) * scale,
                                       state=(END_ROOT_COMPLETE if finished else 0) | (0 if lazy else END_EXPANDED))
                if finished:
                    k = emit_terminated(events, k, it, node=root, objective=ND[root, D_R] * scale,
                                        root_R=ND[root, D_R] * scale, root_G=ND[root, D_G] * scale,
                                        iterations=CN[C_ITER], evaluations=CN[C_EVALS], memo_size=CN[C_NODES],
                                        expanded=CN[C_EXPANDED] * 1.0, root_feature=ND[root, D_BEST], optimal=1)
            if finished:
                return k, STATUS_DONE
        return k, STATUS_BUDGET

    return kernel


@njit
def incumbent_tree(ND, RC, CAT, den, lam):
    """The incumbent tree: from the root, follow every branch's best-G split; a leaf-optimal,
    never-improved or non-memo branch is a leaf. Returns (value, feature, first, n_children) in
    breadth-first order (children of node t are first[t] .. first[t] + n_children[t] - 1; feature -1 for a
    leaf) and value = the tree's H_lambda in units of 1 / (n * D), which is >= G(root)."""
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
    out[:a.shape[0]] = a
    return out


@njit
def node_counts(Xt, y, feature, first, K):
    """Class counts of the training rows reaching each node of a tree in :func:`incumbent_tree`'s form
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
