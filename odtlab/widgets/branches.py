"""Branches in the widgets: its AND/OR search graph, the Q-values of the current branch, its bounds.

Branches (Chaouki, Read, Bifet) is an AO*-style search: branches are OR nodes (choose an action: stop
with a leaf, or split on one unused feature) and splits are AND nodes (every child branch must be
solved). The graph view draws the *best partial solution* that Selection follows (Section 4.2): from the
root, each expanded branch through its split with the highest Q (the top of its heap) to all its
children, and under each branch every other split it has scored, with its Q; coloured by status: evaluated only, visited (expanded, still open), complete (R = R*) and
settled at birth (errors <= lambda n, a leaf that is never split). The Q panel lists the actions of the
current branch: the leaf value H(l) and Q(l, i) = -lambda + sum of the children's R (Eqs. 5-6).

Events name a branch by its memo id, or (for a child kept out of the memo) by its parent, feature and
category; the widgets key branches by their tests, ``((feature, category), ...)`` sorted, which is the
branch itself (Section 3), so the same branch met through two parents is one node of the fold.
"""
from collections import namedtuple

import numpy as np

from odtlab.core.events import KINDS
from odtlab.widgets.recording import FEATURE, KIND, LOWER, NODE, PARENT, UPPER, VALUE, Fold
from odtlab.widgets.registry import Adapter, register_adapter, register_graph, register_panel
from odtlab.widgets.svg import GREEN, GREY, HIGHLIGHT, INK, MUTED, SKY, YELLOW, bar_rows, escape, fmt, legend, panel
from odtlab.widgets.svg import UPPER as BOUND_COLOUR
from odtlab.widgets.svg import svg_open, text
from odtlab.widgets.trees import window
from odtlab.widgets.views import View

ALGORITHM = "branches"
ROOT = ()


def _codes():
    from odtlab.core import branches as k

    return k


class BranchesAdapter(Adapter):
    """Bounds from Init / IterationEnd / Terminated (R(Omega) above, G(Omega) below), each drawn at its
    iteration: the bounds after k iterations at x = k (IterationStart of iteration k repeats those after
    k - 1, so it is left out of the series);
    the incumbent tree from the per-iteration snapshots, with the current branch outlined when the
    incumbent contains it."""

    algorithm = ALGORITHM
    bound_labels = ("R(Ω), upper bound", "G(Ω), incumbent H_λ")
    generic_kinds = ()

    def __init__(self, solver):
        super().__init__(solver)
        k = _codes()
        self.bound_kinds = (k.EV_INIT, k.EV_ITERATION_END, k.EV_TERMINATED)

    def focus(self, frame):
        """The incumbent tree's node whose path is the current branch (None if the incumbent lacks it)."""
        tree = frame.state().tree
        key = current_branch(frame)
        if tree is None or key is None:
            return None
        tests = dict(key)
        v = 0
        used = 0
        while tree.split[v] != 0:
            f = int(tree.feature[v])
            if f not in tests:
                break
            v = int(tree._kids(v)[tests[f]])
            used += 1
        return v if used == len(tests) else None


register_adapter(BranchesAdapter)


# -- the fold over Branches' events ---------------------------------------------------------------------------
Info = namedtuple("Info", "R G H n expanded complete settled leaf top reason")
Info.__doc__ = "What the events so far say about one branch (immutable: folds copy states cheaply)."
EMPTY = Info(np.nan, np.nan, np.nan, -1, False, False, False, False, -1, -1)


class SearchState:
    """Fold state: every branch met, the Q of every scored split, and the current iteration's path.

    Values are immutable (tuples), so a checkpoint is a shallow copy of two dicts.
    """

    def __init__(self):
        self.branches = {}  # branch -> Info
        self.Q = {}  # (branch, feature) -> Q
        self.scored = {}  # branch -> features with a Q, in the order they were scored
        self.path = ()  # the current iteration's Selection path (branch keys)
        self.current = ROOT  # the branch the last event is about
        self.child = None  # the child it names, if any

    def copy(self):
        other = SearchState()
        other.branches, other.Q, other.scored = dict(self.branches), dict(self.Q), dict(self.scored)
        other.path, other.current, other.child = self.path, self.current, self.child
        return other

    def set(self, key, **changes):
        self.branches[key] = self.branches.get(key, EMPTY)._replace(**changes)

    def set_q(self, key, feature, q):
        if (key, feature) not in self.Q:
            self.scored[key] = self.scored.get(key, ()) + (feature,)
        self.Q[(key, feature)] = q


