"""A matplotlib drawing of any odtlab tree (binary or multi-way), in the manner of ``sklearn.tree.plot_tree``.

The widgets and ``Tree._repr_svg_`` draw pure SVG; this module is for figures: subplots, papers, savefig.
The layout (leaves on consecutive slots, splits centred above) and the labels are :mod:`odtlab.export`'s, so
the figure reads like the SVG: a split shows its feature, a leaf its class (or value), both show the
training rows reaching them; edges carry the test ("<= t" / "> t" or "= category").
"""
from odtlab import export
from odtlab.tree import LEAF


def plot_tree(model, ax=None, feature_names=None, class_names=None, fontsize=9, decimals=3, filled=True):
    """Draw a fitted estimator's tree (or an :class:`odtlab.tree.Tree`) on ``ax``; returns ``ax``.

    ``feature_names`` / ``class_names`` default to the tree's. Thresholds are printed exactly (as the text export:
    the shortest decimal that reads back as the stored float); ``decimals`` rounds only leaf values and row counts.
    ``filled`` colours leaves by their class (Okabe-Ito palette, as the SVG). The axes' limits fit the tree and its frame is hidden.
    """
    import matplotlib.pyplot as plt

    tree = getattr(model, "tree_", model)
    if ax is None:
        ax = plt.gca()
    features, class_names = export._names(tree, feature_names, class_names)
    x, depth = export.layout(tree)
    y = -depth.astype(float)
    box = dict(boxstyle="round,pad=0.4", linewidth=0.8)
    for v in range(tree.n_nodes):
        if tree.split[v] == LEAF:
            continue
        tests = export._edge_tests(tree, v)
        for test, c in zip(tests, tree._kids(v)):
            c = int(c)
            ax.annotate("", xy=(x[c], y[c] + 0.12), xytext=(x[v], y[v] - 0.12),
                        arrowprops=dict(arrowstyle="-|>", color="#666", linewidth=0.8, shrinkA=0, shrinkB=0))
            ax.text(x[v] + 0.55 * (x[c] - x[v]), y[v] + 0.55 * (y[c] - y[v]), test, ha="center", va="center",
                    fontsize=fontsize - 1, color="#333", bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
    for v in range(tree.n_nodes):
        leaf = tree.split[v] == LEAF
        lines = [export._leaf_label(tree, v, class_names, decimals) if leaf else features[tree.feature[v]]]
        if tree.n_samples is not None:
            lines.append(f"n = {export._fmt(float(tree.n_samples[v]), decimals)}")
        colour = export._colour(tree, v) if leaf and filled else "#FFFFFF"
        ax.text(x[v], y[v], "\n".join(lines), ha="center", va="center", fontsize=fontsize,
                fontweight="normal" if leaf else "bold",
                bbox={**box, "fc": colour, "alpha": 0.85 if leaf else 1.0, "ec": "#333"})
    ax.set_xlim(x.min() - 0.6, x.max() + 0.6)
    ax.set_ylim(y.min() - 0.5, 0.5)
    ax.set_axis_off()
    return ax


def figure_size(model, width_per_leaf=1.1, height_per_level=1.3):
    """A ``figsize`` that gives each leaf and each level room: ``plt.subplots(figsize=figure_size(est))``."""
    tree = getattr(model, "tree_", model)
    return (max(3.0, width_per_leaf * max(tree.leaves, 1)), max(2.0, height_per_level * (tree.depth + 1)))

