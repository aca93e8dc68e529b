"""The ipywidgets layer, headless: drive the slider and the buttons, assert on the SVG/HTML they produce.

Every expected value comes from an independent search over the same data (the tree and bounds after the
same number of iterations), never from the widgets themselves. PNG renders of every drawing view go to
a temporary folder (and to $ODTLAB_DOCS_IMG, e.g. docs/img, when set).
"""
import html
import json
import re
from pathlib import Path

import ipywidgets as W
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from odtlab import solvers
from odtlab.search import Search
from odtlab.solvers.cart import CARTClassifier, CARTRegressor, CARTSolver
from odtlab.widgets import (BoundPlot, EventLog, SearchGraphView, SearchPlayer, StaticPlayer, TreeView, explore,
                            register_panel)
from odtlab.widgets import registry
from odtlab.widgets.cart import CARTPanel
from odtlab.widgets.player import decode_replay
from odtlab.export import HIGHLIGHT
from odtlab.widgets.svg import fmt
from odtlab.widgets.trees import TreeSource, tree_frame, window
from optional import need


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = ["sepal length", "sepal width", "petal length", "petal width"]
    return X, y


@pytest.fixture(scope="module")
def iris_named(iris):
    """Iris with the species as labels (the pictures then name the classes)."""
    X, y = iris
    return X, y.map(dict(enumerate(load_iris().target_names)))


def cart_search(iris, **params):
    X, y = iris
    return CARTClassifier(**params).search(X, y)


def upper_of(svg):
    return float(re.search(r'data-upper="([^"]+)"', svg).group(1))


def lower_of(svg):
    return float(re.search(r'data-lower="([^"]+)"', svg).group(1))


def view_of(player, cls):
    return next(pane for view, pane in zip(player.views, player.panes) if isinstance(view, cls))


def reference_after(iris, iterations, **params):
    """An independent CART search stopped after ``iterations`` iterations."""
    search = cart_search(iris, **params)
    if iterations:
        search.run(max_iterations=iterations)
    return search


# -- the player over CART -----------------------------------------------------------------------------------
def test_step_shows_each_event_with_its_caption_tree_and_bounds(iris):
    player = explore(CARTClassifier(max_depth=3), *iris)
    assert player.k == 0 and "Before the first event" in player.caption.value
    assert "dashed" in view_of(player, TreeView).value  # the root is not decided yet
    events = list(cart_search(iris, max_depth=3).steps())
    for i, event in enumerate(events[:8]):
        player.step()
        assert player.k == i + 1 and player.slider.value == i + 1
        caption = player.caption.value
        assert event.name in caption
        assert player.search.describe(event).replace("<", "&lt;") in caption
        frame = player.frame
        assert frame.event == event
        if event.name in ("Split", "Leaf"):
            tf = TreeView().tree_frame(frame)
            assert [tf.keys[t] for t in tf.highlight] == [int(event.node)]
            svg = view_of(player, TreeView).value
            assert svg.count('class="highlight"') == 1
            ref = reference_after(iris, int(event.iteration), max_depth=3)
            assert tf.tree.to_text() == ref.solver.incumbent().to_text()
            lower, upper = ref.solver.bounds()
            plot = view_of(player, BoundPlot).value
            assert upper_of(plot) == upper and lower_of(plot) == lower
            assert f"gap {fmt(upper - lower, 4)}<" in plot


def test_highlighted_node_is_the_split_node_of_the_event(iris):
    player = explore(CARTClassifier(max_depth=3), *iris)
    player.step()
    player.step()  # the root split
    event = player.frame.event
    assert event.name == "Split" and int(event.node) == 0
    svg = view_of(player, TreeView).value
    group = re.search(r'<g id="node-(\d+)" class="highlight">.*?</g>', svg).group(0)
    assert "petal length" in group or "petal width" in group
    assert X_name(iris, int(event.feature)) in group


def X_name(iris, j):
    return list(iris[0].columns)[j]


def test_back_then_step_reproduces_the_same_frame(iris):
    player = explore(CARTClassifier(max_depth=4), *iris)
    for _ in range(6):
        player.step()
    before = (player.caption.value, [p.value for p in player.panes])
    player.back_button.click()
    assert player.k == 5
    middle = [p.value for p in player.panes]
    assert middle != before[1]
    player.step_button.click()
    assert (player.caption.value, [p.value for p in player.panes]) == before
    player.goto(2)
    player.goto(6)
    assert (player.caption.value, [p.value for p in player.panes]) == before


