"""Views: pure functions from a :class:`~odtlab.widgets.recording.Frame` (the first ``k`` events of a
search and the problem they belong to) to an SVG or HTML string.

The player calls ``view.render(frame)`` for every view on every frame and puts the string in an
``ipywidgets.HTML``; static exports call the same function once per precomputed frame. Drawing views also
offer ``view.svg(frame)`` (the bare SVG, e.g. for PNG export with cairosvg).

Generic views: :class:`TreeView` (the tree at this event, current node outlined), :class:`BoundPlot`
(upper and lower bound over iterations and the gap), :class:`EventLog` (the last events as a table) and
:class:`SearchGraphView` (the algorithm's search graph, drawn by the renderer it registered).
Per-algorithm panels live in ``odtlab.widgets.<algorithm>``.
"""
import re

import numpy as np

from odtlab.export import to_svg
from odtlab.widgets import registry
from odtlab.widgets.svg import (FONT, GRID, HIGHLIGHT, INK, LOWER, MUTED, UPPER, escape, fmt, nice_ticks, panel,
                                step_path, svg_open, text, thin)


class View:
    """A pure renderer of frames. Subclasses implement :meth:`render` (and :meth:`svg` when they draw)."""

    title = "view"

    def render(self, frame):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


# -- tree ---------------------------------------------------------------------------------------------------
_NODE_RECT = re.compile(r'<g id="node-(\d+)"( class="highlight")?><rect x="([\d.]+)" y="([\d.]+)" '
                        r'width="([\d.]+)" height="([\d.]+)"')


def mark_nodes(svg, pending=(), hidden=()):
    """Post-process :func:`odtlab.export.to_svg` output: dashed outlines on ``pending`` nodes, a "more
    below" mark under ``hidden`` ones (their subtrees are cut from the window)."""
    pending, hidden = set(pending), set(hidden)
    if not pending and not hidden:
        return svg
    marks = []

    def edit(m):
        v = int(m.group(1))
        out = m.group(0)
        if v in pending:
            out = out.replace("<rect ", '<rect stroke-dasharray="6 4" ', 1)
        if v in hidden:
            x, y, w, h = (float(m.group(i)) for i in range(3, 7))
            cx, by = x + w / 2, y + h
            marks.append(f'<g class="more"><line x1="{cx:.1f}" y1="{by:.1f}" x2="{cx:.1f}" y2="{by + 10:.1f}" '
                         f'stroke="{MUTED}" stroke-dasharray="2 2" />'
                         + text(cx, by + 22, "⋯ more", 11, "middle", MUTED) + "</g>")
        return out

    svg = _NODE_RECT.sub(edit, svg)
    if marks:
        height = re.search(r'height="(\d+)"', svg)
        h = int(height.group(1))
        svg = svg.replace(f'height="{h}"', f'height="{h + 26}"', 1)
        svg = re.sub(r'viewBox="0 0 (\d+) (\d+)"', lambda m: f'viewBox="0 0 {m.group(1)} {h + 26}"', svg, count=1)
        svg = svg[:-len("</svg>")] + "".join(marks) + "</svg>"
    return svg


class TreeView(View):
    """The tree at this event: counts and predicted class per node, the current node outlined.

    Nodes the search has not decided yet are dashed. Trees with more than ``max_leaves`` boxes on their
    bottom row are shown through a window around the current node (see :func:`odtlab.widgets.trees.window`).
    """

    title = "Tree"

    def __init__(self, max_leaves=10, node_width=150, font_size=13):
        self.max_leaves = max_leaves
        self.node_width = node_width
        self.font_size = font_size

    def tree_frame(self, frame):
        return frame.adapter.tree_frame(frame, self.max_leaves)

    def _draw(self, frame):
        tf = self.tree_frame(frame)
        if tf is None:
            return None, None
        svg = to_svg(tf.tree, class_names=frame.adapter.class_names(), highlight=tf.highlight,
                     node_width=self.node_width, font_size=self.font_size, level_height=84)
        return tf, mark_nodes(svg, tf.pending, tf.hidden)

    def svg(self, frame):
        return self._draw(frame)[1]

    def render(self, frame):
        tf, svg = self._draw(frame)
        if tf is None:
            return panel(self.title, "<p>No tree yet.</p>")
        legend = "thick orange outline: current node"
        if tf.pending:
            legend += " · dashed: not decided yet"
        note = "; ".join(s for s in (tf.note, legend) if s)
        title = (f"{frame.adapter.tree_title}: {_plural(tf.tree.splits, 'split')}, "
                 f"{_plural(tf.tree.leaves, 'leaf', 'leaves')}")
        if tf.note:
            title = f"{frame.adapter.tree_title} ({tf.total_nodes} nodes)"
        return panel(title, svg, note)


