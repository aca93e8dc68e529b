"""The headless tour: run every chapter from top to bottom and report each one as it finishes.

``odtlab tour`` (or ``make tour``) is the no-browser way to see the whole kit work: each chapter runs in
a fresh kernel, exactly as nbval runs it in CI, and the tour prints one line per chapter (its time and,
on failure, the error without terminal colours) as soon as the chapter ends. A chapter that stops on a
missing data set or a missing package says which, and how to get it, in that line.

The chapters are the ``NN_name.ipynb`` notebooks of the repository's ``notebooks/`` folder; a wheel does
not carry them, so :func:`find_chapters` looks in the folder given, then ``./notebooks``, then the
checkout odtlab is installed from, and says where it looked when none of them holds a chapter.
"""
import functools
import re
import time
from pathlib import Path

from odtlab.cli import command

CHECKOUT = Path(__file__).resolve().parents[1] / "notebooks"  # an editable install's notebooks/
PATTERN = "[0-9][0-9]_*.ipynb"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # SGR colour codes in IPython tracebacks


class ChaptersNotFound(FileNotFoundError):
    """No chapter notebook in any of the folders the tour looked in."""


def chapters(folder):
    """The chapter notebooks of ``folder``, in order."""
    return sorted(Path(folder).glob(PATTERN))


def find_chapters(path=None):
    """The folder holding the chapters: ``path`` if given, else ``./notebooks``, else the checkout's."""
    candidates = [Path(path)] if path is not None else [Path.cwd() / "notebooks", CHECKOUT]
    for folder in candidates:
        if chapters(folder):
            return folder
    looked = ", ".join(str(c) for c in dict.fromkeys(candidates))
    raise ChaptersNotFound(f"no chapter notebooks ({PATTERN}) in {looked}; the chapters are the notebooks/ "
                           f"folder of the odtlab repository: run the tour from a checkout, or "
                           f"`{command('odtlab')} tour PATH` with the folder that holds them")


def explain(ename, evalue):
    """One line for a chapter's error: what is missing and how to get it, or the error itself."""
    evalue = _ANSI.sub("", evalue).strip()
    if ename == "MissingDataError":
        name = re.search(r"for '([^']+)'", evalue)
        what = f"data set {name.group(1)}" if name else "a data set"
        odtlab = command("odtlab")
        return (f"missing {what}: run `{odtlab} data fetch --chapters` (or `{odtlab} data fetch "
                f"{name.group(1) if name else 'NAME'}`)")
    if ename == "ModuleNotFoundError":
        module = re.search(r"No module named '([^'.]+)", evalue)
        what = module.group(1) if module else evalue
        pip = command("pip")
        return (f"missing package {what}: the peer solvers come with `{pip} install \"odtlab[peers]\"` "
                f"(make lab installs them), any other package with `{pip} install {what}`")
    return f"{ename}: {evalue}".splitlines()[0] if evalue else ename


def _kernel_manager():
    """A kernel manager with CurveZMQ transport encryption when jupyter_client and pyzmq offer it: ipykernel
    warns "running over TCP without encryption" on every unencrypted start, once per chapter."""
    import zmq
    from jupyter_client.manager import KernelManager

    if "transport_encryption" in KernelManager.class_trait_names() and zmq.has("curve"):
        return KernelManager(kernel_name="python3", transport_encryption="auto")
    return KernelManager(kernel_name="python3")


def run(names=None, folder=None, out=functools.partial(print, flush=True)):
    """Execute the chapters (all, or those whose names start with one of ``names``), printing a line per
    chapter as it ends; return the number of failures."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    folder = find_chapters(folder)
    selected = [p for p in chapters(folder) if not names or any(p.stem.startswith(n) for n in names)]
    if not selected:
        raise ChaptersNotFound(f"no chapter in {folder} starts with {' or '.join(names)}")
    out(f"running {len(selected)} chapters from {folder}")
    failures = 0
    for i, path in enumerate(selected, 1):
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        try:
            NotebookClient(nb, timeout=600, km=_kernel_manager(),
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            status = "ok"
        except CellExecutionError as exc:
            failures += 1
            status = "FAILED: " + explain(exc.ename, exc.evalue)
        out(f"[{i:>2}/{len(selected)}] {path.stem:<30} {time.perf_counter() - t0:6.1f} s  {status}")
    out(f"{len(selected) - failures} of {len(selected)} chapters ran cleanly")
    return failures
