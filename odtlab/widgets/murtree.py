"""MurTree in the widgets: its recursion (Algorithms 1-3) with cache hits and prunes, and its depth-two solver.

Every MurTree event but ``RootQuery`` names the recursion level of the subtree problem it is about (its
payload ``level``; the root call is level 0, the calls its frame makes level 1). A ``SubtreeEntered`` event
opens a call at its level under the open call one level up; the events that follow resolve it: a cache hit, a
lower-bound prune, the depth-two solver (Algorithm 4), a general-case frame that tries every feature
(Algorithm 2) and ends solved or infeasible. The graph view draws the open recursion path with the latest
calls each open frame made; the panel shows the last depth-two solve. Bounds come from the generic
SearchStarted / IncumbentImproved / BoundsUpdated / Terminated events (upper = the global incumbent's cost,
lower = the certified bound).

The depth-two panel shows the frequency table of the last depth-two call (§4.3, Eq. 2-5): the single counts
FQ^c(f) and the pair counts FQ^c(f_i, f_j) per class (for regression the sums W, S = sum w y and
Q = sum w y^2 the solver counts instead). Events do not carry a call's rows, but ``SubtreeEntered`` names the
parent's split feature and the side taken, so the fold knows every call's branch (its literals); the panel
selects the rows of that branch in the solver's (reduced) data and counts them. That is phase 1 of Algorithm
4 redone in numpy for the few features on show: the returned tree's features first, then the first other
features that split the call's rows. Which trees are best (phase 2) is read from the event, never recomputed.
"""
import functools

import numpy as np

from odtlab.core import events as core
from odtlab.widgets.recording import FEATURE, KIND, NODE, Fold
from odtlab.widgets.registry import Adapter, register_adapter, register_graph, register_panel
from odtlab.widgets.svg import (BLUE, GREEN, GREY, HIGHLIGHT, INK, MUTED, PURPLE, SKY, VERMILLION, bar_rows, fmt,
                                legend, panel, svg_open, text)
from odtlab.widgets.views import View

ALGORITHM = "murtree"


def _codes():
    from odtlab.core import murtree as mt

    return mt


@register_adapter
class MurTreeAdapter(Adapter):
    """Generic bound events; incumbent snapshots (rebuilt only when the incumbent's cost improves)."""

    algorithm = ALGORITHM
    bound_kinds = (core.SEARCH_STARTED, core.INCUMBENT, core.BOUNDS, core.TERMINATED)
    bound_labels = ("incumbent cost (upper)", "certified lower bound")
    stable_incumbent = True


# -- the fold: calls of SolveSubtree ------------------------------------------------------------------------
# one call: [id, parent id, level, d, rows, node budget, UB, LB, leaf cost, status, cost, feature, detail,
#            the literal from its parent: feature and side (-1, 0 at the root)]; events are read by payload name
ID, PARENT, LEVEL, D, ROWS, BUDGET, UB, LB, LEAF, STATUS, COST, BEST_F, DETAIL, LIT_F, LIT_S = range(15)
OPEN, CACHE, PRUNED, DEPTH_TWO, SOLVED, INFEASIBLE = "open", "cache hit", "pruned", "depth-two", "solved", "infeasible"
STYLE = {  # fill, opacity, legend
    OPEN: ("#FFFFFF", 1.0, "open (general case)"),
    CACHE: (PURPLE, 0.45, "cache hit"),
    PRUNED: (GREY, 0.45, "pruned (LB > UB)"),
    DEPTH_TWO: (SKY, 0.5, "depth-two solver"),
    SOLVED: (GREEN, 0.45, "solved"),
    INFEASIBLE: (VERMILLION, 0.3, "no tree within UB"),
}