def _plural(n, one, many=None):
    return f"{n} {one if n == 1 else (many or one + 's')}"


# -- bounds -------------------------------------------------------------------------------------------------
class BoundPlot(View):
    """Upper and lower bound over iterations, with the gap shaded, as SVG.

    The numbers printed (and the ``data-upper`` / ``data-lower`` attributes) are the bounds in force at
    this event: the values of the last bound-carrying event, or the solver's bounds after the last
    completed iteration for algorithms whose events carry none (CART).
    """

    title = "Bounds"

    def __init__(self, width=460, height=240):
        self.width = width
        self.height = height

    def svg(self, frame):
        W, H = self.width, self.height
        left, right, top, bottom = 62, 14, 44, 40
        (itl, lo), (itu, up) = frame.adapter.bound_series(frame)
        lower, upper = frame.bounds()
        event = frame.event
        now = float(event.iteration) if event is not None else float(max(itl[-1], itu[-1]))
        finite = np.concatenate([lo[np.isfinite(lo)], up[np.isfinite(up)]])
        ymin, ymax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if ymax - ymin < 1e-12:
            ymin, ymax = ymin - 0.5, ymax + 0.5
        pad = 0.06 * (ymax - ymin)
        ymin, ymax = ymin - pad, ymax + pad
        xmax = max(now, float(itl.max()), float(itu.max()), 1.0)
        xmin = min(float(itl.min()), float(itu.min()), 0.0)

        def sx(x):
            return left + (x - xmin) / (xmax - xmin) * (W - left - right)

        def sy(y):
            return top + (ymax - y) / (ymax - ymin) * (H - top - bottom)

        gap = upper - lower
        parts = [svg_open(W, H, upper=repr(float(upper)), lower=repr(float(lower)), gap=repr(float(gap)),
                          iteration=int(now))]
        for t in nice_ticks(ymin, ymax, 5):
            if ymin <= t <= ymax:
                parts.append(f'<line x1="{left}" x2="{W - right}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" stroke="{GRID}" />')
                parts.append(text(left - 6, sy(t) + 4, fmt(t), 12, "end", MUTED))
        for t in nice_ticks(xmin, xmax, 6):
            if xmin <= t <= xmax and float(t).is_integer():
                parts.append(f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{H - bottom}" y2="{H - bottom + 4}" '
                             f'stroke="{MUTED}" />')
                parts.append(text(sx(t), H - bottom + 17, fmt(t), 12, "middle", MUTED))
        parts.append(f'<line x1="{left}" x2="{W - right}" y1="{H - bottom}" y2="{H - bottom}" stroke="{MUTED}" />')
        parts.append(text((left + W - right) / 2, H - 6, "iteration", 12, "middle", MUTED))
        okl, oku = np.isfinite(lo), np.isfinite(up)
        span = W - left - right
        itl, lol = thin(itl[okl], lo[okl], width=span // 2)
        itu, upu = thin(itu[oku], up[oku], width=span // 2)
        if itl.size and itu.size:  # shade the gap between the two step functions
            xs = np.union1d(itl, itu)
            ju = np.searchsorted(itu, xs, side="right") - 1
            jl = np.searchsorted(itl, xs, side="right") - 1
            ok = (ju >= 0) & (jl >= 0)
            xs, yu, yl = sx(xs[ok]), sy(upu[ju[ok]]), sy(lol[jl[ok]])
            if xs.size:
                ends = np.append(xs[1:], max(sx(now), xs[-1]))
                top_edge = np.column_stack([xs, yu, ends, yu]).ravel()
                low_edge = np.column_stack([ends, yl, xs, yl])[::-1].ravel()
                pts = np.concatenate([top_edge, low_edge]).reshape(-1, 2).T.tolist()
                points = " ".join(map("{:.1f},{:.1f}".format, *pts))
                parts.append(f'<polygon points="{points}" fill="#E69F00" fill-opacity="0.18" />')
        up_label, lo_label = frame.adapter.bound_labels
        if itu.size:
            parts.append(f'<path class="upper" d="{step_path(sx(itu), sy(upu), sx(now))}" fill="none" '
                         f'stroke="{UPPER}" stroke-width="2.5" />')
        if itl.size:
            parts.append(f'<path class="lower" d="{step_path(sx(itl), sy(lol), sx(now))}" fill="none" '
                         f'stroke="{LOWER}" stroke-width="2.5" stroke-dasharray="7 3" />')
        parts.append(f'<line x1="{sx(now):.1f}" x2="{sx(now):.1f}" y1="{top}" y2="{H - bottom}" stroke="{INK}" '
                     f'stroke-opacity="0.35" />')
        parts.append(f'<line x1="{left}" x2="{left + 22}" y1="12" y2="12" stroke="{UPPER}" stroke-width="2.5" />')
        parts.append(text(left + 27, 16, f"{up_label}: {fmt(upper, 6)}", 13))
        parts.append(f'<line x1="{left}" x2="{left + 22}" y1="31" y2="31" stroke="{LOWER}" stroke-width="2.5" '
                     f'stroke-dasharray="7 3" />')
        parts.append(text(left + 27, 35, f"{lo_label}: {fmt(lower, 6)}", 13))
        parts.append(text(W - right, 16, f"gap {fmt(gap, 4)}", 13, "end", weight="bold"))
        parts.append("</svg>")
        return "".join(parts)

    def render(self, frame):
        sense = "maximised" if frame.solver.sense == "max" else "minimised"
        return panel(self.title, self.svg(frame), f"objective {sense}; the shaded band is the gap")


# -- event log ----------------------------------------------------------------------------------------------
class EventLog(View):
    """The last ``rows`` events of the frame (of the kinds the player's filter keeps), newest last."""

    title = "Events"

    def __init__(self, rows=10, caption_chars=150):
        self.rows = rows
        self.caption_chars = caption_chars

    def render(self, frame):
        kinds = frame.records["kind"]
        if frame.kinds is None:
            shown = np.arange(max(0, frame.k - self.rows), frame.k)
        else:
            shown = np.flatnonzero(np.isin(kinds, list(frame.kinds)))[-self.rows:]
        head = (f'<tr style="background:#F2F2F2;text-align:left"><th style="padding:2px 6px">#</th>'
                f'<th style="padding:2px 6px">iter.</th><th style="padding:2px 6px">event</th>'
                f'<th style="padding:2px 6px">what happened</th></tr>')
        rows = []
        for i in shown:
            event = frame.recording.event(int(i))
            caption = frame.describe(event).split("\n")[0]
            if len(caption) > self.caption_chars:
                caption = caption[:self.caption_chars - 1] + "…"
            current = int(i) == frame.k - 1
            style = f"background:#FBE3D2;border-left:4px solid {HIGHLIGHT}" if current else ""
            rows.append(f'<tr class="{"current" if current else ""}" style="{style}">'
                        f'<td style="padding:2px 6px;text-align:right">{int(i) + 1}</td>'
                        f'<td style="padding:2px 6px;text-align:right">{int(event.iteration)}</td>'
                        f'<td style="padding:2px 6px;white-space:nowrap">{escape(event.name)}</td>'
                        f'<td style="padding:2px 6px">{escape(caption)}</td></tr>')
        if not rows:
            rows.append('<tr><td colspan="4" style="padding:2px 6px;color:#555">no events yet</td></tr>')
        table = (f'<table style="border-collapse:collapse;font-size:13px;font-family:{FONT};width:100%">'
                 f'{head}{"".join(rows)}</table>')
        return panel(self.title, table, f"{frame.k} of {frame.recording.n} recorded events applied")


# -- search graph -------------------------------------------------------------------------------------------
class SearchGraphView(View):
    """The algorithm's search graph (Branches' AND/OR graph, MurTree's recursion), drawn by the renderer
    registered with :func:`odtlab.widgets.registry.register_graph`."""

    title = "Search graph"

    def svg(self, frame):
        draw = registry.graph_for(frame.solver.name)
        return None if draw is None else draw(frame)

    def render(self, frame):
        draw = registry.graph_for(frame.solver.name)
        if draw is None:
            return panel(self.title, f"<p>{escape(frame.solver.name)} has no search graph view.</p>")
        return panel(draw.title, draw(frame), draw.note)


def default_views(solver):
    """The views the player shows for a solver: tree, search graph (if any), bounds, the algorithm's
    panels, event log."""
    views = [TreeView()]
    if registry.graph_for(solver.name) is not None:
        views.append(SearchGraphView())
    views.append(BoundPlot())
    views.extend(registry.panels_for(solver.name))
    views.append(EventLog())
    return views