def test_slider_drives_the_frame_and_frames_are_pure(iris):
    player = explore(CARTClassifier(max_depth=4), *iris)
    player.slider.value = 7
    assert player.k == 7
    seven = player.render_frame(7)
    player.slider.value = 3
    player.slider.value = 7
    assert player.render_frame(7) == seven
    assert player.caption.value == seven[0]


def test_recording_is_lazy_and_extends_past_the_end(iris):
    X, y = iris
    total = len(list(CARTClassifier().search(X, y).steps()))
    player = explore(CARTClassifier(), X, y, lookahead=8)
    assert 8 <= player.recording.n < total and not player.recording.done
    for _ in range(total + 5):  # what Play does: push the slider to its end, again and again
        player.slider.value = player.slider.max
    assert player.recording.exhausted and player.recording.n == total
    assert player.k == total and "search finished (done)" in player.caption.value
    player.step()  # stepping past the end stays at the end
    assert player.k == total


def test_run_to_end_records_everything_and_matches_a_full_run(iris):
    X, y = iris
    player = explore(CARTClassifier(max_depth=4), X, y)
    player.end_button.click()
    full = CARTClassifier(max_depth=4).search(X, y)
    full.run()
    assert player.recording.records.tolist() == full.events().tolist()
    tf = TreeView(max_leaves=100).tree_frame(player.frame)
    assert tf.tree.to_text() == full.solver.incumbent().to_text() and not tf.pending
    assert upper_of(view_of(player, BoundPlot).value) == full.solver.bounds()[1]


def test_kind_filter_steps_through_the_chosen_kinds_only(iris):
    player = explore(CARTClassifier(max_depth=3), *iris)
    player.show_kinds(["Leaf"])
    seen = []
    for _ in range(4):
        player.step()
        seen.append(player.frame.event.name)
    assert seen == ["Leaf"] * 4
    log = view_of(player, EventLog).value
    assert "Leaf" in log and ">Split<" not in log
    k = player.k
    player.show_kinds(None)  # back to every kind, at the same event
    assert player.k == k and player.slider.max == player.recording.n
    with pytest.raises(ValueError, match="unknown event kind"):
        player.show_kinds(["Selection"])


def test_event_log_lists_the_last_events_with_the_current_one_marked(iris):
    player = explore(CARTClassifier(max_depth=3), *iris)
    player.goto(5)
    log = view_of(player, EventLog).value
    assert log.count("<tr class=") == 5 and log.count('class="current"') == 1
    player.goto(0)
    assert "no events yet" in view_of(player, EventLog).value


def test_cart_panel_shows_the_split_or_the_leaf_reason(iris):
    player = explore(CARTClassifier(max_depth=1), *iris)
    player.goto(2)
    panel = view_of(player, CARTPanel).value
    event = player.frame.event
    assert event.name == "Split" and f"{event.threshold:.6g}" in panel and "rows left" in panel
    player.goto(3)
    assert "max_depth reached" in view_of(player, CARTPanel).value


def test_large_tree_is_drawn_as_a_window_around_the_current_node():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(int) + (X[:, 1] > 0.5)
    player = explore(CARTClassifier(), X, y)
    player.run_to_end()
    for k in (player.recording.n // 2, player.recording.n - 3):
        player.goto(k)
        event = player.frame.event
        tf = TreeView(max_leaves=10).tree_frame(player.frame)
        assert tf.tree.leaves <= 10 and tf.total_nodes > tf.tree.n_nodes
        if event.name in ("Split", "Leaf"):
            assert [tf.keys[t] for t in tf.highlight] == [int(event.node)]
        assert "window" in view_of(player, TreeView).value


def test_window_keeps_small_trees_whole_and_cuts_big_ones():
    from odtlab.tree import Tree

    def full(depth):  # complete binary tree of the given depth
        if depth == 0:
            return {"leaf": True}
        return {"feature": 0, "threshold": 0.5, "children": [full(depth - 1), full(depth - 1)]}

    small = TreeSource(Tree.from_dict(full(3), 1))
    assert window(small, 9, max_leaves=8) == (0, 3)
    big = TreeSource(Tree.from_dict(full(6), 1))
    root, depth = window(big, 70, max_leaves=8)  # a leaf at depth 6: its ancestors three levels up
    assert (root, depth) == (7, 3)
    tf = tree_frame(big, 15, 8)  # a split at depth 4: the cut hides the levels below the window
    assert tf.tree.leaves <= 8 and tf.hidden and [tf.keys[t] for t in tf.highlight] == [15]
    assert "window" in tf.note


def test_regression_tree_shows_means():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(80, 2))
    y = np.where(X[:, 0] > 0.5, 3.0, -1.0)
    player = explore(CARTRegressor(max_depth=2), X, y)
    player.run_to_end()
    svg = view_of(player, TreeView).value
    assert "value: 3" in svg and "value: -1" in svg
    assert "mean" in view_of(player, CARTPanel).value or player.frame.event.name == "Terminated"


