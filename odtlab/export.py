"""Export a :class:`odtlab.tree.Tree` to nested dicts, text, Graphviz DOT and a self-contained SVG.

The SVG renderer is a pure function of the tree (and an optional set of highlighted nodes): no
matplotlib, no graphviz binary. The widgets draw every frame with it (about 0.1 ms a frame), and a
notebook shows a tree inline through ``Tree._repr_svg_``.

Thresholds are printed exactly, in every format: as Python's ``repr`` of the float64 (the shortest decimal
that reads back as the same number), so ``x <= t`` in the text, DOT or SVG sends every input, training row
or not, the way :meth:`Tree.predict` does. Four significant digits would print 1.00002 (the midpoint of
1.00001 and 1.00003, stored as 1.0000200000000001) as 1, which sends the row 1.00001 right instead of
left. A midpoint that is not a short decimal prints in full (0.1 / 2 + 0.2 / 2 is 0.15000000000000002):
that is the stored model. ``decimals`` only rounds the leaf values and row counts, which nothing reads
back.
"""
from html import escape

import numpy as np

# Okabe & Ito's colour-blind-safe palette (Color Universal Design), one colour per class.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
HIGHLIGHT = "#D55E00"


def _names(tree, feature_names, class_names):
    features = list(feature_names) if feature_names is not None else tree.feature_names
    if class_names is None and tree.task == "classification":
        class_names = [str(c) for c in (tree.classes if tree.classes is not None else [])]
    return features, class_names


def _fmt(x, decimals=4):
    return f"{x:.{decimals}g}" if isinstance(x, (float, np.floating)) else str(x)


def threshold_text(t):
    """A threshold as the shortest decimal that reads back as the same float64 (``float(text) == t``)."""
    return repr(float(t))


def _edge_tests(tree, v):
    """The test on each edge out of split node ``v``, in child order: "<= t", "> t" or "= c"."""
    if tree.split[v] == 1:
        t = threshold_text(tree.threshold[v])
        return [f"<= {t}", f"> {t}"]
    return [f"= {c}" for c in range(tree.n_children[v])]


def _branch_labels(tree, v, features):
    """Labels of the edges out of split node ``v``, in child order: feature name and test."""
    name = features[tree.feature[v]]
    return [f"{name} {test}" for test in _edge_tests(tree, v)]


def _leaf_label(tree, v, class_names, decimals=4):
    if tree.prediction is None:
        return "leaf"
    if tree.task == "classification":
        k = int(tree.prediction[v])
        label = class_names[k] if class_names and k < len(class_names) else str(k)
        return f"class: {label}"
    values = ", ".join(_fmt(float(x), decimals) for x in np.atleast_1d(tree.prediction[v]))
    return f"value: {values}"


def to_dict(tree, node=0):
    """Nested dicts in the format :meth:`Tree.from_dict` reads, with counts and predictions added."""
    out = {}
    if tree.split[node] == 0:
        out["leaf"] = True
    else:
        out["feature"] = int(tree.feature[node])
        out["feature_name"] = tree.feature_names[tree.feature[node]]
        out["kind"] = "threshold" if tree.split[node] == 1 else "category"
        if tree.split[node] == 1:
            out["threshold"] = float(tree.threshold[node])
        out["children"] = [to_dict(tree, int(c)) for c in tree._kids(node)]
    if tree.prediction is not None:
        pred = tree.prediction[node]
        out["prediction"] = int(pred) if tree.task == "classification" else np.atleast_1d(pred).tolist()
        out["n_samples"] = float(tree.n_samples[node])
        if tree.task == "classification":
            out["counts"] = tree.value[node].tolist()
    return out


def to_text(tree, feature_names=None, class_names=None, decimals=4):
    """An indented text rendering in the style of scikit-learn's ``export_text``: thresholds exact (see the
    module docstring), leaf values to ``decimals`` significant digits."""
    features, class_names = _names(tree, feature_names, class_names)
    lines = []

    def walk(v, indent):
        if tree.split[v] == 0:
            lines.append(f"{indent}|--- {_leaf_label(tree, v, class_names, decimals)}")
            return
        for label, c in zip(_branch_labels(tree, v, features), tree._kids(v)):
            lines.append(f"{indent}|--- {label}")
            walk(int(c), indent + "|   ")

    if tree.split[0] == 0:
        lines.append(f"|--- {_leaf_label(tree, 0, class_names, decimals)}")
    else:
        walk(0, "")
    return "\n".join(lines)


def to_dot(tree, feature_names=None, class_names=None):
    """Graphviz DOT source (render it with any graphviz; odtlab does not need the binary)."""
    features, class_names = _names(tree, feature_names, class_names)
    out = ["digraph Tree {", 'node [shape=box, style="rounded,filled", fontname="Helvetica"];']
    for v in range(tree.n_nodes):
        if tree.split[v] == 0:
            label = _leaf_label(tree, v, class_names)
            colour = _colour(tree, v)
        else:
            label = features[tree.feature[v]]
            colour = "#FFFFFF"
        if tree.n_samples is not None:
            label += f"\\nsamples = {_fmt(float(tree.n_samples[v]))}"
        out.append(f'{v} [label="{_dot_escape(label)}", fillcolor="{colour}"];')
    for v in range(tree.n_nodes):
        if tree.split[v] != 0:
            for edge, c in zip(_edge_tests(tree, v), tree._kids(v)):
                out.append(f'{v} -> {int(c)} [label="{_dot_escape(edge)}"];')
    out.append("}")
    return "\n".join(out)