def _keys(rec, upto=None):
    """Per recorded event: (branch, child) keys it is about, computed once per event."""
    cache = rec.cache.setdefault("branches.keys", {"keys": [], "memo": {}})
    keys, memo = cache["keys"], cache["memo"]
    solver = rec.solver
    k = _codes()

    def tests(node):
        node = int(node)
        if node < 0:
            return None
        if node not in memo:
            memo[node] = tuple(sorted(solver.branch_tests(node)))
        return memo[node]

    def child(node, parent, feature, category):
        if int(node) >= 0:
            return tests(node)
        base = tests(parent)
        if base is None or int(feature) < 0:
            return None
        return tuple(sorted(base + ((int(feature), int(round(category))),)))

    chosen_child = KINDS[k.EV_SELECT_STEP].reader("chosen_child")
    category = KINDS[k.EV_SELECT_STEP].reader("category")
    rows = rec.rows
    for i in range(len(keys), rec.n if upto is None else upto):
        r = rows[i]
        kind = r[KIND]
        node, parent, feature, value = r[NODE], r[PARENT], r[FEATURE], r[VALUE]
        if kind in (k.EV_INIT, k.EV_ITERATION_START, k.EV_ITERATION_END, k.EV_TERMINATED):
            pair = (ROOT, None)
        elif kind == k.EV_SELECT_STEP:
            pair = (tests(node), child(chosen_child(r), node, feature, category(r)))
        elif kind in (k.EV_SELECT_CANDIDATE, k.EV_CHILD_EVALUATED):
            pair = (tests(parent), child(node, parent, feature, value))
        elif kind == k.EV_CHILD_CLOSED:
            pair = (tests(parent), tests(node))
        elif kind == k.EV_NODE_COMPLETED:
            pair = (child(node, parent, feature, value), None)
        else:  # Selection, SplitScored, Expansion, BackpropStep: about `node`
            pair = (tests(node), None)
        keys.append(pair)
    return keys