# -- explore ------------------------------------------------------------------------------------------------
def test_explore_accepts_estimators_searches_and_solvers(iris):
    X, y = iris
    fitted = CARTClassifier(max_depth=2).fit(X, y)
    for obj in (CARTClassifier(max_depth=2), fitted):
        player = explore(obj, X, y)
        assert isinstance(player, SearchPlayer) and player.search is not fitted.search_
    search = cart_search(iris, max_depth=2)
    assert explore(search).search is search
    solver_player = explore(CARTSolver(X.to_numpy(), y.to_numpy(), max_depth=2))
    solver_player.run_to_end()
    assert solver_player.search.done
    with pytest.raises(ValueError, match="needs the data"):
        explore(CARTClassifier())
    with pytest.raises(TypeError, match="explore needs"):
        explore("cart")
    with pytest.raises(TypeError, match="SearchPlayer needs"):
        SearchPlayer(CARTClassifier())


def test_default_views_come_from_the_panel_registry(iris):
    class Extra(EventLog):
        title = "extra"

    register_panel("test-algorithm")(Extra)
    assert [type(p) for p in registry.panels_for("test-algorithm")] == [Extra]
    player = explore(CARTClassifier(max_depth=2), *iris)
    kinds = [type(v) for v in player.views]
    assert kinds[0] is TreeView and CARTPanel in kinds and EventLog in kinds and SearchGraphView not in kinds


def test_player_without_a_tree_function_draws_snapshots(iris):
    """An algorithm with no adapter: the tree view falls back to the incumbent after each kernel call."""
    X, y = iris

    class Anonymous(CARTSolver):
        name = "anonymous"

    search = Search(Anonymous(X.to_numpy(), y.to_numpy(), max_depth=2), record="full")
    player = SearchPlayer(search)
    assert player.adapter.snapshots
    player.run_to_end()
    tf = TreeView().tree_frame(player.frame)
    assert tf.tree.to_text() == search.solver.incumbent().to_text()
    assert upper_of(view_of(player, BoundPlot).value) == search.solver.bounds()[1]


# -- static export ------------------------------------------------------------------------------------------
def test_static_player_precomputes_frames_linked_in_the_browser(iris, tmp_path):
    player = explore(CARTClassifier(max_depth=3), *iris)
    static = player.static(max_frames=6)
    assert isinstance(static, StaticPlayer) and isinstance(static.stack, W.Stack)
    assert len(static.stack.children) == 6 and static.events[0] == 0 and static.events[-1] == player.recording.n
    assert static.slider.max == 5 == static.play.max
    pairs = {(link.source[0].model_id, link.source[1], link.target[0].model_id, link.target[1])
             for link in static.links}
    assert (static.slider.model_id, "value", static.stack.model_id, "selected_index") in pairs
    assert (static.play.model_id, "value", static.slider.model_id, "value") in pairs
    live = {(link.source[0].model_id, link.source[1], link.target[0].model_id, link.target[1]) for link in player.links}
    assert live == {(player.play.model_id, "value", player.slider.model_id, "value"),
                    (player.speed.model_id, "value", player.play.model_id, "interval")}  # Play and its speed
    last = static.stack.children[-1].value
    assert "search finished" in last and "<svg" in last
    path = player.to_html(tmp_path / "cart.html")
    page = Path(path).read_text()
    bundle = json.loads(re.search(r'<script type="application/vnd.odtlab.replay\+json">(.*?)</script>',
                                  page, re.S).group(1))
    replay = decode_replay(bundle)
    assert replay["events"] == player.recording.n and "search finished" in replay["strings"][replay["frames"][0][-1]]
    assert "odtlabReplay" in page and "<script src=" not in page and "<link" not in page  # one file, offline


def test_widget_state_is_serialisable(iris):
    from ipywidgets.embed import dependency_state

    player = explore(CARTClassifier(max_depth=2), *iris)
    state = dependency_state([player])
    assert len(state) > 10 and {player.slider.model_id, player.play.model_id} <= set(state)
    assert json.dumps(state)


