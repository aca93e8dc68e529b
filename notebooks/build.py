"""Build the chapters: notebooks/src/NN_name.py (jupytext percent format) -> executed notebooks/NN_name.ipynb.

The .py sources are what authors edit and reviewers read; the .ipynb files carry the executed reference
outputs that nbval compares in the cells marked ``# NBVAL_CHECK_OUTPUT``. A cell header may carry tags:
``# %% tags=["nbval-ignore-output"]``. Usage: ``python notebooks/build.py [NAME ...] [--no-execute]``.

Exercises: a cell tagged ``exercise`` holds the student's stub (``answer = ...``), the next cell tagged
``solution`` the reference solution (ending with ``assert check("NN.k", answer).ok``), then a plain
``check("NN.k", answer)`` cell shows the feedback. ``--student DIR`` writes the student build instead:
the executed chapters without their ``solution`` cells and without outputs.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

HERE = Path(__file__).resolve().parent


def to_notebook(src):
    """The chapter as a notebook: jupytext reads the percent format; each cell keeps only its tags.

    jupytext keeps in a cell the blank lines around it (recording them as ``lines_to_next_cell``); the
    chapters' cells are stored without them.
    """
    nb = jupytext.read(src, fmt="py:percent")
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}
    for k, cell in enumerate(nb.cells):
        cell.source = cell.source.strip("\n")
        cell.metadata = {"tags": cell.metadata["tags"]} if cell.metadata.get("tags") else {}
        cell["id"] = f"cell-{k}"
    return nb


def build(src, execute=True):
    nb = to_notebook(src)
    os.environ.setdefault("ODTLAB_EMBED_REPLAY", "1")  # each player stores its replay, for the book
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