def _apply(keys):
    k = _codes()

    def read(code, *names):
        return [KINDS[code].reader(name) for name in names]

    init_H, init_n, init_state = read(k.EV_INIT, "H", "n", "state")
    candidate_H, candidate_state = read(k.EV_SELECT_CANDIDATE, "H", "state")
    (selection_H,) = read(k.EV_SELECTION, "H")
    child_H, child_n, child_state = read(k.EV_CHILD_EVALUATED, "H", "n_l", "state")
    expansion_reason, expansion_H = read(k.EV_EXPANSION, "reason", "H")
    (top_feature,) = read(k.EV_BACKPROP_STEP, "top_feature")
    (completed_reason,) = read(k.EV_NODE_COMPLETED, "reason")

    def apply(state, i, r):
        kind = int(r[KIND])
        branch, child = keys[i]
        state.current, state.child = (branch if branch is not None else state.current), child
        upper, lower = float(r[UPPER]), float(r[LOWER])
        if kind == k.EV_INIT:
            flags = int(init_state(r))
            state.set(ROOT, R=upper, G=lower, H=float(init_H(r)), n=int(init_n(r)), complete=bool(flags & k.F_COMPLETE),
                      leaf=bool(flags & k.F_LEAF), settled=bool(flags & k.F_SETTLED))
        elif kind == k.EV_ITERATION_START:
            state.path = (ROOT,)
            state.set(ROOT, R=upper, G=lower)
        elif kind in (k.EV_ITERATION_END, k.EV_TERMINATED):
            state.set(ROOT, R=upper, G=lower)
        elif kind == k.EV_SELECT_STEP:
            state.set(branch, R=upper, G=lower)
            if child is not None:
                state.path += (child,)
        elif kind == k.EV_SELECT_CANDIDATE and child is not None:
            old = state.branches.get(child, EMPTY)
            state.set(child, R=upper, G=lower, H=float(candidate_H(r)),
                      complete=old.complete or bool(candidate_state(r) & k.CANDIDATE_COMPLETE))
        elif kind == k.EV_SELECTION:
            state.set(branch, R=upper, G=lower, H=float(selection_H(r)))
            if not state.path or state.path[-1] != branch:
                state.path += (branch,)
        elif kind == k.EV_CHILD_EVALUATED and child is not None:
            old = state.branches.get(child, EMPTY)
            flags = int(child_state(r))
            state.set(child, R=upper, G=lower, H=float(child_H(r)), n=int(child_n(r)),
                      complete=old.complete or bool(flags & k.F_COMPLETE), leaf=old.leaf or bool(flags & k.F_LEAF),
                      settled=old.settled or bool(flags & k.F_SETTLED))
        elif kind == k.EV_SPLIT_SCORED:
            state.set_q(branch, int(r[FEATURE]), float(r[VALUE]))
        elif kind == k.EV_EXPANSION:
            reason = int(expansion_reason(r))
            changes = dict(expanded=True, R=upper, G=lower, H=float(expansion_H(r)), top=int(r[FEATURE]))
            if reason >= 0:
                changes.update(complete=True, reason=reason, leaf=reason == k.REASON_LEAF)
            state.set(branch, **changes)
        elif kind == k.EV_BACKPROP_STEP:
            state.set_q(branch, int(r[FEATURE]), float(r[VALUE]))
            state.set(branch, R=upper, G=lower, top=int(top_feature(r)))
        elif kind == k.EV_CHILD_CLOSED and child is not None:
            state.set(child, complete=True, R=upper)
        elif kind == k.EV_NODE_COMPLETED and branch is not None:
            reason = int(completed_reason(r))
            old = state.branches.get(branch, EMPTY)
            leaf = old.leaf or reason in (k.REASON_SETTLED, k.REASON_LEAF, k.REASON_NO_ACTIONS)
            top = int(r[FEATURE]) if int(r[NODE]) >= 0 and int(r[FEATURE]) >= 0 and not leaf else old.top
            state.set(branch, complete=True, R=upper, G=lower, reason=reason,
                      settled=old.settled or reason == k.REASON_SETTLED, leaf=leaf, top=top)
        return state

    return apply


def search_state(frame):
    """The fold of Branches' events up to the frame (see :class:`SearchState`)."""
    rec = frame.recording
    fold = rec.cache.get("branches.fold")
    if fold is None:
        keys = _keys(rec, 0)
        fold = rec.cache["branches.fold"] = Fold(rec, SearchState, _apply(keys), SearchState.copy,
                                                 prepare=lambda k: _keys(rec, k))
    return fold.at(frame.k)


def current_branch(frame):
    """The branch (tests) the last event is about: Omega before the first event."""
    if frame.k == 0:
        return ROOT
    return search_state(frame).current


def branch_label(solver, key):
    if not key:
        return "Ω"
    return " ∧ ".join(f"{solver.feature_name(i)}={solver.category_name(i, j)}" for i, j in key)


# -- the AND/OR graph -------------------------------------------------------------------------------------------
class _GraphSource:
    """The best partial solution as a node source for :func:`odtlab.widgets.trees.window`: OR nodes keyed by
    their tests; an expanded, open (or split-complete) branch has its top split's children as kids."""

    def __init__(self, state, n_categories):
        self.state = state
        self.C = n_categories
        self.root = ROOT

    def split_of(self, key):
        """The feature of the branch's top split, or -1: none, or the bound on the split records the branch
        dropped (feature q, :func:`odtlab.core.branches.keep_best`), which has no children to draw."""
        info = self.state.branches.get(key)
        if info is None or not info.expanded or info.leaf or not 0 <= info.top < len(self.C):
            return -1
        return info.top

    def kids(self, key):
        f = self.split_of(key)
        if f < 0:
            return []
        return [tuple(sorted(key + ((f, c),))) for c in range(int(self.C[f]))]

    def parent(self, key):
        return self._parents.get(key) if hasattr(self, "_parents") else None

    def index_parents(self, limit=5000):
        """Parents along the drawn tree (a branch reached through two parents keeps the first found)."""
        self._parents = {}
        todo = [ROOT]
        while todo and len(self._parents) < limit:
            key = todo.pop()
            for c in self.kids(key):
                if c not in self._parents:
                    self._parents[c] = key
                    todo.append(c)