# -- bad input ----------------------------------------------------------------------------------------------
def test_bad_arguments_raise_clear_errors(iris):
    search = cart_search(iris, max_depth=2)
    with pytest.raises(ValueError, match="lookahead"):
        SearchPlayer(search, lookahead=0)
    with pytest.raises(ValueError, match="record must be"):
        SearchPlayer(search, record="none")
    player = explore(CARTClassifier(max_depth=2), *iris)
    with pytest.raises(ValueError, match="frame must be"):
        player.goto(-1)
    with pytest.raises(ValueError, match="max_frames"):
        player.static(max_frames=1)


# -- pictures -----------------------------------------------------------------------------------------------
def assert_legible(svg):
    """Every colour of a drawing is an Okabe-Ito colour, a grey, or the one light tint of the palette's orange;
    no text is smaller than 11 px (legible at 125 % zoom)."""
    from odtlab.widgets.svg import PALETTE, TINT

    for colour in set(re.findall(r'#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?\b', svg)):
        rgb = colour[1:] if len(colour) == 7 else "".join(c * 2 for c in colour[1:])
        grey = rgb[0:2].upper() == rgb[2:4].upper() == rgb[4:6].upper()
        assert grey or colour.upper() in PALETTE + (TINT,), colour
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
    assert sizes and min(sizes) >= 11, min(sizes)


def write_png(svg, path):
    assert_legible(svg)
    cairosvg = need("cairosvg")
    cairosvg.svg2png(bytestring=svg.encode(), write_to=str(path), scale=1.25)
    from PIL import Image

    with Image.open(path) as img:
        assert img.width > 200 and img.height > 40
        colours = img.convert("RGB").getcolors(1 << 20)
        assert colours is not None and len(colours) > 4  # a drawing, not a blank page


def test_every_drawing_view_renders_to_png(iris_named, picture_folders):
    player = explore(CARTClassifier(max_depth=3), *iris_named)
    player.goto(6)
    frame = player.frame
    for folder in picture_folders:
        write_png(TreeView().svg(frame), folder / "cart_tree.png")
        write_png(BoundPlot().svg(frame), folder / "cart_bounds.png")
        write_png(CARTPanel().svg(frame), folder / "cart_panel.png")


# -- Branches -----------------------------------------------------------------------------------------------
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0])


def branches_player(X=XOR_X, y=XOR_Y, lam=0.1, **options):
    from odtlab.solvers.branches import BranchesClassifier

    return explore(BranchesClassifier(lam=lam), X, y, **options)


def test_branches_bounds_shown_are_the_values_of_the_events():
    player = branches_player()
    assert [type(v).__name__ for v in player.views] == ["TreeView", "SearchGraphView", "BoundPlot", "QValuePanel",
                                                        "EventLog"]
    checked = 0
    while True:
        event = player.frame.event
        if event is not None and event.name in ("Init", "IterationStart", "IterationEnd", "Terminated"):
            plot = view_of(player, BoundPlot).value
            R = event.R if event.name == "Init" else event.root_R
            G = event.G if event.name == "Init" else event.root_G
            assert (upper_of(plot), lower_of(plot)) == (R, G)
            checked += 1
        if player.recording.exhausted and player.k == player.recording.n:
            break
        player.step()
    assert checked >= 11  # Init, 5 x (IterationStart, IterationEnd), Terminated
    assert upper_of(view_of(player, BoundPlot).value) == pytest.approx(0.7)
    assert player.search.solver.bounds() == (pytest.approx(0.7), pytest.approx(0.7))


def test_branches_graph_and_q_panel_follow_the_search():
    player = branches_player()
    player.goto(6)  # Init, IterationStart, Selection, 2 x ChildEvaluated, SplitScored x0
    event = player.frame.event
    assert event.name == "SplitScored" and event.Q == pytest.approx(0.7)
    from odtlab.widgets.branches import QValuePanel

    q = view_of(player, QValuePanel).value
    assert "split x0" in q and "0.7" in q and "Branch Ω" in q
    player.run_to_end()
    graph = player.views[1].svg(player.frame)
    assert graph.count('<g class="and">') == 3  # Ω on x0, both halves on x1
    # every scored split is drawn with its Q: Ω also scored x1, which Selection does not follow
    from odtlab.widgets.branches import search_state

    state = search_state(player.frame)
    assert state.scored[()] == (0, 1) and graph.count('<g class="and-scored">') == 1
    assert f"x1 Q {fmt(state.Q[((), 1)], 3)}" in graph and 'data-scored="4"' in graph
    assert graph.count("#F0E442") == 4 + 1  # four settled leaves (and the legend)
    assert 'class="current"' in graph and "R* 0.7" in graph
    tf = TreeView().tree_frame(player.frame)
    assert tf.tree.to_text() == player.search.solver.incumbent().to_text()
    assert tf.highlight == (0,)  # the last event is about Ω, the incumbent's root


