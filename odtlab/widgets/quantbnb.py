"""Quant-BnB in the widgets: the alive intervals of root thresholds per feature, and the quantile slices of
the tuple being processed with the child features each slice eliminates.

Quant-BnB (Mazumder, Meng, Wang) searches sets of trees: a tuple (f0, [a, b], F1, F2) holds every depth-2
tree with root feature f0 (``root_feature`` in the events), root threshold rank in [a, b] and child features in F1 (left) and F2 (right).
Processing a tuple either searches it exhaustively (a short interval) or cuts [a, b] at quantile points
into slices, bounds each slice from below (W0, W1, W2; eqs. 9-13), prunes the slices whose bound reaches
the upper bound U, and eliminates from the kept ones the child features whose bound does (Proposition
4.1). The incumbent tree is the one of the last ``UpperBoundImproved`` event (its row of the solver's
incumbent history), the CART tree before any.
"""
import functools

from odtlab.core import events as core
from odtlab.events import decode, decode_all
from odtlab.widgets.registry import Adapter, register_adapter, register_panel
from odtlab.widgets.svg import BLUE, GREY, HIGHLIGHT, INK, MUTED, fmt, panel, svg_open, text
from odtlab.widgets.trees import TreeSource, tree_frame
from odtlab.widgets.views import View

ALGORITHM = "quantbnb"
LB_KINDS = {0: "W0", 1: "W1", 2: "W2"}


def _codes():
    from odtlab.core import quantbnb as qb

    return qb


@register_adapter
class QuantBnBAdapter(Adapter):
    """Upper bound U from SearchStarted, IterationStart, UpperBoundImproved (its value) and Terminated; the
    lower bound from SearchStarted, IterationStart (the round's minimum over alive tuples) and Terminated.
    The tree at event k: the incumbent history row of the last UpperBoundImproved."""

    algorithm = ALGORITHM
    bound_labels = ("U, incumbent loss (upper)", "lower bound")
    generic_kinds = (core.SEARCH_STARTED, core.TERMINATED)
    stable_incumbent = True

    def __init__(self, solver):
        super().__init__(solver)
        qb = _codes()
        both = ("lower", "upper")
        self.bound_fields = {core.SEARCH_STARTED: both, qb.QB_ITERATION: both, core.TERMINATED: both,
                             qb.QB_UPPER: (None, "value")}
        self._trees = {}

    @property
    def snapshots(self):
        return True  # the tree before the first UpperBoundImproved is the solver's first incumbent (``initial``)

    def tree_frame(self, frame, max_leaves=12):
        qb = _codes()
        i = frame.last_of((qb.QB_UPPER,))
        if i < 0:
            tree = frame.recording.initial.tree
        else:
            row = int(core.KINDS[qb.QB_UPPER].get(frame.recording.records[i], "history_row"))
            if row not in self._trees:
                self._trees[row] = self.solver.history_tree(row)
            tree = self._trees[row]
        return tree_frame(TreeSource(tree), None, max_leaves, n_features=tree.n_features, task=tree.task,
                          classes=tree.classes, feature_names=tree.feature_names, total_nodes=tree.n_nodes)


class _Tuples:
    """The tuples known at a frame, from the events (vectorised over the record array)."""

    def __init__(self, frame):
        qb = _codes()
        recs = frame.records
        sliced = _of_kind(recs, qb.QB_SLICE)
        slices = sliced[core.KINDS[qb.QB_SLICE].get(sliced, "child_id") >= 0]  # slices pushed as tuples (with an id)
        done = {name: [] for name in ("tuple_id", "root_feature", "parent_id", "b")}
        for code in (qb.QB_REFINE, qb.QB_EXHAUSTIVE):
            of_kind = _of_kind(recs, code)
            for name in done:
                done[name] += core.KINDS[code].get(of_kind, name).tolist()
        processed = set(done["tuple_id"])
        solver = frame.solver
        self.u = [len(v) for v in solver.values]
        get = functools.partial(core.KINDS[qb.QB_SLICE].get, slices)
        self.alive = [(int(f), int(a), int(b)) for tid, f, a, b in
                      zip(get("child_id").tolist(), get("root_feature").tolist(), get("a").tolist(), get("b").tolist())
                      if tid not in processed]
        start = getattr(solver, "start_tuples", None)  # depth 2: the first alive list, (id, f0, a, b)
        if start is not None:
            self.alive = [(f, a, b) for tid, f, a, b in start if tid not in processed] + self.alive
        else:
            roots_done = {int(f) for f, p, b in zip(done["root_feature"], done["parent_id"], done["b"])
                          if p < 0 and b >= self.u[int(f)]}
            self.alive += [(f, 0, self.u[f]) for f in range(len(self.u)) if f not in roots_done]
        self.processed = len(processed)