STATUS = {  # fill, opacity, legend
    "evaluated": ("#FFFFFF", 1.0, "evaluated, not visited"),
    "visited": (SKY, 0.45, "visited (expanded), open"),
    "complete": (GREEN, 0.45, "complete: R = R*"),
    "settled": (YELLOW, 0.75, "settled at birth (errors ≤ λn)"),
}


def _status(info):
    if info is None:
        return "evaluated"
    if info.settled:
        return "settled"
    if info.complete:
        return "complete"
    return "visited" if info.expanded else "evaluated"


ALT_H, ALT_GAP, ALT_FONT = 18, 4, 11  # the pills of the splits a branch scored but does not follow


def _alternatives(state, key, followed):
    """The splits branch ``key`` has scored other than the followed one, best Q first."""
    return sorted((f for f in state.scored.get(key, ()) if f != followed), key=lambda f: -state.Q[(key, f)])


def _flow(labels, width, gap=16):
    """Rows of pills within ``width`` px around a free central strip ``gap`` px wide (where the edge to the
    followed split runs): [(row, x offset from the centre, pill width)] and the row count. In each row the
    first half of the pills sits left of the strip, the rest right of it."""
    rows, x = [[]], 0.0
    for i, label in enumerate(labels):
        w = 6.6 * len(label) + 12
        if rows[-1] and x + w > width - gap:
            rows.append([])
            x = 0.0
        rows[-1].append((i, w))
        x += w + ALT_GAP
    out = [None] * len(labels)
    for r, row in enumerate(rows):
        n_left = len(row) // 2
        x = -gap / 2
        for i, w in reversed(row[:n_left]):
            x -= w
            out[i] = (r, x, w)
            x -= ALT_GAP
        x = gap / 2
        for i, w in row[n_left:]:
            out[i] = (r, x, w)
            x += w + ALT_GAP
    return out, (len(rows) if labels else 0)


@register_graph(ALGORITHM, title="Branches: AND/OR graph (best partial solution)",
                note="OR nodes are branches (stop, or choose a split); AND nodes are splits (every child must be "
                     "solved). Each visited branch shows every split it has scored with its Q: the one with the "
                     "highest Q, which Selection follows, with its children; the others in grey just below the "
                     "branch. Orange: this iteration's path, thick: the current branch; ⋯: more below.")