def bar_widths(svg):
    """(width, colour) of the panel's bars, top to bottom (the 20 px high rects of bar_rows)."""
    return [(float(w), c) for w, c in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="20" '
                                                  r'fill="([^"]+)"', svg)]


def test_branches_graph_draws_every_scored_split_of_every_branch():
    """On three-valued data every expanded branch scores several splits: each appears once, with its Q, as
    the followed AND node or as a grey pill under its branch."""
    from odtlab.widgets.branches import _GraphSource, and_or_graph, search_state

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(60, 4))
    y = (X[:, 0] == X[:, 1]).astype(int) ^ (rng.random(60) < 0.1)
    player = branches_player(X, y, lam=0.01)
    player.run_to_end()
    player.goto(int(0.4 * player.recording.n))
    state = search_state(player.frame)
    graph = and_or_graph(player.frame, max_leaves=100_000)  # the whole best partial solution
    source = _GraphSource(state, np.asarray(player.search.solver.n_categories))
    source.index_parents()
    drawn = [key for key in state.scored if key == () or key in source._parents]
    not_followed = sum(len([f for f in state.scored[key] if f != source.split_of(key)]) for key in drawn)
    assert not_followed >= 3 and graph.count('<g class="and-scored">') == not_followed
    for key in drawn:
        for f in state.scored[key]:
            if f != source.split_of(key):
                assert f"Q {fmt(state.Q[(key, f)], 3)}" in graph


def test_branches_q_panel_draws_the_bound_as_a_reference_line():
    from odtlab.widgets.branches import QValuePanel, current_branch, search_state

    player = branches_player()
    player.goto(7)  # both splits of Ω scored: x0 (Q 0.7) and x1
    info = search_state(player.frame).branches[current_branch(player.frame)]
    svg = QValuePanel().svg(player.frame)
    assert f"bound R(l) = {fmt(info.R, 5)}" in svg and f'data-bound="{info.R:.6g}"' in svg
    line_x = float(re.search(r'<line class="bound" x1="([\d.]+)"', svg).group(1))
    widths = bar_widths(svg)
    assert len(widths) >= 2
    # R(l) is the best action's value once the branch is expanded: the line ends the longest bar
    if info.expanded:
        assert line_x == pytest.approx(130 + max(w for w, _ in widths), abs=0.2)
    assert line_x <= 130 + (460 - 70 - 130) + 0.1


def test_branches_frames_are_the_same_whatever_the_path_to_them():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(60, 4))
    y = (X[:, 0] == X[:, 1]).astype(int) ^ (rng.random(60) < 0.1)
    player = branches_player(X, y, lam=0.01)
    player.run_to_end()
    n = player.recording.n
    assert n > 600
    targets = [n, 5, n // 2, n - 1, 1, n // 3, n // 2]
    seen = {}
    for k in targets:  # jumps back and forth through the fold's checkpoints
        player.goto(k)
        seen.setdefault(k, []).append(player.render_frame(k))
    fresh = branches_player(X, y, lam=0.01)
    fresh.run_to_end()
    for k, renders in seen.items():
        assert all(r == fresh.render_frame(k) for r in renders), k


def test_branches_tree_view_draws_the_incumbent_of_each_iteration():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(40, 3))
    y = X[:, 0] & X[:, 2]
    player = branches_player(X, y, lam=0.02)
    player.run_to_end()
    ends = [i + 1 for i in range(player.recording.n) if player.recording.event(i).name == "IterationEnd"]
    from odtlab.solvers.branches import BranchesClassifier

    for k in ends:
        player.goto(k)
        ref = BranchesClassifier(lam=0.02).search(X, y)
        ref.run(max_iterations=int(player.frame.event.iteration))
        tf = TreeView().tree_frame(player.frame)
        assert tf.tree.to_text() == ref.solver.incumbent().to_text()
        assert lower_of(view_of(player, BoundPlot).value) == pytest.approx(ref.solver.bounds()[0])


# -- MurTree, Quant-BnB, DPDT -----------------------------------------------------------------------------------
def last_event_frames(player, names):
    """Visit every frame whose last event is one of ``names``; yield the event."""
    player.run_to_end()
    for i in range(player.recording.n):
        event = player.recording.event(i)
        if event.name in names:
            player.goto(i + 1)
            yield event


