"""The book (``make book``, :mod:`odtlab.book`): the site built from the stored chapters, and its players.

The plain tests check the build's parts (the replay's encoding, MathML, the chapter graph, the bibliography,
solutions left out, nothing loaded from elsewhere). The browser test opens every page of the built site in
headless Chromium (as tests/test_browser.py does) with every request leaving the machine failing the test, and
steps through every player. ``ODTLAB_DOCS_IMG`` set: its screenshots also go there (the README's pictures).
"""
import base64
import gzip
import html
import json
import re
from pathlib import Path

import nbformat
import pytest

from odtlab.book import bib, build, graph, math, search
from odtlab.widgets.player import REPLAY_MIME, decode_replay
from test_browser import browser  # noqa: F401  (the headless Chromium fixture of the browser tests)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS, DOCS = ROOT / "notebooks", ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("book") / "site"
    build(NOTEBOOKS, DOCS, out, quiet=True)
    return out


def _chapters_with_players():
    """The chapters whose source shows a step-through player (``explore(...)``)."""
    return sorted(src.stem for src in (NOTEBOOKS / "src").glob("[0-9][0-9]_*.py") if "explore(" in src.read_text())


def _iris_player():
    from sklearn.datasets import load_iris

    from odtlab.solvers.cart import CARTClassifier
    from odtlab.widgets import explore

    X, y = load_iris(return_X_y=True, as_frame=True)
    return explore(CARTClassifier(max_depth=3), X, y.map(dict(enumerate(load_iris().target_names))))


def test_replay_holds_every_frame_as_the_player_draws_it():
    player = _iris_player()
    bundle = player.replay()
    assert bundle["encoding"] == "gzip+base64"
    payload = decode_replay(bundle)
    n = payload["events"]
    assert n == player.recording.n >= 5 and payload["done"]
    assert len(payload["kinds"]) == n and all(len(col) == n + 1 for col in payload["frames"])
    stored = json.loads(gzip.decompress(base64.b64decode(bundle["data"])))["strings"]
    assert any(isinstance(s, list) for s in stored), "no string was stored as an edit of an earlier one"
    for k in range(n + 1):
        caption, views = player.render_frame(k)
        assert [payload["strings"][col[k]] for col in payload["frames"]] == [caption] + views, k
    assert payload["kinds"] == player.recording.records["kind"].tolist()
    # what the chapters store next to the live widget (notebooks/build.py sets ODTLAB_EMBED_REPLAY=1)
    live = {"text/plain", "application/vnd.jupyter.widget-view+json"}
    player.embed_replay = False
    assert set(player._repr_mimebundle_()) == live
    player.embed_replay = True
    mime = player._repr_mimebundle_()
    assert set(mime) == live | {REPLAY_MIME} and decode_replay(mime[REPLAY_MIME]) == payload


def test_replay_keeps_the_first_events_of_a_long_search_and_says_so():
    player = _iris_player()
    payload = decode_replay(player.replay(max_events=3))
    assert payload["events"] == 3 and len(payload["frames"][0]) == 4
    assert "Event 3 of" in payload["strings"][payload["frames"][0][3]]
    with pytest.raises(ValueError, match="max_events must be at least 1"):
        player.replay(max_events=0)
    with pytest.raises(ValueError, match="max_chars must be at least 1"):
        player.replay(max_chars=0)


def test_replay_over_its_budget_redraws_costly_views_less_often():
    player = _iris_player()
    whole = decode_replay(player.replay())
    small = decode_replay(player.replay(max_chars=4_000))
    n = small["events"]
    captions = [[r["strings"][i] for i in r["frames"][0]] for r in (small, whole)]
    assert captions[0] == captions[1]  # the caption follows every event
    assert min(small["redrawn"]) < max(whole["redrawn"]) and small["redrawn"][0] < n
    for j in range(1, len(small["frames"])):
        col = small["frames"][j]
        drawn = [whole["strings"][whole["frames"][j][k]] for k in range(n + 1)]
        assert small["strings"][col[n]] == drawn[n]  # the last frame is whole
        for k in range(n + 1):  # every frame shows a drawing of this view at an event at or before k
            assert small["strings"][col[k]] in drawn[:k + 1]


def test_latex_becomes_mathml_and_code_stays_as_written():
    converter = math.Converter()
    hidden = converter.hide("cost $H_\\lambda(T)$ and\n$$\\max\\{H, P - \\lambda\\}$$ but `a $b$ c` stays")
    assert "$" not in hidden.replace("`a $b$ c`", "") and "`a $b$ c`" in hidden
    shown = converter.show(hidden)
    assert 'display="inline"' in shown and 'display="block"' in shown and "<mi>&#x003BB;</mi>" in shown
    assert 'alttext="H_\\lambda(T)"' in shown
    assert not converter.failures