class Recursion:
    """Fold state: every call so far, the open call per level, counts of outcomes, the current call, and the
    last depth-two solve (``depth_two``: its call id and branch, a tuple of (feature, side) literals).

    A call is a list that is replaced, never changed in place, once the state may have been copied, so a
    checkpoint is a shallow copy of the containers.
    """

    def __init__(self):
        self.calls = []
        self.children = {}  # call id (-1: the root query) -> ids of the calls it made
        self.stack = {}  # level -> call id
        self.counts = dict.fromkeys(STYLE, 0)
        self.current = None
        self.queries = 0
        self.depth_two = None

    def copy(self):
        other = Recursion()
        other.calls, other.children = list(self.calls), dict(self.children)
        other.stack, other.counts = dict(self.stack), dict(self.counts)
        other.current, other.queries, other.depth_two = self.current, self.queries, self.depth_two
        return other

    def branch(self, c):
        """The literals (feature, side) on the path of the open call ``c``, root first."""
        path = [self.stack[lv] for lv in sorted(self.stack) if lv <= self.calls[c][LEVEL]]
        return tuple((self.calls[i][LIT_F], self.calls[i][LIT_S]) for i in path if self.calls[i][LIT_F] >= 0)

    def update(self, c, **fields):
        call = list(self.calls[c])
        for name, value in fields.items():
            call[_FIELDS[name]] = value
        self.calls[c] = call


_FIELDS = {"status": STATUS, "cost": COST, "lb": LB, "feature": BEST_F, "detail": DETAIL}


def _payload():
    """Per MurTree kind, its payload readers by name (functions of a record tuple, ``EventKind.reader``)."""
    return {code: {name: kind.reader(name) for name in kind.fields}
            for code, kind in core.KINDS.items() if kind.algorithm == ALGORITHM}


def _make_apply():
    mt = _codes()
    resolved = {mt.MT_CACHE_HIT: CACHE, mt.MT_LB_PRUNE: PRUNED, mt.MT_DEPTH_TWO: DEPTH_TWO, mt.MT_INFEASIBLE: INFEASIBLE}
    payload = _payload()

    def apply(state, i, r):
        kind = r[KIND]
        get = payload.get(kind, {})  # empty for the generic bound events
        _step(state, r, kind, get, mt)
        counted = resolved.get(kind)
        if kind == mt.MT_SOLVED and get["how"](r) != mt.SOLVED_DEPTH_TWO:
            counted = SOLVED
        if counted is not None and "level" in get and state.stack.get(get["level"](r)) is not None:
            state.counts[counted] += 1
        return state

    return apply


def _step(state, r, kind, get, mt):
    """One event into the fold; ``get`` reads a MurTree kind's payload by name (a generic event has none: its
    ``node`` 0 names the root call)."""
    if kind == mt.MT_QUERY:
        state.queries += 1
        state.stack = {}
        state.current = None
        return state
    level = int(get["level"](r) if "level" in get else r[NODE])
    if kind == mt.MT_ENTER:
        parent = state.stack.get(level - 1, -1)
        c = len(state.calls)
        state.calls.append([c, parent, level, int(get["d"](r)), int(get["n_rows"](r)), int(get["nodes"](r)),
                            float(get["ub"](r)), float(get["lb"](r)), float(get["leaf"](r)), OPEN, np.nan, -1, "",
                            int(r[FEATURE]), int(get["side"](r))])
        state.children[parent] = state.children.get(parent, ()) + (c,)
        state.stack = {lv: cid for lv, cid in state.stack.items() if lv < level}
        state.stack[level] = c
        state.current = c
        return state
    c = state.stack.get(level)
    if c is None:
        return state
    state.current = c
    if kind == mt.MT_CACHE_HIT:
        state.update(c, status=CACHE, cost=float(get["cost"](r)),
                     detail=f"{int(get['tree_nodes'](r))} nodes" + ("" if get["feasible"](r) else ", above UB"))
    elif kind == mt.MT_LB_PRUNE:
        lb, ub = get["lb"](r), get["ub"](r)
        state.update(c, status=PRUNED, lb=float(lb),
                     detail="UB < 0" if get["negative_ub"](r) else f"LB {fmt(lb)} > UB {fmt(ub)}")
    elif kind == mt.MT_SIMILARITY:
        lb = get["lb"](r)
        state.update(c, lb=float(lb), detail=f"similarity LB {fmt(get['old_lb'](r))} → {fmt(lb)}")
    elif kind == mt.MT_DEPTH_TWO:
        state.update(c, status=DEPTH_TWO, cost=float(get["cost3"](r)))
        state.depth_two = (c, state.branch(c))
    elif kind == mt.MT_FRAME_INCUMBENT:
        state.update(c, cost=float(get["cost"](r)), feature=int(r[FEATURE]))
    elif kind == mt.MT_SOLVED:
        status = SOLVED if (state.calls[c][STATUS] == OPEN or get["how"](r) != mt.SOLVED_DEPTH_TWO) else (
            state.calls[c][STATUS])
        state.update(c, status=status, cost=float(get["cost"](r)), lb=float(get["stored_lb"](r)),
                     detail=f"{int(get['tree_nodes'](r))} nodes")
    elif kind == mt.MT_INFEASIBLE:
        state.update(c, status=INFEASIBLE, lb=float(get["stored_lb"](r)))