@pytest.fixture(scope="module")
def binary_data():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(80, 6))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3] & 1)
    flip = rng.random(80) < 0.1
    return X, np.where(flip, 1 - y, y)


def test_murtree_bounds_recursion_and_depth_two_panel(binary_data):
    from odtlab.solvers.murtree import MurTreeClassifier
    from odtlab.widgets.murtree import DepthTwoPanel

    X, y = binary_data
    player = explore(MurTreeClassifier(max_depth=3), X, y)
    assert [type(v).__name__ for v in player.views] == ["TreeView", "SearchGraphView", "BoundPlot", "DepthTwoPanel",
                                                        "EventLog"]
    seen = set()
    for event in last_event_frames(player, ("IncumbentImproved", "BoundsUpdated", "DepthTwoSolve", "CacheHit")):
        seen.add(event.name)
        if event.name in ("IncumbentImproved", "BoundsUpdated"):
            plot = view_of(player, BoundPlot).value
            assert (upper_of(plot), lower_of(plot)) == (event.upper, event.lower)
        elif event.name == "DepthTwoSolve":
            panel = DepthTwoPanel().svg(player.frame)
            assert f'data-cost="{event.value!r}"' in panel and 'data-current="1"' in panel
            assert f"{int(event.n_rows)} rows" in panel
        graph = player.views[1].svg(player.frame)
        # the player probes (bound_probing): a failed probe raises the bound before the next query enters its root
        assert 'class="current"' in graph or event.name == "BoundsUpdated"
    assert {"IncumbentImproved", "DepthTwoSolve", "BoundsUpdated"} <= seen
    assert player.search.history()["lower"].nunique() > 2  # the lower bound rises during the search
    player.goto(player.recording.n)
    lower, upper = player.search.solver.bounds()
    plot = view_of(player, BoundPlot).value
    assert upper_of(plot) == upper == lower == lower_of(plot)
    assert TreeView().tree_frame(player.frame).tree.to_text() == player.search.solver.incumbent().to_text()


def svg_texts(svg):
    return [html.unescape(t) for t in re.findall(r"<text [^>]*>([^<]*)</text>", svg)]


def branch_rows(texts, X):
    """The rows of ``X`` in the branch the depth-two panel names ("branch: x2 = 1 ∧ x5 = 0", or "none ...")."""
    branch = next(t for t in texts if t.startswith("branch: "))[len("branch: "):]
    rows = np.ones(len(X), dtype=bool)
    if not branch.startswith("none"):
        for literal in branch.split(" ∧ "):
            name, value = literal.split(" = ")
            rows &= X[:, int(name[1:])] == int(value)
    return rows


@pytest.mark.parametrize("depth", [2, 3])
def test_murtree_frequency_table_counts_the_rows_of_the_branch(binary_data, depth):
    """The depth-two panel's class totals and the root feature's single counts, against the original data
    selected by the branch the panel names."""
    from odtlab.solvers.murtree import MurTreeClassifier
    from odtlab.widgets.murtree import DepthTwoPanel

    X, y = binary_data
    player = explore(MurTreeClassifier(max_depth=depth), X, y)
    checked = 0
    for event in last_event_frames(player, ("DepthTwoSolve",)):
        texts = svg_texts(DepthTwoPanel().svg(player.frame))
        rows = branch_rows(texts, X)
        totals = next(t for t in texts if t.startswith("rows per class in D: "))
        assert totals.split(": ")[1] == "/".join(map(str, np.bincount(y[rows], minlength=2)))
        head = texts[0]
        assert f"{int(event.n_rows)} rows" in head and (f"(weight {rows.sum()})" in head
                                                         or int(event.n_rows) == rows.sum())
        if int(event.root) >= 0:  # the root feature's row: its label, the column header, then FQ(f)
            i = next(i for i, t in enumerate(texts) if "(root" in t)
            j = int(texts[i].split(" ")[0][1:])
            single = {"/".join(map(str, np.bincount(y[rows & (X[:, j] == v)], minlength=2))) for v in (0, 1)}
            assert texts[i + 2] in single
        checked += 1
    assert checked >= (1 if depth == 2 else 5)