def _of_kind(records, code):
    return records[records["kind"] == code]


def _of_tuple(records, code, tid):
    """The events of kind ``code`` about tuple ``tid`` (its ``tuple_id``)."""
    of_kind = _of_kind(records, code)
    return of_kind[core.KINDS[code].get(of_kind, "tuple_id") == tid]


def _current_tuple(frame):
    """Position of the REFINE / EXHAUSTIVE event of the tuple the last event is about (or -1)."""
    qb = _codes()
    recs = frame.records
    return frame.last_of((qb.QB_REFINE, qb.QB_EXHAUSTIVE)) if recs.shape[0] else -1


@register_panel(ALGORITHM)
class IntervalsPanel(View):
    """Per root feature: the alive intervals of root threshold ranks (blue), the current tuple's interval
    (orange) cut at its quantile points; below, the current tuple's slices: bound W against U, kept or
    pruned, and the child features eliminated on each side."""

    title = "Quant-BnB: intervals, quantile slices, eliminated features"

    def __init__(self, width=520, max_features=10, max_slices=8):
        self.width = width
        self.max_features = max_features
        self.max_slices = max_slices

    def svg(self, frame):
        qb = _codes()
        solver = frame.solver
        W = self.width
        tuples = _Tuples(frame)
        recs = frame.records
        cur = _current_tuple(frame)
        cur_rec = decode(recs[cur]) if cur >= 0 else None
        names = [solver.feature_names[j] if solver.feature_names is not None else f"x{j}" for j in solver.kept]
        cur_f = int(cur_rec.root_feature) if cur_rec is not None else -1
        # which features get a row: the current one first, then those with alive intervals, then the rest
        alive_f = [f for f, _, _ in tuples.alive]
        order = sorted(range(len(names)), key=lambda f: (f != cur_f, -alive_f.count(f), f))
        rows = order[:self.max_features]
        slices, elim = [], {}
        if cur_rec is not None and cur_rec.kind.code == qb.QB_REFINE:
            tid = int(cur_rec.tuple_id)
            after = recs[cur + 1:]
            sl = _of_tuple(after, qb.QB_SLICE, tid)
            slices = [(int(e.j), int(e.a), int(e.b), float(e.W), int(e.kept), int(e.bound))
                      for e in decode_all(sl[:self.max_slices])]
            for e in decode_all(_of_tuple(after, qb.QB_ELIMINATE, tid)):
                elim.setdefault(int(e.j), ([], []))[int(e.side_bound) % 2].append(int(e.child_feature))
        gone = {}  # slice -> "left | right" eliminated child features (the table's last column)
        for j, _, _, _, kept, _ in slices:
            sides = [", ".join(names[f] for f in side) or "–" for side in elim.get(j, ([], []))]
            gone[j] = " | ".join(sides) if kept else "all (slice pruned)"
        W = max(W, min(310 + 7 * max(map(len, gone.values()), default=0), 2 * W))  # 12 px text: about 7 px a character
        chars = (W - 310) // 7
        top = 48
        row_h = 22
        table_top = top + row_h * len(rows) + 34
        H = table_top + (24 + 22 * len(slices) if slices else 8) + 6
        parts = [svg_open(W, H, alive=len(tuples.alive), current=-1 if cur_rec is None else int(cur_rec.tuple_id))]
        if cur_rec is None:
            head = "No tuple processed yet"
        elif cur_rec.kind.code == qb.QB_EXHAUSTIVE:
            head = (f"Tuple {int(cur_rec.tuple_id)}: {names[cur_f]} ∈ ranks [{int(cur_rec.a)}, {int(cur_rec.b)}]"
                    f" searched exhaustively, best {fmt(cur_rec.best)}")
        else:
            head = (f"Tuple {int(cur_rec.tuple_id)}: {names[cur_f]} ∈ ranks [{int(cur_rec.a)}, "
                    f"{int(cur_rec.b)}], {int(cur_rec.s)} slices, {int(cur_rec.kept)} kept")
        parts.append(text(10, 18, head[:72], 14, weight="bold"))
        parts.append(text(10, 37, f"{len(tuples.alive)} tuples alive, {tuples.processed} processed", 13, fill=MUTED))
        x0, x1 = int(min(max(130, 20 + 7.5 * max(map(len, names))), 220)), W - 60  # labels: 7.5 px a character
        for r, f in enumerate(rows):
            y = top + r * row_h
            u = max(tuples.u[f], 1)
            label = names[f] if 7.5 * len(names[f]) <= x0 - 20 else names[f][:int((x0 - 20) / 7.5) - 1] + "…"
            parts.append(text(10, y + 14, label, 12, weight="bold" if f == cur_f else "normal"))
            parts.append(f'<line x1="{x0}" x2="{x1}" y1="{y + 10}" y2="{y + 10}" stroke="#BBB" />')
            for g, a, b in tuples.alive:
                if g == f:
                    xa, xb = x0 + (x1 - x0) * a / u, x0 + (x1 - x0) * b / u
                    parts.append(f'<rect class="alive" x="{xa:.1f}" y="{y + 4}" width="{max(xb - xa, 2):.1f}" height="12" '
                                 f'fill="{BLUE}" fill-opacity="0.55" />')
            if f == cur_f and cur_rec is not None:
                a, b = int(cur_rec.a), int(cur_rec.b)
                xa, xb = x0 + (x1 - x0) * a / u, x0 + (x1 - x0) * b / u
                parts.append(f'<rect x="{xa:.1f}" y="{y + 1}" width="{max(xb - xa, 2):.1f}" height="18" fill="none" '
                             f'stroke="{HIGHLIGHT}" stroke-width="2.5" />')
                for j, sa, sb, bound, kept, _ in slices:
                    for t in (sa, sb):
                        xt = x0 + (x1 - x0) * t / u
                        parts.append(f'<line x1="{xt:.1f}" x2="{xt:.1f}" y1="{y - 1}" y2="{y + 21}" stroke="{INK}" />')
                    if not kept:
                        xa2, xb2 = x0 + (x1 - x0) * sa / u, x0 + (x1 - x0) * sb / u
                        parts.append(f'<rect x="{xa2:.1f}" y="{y + 4}" width="{max(xb2 - xa2, 1):.1f}" height="12" '
                                     f'fill="{GREY}" fill-opacity="0.8" />')
            parts.append(text(x1 + 6, y + 14, f"u={tuples.u[f]}", 11, fill=MUTED))
        if len(names) > len(rows):
            parts.append(text(10, top + row_h * len(rows) + 14, f"+ {len(names) - len(rows)} more features", 12,
                              fill=MUTED))
        if slices:
            y = table_top
            parts.append(text(10, y, "slice", 12, weight="bold"))
            parts.append(text(60, y, "ranks", 12, weight="bold"))
            parts.append(text(150, y, f"bound vs U = {fmt(cur_rec.upper)}", 12, weight="bold"))
            parts.append(text(300, y, "eliminated: left | right", 12, weight="bold"))
            for i, (j, a, b, bound, kept, kind) in enumerate(slices):
                yy = y + 22 * (i + 1)
                colour = INK if kept else MUTED
                parts.append(text(10, yy, str(j), 12, fill=colour))
                parts.append(text(60, yy, f"[{a}, {b}]", 12, fill=colour))
                verdict = "kept" if kept else "pruned"
                parts.append(text(150, yy, f"{LB_KINDS.get(kind, 'W')} = {fmt(bound)} → {verdict}", 12,
                                  fill=colour, weight="bold" if kept else "normal"))
                cut = gone[j] if len(gone[j]) <= chars else gone[j][:chars - 1] + "…"
                parts.append(text(300, yy, cut, 12, fill=colour))
        parts.append("</svg>")
        return "".join(parts)

    def render(self, frame):
        return panel(self.title, self.svg(frame), "blue: root-threshold intervals still alive; orange: the tuple "
                                                  "being processed, cut at its quantile points (grey: pruned slices)")
