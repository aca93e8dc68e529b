"""MurTree (Demirović et al., JMLR 2022) as a resumable numba search over binary features.

The recursion of Eq. 1 (Algorithms 1-3 of the paper) runs on an explicit stack of frames held in arrays, so a
kernel call can stop after any number of iterations and the next call resumes. One **iteration** is one call
of ``SolveSubtree`` (Algorithm 1): a subtree problem (D, d, n, UB) is entered and either resolved at once
(UB < 0, a leaf budget, a cached optimum, a lower-bound prune, "LB == leaf", the depth-two solver of
Algorithm 4) or opened as a general-case frame (Algorithm 2). The same iteration then advances the frames
until the next subtree problem is ready: delivering the result to the parent's configuration (Algorithm 3),
finishing frames whose feature loop is done (storing optima or refined lower bounds, Eq. 15-17) and
partitioning the data for the next configuration.

Techniques, each with an off switch (``params``): the depth-two solver from single and pair frequency counts
(§4.3, Eq. 2-8) with incremental counting from two counters (§4.4.3, Prop. 7-8); the similarity lower bound
(§4.5, Eq. 9, two archived datasets per depth); a dataset-keyed (§4.6.2) or branch-keyed (§4.6.1) cache with
lower bounds per (depth, nodes) budget (Prop. 10 at store time, Prop. 11 by storing each bound into every
dominated budget); dynamic child ordering (§4.7); in-order or Gini feature order (§4.8). The sparse objective
misclassifications + alpha * nodes is Algorithm 6 (a sequence of root queries with node budgets 1..n) and the
smallest optimal tree is Algorithm 7 (descending budgets under the optimal cost); both run as successive
root queries sharing the cache.

Anytime (§4.9.5): after every iteration the frames on the stack are combined into the best complete tree
they contain (each frame's incumbent, its leaf, or its current split with the solved sibling, or a leaf in
place of the unsolved one), and the global incumbent is replaced when that tree is better. The certified
lower bound is described in :func:`make_kernel`.

Costs are integer weighted misclassifications (rows with equal features and label are merged into weights
by the solver). The cache datasets are sorted arrays of row ids hashed by a Zobrist sum (``zob``), found by
open addressing in ``htab`` and confirmed by comparing the ids (§4.6.2). Optimal subtrees are stored whole
in ``tpool`` as heap arrays of features (node ``h`` has children ``2h+1`` (feature = 0) and ``2h+2``
(feature = 1); -1 is a leaf), so a cache hit returns a complete tree and no reconstruction pass is needed.
"""
import numpy as np

from odtlab.core._jit import njit
from odtlab.core import events as ev

INF = 1 << 60  # "no tree" (the paper's infeasible tree of cost +infinity)

# params (int64)
(P_DEPTH, P_NODES, P_K, P_F, P_ROWS, P_ALPHA_P, P_ALPHA_Q, P_MODE, P_CACHE, P_SIMILARITY, P_INCREMENTAL,
 P_DEPTH_TWO, P_NODE_ORDER, P_FEATURE_ORDER, P_BIG, P_EPI, P_DEEPENING, P_GREEDY) = range(18)
N_PARAMS = 18
MODE_PLAIN, MODE_SPARSE, MODE_SMALLEST = 0, 1, 2
CACHE_NONE, CACHE_DATASET, CACHE_BRANCH = 0, 1, 2
ORDER_DYNAMIC, ORDER_POST = 0, 1
FEATURES_IN_ORDER, FEATURES_GINI = 0, 1

# frame fields (int64, frames[k, FR_*]); child blocks for side 0 (feature absent) and 1 (present)
(FR_START, FR_LEN, FR_W, FR_HASH, FR_KOFF, FR_KLEN, FR_KHASH, FR_CIDX, FR_D, FR_N, FR_UB, FR_LB, FR_LEAF,
 FR_BEST, FR_BEST_NODES, FR_RLB, FR_FI, FR_F, FR_NL, FR_NMIN, FR_NMAX, FR_PHASE, FR_FIRST, FR_FIRST_COST,
 FR_FIRST_NODES, FR_UBP, FR_CBASE, FR_SIM0, FR_SIM1, FR_CHILD) = range(30)
CH_START, CH_LEN, CH_W, CH_HASH, CH_KOFF, CH_KHASH, CH_CIDX, CH_LEAF = range(8)
CH_WIDTH = 8
N_FRAME_FIELDS = FR_CHILD + 2 * CH_WIDTH
PH_NEXT_FEATURE, PH_FIRST, PH_SECOND, PH_CONFIG, PH_ISSUE_SECOND = 0, 1, 2, 3, 4

# call / return register (int64, reg[RG_*])
(RG_START, RG_LEN, RG_W, RG_HASH, RG_KOFF, RG_KLEN, RG_KHASH, RG_CIDX, RG_D, RG_N, RG_UB, RG_LEAF,
 RT_COST, RT_LB, RT_NODES, RT_CIDX) = range(16)
N_REG = 16

# counters (int64)
(C_ITER, C_DONE, C_STARTED, C_TOP, C_GROW, C_G_MISS, C_G_NODES, C_LOWER, C_Q_N, C_Q_STAGE, C_Q_COST,
 C_CALLS, C_FRAMES, C_D2, C_D2_SCRATCH, C_D2_INCREMENTAL, C_D2_SAME, C_D2_UPDATES, C_CACHE_HITS,
 C_LB_PRUNES, C_SIM_PRUNES, C_SIM_RAISES, C_NDS, C_KEYS_USED, C_TP_USED, C_INCUMBENTS, C_ROOT_LEAF,
 C_ROOT_W, C_ROOT_HASH, C_Q_DEPTH) = range(30)
N_COUNTERS = 30
GROW_CACHE, GROW_KEYS, GROW_TPOOL = 1, 2, 4

# cache dataset metadata (int64, meta[ci, M_*])
M_HASH, M_LEN, M_KEY = range(3)

# MurTree event kinds (block 96..127 of odtlab.core.events)
MT_ENTER = 96  # subtree entered: depth = d, i0 = |D| rows, i1 = node budget, i2 = weight, upper = UB, lower = LB
MT_CACHE_HIT = 97  # optimum found in the cache: value = cost, flags = 1 if within UB
MT_LB_PRUNE = 98  # lower bound > UB (flags = 1 when UB < 0): lower = LB, upper = UB
MT_SIMILARITY = 99  # similarity bound raised the LB: value = old LB, lower = new LB, i2 = weight of D_out
MT_DEPTH_TWO = 100  # depth-two solve: i0 = |D|, i1/i2/value = best 1-, 2-, 3-node costs (-1: depth one), flags
MT_FRAME_INCUMBENT = 101  # a frame's incumbent improved: feature, i0 = n_L, i1 = n_R, value = cost, f0 = old
MT_SOLVED = 102  # subtree solved: value = cost, lower = stored LB, i2 = nodes, flags = how
MT_INFEASIBLE = 103  # no tree within UB: lower = stored LB (Eq. 17), value = RLB (-1 if none)
MT_QUERY = 104  # root query of Algorithm 6 / 7: i1 = node budget, depth = d, upper = UB
SOLVED_GENERAL, SOLVED_LEAF_BUDGET, SOLVED_LEAF_LB, SOLVED_DEPTH_TWO = 0, 1, 2, 3
COUNT_SCRATCH, COUNT_INCREMENTAL, COUNT_UNCHANGED, COUNT_SINGLES = 0, 1, 2, 3


# ------------------------------------------------------------------------------------------------------
# small helpers
# ------------------------------------------------------------------------------------------------------
@njit(inline="always")
def leaf_cost(counts, K):
    """LeafMisclassification: |D| - max_k |D_k| (weighted)."""
    total = 0
    mx = 0
    for c in range(K):
        v = counts[c]
        total += v
        if v > mx:
            mx = v
    return total - mx


@njit(inline="always")
def key_of(miss, nodes, ap, aq, big):
    """Global comparison key: the sparse objective in units of 1/aq, then fewer nodes on ties."""
    return (aq * miss + ap * nodes) * big + nodes


@njit(inline="always")
def sparse_ub(miss, nodes, budget, ap, aq):
    """Algorithm 6's UB for the query with ``budget`` nodes, given the best tree (miss, nodes) so far.

    A tree with k <= budget nodes and cost c has objective c + alpha * k <= c + alpha * budget, so
    c <= (best - alpha * budget) keeps every tree at least as good as the best; below the best tree's size
    ties are kept (they have fewer nodes), from its size on a strict improvement is asked (UB = ... - 1).
    This makes the result the smallest tree among the optimal ones.
    """
    num = aq * miss + ap * nodes - ap * budget
    if budget < nodes:
        return num // aq
    if num <= 0:
        return -1
    return (num + aq - 1) // aq - 1