def _dot_escape(text):
    return text.replace('"', '\\"')


def _colour(tree, v):
    if tree.prediction is None or tree.task != "classification":
        return "#E8E8E8"
    return PALETTE[int(tree.prediction[v]) % len(PALETTE)]


def layout(tree):
    """(x, depth) of every node: leaves on consecutive slots left to right, splits centred above."""
    x = np.zeros(tree.n_nodes)
    depth = tree.node_depths()
    slot = [0]

    def place(v):
        kids = tree._kids(v)
        if tree.split[v] == 0 or len(kids) == 0:
            x[v] = slot[0]
            slot[0] += 1
            return
        for c in kids:
            place(int(c))
        x[v] = (x[kids[0]] + x[kids[-1]]) / 2

    place(0)
    return x, depth


def to_svg(tree, feature_names=None, class_names=None, highlight=None, node_width=150, level_height=96,
           font_size=13, title=None):
    """A standalone SVG drawing of the tree.

    A split node shows its feature (and threshold), a leaf its class (or value); both show how many
    training rows reach them. Edges carry the test outcome ("<=" / ">" or "= category").
    ``highlight`` is a node id or a collection of ids drawn with a thick outline (the current node of a
    search step). Colours follow the Okabe-Ito palette; text stays at ``font_size`` px, legible at 125 %.
    """
    features, class_names = _names(tree, feature_names, class_names)
    marked = set() if highlight is None else ({int(highlight)} if np.isscalar(highlight) else set(map(int, highlight)))
    x, depth = layout(tree)
    pad = 10
    line = font_size + 4
    box_h = 2 * line + 8
    top = pad + (font_size + 10 if title else 0)
    width = int((x.max() + 1) * node_width + 2 * pad)
    height = int(top + depth.max() * level_height + box_h + pad)
    px = pad + (x + 0.5) * node_width
    py = top + depth * level_height
    small = font_size - 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
             f'font-size="{font_size}"><rect width="100%" height="100%" fill="#fff" />']
    if title:
        parts.append(f'<text x="{pad}" y="{pad + font_size}" font-weight="bold">{escape(title)}</text>')
    for v in range(tree.n_nodes):  # edges first, under the boxes
        if tree.split[v] == 0:
            continue
        for test, c in zip(_edge_tests(tree, v), tree._kids(v)):
            c = int(c)
            x1, y1, x2, y2 = px[v], py[v] + box_h, px[c], py[c]
            parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#666" />')
            edge = test  # never clipped: the threshold is printed exactly
            ex, ey = x1 + 0.55 * (x2 - x1), y1 + 0.55 * (y2 - y1)
            ew = 0.62 * small * len(edge) + 6
            parts.append(f'<rect x="{ex - ew / 2:.1f}" y="{ey - small + 1:.1f}" width="{ew:.1f}" '
                         f'height="{small + 5}" fill="#fff" />')
            parts.append(f'<text x="{ex:.1f}" y="{ey + 2:.1f}" text-anchor="middle" fill="#333" '
                         f'font-size="{small}">{escape(edge)}</text>')
    for v in range(tree.n_nodes):
        w = node_width - 14
        x0, y0 = px[v] - w / 2, py[v]
        leaf = tree.split[v] == 0
        fill = _colour(tree, v) if leaf else "#FFFFFF"
        stroke, sw = (HIGHLIGHT, 4) if v in marked else ("#333", 1.2)
        cls = ' class="highlight"' if v in marked else ""
        parts.append(f'<g id="node-{v}"{cls}><rect x="{x0:.1f}" y="{y0:.1f}" width="{w}" height="{box_h}" '
                     f'rx="6" fill="{fill}" fill-opacity="{0.6 if leaf else 1}" stroke="{stroke}" '
                     f'stroke-width="{sw}" />')
        head = _leaf_label(tree, v, class_names) if leaf else features[tree.feature[v]]
        sub = "" if tree.n_samples is None else f"n = {_fmt(float(tree.n_samples[v]))}"
        weight = "normal" if leaf else "bold"
        parts.append(f'<text x="{px[v]:.1f}" y="{y0 + line:.1f}" text-anchor="middle" font-weight="{weight}">'
                     f'{escape(_clip(head, w, font_size))}</text>')
        if sub:
            parts.append(f'<text x="{px[v]:.1f}" y="{y0 + 2 * line:.1f}" text-anchor="middle" '
                         f'fill="#333" font-size="{small}">{escape(sub)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _clip(text, width, font_size):
    limit = max(4, int(width / (0.6 * font_size)))
    return text if len(text) <= limit else text[:limit - 1] + "…"
