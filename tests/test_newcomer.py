"""First contact: what a newcomer with internet gets, and the one-line messages when something is missing.

``test_a_fresh_clone_tours_every_chapter_with_downloaded_data`` is issue 14's end-to-end check: a clean
``git clone`` with nothing beside it, ``ODTLAB_DATA`` unset, an empty data cache and the benchmark folder
served on 127.0.0.1 as ``ODTLAB_MIRROR`` (as the public sources would serve it), then ``make tour``. It
reuses this environment (``VENV``) and its numba cache, so it costs the tour, not an install and a
compilation. It is marked ``slow`` (so it runs once in ``make test``, not again in the NUMBA_DISABLE_JIT
coverage run) and ``newcomer``: skip it locally with ``-m "not newcomer"``.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from odtlab import datasets
from odtlab.experiments import reproduction

ROOT = Path(__file__).resolve().parents[1]


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file())


@pytest.mark.slow
@pytest.mark.newcomer
def test_a_fresh_clone_tours_every_chapter_with_downloaded_data(shared_data, serve, tmp_path):
    clone, cache = tmp_path / "odtlab", tmp_path / "cache"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    server = serve(shared_data)
    env = {k: v for k, v in os.environ.items()
           if k not in ("ODTLAB_DATA", "ODTLAB_OFFLINE", "ODTLAB_MIRROR", "MPLBACKEND")}
    # the checkout's code (PYTHONPATH) with its compiled kernels: numba's cache beside the sources, or
    # NUMBA_CACHE_DIR when the caller set one (it stays in env)
    env.update(ODTLAB_MIRROR=server.url, ODTLAB_CACHE=str(cache), PYTHONPATH=str(ROOT))
    venv = Path(sys.prefix)
    # -o: this environment is installed already; make must not reinstall odtlab from the clone into it
    installed = [arg for stamp in (".installed-base", ".installed-lab") for arg in ("-o", f"{venv}/{stamp}")]
    proc = subprocess.run(["make", "--no-print-directory", "tour", f"VENV={venv}", *installed],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=45 * 60)
    log = proc.stdout + proc.stderr
    n = len(list((clone / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    assert n == len(list((clone / "notebooks" / "src").glob("[0-9][0-9]_*.py")))  # every chapter source is built
    assert proc.returncode == 0 and f"{n} of {n} chapters ran cleanly" in log, log[-3000:]
    wanted = datasets.chapter_datasets(clone / "notebooks")
    assert re.search(rf"odtlab: {len(wanted)} data sets ready \({len(wanted)} downloaded into {cache}\)", log), log[:3000]
    # everything the chapters loaded came through `odtlab data fetch --chapters`: the tour downloaded nothing
    paths = sorted(datasets.info(name)["path"] for name in wanted)
    assert _files(cache) == paths
    assert sorted(server.requests) == sorted("/" + p for p in paths)


# -- what a chapter says when a data set or a peer is missing ----------------------------------------

def test_a_reproduction_without_its_data_says_which_and_how_to_get_it(tmp_path, monkeypatch):
    """Chapters 09-12 stopped with a bare assertion or pandas' "Cannot infer number of levels from empty
    list" (Reproduction.frame with no row); now one line names the data sets and the command."""
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ODTLAB_OFFLINE", "1")
    rep = reproduction.reproduce("murtree-table5", quick=True, n_jobs=1, progress=False)
    with pytest.raises(reproduction.MissingPiecesError) as info:
        rep.frame(["train misclassifications"], with_data=True)
    message = str(info.value)
    assert "\n" not in message and message.startswith("murtree-table5: no row to show for columns")
    assert re.search(r"data sets dl/anneal, dl/hepatitis, .* are missing \(`.*odtlab(\.cli)? data fetch --chapters` "
                     r"downloads them\)", message)
    with pytest.raises(reproduction.MissingPiecesError, match=r"^murtree-table5: data sets dl/anneal, "):
        reproduction.notebook_run("murtree-table5", quick=True)


def test_a_missing_peer_is_named_with_the_pip_command():
    runs = pd.DataFrame({"status": ["done", "unavailable", "missing_data"], "algorithm": ["cart", "streed", "cart"],
                         "dataset": ["dl/anneal", "dl/anneal", "quantbnb/bank[encoding=midpoints]"]})
    line = reproduction.missing_pieces(runs)
    assert line.startswith("data sets quantbnb/bank are missing (")
    assert re.search(r"; algorithms streed are not installed \(the peer solvers: `\S+ -m pip install 'pystreed>=1.4' "
                     r"'gosdt>=1.0.4'", line)


def test_a_table_row_whose_data_set_is_not_in_the_manifest_is_marked_not_run():
    """quantbnb/avila (no verified copy, left out of the manifest) is a [no data] row, never an [error] run."""
    assert "quantbnb/avila" not in datasets.names()
    grid = reproduction.table_runs("quantbnb-table2", quick=False)
    assert grid and not any(run.dataset.startswith("quantbnb/avila") for run in grid.values())
    assert reproduction.unshipped("quantbnb/avila[encoding=midpoints]") == ("not shipped: not in odtlab's data "
                                                                            "manifest (no verified copy of the file)")
    assert reproduction.unshipped("quantbnb/bank[encoding=midpoints]") == ""
