"""Build the book: ``python -m odtlab.book [--notebooks notebooks] [--docs docs] [--out build/book]``."""
import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from jinja2 import Environment, FileSystemLoader, select_autoescape
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors import Preprocessor, TagRemovePreprocessor
from pygments.formatters import HtmlFormatter

from odtlab.book import bib, graph, math, search
from odtlab.widgets.player import PLAYER_FILES, REPLAY_MIME, replay_html

HERE = Path(__file__).resolve().parent
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
EXERCISE_NOTE = ("<strong>Exercise.</strong> Write your answer in the cell below and run the "
                 "<code>check(...)</code> cell after it: the checker needs a Python kernel, so open the chapter "
                 "in JupyterLab (<code>make lab</code>). This page shows neither the solution nor the feedback.")
WIDGET_NOTE = ("<p class=\"odtlab-book-note\">An interactive widget: it runs in JupyterLab "
               "(<code>make lab</code>).</p>")


class ExercisePreprocessor(Preprocessor):
    """Before each ``exercise`` cell, a note that the checker needs a kernel; the stored feedback of the
    ``check(...)`` cells is removed (it would tell the reference answer's verdict)."""

    def preprocess(self, nb, resources):
        cells = []
        for cell in nb.cells:
            if "exercise" in cell.metadata.get("tags", []):
                cells.append(nbformat.v4.new_markdown_cell(f'<div class="odtlab-exercise">{EXERCISE_NOTE}</div>'))
            if cell.cell_type == "code" and cell.source.lstrip().startswith("check("):
                cell.outputs = []
            cells.append(cell)
        nb.cells = cells
        return nb, resources


class ReplayPreprocessor(Preprocessor):
    """A player's output becomes the page's player: its recorded replay (``REPLAY_MIME``) in a ``<script>``
    that ``replay.js`` reads; any other widget output (no kernel, no widget state) becomes a note."""

    def preprocess_cell(self, cell, resources, index):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if REPLAY_MIME in data:
                out["data"] = {"text/html": replay_html(data[REPLAY_MIME], "<p>Loading the player…</p>")}
                resources["players"] = resources.get("players", 0) + 1
            elif WIDGET_MIME in data:
                out["data"] = {"text/html": WIDGET_NOTE}
        return cell, resources


class MathPreprocessor(Preprocessor):
    """LaTeX in markdown cells becomes placeholders now and MathML after rendering (see :mod:`.math`)."""

    def __init__(self, converter, **kw):
        super().__init__(**kw)
        self.converter = converter

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown":
            cell.source = self.converter.hide(cell.source)
        return cell, resources


def exporter(converter):
    """nbconvert's HTMLExporter with our cells-only template (``templates/odtlab_book``, over nbconvert's
    ``lab`` template): the page around the cells is ``templates/page.html.j2``."""
    ex = HTMLExporter(extra_template_basedirs=[str(HERE / "templates")], template_name="odtlab_book",
                      exclude_input_prompt=True, exclude_output_prompt=True)
    ex.register_preprocessor(TagRemovePreprocessor(remove_cell_tags={"solution"}, enabled=True), enabled=True)
    for pre in (ExercisePreprocessor(), ReplayPreprocessor(), MathPreprocessor(converter)):
        ex.register_preprocessor(pre, enabled=True)
    return ex