@njit
def heap_clear(arr, off, pos, depth):
    """Set the heap subtree rooted at ``pos`` (``depth`` levels) of ``arr[off:]`` to leaves (-1)."""
    width = 1
    base = pos
    for _ in range(depth):
        for o in range(width):
            arr[off + base + o] = -1
        base = 2 * base + 1
        width *= 2


@njit
def heap_embed(src, soff, sdepth, dst, doff, pos):
    """Copy the first ``sdepth`` levels of the heap tree ``src[soff:]`` under node ``pos`` of ``dst[doff:]``."""
    width = 1
    base = pos
    h = 0
    for _ in range(sdepth):
        for o in range(width):
            dst[doff + base + o] = src[soff + h]
            h += 1
        base = 2 * base + 1
        width *= 2


@njit
def heap_depth(arr, off, depth):
    """Actual depth of the heap tree ``arr[off:]`` laid out with ``depth`` levels (0 for a leaf)."""
    actual = 0
    width = 1
    h = 0
    for level in range(depth):
        for _ in range(width):
            if arr[off + h] >= 0:
                actual = level + 1
            h += 1
        width *= 2
    return actual


# ------------------------------------------------------------------------------------------------------
# cache (§4.6): open addressing over dataset (or branch) keys, entries per (depth, nodes) slot
# ------------------------------------------------------------------------------------------------------
@njit
def cache_find(htab, meta, keys, src, off, length, h):
    """Index of the cached key ``src[off:off+length]`` with hash ``h``, or -1 (ids compared on a hit)."""
    mask = htab.shape[0] - 1
    pos = h & mask
    while True:
        e = htab[pos]
        if e == 0:
            return -1
        ci = e - 1
        if meta[ci, M_HASH] == h and meta[ci, M_LEN] == length:
            ks = meta[ci, M_KEY]
            same = True
            for t in range(length):
                if keys[ks + t] != src[off + t]:
                    same = False
                    break
            if same:
                return ci
        pos = (pos + 1) & mask


@njit
def cache_insert(htab, meta, keys, ent_lb, ent_cost, ent_tree, counters, src, off, length, h):
    """Add a new key (room was checked before the iteration) and return its index."""
    ci = counters[C_NDS]
    counters[C_NDS] = ci + 1
    ks = counters[C_KEYS_USED]
    for t in range(length):
        keys[ks + t] = src[off + t]
    counters[C_KEYS_USED] = ks + length
    meta[ci, M_HASH] = h
    meta[ci, M_LEN] = length
    meta[ci, M_KEY] = ks
    ent_lb[ci, :] = 0
    ent_cost[ci, :] = -1
    ent_tree[ci, :] = -1
    mask = htab.shape[0] - 1
    pos = h & mask
    while htab[pos] != 0:
        pos = (pos + 1) & mask
    htab[pos] = ci + 1
    return ci


@njit
def rehash(htab, meta, n_ds):
    """Rebuild the open-addressing table after it was enlarged."""
    htab[:] = 0
    mask = htab.shape[0] - 1
    for ci in range(n_ds):
        pos = meta[ci, M_HASH] & mask
        while htab[pos] != 0:
            pos = (pos + 1) & mask
        htab[pos] = ci + 1


@njit
def raise_lb(lbrow, slot, value, dom):
    """Store ``value`` as a lower bound of budget ``slot`` and of every smaller budget (Prop. 11)."""
    for t in range(lbrow.shape[0]):
        if dom[slot, t] and lbrow[t] < value:
            lbrow[t] = value


@njit
def store_optimum(ent_lb, ent_cost, ent_tree, ci, slot, cost, nodes, adepth, tree_code, slot_d, slot_n, dom):
    """Scenario 1 of §4.6.3: the optimum of (d, n) is also optimal for budgets (d', n') with
    nodes <= n' <= n and actual depth <= d' <= d (Prop. 10); its cost bounds every smaller budget."""
    d = slot_d[slot]
    n = slot_n[slot]
    for t in range(slot_d.shape[0]):
        if dom[slot, t]:
            if ent_lb[ci, t] < cost:
                ent_lb[ci, t] = cost
            if slot_n[t] >= nodes and slot_d[t] >= adepth and slot_n[t] <= n and slot_d[t] <= d:
                ent_cost[ci, t] = cost
                ent_tree[ci, t] = tree_code


@njit
def tpool_put(tpool, counters, src, soff, adepth):
    """Append a heap tree of ``adepth`` levels; return its code (offset * 32 + depth, -1 for a leaf)."""
    if adepth == 0:
        return -1
    p = counters[C_TP_USED]
    size = (1 << adepth) - 1
    for h in range(size):
        tpool[p + h] = src[soff + h]
    counters[C_TP_USED] = p + size
    return p * 32 + adepth


