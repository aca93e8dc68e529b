"""CART in the widgets: the tree so far rebuilt from the split events, and a panel on the current node.

CART decides one node per iteration and numbers nodes in that order, so the nodes decided within
``events[:k]`` are exactly the ids ``0 .. m-1`` (m = initial nodes + Split and Leaf events so far). Their
splits, children and class counts are write-once facts of :class:`odtlab.solvers.cart.CARTSolver`'s node
table; children not decided yet are the frontier (drawn dashed), with their counts from the node table
when the search already reached them, or from their rows on the solver's frontier otherwise.
"""
import numpy as np

from odtlab.core import cart as kernels
from odtlab.core import events as core
from odtlab.tree import THRESHOLD
from odtlab.widgets.registry import Adapter, register_adapter, register_panel
from odtlab.widgets.svg import MUTED, PALETTE, fmt, legend, panel, svg_open, text
from odtlab.widgets.trees import tree_frame
from odtlab.widgets.views import View

DECIDED = (kernels.CART_SPLIT, kernels.CART_LEAF)
LEAF_REASONS = {
    kernels.LEAF_DEPTH: "max_depth reached",
    kernels.LEAF_SAMPLES: "too few rows to split (min_samples_split / min_samples_leaf)",
    kernels.LEAF_PURE: "pure node (impurity 0)",
    kernels.LEAF_NO_SPLIT: "no threshold separates the rows",
    kernels.LEAF_DECREASE: "impurity decrease below min_impurity_decrease",
    kernels.LEAF_BUDGET: "max_leaf_nodes reached",
}
CRITERION_NAMES = {"gini": "Gini", "entropy": "entropy", "squared_error": "variance"}


class CARTSource:
    """Node source (see :mod:`odtlab.widgets.trees`) of CART's tree after ``m`` decided nodes.

    Keys: an int for a decided node (the solver's id), ``("pending", parent, is_left)`` for a child not
    decided yet (``("pending", -1, 0)`` is the root before the first decision).
    """

    def __init__(self, solver, m):
        self.s = solver
        self.m = int(m)
        self.root = 0 if self.m > 0 else ("pending", -1, 0)
        split = solver.state.split[:self.m]
        parent = np.full(self.m, -1, dtype=np.int64)
        spl = np.flatnonzero(split == 1)
        for side in (solver.state.left, solver.state.right):
            c = side[spl]
            ok = (c >= 0) & (c < self.m)
            parent[c[ok]] = spl[ok]
        self._parent = parent
        self.splits = int(spl.size)

    def child(self, v, is_left):
        c = int((self.s.state.left if is_left else self.s.state.right)[v])
        return c if 0 <= c < self.m else ("pending", v, int(is_left))

    def kids(self, key):
        if isinstance(key, tuple) or self.s.state.split[key] != 1:
            return []
        return [self.child(key, 1), self.child(key, 0)]

    def parent(self, key):
        p = key[1] if isinstance(key, tuple) else int(self._parent[key])
        return None if p < 0 else p

    def split(self, key):
        return THRESHOLD

    def feature(self, key):
        return int(self.s.state.feature[key])

    def threshold(self, key):
        return float(self.s.state.threshold[key])

    def solver_id(self, key):
        """The solver's id of a node (decided now or later), or -1 if the search has not reached it yet."""
        if not isinstance(key, tuple):
            return key
        _, p, is_left = key
        if p < 0:
            return 0 if self.s.state.counters[kernels.C_NODES] > 0 else -1
        return int((self.s.state.left if is_left else self.s.state.right)[p])

    def stats(self, key):
        """(class counts or target means, weighted rows) of a node."""
        s = self.s
        v = self.solver_id(key)
        if v >= 0:  # the kernel's sums (of centred targets, for regression: the mean is added back below)
            value, weight = s.state.node_value[v], float(s.state.node_weight[v])
        else:  # still on the solver's frontier: count its rows
            _, p, is_left = key
            rows = s.state.frontier[:s.state.counters[kernels.C_FRONTIER]]
            r = np.flatnonzero((rows[:, kernels.F_PARENT] == p) & (rows[:, kernels.F_LEFT] == is_left))[0]
            idx = s.state.order[int(rows[r, kernels.F_START]):int(rows[r, kernels.F_END])]
            weight = float(s.w[idx].sum())
            if s.task == "classification":
                value = np.bincount(s.y[idx], weights=s.w[idx], minlength=s.K).astype(np.float64)
            else:
                value = (s.w[idx, None] * s.Y[idx]).sum(axis=0)
        if s.task == "regression":
            value = value / weight if weight > 0 else np.zeros_like(value)
            if v >= 0:
                value = value + s.target_mean
        return value, weight