def and_or_graph(frame, max_leaves=9, box_w=124, box_h=42, level_h=112):
    """SVG of Branches' best partial solution graph at the frame (see the module docstring)."""
    solver = frame.solver
    state = search_state(frame)
    source = _GraphSource(state, np.asarray(solver.n_categories))
    source.index_parents()
    drawn = [key for key in state.path + (state.current,) if key == ROOT or key in source._parents]
    focus = drawn[-1] if drawn else ROOT
    root, depth = window(source, focus, max_leaves)
    # layout: leaves on consecutive slots, parents centred over their children
    pos, order, span = {}, [], {}
    slot = [0]

    def place(key, d):
        kids = source.kids(key) if d < depth else []
        order.append((key, d, kids))
        first = slot[0]
        if not kids:
            pos[key] = (slot[0], d)
            slot[0] += 1
        else:
            for c in kids:
                place(c, d + 1)
            pos[key] = ((pos[kids[0]][0] + pos[kids[-1]][0]) / 2, d)
        span[key] = slot[0] - first

    place(root, 0)
    pad, top = 12, 16
    step = box_w + 14

    def alt_label(key, f):
        return f"{solver.feature_name(f)} Q {fmt(state.Q[(key, f)], 3)}"

    # the scored, not followed splits of each branch, as rows of pills within its slots
    alts, rows_at = {}, [0] * (depth + 1)
    for key, d, _ in order:
        labels = [(f, alt_label(key, f)) for f in _alternatives(state, key, source.split_of(key))]
        flow, n_rows = _flow([label for _, label in labels], max(span[key], 1) * step - 10)
        alts[key] = [(f, label, *cell) for (f, label), cell in zip(labels, flow)]
        rows_at[d] = max(rows_at[d], n_rows)
    alt_h = [r * (ALT_H + ALT_GAP) + (ALT_GAP if r else 0) for r in rows_at]
    level_y = [top]
    for d in range(depth):
        level_y.append(level_y[-1] + level_h + alt_h[d])
    W = max(int(slot[0] * step + 2 * pad), 780)
    H = int(level_y[depth] + box_h + alt_h[depth] + 86)
    path = set(state.path)

    def xy(key):
        x, d = pos[key]
        return pad + x * step + step / 2, level_y[d]

    parts = [svg_open(W, H, current=branch_label(solver, state.current), nodes=len(order),
                      scored=sum(len(state.scored.get(key, ())) for key, _, _ in order))]
    for key, d, kids in order:  # AND nodes and edges first
        px, py = xy(key)
        for f, label, row, dx, w in alts[key]:
            x0 = px + dx
            y0 = py + box_h + ALT_GAP + row * (ALT_H + ALT_GAP)
            parts.append(f'<g class="and-scored"><rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{ALT_H}" '
                         f'rx="9" fill="#FFFFFF" stroke="{GREY}" stroke-width="1" />'
                         + text(x0 + w / 2, y0 + 13, label, ALT_FONT, "middle", fill=MUTED) + "</g>")
        if not kids:
            continue
        f = source.split_of(key)
        below = py + box_h + alt_h[d]
        ay = below + (level_h - box_h) / 2 - 6
        on_path = key in path and any(c in path for c in kids)
        for c in kids:
            cx, cy = xy(c)
            colour, width = (HIGHLIGHT, 2.5) if on_path and c in path else ("#777", 1.2)
            parts.append(f'<line x1="{px:.1f}" y1="{ay + 12:.1f}" x2="{cx:.1f}" y2="{cy:.1f}" stroke="{colour}" '
                         f'stroke-width="{width}" />')
        parts.append(f'<line x1="{px:.1f}" y1="{py + box_h:.1f}" x2="{px:.1f}" y2="{ay - 12:.1f}" '
                     f'stroke="{HIGHLIGHT if on_path else "#777"}" stroke-width="{2.5 if on_path else 1.2}" />')
        if len(kids) > 1:  # the AND arc across the child edges
            x0, x1 = xy(kids[0])[0], xy(kids[-1])[0]
            r = 26
            ya = ay + 12
            lx = px + (x0 - px) * r / np.hypot(x0 - px, level_h - box_h)
            rx = px + (x1 - px) * r / np.hypot(x1 - px, level_h - box_h)
            parts.append(f'<path d="M{lx:.1f},{ya + 8:.1f} Q{px:.1f},{ya + 22:.1f} {rx:.1f},{ya + 8:.1f}" '
                         f'fill="none" stroke="{INK}" stroke-width="1.5" />')
        q = state.Q.get((key, f))
        label = f"{solver.feature_name(f)}  Q {fmt(q, 4)}" if q is not None else solver.feature_name(f)
        wid = max(64, 7.2 * len(label) + 14)
        parts.append(f'<g class="and"><rect x="{px - wid / 2:.1f}" y="{ay - 12:.1f}" width="{wid:.1f}" height="24" '
                     f'rx="12" fill="#F4F4F4" stroke="{INK}" />'
                     + text(px, ay + 5, label, 12, "middle") + "</g>")
    for key, d, kids in order:
        info = state.branches.get(key)
        status = _status(info)
        fill, opacity, _ = STATUS[status]
        x, y = xy(key)
        current = key == state.current
        stroke, sw = (HIGHLIGHT, 4) if current else ((HIGHLIGHT, 2) if key in path else ("#333", 1.2))
        parent = source.parent(key)
        last = branch_label(solver, tuple(sorted(set(key) - set(parent)))) if parent is not None else (
            branch_label(solver, key))
        value = "–" if info is None else (f"R* {fmt(info.R, 4)}" if info.complete else f"R {fmt(info.R, 4)}")
        cut = " ⋯" if (not kids and source.kids(key)) else ""
        cls = ' class="current"' if current else ""
        parts.append(f'<g id="or-{escape(branch_label(solver, key))}"{cls}>'
                     f'<rect x="{x - box_w / 2:.1f}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="7" '
                     f'fill="{fill}" fill-opacity="{opacity}" stroke="{stroke}" stroke-width="{sw}" />'
                     + text(x, y + 17, last[:17], 13, "middle", weight="bold")
                     + text(x, y + 34, value + cut, 12, "middle") + "</g>")
    parts.append(legend([(label, {"fill": fill, "opacity": opacity}) for fill, opacity, label in STATUS.values()],
                        pad, H - 38))
    parts.append(legend([("the split Selection follows (highest Q)", {"shape": "pill", "fill": "#F4F4F4"}),
                         ("a split scored, not followed", {"shape": "pill", "fill": "#FFFFFF", "stroke": GREY})],
                        pad, H - 16))
    parts.append("</svg>")
    return "".join(parts)


