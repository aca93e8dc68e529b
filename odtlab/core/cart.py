"""CART (Breiman et al. 1984) as a resumable numba search: greedy binary threshold splits.

One iteration takes one node off the frontier and either splits it on its best threshold or makes it a
leaf. The frontier is a stack (depth first, as scikit-learn's ``DepthFirstTreeBuilder``) or, with
``max_leaf_nodes``, a best-first queue ordered by impurity decrease (``BestFirstTreeBuilder``; DPDT uses
it as its split generator). The best split of a node is computed when the node enters the frontier.

Criteria: Gini and entropy for classification (weighted class counts), squared error for regression
(weighted sums). A split is the threshold between two consecutive distinct values of a feature, at their
midpoint, that minimises the children's weighted impurity ``w_l * imp_l + w_r * imp_r``, computed with
scikit-learn's floating-point expressions (Gini ``1 - sum_k c_k^2 / w^2``, entropy with ``ln(p) / ln(2)``;
``sklearn/tree/_criterion.pyx``), so that within a feature the two compare the same numbers and keep the
same cut: the first position (lowest threshold) whose cost is strictly below the best so far, as
scikit-learn's ``BestSplitter`` keeps the first strictly larger proxy improvement. An exact tie (equal in
exact arithmetic) is broken the same way by both, through the same rounding, whenever the class sums are
exact (integer weights; scikit-learn may add fractional weights in another order). Across features odtlab
keeps the first feature in index order; scikit-learn scans the features in a random permutation drawn
from ``random_state``, so when two *features* tie the two may pick different, equally good splits.

The kernel keeps the training loss of the incumbent (the decided leaves plus the frontier nodes as leaves)
in ``acc``, so the solver's upper bound costs O(1) per step. A node that is sure to become a leaf (depth
``max_depth``, too few rows, pure) is put on the frontier without a split search.

Stopping rules follow scikit-learn: depth reaches ``max_depth``; fewer than ``min_samples_split`` rows;
fewer than ``2 * min_samples_leaf`` rows; impurity at most machine epsilon; no split leaves
``min_samples_leaf`` rows on each side; the impurity decrease is below ``min_impurity_decrease``. Like
scikit-learn, a split with zero decrease is still made when nothing stops it.
"""
from collections import namedtuple

import numpy as np

from odtlab.core._jit import njit
from odtlab.core.arrays import copy_flat
from odtlab.core import events as ev

GINI, ENTROPY, SQUARED_ERROR = 0, 1, 2
CRITERIA = {"gini": GINI, "entropy": ENTROPY, "squared_error": SQUARED_ERROR}
FEATURE_THRESHOLD = 1e-7  # values closer than this count as equal (scikit-learn's constant)
EPSILON = np.finfo(np.float64).eps

# -- event kinds (CART block 32..63) ----------------------------------------------------------------------
CART_SPLIT = 32
CART_LEAF = 33
emit_split = ev.event_kind(
    CART_SPLIT, "Split", "cart",
    {"node": "node", "parent": "parent", "depth": "depth", "feature": "feature", "threshold": "value",
     "impurity_decrease": "f0", "n_samples": "i0", "left": "i1", "right": "i2", "impurity": "f1"},
    "CART split node {node} (depth {depth}, {n_samples} rows) on {feature_name} <= {threshold:.6g}, "
    "impurity decrease {impurity_decrease:.6g}",
    "A node is split on the best cut (scikit-learn's BestSplitter); left and right count its children's rows.").emit
emit_leaf = ev.event_kind(
    CART_LEAF, "Leaf", "cart",
    {"node": "node", "parent": "parent", "depth": "depth", "n_samples": "i0", "reason": "i1", "impurity": "f0"},
    "CART leaf at node {node} (depth {depth}, {n_samples} rows, impurity {impurity:.6g})",
    "A node is made a leaf; reason is the stopping rule that applied.").emit
LN2 = np.log(2.0)