@register_adapter
class CARTAdapter(Adapter):
    """CART: tree from the Split/Leaf events; bounds (training loss, trivial 0) from the solver per call."""

    algorithm = "cart"
    tree_title = "Tree so far"
    generic_kinds = (core.SEARCH_STARTED, core.TERMINATED)

    def __init__(self, solver):
        super().__init__(solver)
        self.m0 = int(solver.state.counters[kernels.C_NODES])  # nodes decided before the recording started
        loss = "training errors" if solver.task == "classification" else "training squared error"
        self.bound_labels = (f"{loss} (upper)", "lower bound (CART proves none)")

    def decided(self, frame):
        return self.m0 + int(np.count_nonzero(np.isin(frame.records["kind"], DECIDED)))

    def source(self, frame):
        return CARTSource(self.solver, self.decided(frame))

    def focus(self, frame, source=None):
        event = frame.event
        source = source or self.source(frame)
        if event is None or event.kind.code == core.SEARCH_STARTED:
            return source.root
        if event.kind.code in DECIDED:
            return int(event.node)
        return None

    def tree_frame(self, frame, max_leaves=12):
        src = self.source(frame)
        s = self.solver
        classes = s.classes if s.classes is not None else (np.arange(s.K) if s.task == "classification" else None)
        return tree_frame(src, self.focus(frame, src), max_leaves, pending=lambda key: isinstance(key, tuple),
                          n_features=s.X.shape[1], task=s.task, classes=classes, feature_names=s.feature_names,
                          total_nodes=1 + 2 * src.splits)

    def class_names(self):
        s = self.solver
        if s.task != "classification":
            return None
        return [str(c) for c in (s.classes if s.classes is not None else range(s.K))]


@register_panel("cart")
class CARTPanel(View):
    """The node CART just decided: its rows and impurity, the split it chose (feature, threshold, impurity
    decrease, rows per side) or why it became a leaf, and the class counts of the node and its children."""

    title = "CART: the current node"

    def __init__(self, width=460):
        self.width = width

    def svg(self, frame):
        W = self.width
        s = frame.solver
        event = frame.event
        adapter = frame.adapter
        crit = CRITERION_NAMES.get(s.criterion, s.criterion)
        if event is None or event.kind.code not in DECIDED:
            msg = "Press Step: each iteration takes one node off the frontier and splits it or makes it a leaf."
            if event is not None and event.kind.code == core.TERMINATED:
                msg = f"Finished: {int(event.i0)} nodes, {int(event.i1)} leaves."
            return svg_open(W, 44) + text(10, 26, msg, 13, extra=' class="msg"') + "</svg>"
        src = adapter.source(frame)
        v = int(event.node)
        names = s.feature_names or [f"x{j}" for j in range(s.X.shape[1])]
        lines = [f"Node {v} at depth {int(event.depth)}: {fmt(event.n_samples)} rows"]
        rows = [("node", v)]
        if event.kind.code == kernels.CART_SPLIT:
            lines[0] += f", {crit} {fmt(event.impurity, 4)}"
            lines.append(f"split on {names[int(event.feature)]} ≤ {fmt(event.threshold, 6)}")
            lines.append(f"weighted impurity decrease {fmt(event.impurity_decrease, 4)}; "
                         f"{int(event.left)} rows left, {int(event.right)} right")
            rows += [("≤ left", src.child(v, 1)), ("> right", src.child(v, 0))]
        else:
            lines[0] += f", {crit} {fmt(event.impurity, 4)}"
            lines.append(f"made a leaf: {LEAF_REASONS.get(int(event.reason), 'stopping rule')}")
        top = 22 * len(lines) + 12
        bar_h, gap = 22, 10
        H = top + len(rows) * (bar_h + gap) + (30 if s.task == "classification" else 4)
        parts = [svg_open(W, H, node=v, event=event.name)]
        for i, line in enumerate(lines):
            parts.append(text(10, 20 + 22 * i, line, 14 if i == 0 else 13, weight="bold" if i == 0 else "normal"))
        x0 = 80
        classes = adapter.class_names()
        for r, (label, key) in enumerate(rows):
            y = top + r * (bar_h + gap)
            value, weight = src.stats(key)
            parts.append(text(10, y + 16, label, 13, fill=MUTED))
            if s.task == "classification":
                total = value.sum()
                x = x0
                for c, count in enumerate(value):
                    w = 0 if total <= 0 else (W - x0 - 70) * count / total
                    if w > 0:
                        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                                     f'fill="{PALETTE[c % len(PALETTE)]}" stroke="#fff" />')
                        if w > 28:
                            parts.append(text(x + w / 2, y + 16, fmt(count), 12, "middle"))
                    x += w
                parts.append(text(W - 8, y + 16, f"n = {fmt(weight)}", 12, "end", MUTED))
            else:
                means = ", ".join(fmt(m) for m in np.atleast_1d(value))
                parts.append(text(x0, y + 16, f"mean {means}, n = {fmt(weight)}", 13))
        if s.task == "classification" and classes:
            parts.append(legend([(name[:18], {"fill": PALETTE[c % len(PALETTE)], "stroke": "none"})
                                 for c, name in enumerate(classes[:8])], x0, H - 10))
        parts.append("</svg>")
        return "".join(parts)

    def render(self, frame):
        pending = frame.adapter.source(frame)
        waiting = 1 + 2 * pending.splits - pending.m
        return panel(self.title, self.svg(frame), f"{waiting} node(s) on the frontier, waiting to be decided")