# -- the Q panel ---------------------------------------------------------------------------------------------
@register_panel(ALGORITHM)
class QValuePanel(View):
    """The actions of the current branch l: the leaf value H(l) and Q(l, i) of every split scored so far
    (Eqs. 5-6); R(l) = max over them, the best one in orange."""

    title = "Branches: Q-values of the current branch"

    def __init__(self, width=460, max_rows=12):
        self.width = width
        self.max_rows = max_rows

    def svg(self, frame):
        solver = frame.solver
        state = search_state(frame)
        key = current_branch(frame)
        info = state.branches.get(key)
        rows = []
        if info is not None and not np.isnan(info.H):
            rows.append(("leaf (stop)", info.H, -1))
        for f in sorted(state.scored.get(key, ())):
            rows.append((f"split {solver.feature_name(f)}", state.Q[(key, f)], f))
        W = self.width
        status = STATUS[_status(info)][2] if info is not None else "not evaluated yet"
        if info is not None and not info.expanded and state.scored.get(key):
            status = "being expanded"
        bound = info.R if info is not None and np.isfinite(info.R) else None
        head = f"Branch {branch_label(solver, key)}"
        sub = (f"{status}; bound R(l) = {fmt(info.R, 5)} (dashed), G = {fmt(info.G, 5)}" if info is not None
               else status)
        shown = rows[:self.max_rows]
        y0 = 66
        H = y0 + 4 + 26 * max(len(shown), 1) + (18 if len(rows) > len(shown) else 0)
        parts = [svg_open(W, H, branch=branch_label(solver, key), actions=len(rows),
                          bound="" if bound is None else f"{bound:.6g}"),
                 text(10, 20, head[:60], 14, weight="bold"), text(10, 40, sub, 13, fill=MUTED)]
        if not shown:
            parts.append(text(10, y0 + 18, "No action scored yet: the branch is expanded when Selection ends on it.",
                              13))
        else:
            values = np.array([v for _, v, _ in shown], dtype=np.float64)
            lo = min(0.0, float(np.nanmin(values)))
            hi = max(float(np.nanmax(values)), bound if bound is not None else -np.inf)
            best = int(np.nanargmax(values))
            x0, x1 = 130, W - 70
            scale = hi - lo if hi > lo else 1.0
            if bound is not None:  # the reference line: the branch's current bound R(l) on the bars' scale
                x = x0 + (x1 - x0) * (bound - lo) / scale
                parts.append(f'<line class="bound" x1="{x:.1f}" x2="{x:.1f}" y1="{y0 - 8}" '
                             f'y2="{y0 + 26 * len(shown) - 4}" stroke="{BOUND_COLOUR}" stroke-width="2" '
                             f'stroke-dasharray="5,3" />' + text(x, y0 - 11, "R(l)", 11, "middle", fill=BOUND_COLOUR))
            parts.append(bar_rows([(label, value - lo, HIGHLIGHT if r == best else (GREY if f < 0 else SKY),
                                    0.9 if r == best else 0.6, fmt(value, 5),
                                    info is not None and f >= 0 and f == info.top)
                                   for r, (label, value, f) in enumerate(shown)],
                                  x0, x1, y0, scale))
            if len(rows) > len(shown):
                parts.append(text(10, H - 6, f"… {len(rows) - len(shown)} more splits", 12, fill=MUTED))
        parts.append("</svg>")
        return "".join(parts)

    def render(self, frame):
        return panel(self.title, self.svg(frame), "H(l): accuracy of a leaf at l; Q(l, i) = −λ + Σ R(children) "
                                                   "(Eqs. 5–6); bold: the top of the branch's heap; dashed: the "
                                                   "branch's current bound R(l)")