# Leaf reasons (CART_LEAF's i1)
LEAF_DEPTH, LEAF_SAMPLES, LEAF_PURE, LEAF_NO_SPLIT, LEAF_DECREASE, LEAF_BUDGET = 0, 1, 2, 3, 4, 5

# Frontier record columns (float64 table): start, end, depth, parent, is_left, impurity, feature, threshold,
# position (end of the left part in the sorted order), improvement (weighted impurity decrease), weight,
# loss (the training loss of the node as a leaf: weighted misclassifications or squared error; set by
# the CART kernel, not by ``frontier_record``)
F_START, F_END, F_DEPTH, F_PARENT, F_LEFT, F_IMP, F_FEAT, F_THR, F_POS, F_IMPROVE, F_WEIGHT, F_LOSS = range(12)
F_COLS = 12

# Counters (int64 array)
C_NODES, C_FRONTIER, C_ITER, C_LEAVES, C_DONE = range(5)
N_COUNTERS = 5

# Loss accumulators (float64 array ``acc``): training loss of the leaves made so far and of the frontier
# nodes (as leaves). Their sum is the loss of the incumbent tree (frontier nodes are its leaves).
A_LEAVES, A_FRONTIER = range(2)
N_ACC = 2

# -- the kernel's three groups ----------------------------------------------------------------------------
#: Read-only options (scikit-learn's names; ``max_depth`` / ``max_leaf_nodes`` < 0 mean unlimited), the total
#: weight of the rows and the length of a node's statistics vector (classes, or 2 x outputs).
Params = namedtuple("Params", "criterion max_depth min_samples_split min_samples_leaf min_impurity_decrease "
                              "max_leaf_nodes total_weight n_stats")
#: Read-only problem: features, the targets the statistics sum (class codes, or centred targets), row weights.
Data = namedtuple("Data", "X Y w")
#: Everything the build writes: the row order (partitioned node by node), the frontier table, the node table
#: (split flag, feature, threshold, children, value sums, weight, impurity, depth), counters and ``acc``.
State = namedtuple("State", "order frontier split feature threshold left right node_value node_weight "
                            "node_impurity node_depth counters acc")


@njit(inline="always")
def impurity_of(stats, w, criterion):
    """Impurity of a node from its weighted class counts (or target sums) ``stats`` and weight ``w``.

    For squared error ``stats`` holds [sum y_1.., sum y_1^2..] over m outputs (first half sums, second half
    sums of squares); the impurity is the mean over outputs of the variance.
    """
    if w <= 0.0:
        return 0.0
    if criterion == GINI:  # scikit-learn's Gini.children_impurity, operation for operation
        s = 0.0
        for k in range(stats.shape[0]):
            s += stats[k] * stats[k]
        return 1.0 - s / (w * w)
    if criterion == ENTROPY:  # scikit-learn's Entropy, with its log(x) = ln(x) / ln(2)
        s = 0.0
        for k in range(stats.shape[0]):
            if stats[k] > 0.0:
                p = stats[k] / w
                s -= p * (np.log(p) / LN2)
        return s
    m = stats.shape[0] // 2
    s = 0.0
    for j in range(m):
        mean = stats[j] / w
        s += stats[m + j] / w - mean * mean
    return s / m


@njit(inline="always")
def leaf_loss(stats, w, criterion):
    """Training loss of a node as a leaf: weighted misclassifications of the majority class, or the
    weighted squared error around the mean summed over the outputs."""
    if criterion == SQUARED_ERROR:
        m = stats.shape[0] // 2
        s = 0.0
        if w > 0.0:
            for j in range(m):
                s += stats[m + j] - stats[j] * stats[j] / w
        return max(s, 0.0)
    top = 0.0
    for k in range(stats.shape[0]):
        top = max(top, stats[k])
    return w - top


