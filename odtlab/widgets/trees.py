"""The tree a frame shows: which nodes, which is current, and a readable window of large trees.

Any algorithm's tree reaches the tree view as a *node source*: an object with ``root``, ``kids(key)``,
``parent(key)``, ``split(key)`` (``tree.LEAF`` / ``THRESHOLD`` / ``CATEGORY``), ``feature(key)``,
``threshold(key)`` and ``stats(key)`` -> (class counts or target means, weighted rows). Node keys are the
algorithm's own ids. :func:`window` picks at most ``max_leaves`` boxes around the current node (the whole
tree when it fits) and :func:`tree_frame` turns them into a small :class:`odtlab.tree.Tree` for
:func:`odtlab.export.to_svg`, which draws every frame.
"""
from dataclasses import dataclass, field

import numpy as np

from odtlab.tree import THRESHOLD, Tree


@dataclass
class TreeFrame:
    """A tree ready to draw, with node ids in ``tree``'s numbering.

    ``highlight``: the current node(s); ``pending``: nodes the search has not decided yet (drawn dashed);
    ``hidden``: nodes whose subtree the window cuts (drawn with a "more below" mark); ``note``: a line
    saying what part of the tree is shown.
    """

    tree: Tree
    highlight: tuple = ()
    pending: tuple = ()
    hidden: tuple = ()
    note: str = ""
    total_nodes: int = 0
    keys: list = field(default_factory=list)  # the source key of every drawn node


class TreeSource:
    """A node source over a complete :class:`odtlab.tree.Tree` (snapshots, ``tree_at``)."""

    def __init__(self, tree):
        self.tree = tree
        self.root = 0

    def kids(self, v):
        return [int(c) for c in self.tree._kids(v)]

    def parent(self, v):
        p = int(self.tree.parent[v])
        return None if p < 0 else p

    def split(self, v):
        return int(self.tree.split[v])

    def feature(self, v):
        return int(self.tree.feature[v])

    def threshold(self, v):
        return float(self.tree.threshold[v])

    def stats(self, v):
        if self.tree.value is None:
            return None, 0.0
        return self.tree.value[v], float(self.tree.n_samples[v])

    def size(self):
        return self.tree.n_nodes


def _path(source, focus):
    path = [focus]
    while True:
        p = source.parent(path[-1])
        if p is None:
            return path[::-1]
        path.append(p)


def _bottom(source, root, depth, limit):
    """Boxes on the bottom of ``root``'s subtree cut at ``depth`` levels (stops counting past ``limit``),
    and whether the cut hides anything."""
    level, leaves, cut = [root], 0, False
    for d in range(depth + 1):
        nxt = []
        for v in level:
            kids = source.kids(v)
            if not kids:
                leaves += 1
            elif d == depth:
                leaves += 1
                cut = True
            else:
                nxt.extend(kids)
            if leaves > limit:
                return leaves, cut
        level = nxt
        if not level:
            break
    return leaves, cut


def window(source, focus=None, max_leaves=12):
    """``(root, depth)`` of the part of the tree to draw: the focus node (the current one) with as many
    ancestors above it and levels below it as fit in ``max_leaves`` boxes on the bottom row.

    The whole tree when it fits. Otherwise the highest ancestor of ``focus`` whose subtree, cut just below
    the focus, still fits; then as many more levels as fit.
    """
    focus = source.root if focus is None else focus
    path = _path(source, focus)
    below = 1 if source.kids(focus) else 0
    for i, r in enumerate(path):
        need = len(path) - 1 - i + below
        leaves, cut = _bottom(source, r, need, max_leaves)
        if leaves <= max_leaves or r == path[-1]:
            depth = need
            while cut:
                more, more_cut = _bottom(source, r, depth + 1, max_leaves)
                if more > max_leaves:
                    break
                depth, cut = depth + 1, more_cut
            return r, depth
    return focus, below  # not reached: the loop always returns at the focus itself


def tree_frame(source, focus=None, max_leaves=12, pending=None, n_features=None, task="classification",
               classes=None, feature_names=None, total_nodes=None):
    """Build the :class:`TreeFrame` of the window around ``focus`` (see :func:`window`).

    ``pending(key)``: whether a node is not decided yet. ``n_features``, ``task``, ``classes`` and ``feature_names``
    describe the problem, as for :class:`odtlab.tree.Tree`.
    """
    root, depth = window(source, focus, max_leaves)
    keys, depths, kids_of = [root], [0], []
    i = 0
    while i < len(keys):  # breadth first, so parents come before children
        v, d = keys[i], depths[i]
        kids = source.kids(v) if d < depth else []
        kids_of.append(list(range(len(keys), len(keys) + len(kids))))
        keys.extend(kids)
        depths.extend([d + 1] * len(kids))
        i += 1
    m = len(keys)
    split = np.zeros(m, dtype=np.int8)
    feature = np.full(m, -1, dtype=np.int64)
    threshold = np.full(m, np.nan)
    hidden = []
    for t, v in enumerate(keys):
        if kids_of[t]:
            split[t] = source.split(v)
            feature[t] = source.feature(v)
            if split[t] == THRESHOLD:
                threshold[t] = source.threshold(v)
        elif source.kids(v):
            hidden.append(t)
    n_children = np.array([len(c) for c in kids_of], dtype=np.int64)
    child_start = np.concatenate([[0], np.cumsum(n_children)[:-1]]).astype(np.int64)
    children = np.array([c for cs in kids_of for c in cs], dtype=np.int64)
    if n_features is None:
        n_features = int(feature.max()) + 1 if m else 1
    tree = Tree(split, feature, threshold, child_start, n_children, children, max(int(n_features), 1), task=task,
                classes=classes, feature_names=feature_names)
    stats = [source.stats(v) for v in keys]
    if all(s[0] is not None for s in stats):
        width = max(len(np.atleast_1d(s[0])) for s in stats)
        value = np.zeros((m, width))
        for t, (val, _) in enumerate(stats):
            val = np.atleast_1d(np.asarray(val, dtype=np.float64))
            value[t, :val.shape[0]] = val
        tree.set_node_values(value, np.array([s[1] for s in stats], dtype=np.float64))
    index = {v: t for t, v in enumerate(keys)}
    pending_ids = tuple(t for t, v in enumerate(keys) if pending(v)) if pending is not None else ()
    highlight = (index[focus],) if focus is not None and focus in index else ()
    total = total_nodes if total_nodes is not None else None
    note = ""
    if root != source.root or hidden:
        levels = f"{depth + 1} level{'s' if depth else ''}"
        where = "from the root" if root == source.root else f"from a node at depth {len(_path(source, root)) - 1}"
        size = f" of {total} nodes" if total else ""
        note = f"window: {levels} {where}, {m}{size} shown"
    return TreeFrame(tree, highlight, pending_ids, tuple(hidden), note, total or m, keys)