def test_murtree_regression_table_shows_the_sums_of_the_branch(binary_data, tmp_path):
    """For regression the table holds W, S = sum w y and Q = sum w y^2 (targets centred on their mean)."""
    from odtlab.solvers.murtree import MurTreeRegressor
    from odtlab.widgets.murtree import DepthTwoPanel

    X, _ = binary_data
    target = 2.0 * X[:, 0] - 1.5 * X[:, 1] * X[:, 2] + np.linspace(-0.3, 0.3, len(X))
    player = explore(MurTreeRegressor(max_depth=3), X, target)
    checked = 0
    for _ in last_event_frames(player, ("DepthTwoSolve",)):
        svg = DepthTwoPanel().svg(player.frame)
        texts = svg_texts(svg)
        rows = branch_rows(texts, X)
        y = target[rows] - target.mean()
        sums = next(t for t in texts if t.startswith("the rows' sums")).split(": ")[1]
        assert sums == " / ".join(fmt(v, 3) for v in (rows.sum(), y.sum(), (y * y).sum()))
        checked += 1
    assert checked >= 3
    write_png(svg, tmp_path / "murtree_regression_panel.png")


def test_murtree_graph_shows_cache_hits_and_prunes(binary_data):
    from odtlab.solvers.murtree import MurTreeClassifier

    X, y = binary_data
    player = explore(MurTreeClassifier(max_depth=4), X, y)
    seen = set()
    for event in last_event_frames(player, ("CacheHit", "LowerBoundPrune")):
        graph = player.views[1].svg(player.frame)
        current = re.search(r'<g id="call-\d+" class="current">.*?</g>', graph).group(0)
        if event.name == "CacheHit":
            assert f"cache hit: {fmt(event.cost)}" in current and f"|D|={int(event.n_rows)}" in current
        else:
            assert "pruned: " in current
        seen.add(event.name)
    assert seen == {"CacheHit", "LowerBoundPrune"}
    assert re.search(r"\d+ calls so far: [1-9]\d* cache hits, [1-9]\d* pruned", graph)


def test_quantbnb_bounds_tree_and_alive_intervals(iris):
    from odtlab.solvers.quantbnb import QuantBnBClassifier
    from odtlab.widgets.quantbnb import IntervalsPanel

    X, y = iris
    player = explore(QuantBnBClassifier(max_depth=2), X, y)
    rounds = 0
    for event in last_event_frames(player, ("IterationStart", "UpperBoundImproved", "IntervalRefined")):
        plot = view_of(player, BoundPlot).value
        panel = IntervalsPanel().svg(player.frame)
        if event.name == "IterationStart":
            assert (upper_of(plot), lower_of(plot)) == (event.U, event.LB)
            rounds += 1
            assert f'data-alive="{int(event.alive)}"' in panel  # the panel's alive list is the search's
        elif event.name == "UpperBoundImproved":
            assert upper_of(plot) == event.U
            tree = TreeView().tree_frame(player.frame).tree
            assert tree.to_text() == player.search.solver.history_tree(int(event.history_row)).to_text()
        else:
            assert f'data-current="{int(event.tuple_id)}"' in panel
    assert rounds >= 2
    player.goto(player.recording.n)
    assert TreeView().tree_frame(player.frame).tree.to_text() == player.search.solver.incumbent().to_text()
    assert upper_of(view_of(player, BoundPlot).value) == player.search.solver.bounds()[1]


def test_quantbnb_panel_names_the_eliminated_child_features(iris):
    from odtlab.solvers.quantbnb import QuantBnBClassifier
    from odtlab.widgets.quantbnb import IntervalsPanel

    X, y = iris
    player = explore(QuantBnBClassifier(max_depth=2), X, y)
    checked = 0
    for event in last_event_frames(player, ("FeatureEliminated",)):
        texts = svg_texts(IntervalsPanel(width=900).svg(player.frame))
        slice_rows = [i for i, t in enumerate(texts) if t == str(int(event.j))]
        row = texts[slice_rows[-1]:slice_rows[-1] + 4]
        if row[2].endswith("pruned"):
            assert row[3] == "all (slice pruned)"
            continue
        left, right = row[3].split(" | ")
        side = left if int(event.side) == 0 else right
        assert X.columns[int(event.child_feature)] in side.split(", ")
        checked += 1
    assert checked >= 3


def test_quantbnb_alive_intervals_leave_out_slices_never_pushed():
    """Table 4 data with s = 2: a kept slice with no threshold strictly inside is not a tuple (Appendix A.2)."""
    from odtlab import datasets
    from odtlab.solvers.quantbnb import QuantBnBClassifier
    from odtlab.widgets.quantbnb import IntervalsPanel

    data = datasets.load("gen/quantbnb-example")
    player = explore(QuantBnBClassifier(max_depth=2, s=2, keep_ties=True, initial="cart"), data.X, data.y)
    seen = []
    for event in last_event_frames(player, ("IterationStart",)):
        assert f'data-alive="{int(event.alive)}"' in IntervalsPanel().svg(player.frame)
        seen.append(int(event.alive))
    assert len(seen) >= 2