@njit(inline="always")
def add_row(stats, Y, wi, i, criterion, sign):
    """Add (sign=+1) or remove (sign=-1) row ``i`` of weight ``wi`` to the statistics vector."""
    if criterion == SQUARED_ERROR:
        m = Y.shape[1]
        for j in range(m):
            v = Y[i, j]
            stats[j] += sign * wi * v
            stats[m + j] += sign * wi * v * v
    else:
        stats[np.int64(Y[i, 0])] += sign * wi


@njit
def node_stats(order, start, end, Y, w, criterion, n_stats):
    stats = np.zeros(n_stats)
    total = 0.0
    for t in range(start, end):
        i = order[t]
        add_row(stats, Y, w[i], i, criterion, 1.0)
        total += w[i]
    return stats, total


@njit
def scan_sorted(X, Y, w, f, rows, criterion, min_samples_leaf, parent_stats, parent_w, left, right, best_cost):
    """Scan one feature for ``best_split``: ``rows`` (a node's rows, stably sorted by ``X[:, f]``) move left
    one at a time; every cut between distinct values leaving at least ``min_samples_leaf`` rows on each side
    is scored, and the first one with a cost below ``best_cost`` (then below the best so far) wins.

    Returns (cost, threshold, position) of the winner, or (best_cost, 0.0, -1) when no cut beats
    ``best_cost`` or the feature is constant on the node. ``left`` / ``right`` are scratch vectors.
    Shared with DPDT's split generator (``odtlab.core.dpdt``), which keeps rows presorted.
    """
    n_node = rows.shape[0]
    best_thr, best_pos = 0.0, -1
    if X[rows[n_node - 1], f] <= X[rows[0], f] + FEATURE_THRESHOLD:
        return best_cost, best_thr, best_pos  # constant feature in this node
    left[:] = 0.0
    copy_flat(right, parent_stats)
    wl = 0.0
    for t in range(n_node - 1):
        i = rows[t]
        add_row(left, Y, w[i], i, criterion, 1.0)
        add_row(right, Y, w[i], i, criterion, -1.0)
        wl += w[i]
        xa = X[i, f]
        xb = X[rows[t + 1], f]
        if xb <= xa + FEATURE_THRESHOLD:
            continue
        if t + 1 < min_samples_leaf or n_node - t - 1 < min_samples_leaf:
            continue
        wr = parent_w - wl
        cost = wl * impurity_of(left, wl, criterion) + wr * impurity_of(right, wr, criterion)
        if cost < best_cost:
            best_cost = cost
            best_pos = t + 1
            thr = xa / 2.0 + xb / 2.0
            if thr == xb or np.isinf(thr):
                thr = xa
            best_thr = thr
    return best_cost, best_thr, best_pos


@njit
def best_split(X, Y, w, order, start, end, criterion, n_stats, min_samples_leaf, parent_stats, parent_w,
               sorted_buf, key_buf):
    """Best threshold split of rows ``order[start:end]``: (feature, threshold, position, child cost).

    Rows are sorted by each feature in turn and scanned by ``scan_sorted``. The returned position is the
    number of rows going left. Feature -1 means no valid split.
    """
    n_node = end - start
    best_f, best_thr, best_pos, best_cost = -1, 0.0, -1, np.inf
    left = np.empty(n_stats)
    right = np.empty(n_stats)
    for f in range(X.shape[1]):
        for t in range(n_node):
            key_buf[t] = X[order[start + t], f]
        perm = np.argsort(key_buf[:n_node], kind="mergesort")
        for t in range(n_node):
            sorted_buf[t] = order[start + perm[t]]
        cost, thr, pos = scan_sorted(X, Y, w, f, sorted_buf[:n_node], criterion, min_samples_leaf, parent_stats,
                                     parent_w, left, right, best_cost)
        if pos >= 0:
            best_cost, best_thr, best_pos, best_f = cost, thr, pos, f
    return best_f, best_thr, best_pos, best_cost