def recursion(frame):
    fold = frame.recording.cache.get("murtree.fold")
    if fold is None:
        fold = frame.recording.cache["murtree.fold"] = Fold(frame.recording, Recursion, _make_apply(), Recursion.copy)
    return fold.at(frame.k)


def _call_lines(call, solver):
    head = f"|D|={call[ROWS]} · d={call[D]} · n≤{call[BUDGET]}"
    status = call[STATUS]
    if status == OPEN:
        inc = (f", best {solver_feature(solver, call[BEST_F])}: {fmt(call[COST])}" if call[BEST_F] >= 0 else "")
        return head, f"UB {fmt(call[UB])}{inc}"
    if status in (CACHE, DEPTH_TWO, SOLVED):
        return head, f"{status}: {fmt(call[COST])}" + (f" ({call[DETAIL]})" if call[DETAIL] and status != DEPTH_TWO
                                                      else "")
    if status == PRUNED:
        return head, f"pruned: {call[DETAIL]}"
    return head, f"infeasible: LB {fmt(call[LB])}"


def solver_feature(solver, f):
    names = getattr(solver, "feature_names", None)
    fmap = getattr(solver, "feature_map", None)
    j = int(fmap[f]) if fmap is not None and 0 <= f < len(fmap) else f
    return names[j] if names is not None and 0 <= j < len(names) else f"x{j}"


@register_graph(ALGORITHM, title="MurTree: the recursion of SolveSubtree (Algorithms 1–3)",
                note="One row per open level: the open call (orange path) and the latest calls its parent made; "
                     "|D| rows, d depth left, n node budget; thick: the call the last event is about.")
def recursion_graph(frame, siblings=5, box_w=190, box_h=44, row_h=70):
    """SVG: one row per open recursion level; the open call (on the path) and the latest calls its parent
    made before it, newest on the right, coloured by outcome."""
    state = recursion(frame)
    solver = frame.solver
    path = [state.stack[lv] for lv in sorted(state.stack)]
    children = state.children
    rows = []
    for depth, cid in enumerate(path):
        parent = state.calls[cid][PARENT]
        sibs = [s for s in children.get(parent, ()) if s < cid][-siblings:] if depth > 0 else []
        rows.append(sibs + [cid])
    if not rows and state.calls:  # between root queries: show the last call
        rows = [[state.calls[-1][ID]]]
    W = max(780, 16 + (siblings + 1) * (box_w + 10))
    H = 30 + max(len(rows), 1) * row_h + 40
    parts = [svg_open(W, H, calls=len(state.calls), levels=len(path))]
    c = state.counts
    parts.append(text(10, 18, f"{len(state.calls)} calls so far: {c[CACHE]} cache hits, {c[PRUNED]} pruned, "
                              f"{c[DEPTH_TWO]} depth-two solves, {c[SOLVED]} solved, {c[INFEASIBLE]} infeasible"
                              + (f"; root query {state.queries}" if state.queries > 1 else ""), 13))
    pos = {}
    for r, ids in enumerate(rows):
        y = 30 + r * row_h
        for j, cid in enumerate(ids):
            x = 10 + (siblings + 1 - len(ids) + j) * (box_w + 10)
            pos[cid] = (x, y)
    for r, ids in enumerate(rows[1:], start=1):  # edges from the open parent to its calls
        px, py = pos[rows[r - 1][-1]]
        for cid in ids:
            x, y = pos[cid]
            on_path = cid == ids[-1]
            parts.append(f'<line x1="{px + box_w / 2:.1f}" y1="{py + box_h:.1f}" x2="{x + box_w / 2:.1f}" y2="{y:.1f}" '
                         f'stroke="{HIGHLIGHT if on_path else "#999"}" stroke-width="{2 if on_path else 1}" />')
    for cid, (x, y) in pos.items():
        call = state.calls[cid]
        fill, opacity, _ = STYLE[call[STATUS]]
        current = cid == state.current
        stroke, sw = (HIGHLIGHT, 4) if current else ((HIGHLIGHT, 2) if cid in path else ("#333", 1.2))
        l1, l2 = _call_lines(call, solver)
        cls = ' class="current"' if current else ""
        parts.append(f'<g id="call-{cid}"{cls}><rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="6" '
                     f'fill="{fill}" fill-opacity="{opacity}" stroke="{stroke}" stroke-width="{sw}" />'
                     + text(x + box_w / 2, y + 17, l1, 12, "middle", weight="bold")
                     + text(x + box_w / 2, y + 34, l2[:30], 12, "middle") + "</g>")
    parts.append(legend([(label, {"fill": fill, "opacity": opacity}) for fill, opacity, label in STYLE.values()],
                        10, H - 14))
    parts.append("</svg>")
    return "".join(parts)


