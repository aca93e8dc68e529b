"""The headless tour: run every chapter in notebooks/ from top to bottom and report each one.

``odtlab tour`` (or ``make tour``) is the no-browser way to see the whole kit work: each chapter runs in
a fresh kernel, exactly as nbval runs it in CI, and the tour prints its time and the first error, if any.
"""
import time
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def chapters(folder=NOTEBOOKS):
    """The chapter notebooks, in order."""
    return sorted(p for p in Path(folder).glob("[0-9][0-9]_*.ipynb"))


def run(names=None, folder=NOTEBOOKS, out=print):
    """Execute the chapters (all, or those whose names start with one of ``names``); return failures."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    failures = 0
    selected = [p for p in chapters(folder) if not names or any(p.stem.startswith(n) for n in names)]
    if not selected:
        out(f"no chapters found in {folder}")
        return 1
    for path in selected:
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        try:
            NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            status = "ok"
        except CellExecutionError as exc:
            failures += 1
            status = "FAILED: " + str(exc).strip().splitlines()[-1]
        out(f"{path.stem:<32} {time.perf_counter() - t0:6.1f} s  {status}")
    out(f"{len(selected) - failures} of {len(selected)} chapters ran cleanly")
    return failures