@njit
def push_frontier(data, params, state, start, end, depth, parent, is_left, sorted_buf, key_buf):
    """Put a new node (rows ``order[start:end]``) on the frontier with its best split already computed, and add
    its leaf loss to ``acc[A_FRONTIER]``. A node that ``leaf_reason`` makes a leaf before looking at its split
    (depth ``max_depth``, too few rows, pure) gets no split (feature -1): its rows are never sorted."""
    X, Y, w = data
    criterion, n_stats, min_leaf = params.criterion, params.n_stats, params.min_samples_leaf
    order, frontier, counters = state.order, state.frontier, state.counters
    stats, wn = node_stats(order, start, end, Y, w, criterion, n_stats)
    imp = impurity_of(stats, wn, criterion)
    n_node = end - start
    if ((params.max_depth >= 0 and depth >= params.max_depth) or n_node < params.min_samples_split
            or n_node < 2 * min_leaf or imp <= EPSILON):
        split = (-1, 0.0, -1, np.inf)
    else:
        split = best_split(X, Y, w, order, start, end, criterion, n_stats, min_leaf, stats, wn, sorted_buf, key_buf)
    frontier_record(frontier, counters, start, end, depth, parent, is_left, imp, split, wn, params.total_weight)
    loss = leaf_loss(stats, wn, criterion)
    frontier[counters[C_FRONTIER] - 1, F_LOSS] = loss
    state.acc[A_FRONTIER] += loss


@njit
def frontier_record(frontier, counters, start, end, depth, parent, is_left, imp, split, wn, total_weight):
    """Append a node with its best split ``split`` = (feature, threshold, position, child cost), from
    ``best_split``, to the frontier table."""
    f, thr, pos, cost = split
    r = counters[C_FRONTIER]
    frontier[r, F_START] = start
    frontier[r, F_END] = end
    frontier[r, F_DEPTH] = depth
    frontier[r, F_PARENT] = parent
    frontier[r, F_LEFT] = is_left
    frontier[r, F_IMP] = imp
    frontier[r, F_FEAT] = f
    frontier[r, F_THR] = thr
    frontier[r, F_POS] = pos
    frontier[r, F_IMPROVE] = (wn * imp - cost) / total_weight if f >= 0 else -np.inf
    frontier[r, F_WEIGHT] = wn
    counters[C_FRONTIER] = r + 1


@njit
def pop_frontier(frontier, counters, max_leaves):
    """Remove and return the next frontier record: the last one (depth first) or, with a leaf budget, the
    one with the largest impurity decrease (best first; the last record, then the lowest slot, on ties)."""
    r = counters[C_FRONTIER] - 1
    if max_leaves > 0:
        for s in range(counters[C_FRONTIER] - 1):
            if frontier[s, F_IMPROVE] > frontier[r, F_IMPROVE]:
                r = s
    rec = frontier[r].copy()
    last = counters[C_FRONTIER] - 1
    copy_flat(frontier[r], frontier[last])
    counters[C_FRONTIER] = last
    return rec


@njit
def leaf_reason(rec, max_depth, min_split, min_leaf, min_decrease, max_leaves, counters):
    """Why the popped node ``rec`` becomes a leaf (a LEAF_* code), or -1 when CART splits it."""
    depth = np.int64(rec[F_DEPTH])
    n_node = np.int64(rec[F_END]) - np.int64(rec[F_START])
    if max_depth >= 0 and depth >= max_depth:
        return LEAF_DEPTH
    if n_node < min_split or n_node < 2 * min_leaf:
        return LEAF_SAMPLES
    if rec[F_IMP] <= EPSILON:
        return LEAF_PURE
    if rec[F_FEAT] < 0:
        return LEAF_NO_SPLIT
    if rec[F_IMPROVE] + EPSILON < min_decrease:
        return LEAF_DECREASE
    if max_leaves > 0 and counters[C_LEAVES] + counters[C_FRONTIER] + 2 > max_leaves:
        return LEAF_BUDGET
    return -1