COUNT_MODES = {0: "from scratch", 1: "incrementally, from a stored counter (Prop. 7–8)", 2: "unchanged counts reused",
               3: "singles only (a stump)"}
SHOWN = 6  # features in the frequency table
ROLE_COLOURS = {"root": HIGHLIGHT, "left": BLUE, "right": GREEN}


def literal_text(solver, f, side):
    """A branch literal in the original column: the solver stores complemented columns flipped."""
    flipped = getattr(solver, "flipped", None)
    value = side ^ int(flipped[f]) if flipped is not None and 0 <= f < len(flipped) else side
    return f"{solver_feature(solver, f)} = {value}"


def branch_counts(solver, branch, roles, shown=SHOWN):
    """Phase 1 of Algorithm 4 for the rows of ``branch`` (kernel columns), restricted to a few features.

    Returns (features, totals, pairs, n_active): the features on show (``roles`` first, then the first other
    kernel columns that split the rows), the statistics of all the rows (per class, or W, S, Q), and
    ``pairs[i, j]`` the statistics of the rows containing features i and j (``pairs[i, i]``: the single
    counts), as the solver's counters hold them.
    """
    Xc = np.asarray(solver.data.Xc)
    sel = np.ones(Xc.shape[1], dtype=bool)
    for f, side in branch:
        sel &= Xc[f] == side
    if getattr(solver, "regression", False):
        M = np.asarray(solver.data.rstat)[sel]
    else:
        M = np.zeros((int(sel.sum()), solver.K))
        M[np.arange(M.shape[0]), np.asarray(solver.data.label)[sel]] = np.asarray(solver.data.weight)[sel]
    A = Xc[:, sel].astype(np.float64)
    present = A.sum(axis=1)
    active = np.flatnonzero((present > 0) & (present < A.shape[1]))
    features = [f for f in roles if f >= 0]
    features = list(dict.fromkeys(features + [int(f) for f in active if f not in features]))[:shown]
    S = A[features]
    pairs = np.einsum("ir,jr,rc->ijc", S, S, M)
    return features, M.sum(axis=0), pairs, len(active)


def _sup(c):
    return "".join("⁰¹²³⁴⁵⁶⁷⁸⁹"[int(d)] for d in str(c))


def _cell(values, regression):
    if regression:
        return " / ".join(fmt(v, 3) for v in values)
    return "/".join(fmt(v) for v in values)