def test_dpdt_mdp_and_q_values(iris):
    from odtlab.solvers.dpdt import DPDTClassifier
    from odtlab.widgets.dpdt import ActionValuePanel

    X, y = iris
    player = explore(DPDTClassifier(max_depth=2, candidates=(3, 2)), X, y)
    backups = 0
    for event in last_event_frames(player, ("BellmanBackup", "StateSolved")):
        panel = ActionValuePanel().svg(player.frame)
        assert f'data-state="{int(event.state)}"' in panel
        widths = bar_widths(panel)
        chosen = [w for w, c in widths if c == HIGHLIGHT]
        if chosen:  # the best action's bar is the longest
            assert chosen[0] == pytest.approx(max(w for w, _ in widths))
        if event.name == "BellmanBackup":
            assert f"Q = {fmt(event.Q, 4)}" in panel
            backups += 1
        else:
            assert f"V = {fmt(event.V, 5)}" in panel
        graph = player.views[1].svg(player.frame)
        assert f'id="state-{int(event.state)}" class="current"' in graph
    assert backups >= 2
    player.goto(player.recording.n)
    assert TreeView().tree_frame(player.frame).tree.to_text() == player.search.solver.incumbent().to_text()
    assert upper_of(view_of(player, BoundPlot).value) == pytest.approx(player.search.solver.bounds()[1])


def test_every_algorithm_view_renders_to_png(iris_named, binary_data, picture_folders):
    """The demo pictures of docs/img: one frame of every registered classification algorithm (CART's in
    test_every_drawing_view_renders_to_png), every drawing view."""
    rng = np.random.default_rng(3)
    Xc = pd.DataFrame(rng.integers(0, 3, size=(60, 4)), columns=["colour", "size", "shape", "weight"])
    yc = (Xc["colour"] == Xc["size"]).astype(int) ^ (rng.random(60) < 0.1)
    cases = {  # the frame: the first event of the kind named at or after that fraction of the search
        "branches": ({"lam": 0.01}, Xc, yc, 0.4, None),
        "murtree": ({"max_depth": 4}, *binary_data, 0.3, "CacheHit"),
        "quantbnb": ({"max_depth": 2}, *iris_named, 0.1, None),
        "dpdt": ({"max_depth": 2, "candidates": (3, 2)}, *iris_named, 0.62, "StateSolved"),
    }
    assert set(cases) | {"cart"} == {spec.name for spec in solvers.specs() if spec.task == "classification"}
    for name, (params, X, y, where, kind) in cases.items():
        player = explore(solvers.get(name).estimator(**params), X, y)
        player.run_to_end()
        k = int(where * player.recording.n)
        if kind is not None:
            k = next(i + 1 for i in range(k, player.recording.n) if player.recording.event(i).name == kind)
        player.goto(k)
        for view in player.views:
            svg = view.svg(player.frame) if hasattr(view, "svg") else None
            if svg is None:
                continue
            label = {"TreeView": "tree", "BoundPlot": "bounds", "SearchGraphView": "graph"}.get(
                type(view).__name__, "panel")
            for folder in picture_folders:
                write_png(svg, folder / f"{name}_{label}.png")


def test_branches_graph_draws_a_branch_whose_top_is_the_bound_on_its_dropped_split_records():
    """Lazy split records: a BackpropStep's top_feature is q when the bound on a branch's dropped records is its
    top (until Selection expands the branch again); the graph draws that branch (here the root) without a split."""
    from odtlab.solvers.branches import BranchesSolver
    from odtlab.widgets.branches import and_or_graph

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(40, 6))
    y = (X[:, 0] ^ X[:, 1]) ^ (rng.random(40) < 0.1)
    player = explore(BranchesSolver(X, y, lam=0.02, keep_splits=1))
    player.run_to_end()
    tops = [i for i in range(player.recording.n) if player.recording.event(i).name == "BackpropStep"
            and player.recording.event(i).top_feature == X.shape[1] and player.recording.event(i).node_id == 0]
    assert tops
    for i in tops:
        player.goto(i + 1)
        graph = and_or_graph(player.frame, max_leaves=100_000)
        assert ">Ω</text>" in graph and '<g class="and">' not in graph  # the root's top: no split followed