@njit
def split_node(data, state, rec, v, sorted_buf):
    """Split node ``v`` (the popped frontier record ``rec``) on its best cut: its rows ``order[start:end]`` are
    partitioned stably (rows with x <= threshold first); returns the end of the left part."""
    X = data.X
    order = state.order
    start = np.int64(rec[F_START])
    end = np.int64(rec[F_END])
    f = np.int64(rec[F_FEAT])
    thr = rec[F_THR]
    pos = start
    for t in range(start, end):
        i = order[t]
        if X[i, f] <= thr:
            order[pos] = i
            pos += 1
        else:
            sorted_buf[t - pos] = i
    for t in range(end - pos):
        order[pos + t] = sorted_buf[t]
    state.split[v] = 1
    state.feature[v] = f
    state.threshold[v] = thr
    return pos


@njit
def decide_node(data, params, state, rec, v):
    """Make the popped record ``rec`` node ``v`` of the tree (its statistics in the node table, its link from its
    parent); returns why it becomes a leaf (``leaf_reason``) or -1 when CART splits it."""
    parent = np.int64(rec[F_PARENT])
    if parent >= 0:
        if rec[F_LEFT] == 1.0:
            state.left[parent] = v
        else:
            state.right[parent] = v
    stats, wn = node_stats(state.order, np.int64(rec[F_START]), np.int64(rec[F_END]), data.Y, data.w,
                           params.criterion, params.n_stats)
    copy_flat(state.node_value[v, :], stats[:state.node_value.shape[1]])
    state.node_weight[v] = wn
    state.node_impurity[v] = rec[F_IMP]
    state.node_depth[v] = np.int64(rec[F_DEPTH])
    return leaf_reason(rec, params.max_depth, params.min_samples_split, params.min_samples_leaf,
                       params.min_impurity_decrease, params.max_leaf_nodes, state.counters)


@njit
def cart_kernel(data, params, state, events, max_iterations, level):
    """Advance CART by at most ``max_iterations`` node decisions, recording events at ``level`` (``ev.LEVEL_*``);
    return (n_events, status).

    ``data``, ``params``, ``state``: the groups :data:`Data`, :data:`Params`, :data:`State`. ``state.acc``
    holds the training loss of the leaves made so far and of the frontier (see ``A_*``): the incumbent's loss
    is their sum, kept up to date in O(1) per decision. The level is read at run time (one compilation serves
    the three levels: :class:`odtlab.core._jit.LevelKernel`); a test per decision costs nothing measurable
    beside its sort.
    """
    counters, acc = state.counters, state.acc
    n = state.order.shape[0]
    sorted_buf = np.empty(n, dtype=np.int64)
    key_buf = np.empty(n)
    k = 0
    if counters[C_DONE] == 1:
        return k, ev.STATUS_DONE
    if counters[C_NODES] == 0 and counters[C_FRONTIER] == 0:
        # the root: rows 0..n, depth 0, no parent, not a left child (int64 values, as the children's calls pass
        # them: numba compiles a function once per literal constant a jitted caller passes it)
        push_frontier(data, params, state, np.int64(0), n, np.int64(0), np.int64(-1), np.int64(0), sorted_buf,
                      key_buf)
        if level >= ev.LEVEL_SUMMARY:  # the solver's bounds: [0, loss of the root as a leaf]
            k = ev.emit_search_started(events, k, 0, lower=0.0, upper=acc[A_FRONTIER], i0=n)
    done = 0
    while done < max_iterations:
        if counters[C_FRONTIER] == 0:
            counters[C_DONE] = 1
            acc[A_FRONTIER] = 0.0  # no rounding left over from the running sum
            if level >= ev.LEVEL_SUMMARY:  # the solver's bounds: [0, training loss of the tree]
                k = ev.emit_terminated(events, k, counters[C_ITER], optimal=0, lower=0.0, upper=acc[A_LEAVES],
                                       i0=counters[C_NODES], i1=counters[C_LEAVES])
            return k, ev.STATUS_DONE
        if k + 2 > events.shape[0]:
            return k, ev.STATUS_BUFFER
        rec = pop_frontier(state.frontier, counters, params.max_leaf_nodes)
        acc[A_FRONTIER] -= rec[F_LOSS]
        v = counters[C_NODES]
        counters[C_NODES] = v + 1
        reason = decide_node(data, params, state, rec, v)
        counters[C_ITER] += 1
        done += 1
        parent = np.int64(rec[F_PARENT])
        start = np.int64(rec[F_START])
        end = np.int64(rec[F_END])
        depth = np.int64(rec[F_DEPTH])
        if reason >= 0:
            state.split[v] = 0
            counters[C_LEAVES] += 1
            acc[A_LEAVES] += rec[F_LOSS]
            if level >= ev.LEVEL_FULL:
                k = emit_leaf(events, k, counters[C_ITER], node=v, parent=parent, depth=depth,
                              n_samples=end - start, reason=reason, impurity=rec[F_IMP])
            continue
        pos = split_node(data, state, rec, v, sorted_buf)
        # right child first, so the left one is decided first in depth-first order
        push_frontier(data, params, state, pos, end, depth + 1, v, np.int64(0), sorted_buf, key_buf)
        push_frontier(data, params, state, start, pos, depth + 1, v, np.int64(1), sorted_buf, key_buf)
        if level >= ev.LEVEL_SUMMARY:
            k = emit_split(events, k, counters[C_ITER], node=v, parent=parent, depth=depth,
                           feature=np.int64(rec[F_FEAT]), threshold=rec[F_THR],
                           impurity_decrease=rec[F_IMPROVE], n_samples=end - start, left=pos - start,
                           right=end - pos, impurity=rec[F_IMP])
    return k, ev.STATUS_BUDGET