def chapter_title(nb):
    """The chapter's first ``# `` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if m:
                return m.group(1).strip()
    return "untitled"


LINKS = [(re.compile(r'href="(?:\.\./notebooks/)?(\d\d_[A-Za-z0-9_]+)\.ipynb(#[^"]*)?"'), r'href="\1.html\2"'),
         (re.compile(r'href="(?:\.\./)?(?:docs/)?errata\.md(#[^"]*)?"'), r'href="errata.html\1"'),
         (re.compile(r'href="(?:\.\./)?(?:docs/)?references\.bib"'), 'href="references.html"')]


def relink(body, keys):
    """Links between the sources become links between the pages; bibliography keys in code spans
    (``[`kohler2025dpdt`]``) link to the references page, and ``doi:`` mentions to the DOI."""
    for pattern, repl in LINKS:
        body = pattern.sub(repl, body)
    body = re.sub(r"<code>([a-z]+\d{4}[a-z0-9]+)</code>",
                  lambda m: (f'<a href="references.html#{m.group(1)}"><code>{m.group(1)}</code></a>'
                             if m.group(1) in keys else m.group(0)), body)
    return re.sub(r"(?<![/\w])doi:(10\.\d{4,9}/[^\s<,;)\]]+?)(?=[.,;)\]]?(?:\s|<|$))",
                  lambda m: f'<a href="https://doi.org/{m.group(1)}">doi:{m.group(1)}</a>', body)


def markdown_page(text, converter):
    """A markdown file as HTML, with its LaTeX as MathML and its headings anchored."""
    body = markdown2html_mistune(converter.hide(text))
    body = re.sub(r"<h([1-6])>(.*?)</h\1>",
                  lambda m: f'<h{m.group(1)} id="{search.slug(m.group(2))}">{m.group(2)}</h{m.group(1)}>', body)
    return converter.show(body)


def build(notebooks="notebooks", docs="docs", out="build/book", quiet=False):
    """Write the site to ``out`` (a new folder, or an earlier book there, which is replaced); returns the
    list of pages written."""
    notebooks, docs, out = Path(notebooks), Path(docs), Path(out)
    t0 = time.perf_counter()
    if out.exists() and any(out.iterdir()):
        if not (out / "_static" / "book.css").exists():
            raise FileExistsError(f"{out} exists and holds no earlier book: give a new or empty folder with --out")
        shutil.rmtree(out)
    (out / "_static").mkdir(parents=True)
    for f in list(PLAYER_FILES.glob("replay.*")) + list((HERE / "static").glob("*")):
        shutil.copy(f, out / "_static" / f.name)
    (out / "_static" / "pygments.css").write_text(HtmlFormatter(style="default").get_style_defs(".highlight"))
    entries = bib.parse((docs / "references.bib").read_text())
    keys = {e["key"] for e in entries}
    converter = math.Converter()

    chapters = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    pages = [{"file": "index.html", "title": "The odtlab course", "nav": "Start"}]
    nbs = {}
    for path in chapters:
        nb = nbformat.read(path, as_version=4)
        nbs[path] = nb
        title = chapter_title(nb)
        pages.append({"file": path.stem + ".html", "title": title, "nav": title, "chapter": True})
    pages += [{"file": "errata.html", "title": "Errata of the four papers", "nav": "Errata"},
              {"file": "references.html", "title": "References", "nav": "References"}]

    bodies = {}
    front = markdown_page((notebooks / "README.md").read_text(), converter)
    bodies["index.html"] = graph.replace_mermaid(front, [p["file"] for p in pages])
    ex = exporter(converter)
    players = {}
    for path, nb in nbs.items():
        body, resources = ex.from_notebook_node(nb)
        bodies[path.stem + ".html"] = converter.show(body)
        players[path.stem + ".html"] = resources.get("players", 0)
    bodies["errata.html"] = markdown_page((docs / "errata.md").read_text(), converter)
    bodies["references.html"] = bib.render(entries)

    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    shell = env.get_template("page.html.j2")
    index = []
    for i, page in enumerate(pages):
        body = relink(bodies[page["file"]], keys)
        index += search.sections(page["file"], page["title"], body)
        prev_page = pages[i - 1] if i > 0 else None
        next_page = pages[i + 1] if i + 1 < len(pages) else None
        (out / page["file"]).write_text(shell.render(page=page, pages=pages, body=body, prev=prev_page,
                                                     next=next_page, players=players.get(page["file"], 0)))
    (out / "_static" / "search_index.js").write_text(
        "window.ODTLAB_SEARCH = " + json.dumps(index, separators=(",", ":"), ensure_ascii=False) + ";\n")
    if not quiet:
        sizes = ", ".join(f"{p['file']} {(out / p['file']).stat().st_size / 1e6:.2f} MB" for p in pages)
        print(f"book: {len(pages)} pages in {out} ({time.perf_counter() - t0:.1f} s): {sizes}")
        if converter.failures:
            print(f"book: {len(converter.failures)} formulas kept as LaTeX (latex2mathml failed): "
                  + "; ".join(sorted(set(converter.failures))[:10]), file=sys.stderr)
    return [out / p["file"] for p in pages]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notebooks", default="notebooks", help="the executed chapters and README.md")
    parser.add_argument("--docs", default="docs", help="errata.md and references.bib")
    parser.add_argument("--out", default="build/book", help="the site's folder (new, empty, or an earlier book)")
    args = parser.parse_args(argv)
    pages = build(args.notebooks, args.docs, args.out)
    print(f"open {pages[0].resolve().as_uri()}")
    return 0
