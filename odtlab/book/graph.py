"""The chapter graph of the front matter (a mermaid ``graph LR`` block) drawn as SVG at build time: no
mermaid script is loaded. Nodes go in columns by their longest path from a source, ordered in a column by
the mean row of their parents (fewer crossings); edges are curves."""
import html
import re

NODE = re.compile(r"(\w+)(?:\[([^\]]*)\])?")
EDGE = re.compile(r"^\s*(\w+(?:\[[^\]]*\])?)\s*-->\s*(\w+(?:\[[^\]]*\])?)\s*$")
MERMAID = re.compile(r'<div class="jp-Mermaid"><pre class="mermaid">\s*(.*?)</pre></div>', re.S)
W, H, GAP_X, GAP_Y = 172, 32, 34, 12


def parse(text):
    """``(labels, edges)`` of a mermaid ``graph`` block: ``labels[id]`` and ``[(a, b), ...]``."""
    labels, edges = {}, []
    for line in html.unescape(text).splitlines():
        m = EDGE.match(line)
        if not m:
            continue
        ends = []
        for part in m.groups():
            node, label = NODE.match(part).groups()
            labels.setdefault(node, node)
            if label:
                labels[node] = label
            ends.append(node)
        edges.append(tuple(ends))
    return labels, edges


def layers(labels, edges):
    """Column of each node: the length of the longest path reaching it."""
    col = {n: 0 for n in labels}
    for _ in labels:
        for a, b in edges:
            col[b] = max(col[b], col[a] + 1)
    return col


def svg(labels, edges, href=None):
    """The graph as an SVG string; ``href(label)`` gives a node's link (or None)."""
    col = layers(labels, edges)
    pos = {}
    rows = {}
    for c in range(max(col.values()) + 1):  # columns left to right, each ordered by its parents' mean row
        def barycentre(node):
            parents = [pos[a][1] for a, b in edges if b == node and a in pos]
            return sum(parents) / len(parents) if parents else 0.0

        nodes = sorted((n for n in labels if col[n] == c), key=barycentre)
        for r, node in enumerate(nodes):
            pos[node] = (20 + c * (W + GAP_X), 10 + r * (H + GAP_Y))
        rows[c] = len(nodes)
    width = 40 + (max(col.values()) + 1) * (W + GAP_X) - GAP_X
    height = 20 + max(rows.values()) * (H + GAP_Y) - GAP_Y
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="odtlab-graph" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="the order of the chapters">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#7a8794"/></marker></defs>']
    for a, b in edges:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        x1, y1, x2, y2 = xa + W, ya + H / 2, xb, yb + H / 2
        mid = (x1 + x2) / 2
        parts.append(f'<path d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2 - 2},{y2}" fill="none" stroke="#7a8794" '
                     f'stroke-width="1.4" marker-end="url(#arrow)"/>')
    for node, label in labels.items():
        x, y = pos[node]
        box = (f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="6" fill="#eef3f8" stroke="#4a6785"/>'
               f'<text x="{x + W / 2}" y="{y + H / 2 + 5}" text-anchor="middle" font-size="13" '
               f'font-family="sans-serif" fill="#1d2b3a">{html.escape(label)}</text>')
        link = href(label) if href else None
        parts.append(f'<a href="{html.escape(link)}">{box}</a>' if link else box)
    parts.append("</svg>")
    return "".join(parts)


def as_list(labels, edges):
    """The same arrows as a list (long arrows pass behind boxes in the drawing): what each node uses."""
    items = []
    for node, label in labels.items():
        uses = [labels[a] for a, b in edges if b == node]
        if uses:
            items.append(f"<li>{html.escape(label)} uses {html.escape(', '.join(uses))}</li>")
    return ('<details class="odtlab-graph-list"><summary>The arrows as a list</summary>'
            f'<ul>{"".join(items)}</ul></details>')


def replace_mermaid(body, pages=None):
    """Each mermaid block of ``body`` as an SVG whose nodes link to the chapter their label starts with."""
    def href(label):
        m = re.match(r"(\d\d)\b", label)
        if m and pages:
            return next((p for p in pages if p.startswith(m.group(1) + "_")), None)
        return None

    def draw(m):
        labels, edges = parse(m.group(1))
        if not edges:
            return m.group(0)
        return f'<div class="odtlab-graph-box">{svg(labels, edges, href)}</div>\n{as_list(labels, edges)}'

    return MERMAID.sub(draw, body)