@njit
def pruning_path(left, right, split, node_weight, node_impurity, total_weight):
    """Minimal cost-complexity pruning (Breiman et al. 1984, §3.3): the weakest-link sequence.

    R(t) = node_weight[t] / total_weight * node_impurity[t]. Repeatedly collapse the internal node with the
    smallest effective alpha g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1) (the lowest node id on ties).
    Returns (alphas, impurities, collapse_alpha): the path as scikit-learn's
    ``cost_complexity_pruning_path`` reports it (alphas[0] = 0, impurities = total leaf impurity of each
    subtree), and per internal node the alpha at which it becomes a leaf (-1 for leaves).
    """
    m = split.shape[0]
    parent = np.full(m, -1, dtype=np.int64)
    for v in range(m):
        if split[v] != 0:
            parent[left[v]] = v
            parent[right[v]] = v
    R = node_weight / total_weight * node_impurity
    is_leaf = split == 0
    collapse = np.full(m, -1.0)
    alphas = [0.0]
    impurities = [0.0]
    # subtree leaf impurity and leaf count, recomputed after each collapse (trees are small)
    sub_r = np.zeros(m)
    sub_n = np.zeros(m, dtype=np.int64)
    while True:
        for v in range(m - 1, -1, -1):  # children have larger ids than parents
            if is_leaf[v]:
                sub_r[v] = R[v]
                sub_n[v] = 1
            else:
                sub_r[v] = sub_r[left[v]] + sub_r[right[v]]
                sub_n[v] = sub_n[left[v]] + sub_n[right[v]]
        if len(impurities) == 1:
            impurities[0] = sub_r[0]
        if is_leaf[0]:
            break
        best, best_g = -1, np.inf
        for v in range(m):
            if is_leaf[v]:
                continue
            # only nodes still inside the pruned tree
            u = parent[v]
            inside = True
            while u >= 0:
                if is_leaf[u]:
                    inside = False
                    break
                u = parent[u]
            if not inside:
                continue
            g = (R[v] - sub_r[v]) / (sub_n[v] - 1)
            if g < best_g:
                best_g = g
                best = v
        is_leaf[best] = True
        collapse[best] = max(best_g, 0.0)
        alphas.append(max(best_g, 0.0))
        impurities.append(sub_r[0] - sub_r[best] + R[best])
    return np.array(alphas), np.array(impurities), collapse