@njit
def tree_from_code(tpool, code, dst, depth):
    """Write the stored tree ``code`` into ``dst`` laid out with ``depth`` levels."""
    heap_clear(dst, 0, 0, depth)
    if code >= 0:
        heap_embed(tpool, code // 32, min(code % 32, depth), dst, 0, 0)


# ------------------------------------------------------------------------------------------------------
# data passes
# ------------------------------------------------------------------------------------------------------
@njit
def partition(pool, start, length, cbase, Xc, f, zob, want_hash, scratch):
    """Stable split of ``pool[start:start+length]`` by feature f into ``pool[cbase:]``: rows with f = 0
    first, then rows with f = 1 (both stay sorted). Returns (number of f = 0 rows, hash of the f = 1 rows)."""
    nl = 0
    nr = 0
    hr = 0
    col = Xc[f]
    for t in range(start, start + length):
        r = pool[t]
        if col[r] == 0:
            pool[cbase + nl] = r
            nl += 1
        else:
            scratch[nr] = r
            nr += 1
            if want_hash:
                hr += zob[r]
    for t in range(nr):
        pool[cbase + nl + t] = scratch[t]
    return nl, hr


@njit
def single_counts(pool, start, length, rowptr, rowfeat, label, weight, out):
    """out[c, f] = weight of class-c rows of the dataset that contain f (FQ^c(f), Alg. 4 phase 1)."""
    out[:, :] = 0
    for t in range(start, start + length):
        r = pool[t]
        c = label[r]
        w = weight[r]
        for a in range(rowptr[r], rowptr[r + 1]):
            out[c, rowfeat[a]] += w


@njit
def gini_order(fc, cls, W, K, F, order):
    """Features by decreasing Gini gain I(D) - sum_side |side|/|D| I(side), I = 1 - sum p^2 (§4.8)."""
    gains = np.empty(F)
    base = 1.0
    for c in range(K):
        p = cls[c] / W
        base -= p * p
    for f in range(F):
        wr = 0
        for c in range(K):
            wr += fc[c, f]
        wl = W - wr
        if wr == 0 or wl == 0:
            gains[f] = -1.0
            continue
        il = 1.0
        ir = 1.0
        for c in range(K):
            pr = fc[c, f] / wr
            pl = (cls[c] - fc[c, f]) / wl
            ir -= pr * pr
            il -= pl * pl
        gains[f] = base - (wl * il + wr * ir) / W
    idx = np.argsort(-gains, kind="mergesort")
    for t in range(F):
        order[t] = idx[t]


@njit
def similarity_diff(old, olen, pool, start, length, weight):
    """(weight of D_old minus D_new, |D_in| + |D_out|) by one merge of sorted ids (Prop. 7)."""
    i = 0
    j = 0
    wout = 0
    diff = 0
    while i < olen and j < length:
        a = old[i]
        b = pool[start + j]
        if a == b:
            i += 1
            j += 1
        elif a < b:
            wout += weight[a]
            diff += 1
            i += 1
        else:
            diff += 1
            j += 1
    while i < olen:
        wout += weight[old[i]]
        diff += 1
        i += 1
    diff += length - j
    return wout, diff


@njit
def counter_diff(old, olen, pool, start, length, din, dout, limit):
    """D_in and D_out against a counter's dataset (Observation 1); (-1, -1) once |D_in|+|D_out| >= limit."""
    i = 0
    j = 0
    nin = 0
    nout = 0
    while i < olen and j < length:
        a = old[i]
        b = pool[start + j]
        if a == b:
            i += 1
            j += 1
        elif a < b:
            dout[nout] = a
            nout += 1
            i += 1
        else:
            din[nin] = b
            nin += 1
            j += 1
        if nin + nout >= limit:
            return -1, -1
    while i < olen:
        dout[nout] = old[i]
        nout += 1
        i += 1
    while j < length:
        din[nin] = pool[start + j]
        nin += 1
        j += 1
    if nin + nout >= limit:
        return -1, -1
    return nin, nout


@njit
def count_rows(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, F, FF):
    """Add (sign = 1) or remove (sign = -1) rows to a counter: FQ^c(f_i, f_j) for i <= j (Alg. 4 l. 2-9,
    Observations 2-5). The diagonal holds the single counts FQ^c(f_i)."""
    for t in range(off, off + cnt):
        r = ids[t]
        w = sign * weight[r]
        cb = base + label[r] * FF
        a1 = rowptr[r + 1]
        for a in range(rowptr[r], a1):
            row = cb + rowfeat[a] * F
            for b in range(a, a1):
                fq[row + rowfeat[b]] += w


@njit
def depth_two_scores(fq, base, K, F, cls, W, diag, act, d2, out):
    """Phase 2 of Algorithm 4 on one counter: the best trees with 1, 2 and 3 feature nodes.

    Cells follow Eq. 2-5, cell costs Eq. 6, subtree costs Eq. 7-8; the pair loop runs over i < j and
    updates (root i, child j) and (root j, child i) on both sides. A child feature is kept only if it is
    strictly better than the leaf, and the 2-node (3-node) search starts from the 1-node (2-node) optimum,
    so ties prefer fewer nodes (lexicographic, §4.4). ``out[b] = (cost, nodes, root, left, right)``.
    """
    FF = F * F
    nact = 0
    for i in range(F):
        s = 0
        for c in range(K):
            v = fq[base + c * FF + i * F + i]
            diag[c, i] = v
            s += v
        if s > 0 and s < W:
            act[nact] = i
            nact += 1
    leafl = d2[0]
    leafr = d2[1]
    bl = d2[2]
    blf = d2[3]
    br = d2[4]
    brf = d2[5]
    for a in range(nact):
        i = act[a]
        tl = 0
        ml = 0
        tr = 0
        mr = 0
        for c in range(K):
            vr = diag[c, i]
            vl = cls[c] - vr
            tl += vl
            tr += vr
            if vl > ml:
                ml = vl
            if vr > mr:
                mr = vr
        leafl[i] = tl - ml
        leafr[i] = tr - mr
        bl[i] = tl - ml
        blf[i] = -1
        br[i] = tr - mr
        brf[i] = -1
    if K == 2:
        n0 = cls[0]
        n1 = cls[1]
        b0 = base
        b1 = base + FF
        for a in range(nact):
            i = act[a]
            si0 = diag[0, i]
            si1 = diag[1, i]
            bli = bl[i]
            blfi = blf[i]
            bri = br[i]
            brfi = brf[i]
            r0 = b0 + i * F
            r1 = b1 + i * F
            for b in range(a + 1, nact):
                j = act[b]
                p0 = fq[r0 + j]
                p1 = fq[r1 + j]
                sj0 = diag[0, j]
                sj1 = diag[1, j]
                e = min(p0, p1)  # (f_i, f_j)
                cc = min(si0 - p0, si1 - p1)  # (f_i, not f_j)
                bb = min(sj0 - p0, sj1 - p1)  # (not f_i, f_j)
                aa = min(n0 - si0 - sj0 + p0, n1 - si1 - sj1 + p1)  # (not f_i, not f_j)
                v = aa + bb
                if v < bli:
                    bli = v
                    blfi = j
                v = cc + e
                if v < bri:
                    bri = v
                    brfi = j
                v = aa + cc
                if v < bl[j]:
                    bl[j] = v
                    blf[j] = i
                v = bb + e
                if v < br[j]:
                    br[j] = v
                    brf[j] = i
            bl[i] = bli
            blf[i] = blfi
            br[i] = bri
            brf[i] = brfi
    else:
        for a in range(nact):
            i = act[a]
            for b in range(a + 1, nact):
                j = act[b]
                ta = 0
                ma = 0
                tb = 0
                mb = 0
                tc = 0
                mc = 0
                te = 0
                me = 0
                for c in range(K):
                    p = fq[base + c * FF + i * F + j]
                    si = diag[c, i]
                    sj = diag[c, j]
                    va = cls[c] - si - sj + p
                    vb = sj - p
                    vc = si - p
                    ta += va
                    tb += vb
                    tc += vc
                    te += p
                    if va > ma:
                        ma = va
                    if vb > mb:
                        mb = vb
                    if vc > mc:
                        mc = vc
                    if p > me:
                        me = p
                aa = ta - ma
                bb = tb - mb
                cc = tc - mc
                e = te - me
                v = aa + bb
                if v < bl[i]:
                    bl[i] = v
                    blf[i] = j
                v = cc + e
                if v < br[i]:
                    br[i] = v
                    brf[i] = j
                v = aa + cc
                if v < bl[j]:
                    bl[j] = v
                    blf[j] = i
                v = bb + e
                if v < br[j]:
                    br[j] = v
                    brf[j] = i
    leaf = leaf_cost(cls, K)
    # 1 node: min_i leaf(D(not f_i)) + leaf(D(f_i))
    c1 = leaf
    r1 = -1
    for a in range(nact):
        i = act[a]
        v = leafl[i] + leafr[i]
        if v < c1:
            c1 = v
            r1 = i
    out[0, 0] = c1
    out[0, 1] = 0 if r1 < 0 else 1
    out[0, 2] = r1
    out[0, 3] = -1
    out[0, 4] = -1
    # 2 nodes: a root with one feature child
    c2 = c1
    out[1, :] = out[0, :]
    for a in range(nact):
        i = act[a]
        if blf[i] >= 0:
            v = bl[i] + leafr[i]
            if v < c2:
                c2 = v
                out[1, 0] = v
                out[1, 1] = 2
                out[1, 2] = i
                out[1, 3] = blf[i]
                out[1, 4] = -1
        if brf[i] >= 0:
            v = leafl[i] + br[i]
            if v < c2:
                c2 = v
                out[1, 0] = v
                out[1, 1] = 2
                out[1, 2] = i
                out[1, 3] = -1
                out[1, 4] = brf[i]
    # 3 nodes: min_i BestLeft[i] + BestRight[i]
    c3 = c2
    out[2, :] = out[1, :]
    for a in range(nact):
        i = act[a]
        if blf[i] >= 0 and brf[i] >= 0:
            v = bl[i] + br[i]
            if v < c3:
                c3 = v
                out[2, 0] = v
                out[2, 1] = 3
                out[2, 2] = i
                out[2, 3] = blf[i]
                out[2, 4] = brf[i]


@njit
def depth_two(pool, start, length, cls, W, K, F, rowptr, rowfeat, label, weight, fq, cnt_ids, cnt_meta,
              cnt_out, din, dout, diag, act, d2, incremental, counters):
    """The specialised depth-two solver (Algorithm 4) with incremental counting (§4.4.3).

    Two counters each remember the dataset they counted. The one with the smaller |D_in| + |D_out| is
    updated incrementally when that difference is below |D| (Prop. 8), otherwise it is recounted from
    scratch; no difference returns its previous output. Returns (counter slot, counting mode).
    """
    FF = F * F
    slot = -1
    nin = -1
    nout = -1
    if incremental:
        limit = length
        for s in range(2):
            if cnt_meta[s, 0] < 0:
                continue
            a, b = counter_diff(cnt_ids[s], cnt_meta[s, 0], pool, start, length, din[s], dout[s], limit)
            if a >= 0:
                slot = s
                nin = a
                nout = b
                limit = a + b
        if slot >= 0 and nin + nout == 0:
            counters[C_D2_SAME] += 1
            return slot, COUNT_UNCHANGED
    mode = COUNT_INCREMENTAL
    if slot < 0:
        mode = COUNT_SCRATCH
        slot = 0
        if incremental:  # overwrite an empty counter, else the older one
            if cnt_meta[0, 0] >= 0:
                slot = 1 if cnt_meta[1, 0] < 0 else (1 if cnt_meta[0, 1] > cnt_meta[1, 1] else 0)
    base = slot * K * FF
    if mode == COUNT_SCRATCH:
        fq[base:base + K * FF] = 0
        count_rows(fq, base, pool, start, length, 1, rowptr, rowfeat, label, weight, F, FF)
        counters[C_D2_SCRATCH] += 1
        counters[C_D2_UPDATES] += length
    else:
        count_rows(fq, base, dout[slot], 0, nout, -1, rowptr, rowfeat, label, weight, F, FF)
        count_rows(fq, base, din[slot], 0, nin, 1, rowptr, rowfeat, label, weight, F, FF)
        counters[C_D2_INCREMENTAL] += 1
        counters[C_D2_UPDATES] += nin + nout
    ids = cnt_ids[slot]
    for t in range(length):
        ids[t] = pool[start + t]
    cnt_meta[slot, 0] = length
    cnt_meta[slot, 1] = counters[C_D2]  # age, for choosing which counter to overwrite
    depth_two_scores(fq, base, K, F, cls, W, diag, act, d2, cnt_out[slot])
    return slot, mode


@njit
def stump(pool, start, length, cls, W, K, F, rowptr, rowfeat, label, weight, sing, out):
    """Depth one (one node) from single counts only: min_i leaf(D(not f_i)) + leaf(D(f_i))."""
    single_counts(pool, start, length, rowptr, rowfeat, label, weight, sing)
    best = leaf_cost(cls, K)
    root = -1
    for i in range(F):
        tl = 0
        ml = 0
        tr = 0
        mr = 0
        for c in range(K):
            vr = sing[c, i]
            vl = cls[c] - vr
            tl += vl
            tr += vr
            if vl > ml:
                ml = vl
            if vr > mr:
                mr = vr
        if tr == 0 or tl == 0:
            continue
        v = tl - ml + tr - mr
        if v < best:
            best = v
            root = i
    out[0, 0] = best
    out[0, 1] = 0 if root < 0 else 1
    out[0, 2] = root
    out[0, 3] = -1
    out[0, 4] = -1


@njit
def archive_update(arch_ids, arch_meta, arch_lb, d, pool, start, length, W, lbrow, sim0, sim1, weight):
    """After a subtree of depth d was searched, its dataset replaces the more similar of the two archived
    at depth d (§4.5); ``lbrow`` holds its lower bounds per budget."""
    diffs = (sim0, sim1)
    s = -1
    for j in range(2):
        if arch_meta[d, j, 0] < 0:
            s = j
            break
    if s < 0:
        best = INF
        for j in range(2):
            dj = diffs[j]
            if dj < 0:
                _, dj = similarity_diff(arch_ids[d, j], arch_meta[d, j, 0], pool, start, length, weight)
            if dj < best:
                best = dj
                s = j
    ids = arch_ids[d, s]
    for t in range(length):
        ids[t] = pool[start + t]
    arch_meta[d, s, 0] = length
    arch_meta[d, s, 1] = W
    arch_lb[d, s, :] = lbrow


@njit
def similarity_bound(arch_ids, arch_meta, arch_lb, d, slot, pool, start, length, W, weight, diffs):
    """Eq. 9 with the archived datasets' lower bounds: max_j LB(D_j) - w(D_j minus D) (Prop. 9).
    Returns (bound, weight of D_out for the best one); ``diffs[j]`` gets |D_in|+|D_out| (-1 if skipped)."""
    best = 0
    wbest = 0
    for j in range(2):
        diffs[j] = -1
        olen = arch_meta[d, j, 0]
        if olen < 0:
            continue
        lbo = arch_lb[d, j, slot]
        if lbo <= 0 or arch_meta[d, j, 1] - W >= lbo:  # the bound cannot be positive
            continue
        wout, diff = similarity_diff(arch_ids[d, j], olen, pool, start, length, weight)
        diffs[j] = diff
        if lbo - wout > best:
            best = lbo - wout
            wbest = wout
    return best, wbest


@njit
def greedy_tree(pool, n_rows, depth, nodes, Xc, rowptr, rowfeat, label, weight, zob, K, F, sing, scratch, out):
    """A greedy upper bound (the paper's remark that a CART tree can replace the leaf as the first UB).

    Nodes are split breadth first on the feature with the largest Gini gain while the node budget lasts;
    a pure node or a node without a non-degenerate split with positive gain stays a leaf. Level L's
    row groups live in ``pool[L * n_rows:(L + 1) * n_rows]``. Writes the heap tree into ``out`` and
    returns (misclassifications, feature nodes).
    """
    heap_clear(out, 0, 0, depth)
    size = (1 << (depth + 1)) - 1
    gstart = np.zeros(size, dtype=np.int64)
    glen = np.zeros(size, dtype=np.int64)
    glen[0] = n_rows
    cls = np.zeros(K, dtype=np.int64)
    cost = 0
    used = 0
    for h in range(size):
        level = 0
        while (1 << (level + 1)) - 1 <= h:
            level += 1
        if glen[h] == 0:
            continue
        start = gstart[h]
        length = glen[h]
        cls[:] = 0
        for t in range(start, start + length):
            cls[label[pool[t]]] += weight[pool[t]]
        leaf = leaf_cost(cls, K)
        best_f = -1
        if level < depth and used < nodes and leaf > 0:
            single_counts(pool, start, length, rowptr, rowfeat, label, weight, sing)
            W = 0
            base = 1.0
            for c in range(K):
                W += cls[c]
            for c in range(K):
                p = cls[c] / W
                base -= p * p
            best_gain = 1e-12
            for f in range(F):
                wr = 0
                for c in range(K):
                    wr += sing[c, f]
                wl = W - wr
                if wr == 0 or wl == 0:
                    continue
                il = 1.0
                ir = 1.0
                for c in range(K):
                    pr = sing[c, f] / wr
                    pl = (cls[c] - sing[c, f]) / wl
                    ir -= pr * pr
                    il -= pl * pl
                gain = base - (wl * il + wr * ir) / W
                if gain > best_gain:
                    best_gain = gain
                    best_f = f
        if best_f < 0:
            cost += leaf
            continue
        used += 1
        out[h] = best_f
        cbase = (level + 1) * n_rows + (start - level * n_rows)
        nl, _ = partition(pool, start, length, cbase, Xc, best_f, zob, False, scratch)
        gstart[2 * h + 1] = cbase
        glen[2 * h + 1] = nl
        gstart[2 * h + 2] = cbase + nl
        glen[2 * h + 2] = length - nl
    return cost, used


# ------------------------------------------------------------------------------------------------------
# the kernel
# ------------------------------------------------------------------------------------------------------
def make_kernel(level):
    """The MurTree kernel specialised for a record level (``ev.LEVEL_*``).

    Bounds kept in ``counters`` (objective units times alpha's denominator q): the global incumbent
    (C_G_MISS misclassifications, C_G_NODES feature nodes) and C_LOWER, a certified lower bound:
    plain queries keep the root's stored lower bound until the root is solved; Algorithm 6 uses
    min(incumbent, alpha * n') with n' the budget of the running query (smaller budgets are finished,
    larger trees pay at least alpha per node); Algorithm 7's bound is the optimum once its first query ends.
    """

    @njit
    def murtree_kernel(Xc, rowptr, rowfeat, label, weight, zob, zlit, params, pair_slot, slot_d, slot_n, dom,
                       pool, bkeys, frames, fcls, fcounts, fchild, forder, ftree, ctree, rtree, gtree, reg,
                       reg_cls, counters, arch_ids, arch_meta, arch_lb, lbrow, fq, cnt_ids, cnt_meta, cnt_out,
                       din, dout, diag, act, d2, sing, scratch, cand, htab, meta, keys, ent_lb, ent_cost,
                       ent_tree, tpool, events, max_iterations):
        """Advance MurTree by at most ``max_iterations`` subtree calls; return (n_events, status)."""
        D = params[P_DEPTH]
        NN = params[P_NODES]
        K = params[P_K]
        F = params[P_F]
        n_rows = params[P_ROWS]
        ap = params[P_ALPHA_P]
        aq = params[P_ALPHA_Q]
        mode = params[P_MODE]
        cache_mode = params[P_CACHE]
        use_sim = params[P_SIMILARITY] == 1
        incremental = params[P_INCREMENTAL] == 1
        use_d2 = params[P_DEPTH_TWO] == 1
        dynamic = params[P_NODE_ORDER] == ORDER_DYNAMIC
        gini = params[P_FEATURE_ORDER] == FEATURES_GINI
        big = params[P_BIG]
        epi = params[P_EPI]
        use_cache = cache_mode != CACHE_NONE
        by_branch = cache_mode == CACHE_BRANCH
        keysrc = bkeys if by_branch else pool
        k = 0
        if counters[C_DONE] == 1:
            return k, ev.STATUS_DONE
        if counters[C_STARTED] == 0:
            counters[C_STARTED] = 1
            counters[C_TOP] = -1
            root_leaf = leaf_cost(reg_cls, K)
            counters[C_ROOT_LEAF] = root_leaf
            counters[C_G_MISS] = root_leaf
            counters[C_G_NODES] = 0
            counters[C_LOWER] = min(aq * root_leaf, ap) if mode == MODE_SPARSE else 0
            heap_clear(gtree, 0, 0, D)
            if params[P_GREEDY] == 1:
                gm, gn = greedy_tree(pool, n_rows, D, NN, Xc, rowptr, rowfeat, label, weight, zob, K, F, sing, scratch,
                                     rtree)
                if key_of(gm, gn, ap, aq, big) < key_of(root_leaf, 0, ap, aq, big):
                    counters[C_G_MISS] = gm
                    counters[C_G_NODES] = gn
                    heap_embed(rtree, 0, D, gtree, 0, 0)
            counters[C_Q_STAGE] = 0
            # the first root query: Algorithm 6 starts at one node; Algorithm 7 at the full budget; a plain search
            # at depth 1 (iterative deepening, §4.9.5) or at the full depth. Each asks for a strict improvement over
            # the best tree known (the leaf or the greedy tree): UB = its cost - 1, as the reference code's leaf - 1
            if mode == MODE_PLAIN:
                q = 1 if params[P_DEEPENING] == 1 else D
                qn = min(NN, (1 << q) - 1)
                qd = min(q, qn)
                counters[C_Q_DEPTH] = q
                reg[RG_UB] = counters[C_G_MISS] - 1
            elif mode == MODE_SPARSE:
                qn = 1
                qd = 1
                reg[RG_UB] = sparse_ub(counters[C_G_MISS], counters[C_G_NODES], qn, ap, aq)
            else:
                qn = NN
                qd = min(D, NN)
                reg[RG_UB] = counters[C_G_MISS] - 1
            counters[C_Q_N] = qn
            reg[RG_D] = qd
            reg[RG_N] = qn
            reg[RG_CIDX] = -2
            if level >= ev.LEVEL_SUMMARY:
                k = ev.emit(events, k, 0, ev.SEARCH_STARTED, D, 0, 0, -1, -1, 0.0,
                            counters[C_G_MISS] + ap * counters[C_G_NODES] / aq, counters[C_LOWER] / aq,
                            n_rows, NN, counters[C_ROOT_W], 0.0, 0.0)
        done = 0
        while done < max_iterations:
            if counters[C_DONE] == 1:
                break
            if level > ev.LEVEL_NONE and k + epi > events.shape[0]:
                return k, ev.STATUS_BUFFER
            if use_cache:
                grow = 0
                if 2 * (counters[C_NDS] + D + 3) > htab.shape[0] or counters[C_NDS] + D + 3 > meta.shape[0]:
                    grow |= GROW_CACHE
                if counters[C_KEYS_USED] + (D + 3) * n_rows > keys.shape[0]:
                    grow |= GROW_KEYS
                if counters[C_TP_USED] + (D + 3) * (gtree.shape[0] + 3) > tpool.shape[0]:
                    grow |= GROW_TPOOL
                if grow:
                    counters[C_GROW] = grow
                    return k, ev.STATUS_GROW
            done += 1
            counters[C_ITER] += 1
            it = counters[C_ITER]
            g_before = key_of(counters[C_G_MISS], counters[C_G_NODES], ap, aq, big)
            lower_before = counters[C_LOWER]
            top = counters[C_TOP]
            # ---------------- Algorithm 1: SolveSubtree on the call register ----------------
            d = reg[RG_D]
            nn = reg[RG_N]
            ub = reg[RG_UB]
            start = reg[RG_START]
            length = reg[RG_LEN]
            W = reg[RG_W]
            leaf = reg[RG_LEAF]
            cidx = reg[RG_CIDX]
            counters[C_CALLS] += 1
            if use_cache and cidx == -2:
                cidx = cache_find(htab, meta, keys, keysrc, reg[RG_KOFF], reg[RG_KLEN], reg[RG_KHASH])
            if level >= ev.LEVEL_FULL:
                k = ev.emit(events, k, it, MT_ENTER, d, 0, top + 1, top, -1, float(leaf), float(ub),
                            float(ent_lb[cidx, pair_slot[d, nn]] if (cidx >= 0 and d > 0 and nn > 0) else 0),
                            length, nn, W, 0.0, 0.0)
            resolved = True
            reg[RT_CIDX] = cidx
            reg[RT_NODES] = 0
            if ub < 0:
                lb = ent_lb[cidx, pair_slot[d, nn]] if (cidx >= 0 and d > 0 and nn > 0) else 0
                reg[RT_COST] = INF
                reg[RT_LB] = lb
                counters[C_LB_PRUNES] += 1
                if level >= ev.LEVEL_FULL:
                    k = ev.emit(events, k, it, MT_LB_PRUNE, d, 1, top + 1, top, -1, 0.0, float(ub), float(lb),
                                length, nn, W, 0.0, 0.0)
            elif d == 0 or nn == 0:
                heap_clear(rtree, 0, 0, d)
                if leaf <= ub:
                    reg[RT_COST] = leaf
                    reg[RT_LB] = leaf
                    if level >= ev.LEVEL_FULL:
                        k = ev.emit(events, k, it, MT_SOLVED, d, SOLVED_LEAF_BUDGET, top + 1, top, -1, float(leaf),
                                    float(ub), float(leaf), length, nn, 0, 0.0, 0.0)
                else:
                    reg[RT_COST] = INF
                    reg[RT_LB] = leaf
                    if level >= ev.LEVEL_FULL:
                        k = ev.emit(events, k, it, MT_INFEASIBLE, d, 0, top + 1, top, -1, -1.0, float(ub),
                                    float(leaf), length, nn, W, 0.0, 0.0)
            else:
                slot = pair_slot[d, nn]
                if cidx >= 0 and ent_cost[cidx, slot] >= 0:
                    cost = ent_cost[cidx, slot]
                    counters[C_CACHE_HITS] += 1
                    if cost <= ub:
                        tree_from_code(tpool, ent_tree[cidx, slot], rtree, d)
                        reg[RT_COST] = cost
                        reg[RT_NODES] = 0
                        for h in range((1 << d) - 1):
                            if rtree[h] >= 0:
                                reg[RT_NODES] += 1
                    else:
                        reg[RT_COST] = INF
                    reg[RT_LB] = cost
                    if level >= ev.LEVEL_FULL:
                        k = ev.emit(events, k, it, MT_CACHE_HIT, d, 1 if cost <= ub else 0, top + 1, top, -1,
                                    float(cost), float(ub), float(cost), length, nn, reg[RT_NODES], 0.0, 0.0)
                else:
                    lb = ent_lb[cidx, slot] if cidx >= 0 else 0
                    sim0 = -1
                    sim1 = -1
                    if use_sim:
                        sb, wout = similarity_bound(arch_ids, arch_meta, arch_lb, d, slot, pool, start, length, W,
                                                    weight, scratch)
                        sim0 = scratch[0]
                        sim1 = scratch[1]
                        if sb > lb:
                            if level >= ev.LEVEL_FULL:
                                k = ev.emit(events, k, it, MT_SIMILARITY, d, 0, top + 1, top, -1, float(lb),
                                            float(ub), float(sb), length, nn, wout, 0.0, 0.0)
                            lb = sb
                            counters[C_SIM_RAISES] += 1
                            if use_cache:
                                if cidx < 0:
                                    cidx = cache_insert(htab, meta, keys, ent_lb, ent_cost, ent_tree, counters,
                                                        keysrc, reg[RG_KOFF], reg[RG_KLEN], reg[RG_KHASH])
                                    reg[RT_CIDX] = cidx
                                raise_lb(ent_lb[cidx], slot, lb, dom)
                            if lb > ub:
                                counters[C_SIM_PRUNES] += 1
                    if lb > ub:
                        reg[RT_COST] = INF
                        reg[RT_LB] = lb
                        counters[C_LB_PRUNES] += 1
                        if level >= ev.LEVEL_FULL:
                            k = ev.emit(events, k, it, MT_LB_PRUNE, d, 0, top + 1, top, -1, 0.0, float(ub),
                                        float(lb), length, nn, W, 0.0, 0.0)
                    elif lb == leaf:
                        heap_clear(rtree, 0, 0, d)
                        reg[RT_COST] = leaf
                        reg[RT_LB] = leaf
                        if level >= ev.LEVEL_FULL:
                            k = ev.emit(events, k, it, MT_SOLVED, d, SOLVED_LEAF_LB, top + 1, top, -1,
                                        float(leaf), float(ub), float(leaf), length, nn, 0, 0.0, 0.0)
                    elif d <= 2 and use_d2:
                        # ---------------- Algorithm 4: the depth-two solver ----------------
                        counters[C_D2] += 1
                        if d == 1:
                            stump(pool, start, length, reg_cls, W, K, F, rowptr, rowfeat, label, weight, sing,
                                  cnt_out[2])
                            out = cnt_out[2]
                            cmode = COUNT_SINGLES
                            nb = 1
                        else:
                            cs, cmode = depth_two(pool, start, length, reg_cls, W, K, F, rowptr, rowfeat, label,
                                                  weight, fq, cnt_ids, cnt_meta, cnt_out, din, dout, diag, act, d2,
                                                  incremental, counters)
                            out = cnt_out[cs]
                            nb = 3
                        if level >= ev.LEVEL_FULL:
                            k = ev.emit(events, k, it, MT_DEPTH_TWO, d, cmode, top + 1, top, -1,
                                        float(out[2, 0]) if nb == 3 else -1.0, float(ub), float(lb),
                                        length, out[0, 0], out[1, 0] if nb == 3 else -1, float(leaf), 0.0)
                        lbrow[:] = 0
                        if use_cache and cidx < 0:
                            cidx = cache_insert(htab, meta, keys, ent_lb, ent_cost, ent_tree, counters,
                                                keysrc, reg[RG_KOFF], reg[RG_KLEN], reg[RG_KHASH])
                            reg[RT_CIDX] = cidx
                        for b in range(nb):
                            bd = 1 if b == 0 else 2
                            bn = b + 1
                            bslot = pair_slot[bd, bn]
                            if bslot < 0:
                                continue
                            raise_lb(lbrow, bslot, out[b, 0], dom)
                            if use_cache:
                                scratch[0] = out[b, 2]
                                scratch[1] = out[b, 3]
                                scratch[2] = out[b, 4]
                                adepth = heap_depth(scratch, 0, 2)
                                code = tpool_put(tpool, counters, scratch, 0, adepth)
                                store_optimum(ent_lb, ent_cost, ent_tree, cidx, bslot, out[b, 0], out[b, 1],
                                              adepth, code, slot_d, slot_n, dom)
                        if use_sim:
                            if use_cache and cache_mode == CACHE_DATASET:
                                lbrow[:] = ent_lb[cidx]
                            archive_update(arch_ids, arch_meta, arch_lb, d, pool, start, length, W, lbrow, sim0,
                                           sim1, weight)
                        b = nn - 1 if d == 2 else 0
                        cost = out[b, 0]
                        if cost <= ub:
                            heap_clear(rtree, 0, 0, d)
                            rtree[0] = out[b, 2]
                            if d == 2:
                                rtree[1] = out[b, 3]
                                rtree[2] = out[b, 4]
                            reg[RT_COST] = cost
                            reg[RT_NODES] = out[b, 1]
                            if level >= ev.LEVEL_FULL:
                                k = ev.emit(events, k, it, MT_SOLVED, d, SOLVED_DEPTH_TWO, top + 1, top, out[b, 2],
                                            float(cost), float(ub), float(cost), length, nn, out[b, 1], 0.0, 0.0)
                        else:
                            reg[RT_COST] = INF
                            if level >= ev.LEVEL_FULL:
                                k = ev.emit(events, k, it, MT_INFEASIBLE, d, 0, top + 1, top, -1, -1.0, float(ub),
                                            float(cost), length, nn, W, 0.0, 0.0)
                        reg[RT_LB] = cost
                    else:
                        # ---------------- Algorithm 2: open a general-case frame ----------------
                        resolved = False
                        counters[C_FRAMES] += 1
                        top += 1
                        counters[C_TOP] = top
                        fr = frames[top]
                        fr[FR_START] = start
                        fr[FR_LEN] = length
                        fr[FR_W] = W
                        fr[FR_HASH] = reg[RG_HASH]
                        fr[FR_KOFF] = reg[RG_KOFF]
                        fr[FR_KLEN] = reg[RG_KLEN]
                        fr[FR_KHASH] = reg[RG_KHASH]
                        fr[FR_CIDX] = cidx
                        fr[FR_D] = d
                        fr[FR_N] = nn
                        fr[FR_UB] = ub
                        fr[FR_LB] = lb
                        fr[FR_LEAF] = leaf
                        fr[FR_BEST] = leaf if leaf <= ub else INF
                        fr[FR_BEST_NODES] = 0
                        fr[FR_RLB] = INF
                        fr[FR_FI] = -1
                        fr[FR_PHASE] = PH_NEXT_FEATURE
                        nmax = min((1 << (d - 1)) - 1, nn - 1)
                        fr[FR_NMAX] = nmax
                        fr[FR_NMIN] = nn - 1 - nmax
                        # the children of this frame's splits go above everything in use (a stack of datasets)
                        fr[FR_CBASE] = start + length if top == 0 else \
                            frames[top - 1, FR_CBASE] + frames[top - 1, FR_LEN]
                        fr[FR_SIM0] = sim0
                        fr[FR_SIM1] = sim1
                        for c in range(K):
                            fcls[top, c] = reg_cls[c]
                        heap_clear(ftree[top], 0, 0, d)
                        single_counts(pool, start, length, rowptr, rowfeat, label, weight, fcounts[top])
                        if gini:
                            gini_order(fcounts[top], fcls[top], W, K, F, forder[top])
                        else:
                            for f in range(F):
                                forder[top, f] = f
            # ---------------- deliver results and advance frames until the next call ----------------
            deliver = resolved
            while True:
                top = counters[C_TOP]
                if top < 0:
                    # the root query finished: Algorithm 6 / 7 bookkeeping, then the next query or the end
                    cost = reg[RT_COST]
                    qn = counters[C_Q_N]
                    if cost < INF:
                        if key_of(cost, reg[RT_NODES], ap, aq, big) < key_of(counters[C_G_MISS], counters[C_G_NODES],
                                                                             ap, aq, big):
                            counters[C_G_MISS] = cost
                            counters[C_G_NODES] = reg[RT_NODES]
                            heap_clear(gtree, 0, 0, D)
                            heap_embed(rtree, 0, reg[RG_D], gtree, 0, 0)
                    finished = False
                    qd = 0
                    if mode == MODE_PLAIN:
                        q = counters[C_Q_DEPTH]
                        finished = True
                        while q < D:
                            q += 1
                            nq = min(NN, (1 << q) - 1)
                            if nq != qn or min(q, nq) != reg[RG_D]:
                                finished = False
                                qn = nq
                                qd = min(q, nq)
                                counters[C_Q_DEPTH] = q
                                reg[RG_UB] = counters[C_G_MISS] - 1
                                break
                    elif mode == MODE_SPARSE:
                        qd = min(D, qn + 1)
                        qn += 1
                        if qn > NN:
                            finished = True
                        else:
                            reg[RG_UB] = sparse_ub(counters[C_G_MISS], counters[C_G_NODES], qn, ap, aq)
                            if reg[RG_UB] < 0:  # and so for every larger budget
                                finished = True
                        lower = min(aq * counters[C_G_MISS] + ap * counters[C_G_NODES], ap * qn)
                        if finished:
                            lower = aq * counters[C_G_MISS] + ap * counters[C_G_NODES]
                        counters[C_LOWER] = max(counters[C_LOWER], lower)
                    else:
                        if counters[C_Q_STAGE] == 0:  # the optimum is known: now shrink the budget
                            counters[C_Q_STAGE] = 1
                            counters[C_Q_COST] = counters[C_G_MISS]
                            counters[C_LOWER] = aq * counters[C_G_MISS]
                            qn = counters[C_G_NODES] - 1
                        elif cost < INF:
                            qn = min(qn, reg[RT_NODES]) - 1
                        else:
                            qn = -1
                        qd = min(D, qn)
                        if qn < 0:
                            finished = True
                        else:
                            reg[RG_UB] = counters[C_Q_COST]
                    if finished:
                        counters[C_DONE] = 1
                        counters[C_LOWER] = aq * counters[C_G_MISS] + ap * counters[C_G_NODES]
                        if mode == MODE_SMALLEST:
                            counters[C_LOWER] = aq * counters[C_G_MISS]
                    else:
                        counters[C_Q_N] = qn
                        reg[RG_D] = qd
                        reg[RG_N] = qn
                        reg[RG_START] = 0
                        reg[RG_LEN] = n_rows
                        reg[RG_W] = counters[C_ROOT_W]
                        reg[RG_HASH] = counters[C_ROOT_HASH]
                        reg[RG_KOFF] = 0
                        reg[RG_KLEN] = 0 if by_branch else n_rows
                        reg[RG_KHASH] = 0 if by_branch else counters[C_ROOT_HASH]
                        reg[RG_LEAF] = counters[C_ROOT_LEAF]
                        for c in range(K):
                            reg_cls[c] = fcls[fcls.shape[0] - 1, c]
                        reg[RG_CIDX] = reg[RT_CIDX] if use_cache else -1
                        if level >= ev.LEVEL_FULL:
                            k = ev.emit(events, k, it, MT_QUERY, reg[RG_D], 0, 0, -1, -1, 0.0, float(reg[RG_UB]),
                                        counters[C_LOWER] / aq, n_rows, qn, 0, 0.0, 0.0)
                    break
                fr = frames[top]
                d = fr[FR_D]
                if deliver:
                    deliver = False
                    ph = fr[FR_PHASE]
                    first = fr[FR_FIRST]
                    side = first if ph == PH_FIRST else 1 - first
                    fr[FR_CHILD + side * CH_WIDTH + CH_CIDX] = reg[RT_CIDX]
                    other = FR_CHILD + (1 - side) * CH_WIDTH
                    nl = fr[FR_NL]
                    nr = fr[FR_N] - 1 - nl
                    if ph == PH_FIRST:
                        if reg[RT_COST] >= INF:
                            # Eq. 15, read after the failed call: the failed child's stored bound + sibling's
                            n_o = nl if side == 1 else nr
                            d_o = min(d - 1, n_o)
                            if d_o == 0:
                                lb_o = fr[other + CH_LEAF]
                            elif fr[other + CH_CIDX] >= 0:
                                lb_o = ent_lb[fr[other + CH_CIDX], pair_slot[d_o, n_o]]
                            else:
                                lb_o = 0
                            fr[FR_RLB] = min(fr[FR_RLB], reg[RT_LB] + lb_o)
                            fr[FR_PHASE] = PH_CONFIG if nl < fr[FR_NMAX] else PH_NEXT_FEATURE
                            fr[FR_NL] = nl + 1 if nl < fr[FR_NMAX] else nl
                        else:
                            n_s = nl if side == 0 else nr
                            d_s = min(d - 1, n_s)
                            fr[FR_FIRST_COST] = reg[RT_COST]
                            fr[FR_FIRST_NODES] = reg[RT_NODES]
                            heap_clear(ctree[top], 0, 0, d_s)
                            heap_embed(rtree, 0, d_s, ctree[top], 0, 0)
                            fr[FR_PHASE] = PH_ISSUE_SECOND
                    else:
                        if reg[RT_COST] >= INF:
                            fr[FR_RLB] = min(fr[FR_RLB], fr[FR_FIRST_COST] + reg[RT_LB])
                        else:
                            cost = fr[FR_FIRST_COST] + reg[RT_COST]
                            old = fr[FR_BEST]
                            fr[FR_BEST] = cost
                            fr[FR_BEST_NODES] = 1 + fr[FR_FIRST_NODES] + reg[RT_NODES]
                            tr = ftree[top]
                            heap_clear(tr, 0, 0, d)
                            tr[0] = fr[FR_F]
                            n_first = nl if first == 0 else nr
                            heap_embed(ctree[top], 0, min(d - 1, n_first), tr, 0, 1 + first)
                            heap_embed(rtree, 0, min(d - 1, fr[FR_N] - 1 - n_first), tr, 0, 2 - first)
                            if level >= ev.LEVEL_FULL:
                                k = ev.emit(events, k, it, MT_FRAME_INCUMBENT, d, 0, top, top - 1, fr[FR_F],
                                            float(cost), float(fr[FR_UB]), float(fr[FR_LB]), nl, nr,
                                            fr[FR_BEST_NODES], float(old) if old < INF else -1.0, 0.0)
                        fr[FR_PHASE] = PH_CONFIG if nl < fr[FR_NMAX] else PH_NEXT_FEATURE
                        fr[FR_NL] = nl + 1 if nl < fr[FR_NMAX] else nl
                # ---------------- Algorithm 2's loop: the next configuration, or finish ----------------
                issued = False
                while True:
                    ph = fr[FR_PHASE]
                    if ph == PH_ISSUE_SECOND:
                        first = fr[FR_FIRST]
                        side = 1 - first
                        nl = fr[FR_NL]
                        n_s = nl if side == 0 else fr[FR_N] - 1 - nl
                        ub_s = fr[FR_UBP] - fr[FR_FIRST_COST]
                        cb = FR_CHILD + side * CH_WIDTH
                        reg[RG_START] = fr[cb + CH_START]
                        reg[RG_LEN] = fr[cb + CH_LEN]
                        reg[RG_W] = fr[cb + CH_W]
                        reg[RG_HASH] = fr[cb + CH_HASH]
                        reg[RG_KOFF] = fr[cb + CH_KOFF]
                        reg[RG_KLEN] = fr[FR_KLEN] + 1 if by_branch else fr[cb + CH_LEN]
                        reg[RG_KHASH] = fr[cb + CH_KHASH]
                        reg[RG_CIDX] = fr[cb + CH_CIDX]
                        reg[RG_D] = min(d - 1, n_s)
                        reg[RG_N] = n_s
                        reg[RG_UB] = ub_s
                        reg[RG_LEAF] = fr[cb + CH_LEAF]
                        for c in range(K):
                            reg_cls[c] = fchild[top, side, c]
                        fr[FR_PHASE] = PH_SECOND
                        issued = True
                        break
                    if fr[FR_BEST] == fr[FR_LB]:
                        break  # the incumbent meets the lower bound (Alg. 2 l. 6)
                    if ph == PH_NEXT_FEATURE:
                        fi = fr[FR_FI] + 1
                        fr[FR_FI] = fi
                        if fi >= F:
                            break
                        f = forder[top, fi]
                        wr = 0
                        for c in range(K):
                            wr += fcounts[top, c, f]
                        if wr == 0 or wr == fr[FR_W]:
                            continue  # degenerate split (Prop. 2)
                        fr[FR_F] = f
                        cbase = fr[FR_CBASE]
                        nl_rows, hr = partition(pool, fr[FR_START], fr[FR_LEN], cbase, Xc, f, zob,
                                                cache_mode == CACHE_DATASET, scratch)
                        for c in range(K):
                            fchild[top, 1, c] = fcounts[top, c, f]
                            fchild[top, 0, c] = fcls[top, c] - fcounts[top, c, f]
                        for s in range(2):
                            cb = FR_CHILD + s * CH_WIDTH
                            fr[cb + CH_START] = cbase if s == 0 else cbase + nl_rows
                            fr[cb + CH_LEN] = nl_rows if s == 0 else fr[FR_LEN] - nl_rows
                            fr[cb + CH_W] = fr[FR_W] - wr if s == 0 else wr
                            fr[cb + CH_HASH] = fr[FR_HASH] - hr if s == 0 else hr
                            fr[cb + CH_LEAF] = leaf_cost(fchild[top, s], K)
                            if by_branch:
                                # the child's branch: the sorted literal set with 2f + s inserted
                                lit = 2 * f + s
                                ko = (top * 2 + s) * (D + 1)
                                src = fr[FR_KOFF]
                                kl = fr[FR_KLEN]
                                t2 = 0
                                placed = False
                                for t in range(kl):
                                    v = bkeys[src + t]
                                    if not placed and lit < v:
                                        bkeys[ko + t2] = lit
                                        t2 += 1
                                        placed = True
                                    bkeys[ko + t2] = v
                                    t2 += 1
                                if not placed:
                                    bkeys[ko + t2] = lit
                                fr[cb + CH_KOFF] = ko
                                fr[cb + CH_KHASH] = fr[FR_KHASH] + zlit[lit]
                            else:
                                fr[cb + CH_KOFF] = fr[cb + CH_START]
                                fr[cb + CH_KHASH] = fr[cb + CH_HASH]
                            if use_cache:
                                klen = fr[FR_KLEN] + 1 if by_branch else fr[cb + CH_LEN]
                                fr[cb + CH_CIDX] = cache_find(htab, meta, keys, keysrc, fr[cb + CH_KOFF], klen,
                                                              fr[cb + CH_KHASH])
                            else:
                                fr[cb + CH_CIDX] = -1
                        fr[FR_NL] = fr[FR_NMIN]
                        fr[FR_PHASE] = PH_CONFIG
                        ph = PH_CONFIG
                    if ph == PH_CONFIG:
                        # Algorithm 3: one configuration (feature, n_L, n_R)
                        nl = fr[FR_NL]
                        nr = fr[FR_N] - 1 - nl
                        ubp = min(fr[FR_UB], fr[FR_BEST] - 1)
                        fr[FR_UBP] = ubp
                        leaf_l = fr[FR_CHILD + CH_LEAF]
                        leaf_r = fr[FR_CHILD + CH_WIDTH + CH_LEAF]
                        first = 0
                        if dynamic and not leaf_l > leaf_r:
                            first = 1
                        fr[FR_FIRST] = first
                        second = 1 - first
                        n_s = nl if second == 0 else nr
                        n_f = nr if second == 0 else nl
                        d_s = min(d - 1, n_s)
                        cs = FR_CHILD + second * CH_WIDTH
                        if d_s == 0:
                            lb_s = fr[cs + CH_LEAF]
                        elif fr[cs + CH_CIDX] >= 0:
                            lb_s = ent_lb[fr[cs + CH_CIDX], pair_slot[d_s, n_s]]
                        else:
                            lb_s = 0
                        cb = FR_CHILD + first * CH_WIDTH
                        reg[RG_START] = fr[cb + CH_START]
                        reg[RG_LEN] = fr[cb + CH_LEN]
                        reg[RG_W] = fr[cb + CH_W]
                        reg[RG_HASH] = fr[cb + CH_HASH]
                        reg[RG_KOFF] = fr[cb + CH_KOFF]
                        reg[RG_KLEN] = fr[FR_KLEN] + 1 if by_branch else fr[cb + CH_LEN]
                        reg[RG_KHASH] = fr[cb + CH_KHASH]
                        reg[RG_CIDX] = fr[cb + CH_CIDX]
                        reg[RG_D] = min(d - 1, n_f)
                        reg[RG_N] = n_f
                        reg[RG_UB] = ubp - lb_s
                        reg[RG_LEAF] = fr[cb + CH_LEAF]
                        for c in range(K):
                            reg_cls[c] = fchild[top, first, c]
                        fr[FR_PHASE] = PH_FIRST
                        issued = True
                        break
                if issued:
                    break
                # ---------------- finish the frame: store the optimum or the refined bound ----------------
                ub = fr[FR_UB]
                nn = fr[FR_N]
                slot = pair_slot[d, nn]
                cidx = fr[FR_CIDX]
                if use_cache and cidx < 0:
                    cidx = cache_insert(htab, meta, keys, ent_lb, ent_cost, ent_tree, counters, keysrc, fr[FR_KOFF],
                                        fr[FR_KLEN], fr[FR_KHASH])
                lbrow[:] = 0
                best = fr[FR_BEST]
                if best < INF:
                    tr = ftree[top]
                    heap_clear(rtree, 0, 0, d)
                    heap_embed(tr, 0, d, rtree, 0, 0)
                    reg[RT_COST] = best
                    reg[RT_LB] = best
                    reg[RT_NODES] = fr[FR_BEST_NODES]
                    raise_lb(lbrow, slot, best, dom)
                    if use_cache:
                        adepth = heap_depth(tr, 0, d)
                        code = tpool_put(tpool, counters, tr, 0, adepth)
                        store_optimum(ent_lb, ent_cost, ent_tree, cidx, slot, best, fr[FR_BEST_NODES], adepth, code,
                                      slot_d, slot_n, dom)
                    if level >= ev.LEVEL_FULL:
                        k = ev.emit(events, k, it, MT_SOLVED, d, SOLVED_GENERAL, top, top - 1, tr[0], float(best),
                                    float(ub), float(best), fr[FR_LEN], nn, fr[FR_BEST_NODES], 0.0, 0.0)
                else:
                    lbn = max(fr[FR_LB], ub + 1)
                    rlb = fr[FR_RLB]
                    if rlb < INF:  # never store an infinite RLB (the bug fixed in the reference code)
                        lbn = max(lbn, rlb)
                    reg[RT_COST] = INF
                    reg[RT_LB] = lbn
                    reg[RT_NODES] = 0
                    raise_lb(lbrow, slot, lbn, dom)
                    if use_cache:
                        raise_lb(ent_lb[cidx], slot, lbn, dom)
                    if level >= ev.LEVEL_FULL:
                        k = ev.emit(events, k, it, MT_INFEASIBLE, d, 0, top, top - 1, -1,
                                    float(rlb) if rlb < INF else -1.0, float(ub), float(lbn), fr[FR_LEN], nn,
                                    fr[FR_W], 0.0, 0.0)
                reg[RT_CIDX] = cidx
                if use_sim:
                    if use_cache and cache_mode == CACHE_DATASET:
                        lbrow[:] = ent_lb[cidx]
                    archive_update(arch_ids, arch_meta, arch_lb, d, pool, fr[FR_START], fr[FR_LEN], fr[FR_W], lbrow,
                                   fr[FR_SIM0], fr[FR_SIM1], weight)
                # the register's call fields describe the popped frame's problem for the root driver
                reg[RG_D] = d
                counters[C_TOP] = top - 1
                deliver = True
            # ---------------- anytime: the best complete tree on the stack (§4.9.5) ----------------
            top = counters[C_TOP]
            if top >= 0:
                # cand[k] = (miss, nodes, choice): 0 = frame incumbent, 1 = leaf, 2 = split with the child below
                pm = 0
                pn = 0
                for kk in range(top, -1, -1):
                    fr = frames[kk]
                    ph = fr[FR_PHASE]
                    first = fr[FR_FIRST]
                    if kk == top:
                        side = first if ph == PH_FIRST else 1 - first
                        pm = fr[FR_CHILD + side * CH_WIDTH + CH_LEAF]
                        pn = 0
                    if ph == PH_FIRST:
                        om = fr[FR_CHILD + (1 - first) * CH_WIDTH + CH_LEAF]
                        on = 0
                    else:
                        om = fr[FR_FIRST_COST]
                        on = fr[FR_FIRST_NODES]
                    bm = fr[FR_LEAF]
                    bn = 0
                    choice = 1
                    if fr[FR_BEST] < INF and key_of(fr[FR_BEST], fr[FR_BEST_NODES], ap, aq, big) < key_of(bm, bn, ap,
                                                                                                           aq, big):
                        bm = fr[FR_BEST]
                        bn = fr[FR_BEST_NODES]
                        choice = 0
                    if key_of(om + pm, on + pn + 1, ap, aq, big) < key_of(bm, bn, ap, aq, big):
                        bm = om + pm
                        bn = on + pn + 1
                        choice = 2
                    cand[kk] = choice
                    pm = bm
                    pn = bn
                if key_of(pm, pn, ap, aq, big) < key_of(counters[C_G_MISS], counters[C_G_NODES], ap, aq, big):
                    counters[C_G_MISS] = pm
                    counters[C_G_NODES] = pn
                    heap_clear(gtree, 0, 0, D)
                    pos = 0
                    for kk in range(top + 1):
                        fr = frames[kk]
                        choice = cand[kk]
                        if choice == 0:
                            heap_embed(ftree[kk], 0, fr[FR_D], gtree, 0, pos)
                            break
                        if choice == 1:
                            break
                        ph = fr[FR_PHASE]
                        first = fr[FR_FIRST]
                        side = first if ph == PH_FIRST else 1 - first
                        gtree[pos] = fr[FR_F]
                        if ph != PH_FIRST:
                            nl = fr[FR_NL]
                            n_first = nl if first == 0 else fr[FR_N] - 1 - nl
                            heap_embed(ctree[kk], 0, min(fr[FR_D] - 1, n_first), gtree, 0, 2 * pos + 1 + first)
                        pos = 2 * pos + 1 + side
            g_after = key_of(counters[C_G_MISS], counters[C_G_NODES], ap, aq, big)
            if g_after < g_before:
                counters[C_INCUMBENTS] += 1
            if level >= ev.LEVEL_SUMMARY:
                if g_after < g_before or counters[C_LOWER] != lower_before:
                    kind = ev.INCUMBENT if g_after < g_before else ev.BOUNDS
                    k = ev.emit(events, k, it, kind, 0, 0, 0, -1, -1, float(counters[C_G_NODES]),
                                counters[C_G_MISS] + ap * counters[C_G_NODES] / aq, counters[C_LOWER] / aq,
                                counters[C_G_MISS], counters[C_G_NODES], 0, 0.0, 0.0)
            if counters[C_DONE] == 1:
                if level >= ev.LEVEL_SUMMARY:
                    k = ev.emit(events, k, it, ev.TERMINATED, 0, 1, 0, -1, -1, 0.0,
                                counters[C_G_MISS] + ap * counters[C_G_NODES] / aq, counters[C_LOWER] / aq,
                                counters[C_CALLS], counters[C_D2], counters[C_NDS], 0.0, 0.0)
                return k, ev.STATUS_DONE
        if counters[C_DONE] == 1:
            return k, ev.STATUS_DONE
        return k, ev.STATUS_BUDGET

    return murtree_kernel


KERNELS = {}


def kernel(level):
    """The compiled kernel for a record level, created on first use."""
    if level not in KERNELS:
        KERNELS[level] = make_kernel(level)
    return KERNELS[level]