def test_front_matter_graph_has_every_edge():
    text = (NOTEBOOKS / "README.md").read_text()
    block = re.search(r"```mermaid\n(.*?)```", text, re.S).group(1)
    labels, edges = graph.parse(block)
    chapters = {f"c{path.name[:2]}" for path in (NOTEBOOKS / "src").glob("[0-9][0-9]_*.py")}
    assert len(edges) == block.count("-->") and set(labels) == chapters
    drawing = graph.svg(labels, edges, href=lambda label: label[:2] + ".html")
    assert drawing.count("marker-end=") == len(edges) and drawing.count("<rect") == len(labels)
    col = graph.layers(labels, edges)
    assert all(col[b] > col[a] for a, b in edges)


def test_bibliography_entries_and_links():
    entries = bib.parse((DOCS / "references.bib").read_text())
    keys = [e["key"] for e in entries]
    assert len(keys) == len(set(keys)) == (DOCS / "references.bib").read_text().count("\n@")
    assert bib.plain("Demirovi{\\'c}, Emir") == "Demirović, Emir"
    page = bib.render(entries)
    for e in entries:
        assert f'id="{e["key"]}"' in page
        if "doi" in e:
            assert f'href="https://doi.org/{e["doi"]}"' in page


@pytest.mark.jit_only  # builds the site (seconds) and measures no kernel code: once, in the compiled run
def test_site_pages_navigation_solutions_and_offline(site):
    pages = sorted(p.name for p in site.glob("*.html"))
    chapters = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    assert pages == sorted([c + ".html" for c in chapters] + ["index.html", "errata.html", "references.html"])
    order = ["index"] + chapters + ["errata", "references"]
    for i, name in enumerate(order):
        text = (site / f"{name}.html").read_text()
        if i > 0:
            assert f'class="prev" href="{order[i - 1]}.html"' in text
        if i + 1 < len(order):
            assert f'class="next" href="{order[i + 1]}.html"' in text
        # nothing is loaded from elsewhere: every script, stylesheet and image is in the site or inline
        for url in re.findall(r'<(?:script|img|link|iframe)\b[^>]*\b(?:src|href)="([^"]+)"', text):
            assert url.startswith(("_static/", "data:")), (name, url)
        assert ".ipynb\"" not in text and "$$" not in text
    for name in chapters:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        text = (site / f"{name}.html").read_text()
        solutions = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
        exercises = [c for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
        assert text.count('class="odtlab-exercise"') == len(exercises)
        for cell in solutions:  # a solution's distinctive last line is nowhere on the page
            line = max(cell.source.splitlines(), key=len)
            assert html.escape(line, quote=False) not in text and line not in text, (name, line)
    front = (site / "index.html").read_text()
    assert "<svg" in front and 'class="jp-Mermaid"' not in front and 'href="01_greedy_vs_optimal.html"' in front
    assert 'href="https://doi.org/' in (site / "references.html").read_text()
    entries = (site / "_static" / "search_index.js").read_text()
    assert entries.startswith("window.ODTLAB_SEARCH = ") and "Purification Bound" in entries


@pytest.mark.jit_only
def test_chapters_with_players_embed_their_replays(site):
    for name in _chapters_with_players():
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        stored = sum(REPLAY_MIME in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
        text = (site / f"{name}.html").read_text()
        assert stored >= 1, f"{name} shows a player but stores no replay: rebuild it (notebooks/build.py {name[:2]})"
        assert text.count(f'<script type="{REPLAY_MIME}">') == stored
        assert (site / f"{name}.html").stat().st_size < 5e6


def test_build_refuses_a_folder_that_is_not_a_book(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="holds no earlier book"):
        build(NOTEBOOKS, DOCS, tmp_path, quiet=True)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_search_sections_skip_outputs_and_code():
    body = ('<h2 id="A">A title</h2><p>prose words</p><div class="jp-OutputArea"><pre>output</pre><p>result</p>'
            '</div><h3 id="B">B</h3><p>more <math alttext="x_1"><mi>x</mi></math></p><svg><text>drawn</text></svg>')
    got = search.sections("x.html", "X", body)
    assert [(s["id"], s["section"], s["text"]) for s in got] == [("A", "A title", "prose words"),
                                                                ("B", "B", "more x_1")]


LOCAL = ("file://", "data:", "blob:", "http://127.0.0.1", "http://localhost")
PANES = "(r, sel) => [...r.querySelectorAll(sel)].map(e => e.innerHTML)"


def _open(context, url, problems):
    """A page whose console errors, page errors and requests leaving the machine land in ``problems``."""
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def gate(route):
        if route.request.url.startswith(LOCAL):
            return route.continue_()
        problems.append(f"request leaving the machine: {route.request.url}")
        return route.abort()

    page.route("**/*", gate)
    page.goto(url)
    page.wait_for_load_state("load")
    return page


# the first stop whose tree differs from the first frame's (a filtered player may keep its tree for a while)
FIRST_TREE_CHANGE = """r => { const p = r.odtlabReplay.p, col = p.frames[p.tree + 1], s = r.odtlabReplay.stops;
  for (let i = 1; i < s.length; i++) if (col[s[i]] !== col[0]) return i; return -1; }"""


def _step_through(page, root):
    """Step changes the caption at every press and the tree where the recording says it changes; Back
    restores both; the kind filter changes the stops; the slider's last position shows the last event."""
    caption = root.locator(".odtlab-replay-caption")
    start = caption.inner_html()
    tree_start = root.locator(".odtlab-replay-tree").inner_html()
    panes_start = root.evaluate(PANES, ".odtlab-replay-pane")
    steps = root.evaluate(FIRST_TREE_CHANGE)
    assert 0 < steps <= 200, f"the tree changes at stop {steps}"
    for k in range(steps):
        before = caption.inner_html()
        assert root.locator(".odtlab-replay-tree").inner_html() == tree_start
        root.locator(".odtlab-replay-step").click()
        assert caption.inner_html() != before, f"Step {k + 1} did not change the caption"
    assert root.locator(".odtlab-replay-tree").inner_html() != tree_start
    for _ in range(steps):
        root.locator(".odtlab-replay-back").click()
    assert caption.inner_html() == start and root.locator(".odtlab-replay-tree").inner_html() == tree_start
    assert root.evaluate(PANES, ".odtlab-replay-pane") == panes_start
    info = root.evaluate("r => ({n: r.odtlabReplay.p.events, kinds: r.odtlabReplay.p.kinds, "
                         "stops: r.odtlabReplay.stops.length})")
    # the kind filter: unchecking a kind that occurs removes exactly its events from the slider's stops
    boxes = root.locator(".odtlab-replay-kinds input:checked")
    for j in range(boxes.count()):
        code = int(boxes.nth(j).get_attribute("value"))
        if code in info["kinds"]:
            boxes.nth(j).uncheck()
            fewer = root.evaluate("r => r.odtlabReplay.stops.length")
            assert fewer == info["stops"] - info["kinds"].count(code)
            root.locator(f'.odtlab-replay-kinds input[value="{code}"]').check()
            break
    slider = root.locator(".odtlab-replay-slider")
    slider.focus()
    page.keyboard.press("End")
    assert slider.evaluate("s => s.value === s.max")
    last = root.evaluate("r => r.odtlabReplay.stops[r.odtlabReplay.stops.length - 1]")
    assert f"Event {last} of" in caption.inner_text()


@pytest.mark.jit_only  # measures no kernel code: left out of the NUMBA_DISABLE_JIT coverage run
def test_book_in_a_real_browser(site, browser, picture_folders):  # noqa: F811
    players = set(_chapters_with_players())
    problems = []
    for path in sorted(site.glob("*.html")):
        page = _open(browser, path.as_uri(), problems)
        try:
            broken = page.evaluate("() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
                                   ".map(i => i.src.slice(0, 80))")
            assert not broken, (path.name, broken)
            roots = page.locator(".odtlab-replay")
            assert (roots.count() > 0) == (path.stem in players), path.name
            if roots.count():
                page.wait_for_function("n => document.querySelectorAll('.odtlab-replay-ready').length === n",
                                       arg=roots.count(), timeout=20_000)
                for j in range(roots.count()):
                    _step_through(page, roots.nth(j))
            if path.stem == "03_branches_search":  # the XOR search after 40 events
                root = roots.first
                root.locator(".odtlab-replay-slider").focus()
                page.keyboard.press("Home")
                for _ in range(40):
                    root.locator(".odtlab-replay-step").click()
                root.evaluate("r => r.scrollIntoView({block: 'start'})")
                box = root.bounding_box()  # the player's top: controls, caption, tree and search graph
                clip = {**box, "height": min(box["height"], page.viewport_size["height"] - box["y"])}
                for folder in picture_folders:
                    page.screenshot(path=str(folder / "book_player.png"), clip=clip)
            if path.name == "index.html":
                page.fill("#odtlab-search-box", "purification bound")
                page.wait_for_selector("#odtlab-search-results li a")
                hits = page.locator("#odtlab-search-results li a")
                assert "03_branches_search.html#" in hits.first.get_attribute("href")
                for folder in picture_folders:
                    page.screenshot(path=str(folder / "book_search.png"))
            assert not problems, (path.name, problems)
        finally:
            page.close()


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb")),
                         ids=lambda p: p.stem)
def test_stored_chapters_carry_no_compile_notice(path):
    """A chapter built from a cold numba cache stores the one-line compile notice, which the book shows and nbval
    then misses in a warm run: chapters are built warm (`odtlab warmup` first)."""
    for cell in nbformat.read(path, as_version=4).cells:
        for out in cell.get("outputs", []):
            assert "odtlab: compiling" not in out.get("text", ""), f"{path.name}: rebuild it after `odtlab warmup`"