@register_panel(ALGORITHM)
class DepthTwoPanel(View):
    """The last depth-two solve (Algorithm 4): its subproblem and branch, the frequency table the solver counts
    (single and pair counts per class, or the sums W, S, Q for regression, for a few features), how the counts
    were obtained, and the best trees with 0 (a leaf), 1, 2 and 3 feature nodes it found from them (Eqs. 2-8)."""

    title = "MurTree: the depth-two solver"

    def __init__(self, width=640):
        self.width = width

    def svg(self, frame):
        mt = _codes()
        recs = frame.records
        hits = np.flatnonzero(recs["kind"] == mt.MT_DEPTH_TWO)
        W = self.width
        if not hits.size:
            return (svg_open(W, 50) + text(10, 28, "No depth-two solve yet: it runs on subtrees of depth ≤ 2.", 13)
                    + "</svg>")
        r = recs[hits[-1]]
        state = recursion(frame)
        solver = frame.solver
        regression = bool(getattr(solver, "regression", False))
        call = None
        branch = ()
        if state.depth_two is not None:
            call = state.calls[state.depth_two[0]]
            branch = state.depth_two[1]
        leaf = call[LEAF] if call is not None else np.nan
        budget = call[BUDGET] if call is not None else -1
        solve = core.KINDS[mt.MT_DEPTH_TWO]
        get = functools.partial(solve.get, r)
        modes = np.bincount(solve.get(recs[hits], "counting").astype(np.int64), minlength=4)
        costs = [("leaf", leaf), ("1 node", float(get("cost1"))), ("2 nodes", float(get("cost2"))),
                 ("3 nodes", float(get("cost3")))]
        roles = {"root": int(get("root")), "left": int(get("left")), "right": int(get("right"))}
        ub = float(get("ub"))
        n_rows = int(get("n_rows"))
        current = hits[-1] == frame.k - 1
        cache = frame.recording.cache.setdefault("murtree.counts", {})
        key = (branch, tuple(roles.values()))
        if key not in cache:
            cache[key] = branch_counts(solver, branch, list(roles.values()))
        features, totals, pairs, n_active = cache[key]
        m = len(features)
        K = len(totals)
        cw = 112 if regression else (64 if K <= 2 else 84)  # cell width
        rh = 34 if regression else 22  # row height of the table
        x0 = 150
        W = max(W, x0 + cw * m + 10)
        weight = float(totals[0] if regression else totals.sum())
        size = f"{n_rows} rows" + (f" (weight {fmt(weight)})" if weight != n_rows else "")
        lines = [(f"{'This' if current else 'Last'} solve: {size}, depth {int(get('d'))}, budget "
                  f"{budget}, UB {fmt(ub)}, LB {fmt(get('lb'))}", 14, INK, "bold"),
                 ("branch: " + (" ∧ ".join(literal_text(solver, f, s) for f, s in branch) or
                                "none (the whole data set)"), 13, INK, "normal"),
                 (f"frequency counts {COUNT_MODES.get(int(get('counting')), '?')}", 13, MUTED, "normal"),
                 (("the rows' sums W / Σwy / Σwy² (y centred on its mean): " if regression else "rows per class in D: ")
                  + _cell(totals, regression), 13, MUTED, "normal"),
                 (("sums of the rows with f_i and f_j (diagonal: with f)" if regression else
                   "/".join(f"FQ{_sup(c)}" for c in range(K)) + "(f_i, f_j): rows of each class with f_i and f_j "
                   "(diagonal: FQ(f), the single counts)") if m else "no feature splits these rows",
                  12, MUTED, "normal")]
        top = 18 * len(lines) + 10
        table_h = 22 + rh * m + 8
        bars_y = top + table_h + 34
        H = bars_y + 26 * 4 + 58
        parts = [svg_open(W, H, rows=n_rows, cost=repr(costs[-1][1]), current=int(current), features=m,
                          branch=len(branch))]
        for i, (s, size, colour, weight) in enumerate(lines):
            parts.append(text(10, 20 + 18 * i, s, size, fill=colour, weight=weight))
        # the frequency table: diagonal = single counts FQ(f), above it the pair counts FQ(f_i, f_j)
        role_of = {}
        for name, f in roles.items():
            if f >= 0:
                role_of[f] = role_of[f] + ", " + name if f in role_of else name
        for i, f in enumerate(features):
            y = top + 22 + rh * i
            name = solver_feature(solver, f)
            colour = ROLE_COLOURS.get(role_of.get(f, "").split(",")[0], INK)
            tag = f" ({role_of[f]})" if f in role_of else ""
            parts.append(text(10, y + rh / 2 + 5, (name + tag)[:24], 12, fill=colour,
                              weight="bold" if f in role_of else "normal"))
            parts.append(text(x0 + cw * i + cw / 2, top + 14, name[:12], 12, "middle", fill=colour))
            for j in range(i, m):
                x = x0 + cw * j
                diag = i == j
                parts.append(f'<rect x="{x + 1}" y="{y + 1}" width="{cw - 2}" height="{rh - 2}" '
                             f'fill="{SKY if diag else "#F4F4F4"}" fill-opacity="{0.35 if diag else 1}" />')
                if regression:
                    v = pairs[i, j]
                    parts.append(text(x + cw / 2, y + 14, f"W {fmt(v[0], 3)}", 11, "middle"))
                    parts.append(text(x + cw / 2, y + 28, f"S {fmt(v[1:-1].sum(), 3)} · Q {fmt(v[-1], 3)}", 11,
                                      "middle"))
                else:
                    parts.append(text(x + cw / 2, y + 15, _cell(pairs[i, j], regression), 11, "middle"))
        # the best trees per budget, as bars (Eq. 7-8 and the 1/2/3-node extraction)
        finite = [c for _, c in costs if np.isfinite(c) and c >= 0]
        hi = max(finite + ([ub] if np.isfinite(ub) and ub >= 0 else []) + [1e-12])
        bx0, bx1 = 90, W - 80
        returned = sum(f >= 0 for f in roles.values())  # the bar of the tree returned for the budget
        best = min(range(len(costs)), key=lambda i: (costs[i][1] if costs[i][1] >= 0 else np.inf, i))
        parts.append(text(10, bars_y - 10, f"best tree with at most 0-3 feature nodes (◂ returned for the budget: "
                                           f"{self._returned(solver, roles)})", 12, fill=MUTED))
        # the upper bound first, so the bars and their values are drawn over it
        if np.isfinite(ub) and ub >= 0:
            ux = bx0 + (bx1 - bx0) * ub / hi
            parts.append(f'<line x1="{ux:.1f}" x2="{ux:.1f}" y1="{bars_y - 4}" y2="{bars_y + 26 * len(costs)}" '
                         f'stroke="{INK}" stroke-dasharray="4 3" />')
            parts.append(text(ux, bars_y + 26 * len(costs) + 14, "UB", 12, "middle", MUTED))
        parts.append(bar_rows([(label + (" ◂" if i == returned else ""), cost if cost >= 0 else np.nan,
                                HIGHLIGHT if i == best else BLUE, 0.85 if i == best else 0.5,
                                fmt(cost) if cost >= 0 else ("–" if i == 0 else "– (depth one)"), False)
                               for i, (label, cost) in enumerate(costs)], bx0, bx1, bars_y, hi))
        parts.append(text(10, H - 24, f"table: {m} of the {n_active} features that split these rows (the returned "
                                      f"tree's first)", 12, fill=MUTED))
        parts.append(text(10, H - 8, f"solves so far: {modes[0]} from scratch, {modes[1]} incremental, {modes[2]} "
                                     f"unchanged, {modes[3]} stumps", 12, fill=MUTED))
        parts.append("</svg>")
        return "".join(parts)

    @staticmethod
    def _returned(solver, roles):
        if roles["root"] < 0:
            return "the leaf"
        kids = [f"{side} {solver_feature(solver, roles[side])}" for side in ("left", "right") if roles[side] >= 0]
        return f"root {solver_feature(solver, roles['root'])}" + ("" if not kids else ", " + ", ".join(kids))

    def render(self, frame):
        unit = "squared error" if getattr(frame.solver, "regression", False) else "misclassifications"
        return panel(self.title, self.svg(frame), f"the frequency table of the call's rows (diagonal: single counts "
                                                  f"FQ(f); above: pair counts) and the {unit} of the best tree with "
                                                  f"at most 0-3 feature nodes")
