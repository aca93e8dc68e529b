"""Build the chapters: notebooks/src/NN_name.py (percent format) -> executed notebooks/NN_name.ipynb.

The .py sources are what authors edit and reviewers read; the .ipynb files carry the executed reference
outputs that nbval compares in the cells marked ``# NBVAL_CHECK_OUTPUT``. A cell header may carry tags:
``# %% tags=["nbval-ignore-output"]``. Usage: ``python notebooks/build.py [NAME ...] [--no-execute]``.

Exercises: a cell tagged ``exercise`` holds the student's stub (``answer = ...``), the next cell tagged
``solution`` the reference solution (ending with ``assert check("NN.k", answer).ok``), then a plain
``check("NN.k", answer)`` cell shows the feedback. ``--student DIR`` writes the student build instead:
the executed chapters without their ``solution`` cells and without outputs.
"""
import argparse
import json
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

HERE = Path(__file__).resolve().parent
HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")


def parse(source):
    """Cells of a percent-format script: list of (kind, tags, text)."""
    cells, kind, tags, lines = [], None, [], []

    def close():
        if kind is not None:
            text = "\n".join(lines).strip("\n")
            if kind == "markdown":
                text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.split("\n"))
            cells.append((kind, tags, text))

    for line in source.split("\n"):
        m = HEADER.match(line)
        if m:
            close()
            kind = "markdown" if m.group("md") else "code"
            tags = json.loads(m.group("tags")) if m.group("tags") else []
            lines = []
        elif kind is not None:
            lines.append(line)
    close()
    return cells


def to_notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, tags, text in cells:
        cell = nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text)
        if tags:
            cell.metadata["tags"] = tags
        cell["id"] = f"cell-{len(nb.cells)}"
        nb.cells.append(cell)
    return nb


def build(src, execute=True):
    nb = to_notebook(parse(src.read_text()))
    if execute:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
    nb.metadata.pop("widgets", None)  # widget state: random ids, and GitHub rejects a partial one
    out = HERE / (src.stem + ".ipynb")
    nbformat.write(nb, out)
    return out


def student(notebook, out_dir):
    """The student version of an instructor chapter: solution cells removed, outputs cleared."""
    nb = nbformat.read(notebook, as_version=4)
    nb, _ = TagRemovePreprocessor(remove_cell_tags={"solution"}, enabled=True).preprocess(nb, {})
    nb, _ = ClearOutputPreprocessor(enabled=True).preprocess(nb, {})
    out = Path(out_dir) / Path(notebook).name
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="chapter stems (default: all)")
    parser.add_argument("--no-execute", action="store_true")
    parser.add_argument("--student", metavar="DIR", help="write the student build of the chapters to DIR")
    args = parser.parse_args(argv)
    sources = sorted((HERE / "src").glob("*.py"))
    if args.names:
        sources = [s for s in sources if any(s.stem.startswith(n) for n in args.names)]
    if args.student:
        for src in sources:
            print(student(HERE / (src.stem + ".ipynb"), args.student))
        return 0
    for src in sources:
        t0 = time.perf_counter()
        out = build(src, execute=not args.no_execute)
        print(f"{out.name}: {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
