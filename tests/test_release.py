"""A release installs anywhere: the wheel, installed non-editable into a fresh virtual environment, runs
from a folder with no checkout in sight (the manifest is package data), and its data layer downloads from a
mirror. Marked ``slow`` (once in ``make test``) and ``release``; it takes one to three minutes (the
environment's installs come from pip's cache, the CART kernels compile once)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(args, cwd, env, timeout=600):
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


@pytest.mark.slow
@pytest.mark.release
def test_the_wheel_installs_into_a_fresh_venv_and_runs_without_a_checkout(shared_data, serve, tmp_path):
    src, wheels, venv, work = tmp_path / "src", tmp_path / "wheels", tmp_path / "venv", tmp_path / "work"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):  # what the build reads (no build/ in the checkout)
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "odtlab", src / "odtlab", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ODTLAB_", "PYTHONPATH", "VIRTUAL_ENV"))}
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(src)], tmp_path, env)
    wheel, = wheels.glob("odtlab-*.whl")
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    py, odtlab = venv / "bin" / "python", venv / "bin" / "odtlab"
    _run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], tmp_path, env, timeout=900)
    work.mkdir()
    env.update(ODTLAB_CACHE=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "numba"), MPLBACKEND="Agg")

    where = _run([str(py), "-c", "import odtlab; print(odtlab.__file__); print(odtlab.__version__)"], work, env)
    import odtlab as here

    assert where.split() == [str(venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
                                 / "site-packages" / "odtlab" / "__init__.py"), here.__version__]
    listing = _run([str(odtlab), "data", "list"], work, env)
    assert "dl/anneal" in listing and "sklearn/iris" in listing and "gen/xor" in listing
    solved = json.loads(_run([str(odtlab), "solve", "cart", "sklearn/iris", "--depth", "2", "--json"], work, env))
    assert (solved["dataset"], solved["depth"], solved["misclassifications"]) == ("sklearn/iris", 2, 6)
    fit = ("from odtlab import CARTClassifier, datasets\n"
           "d = datasets.load('dl/anneal')\n"  # not on disk: downloaded from the mirror into the cache
           "m = CARTClassifier(max_depth=2).fit(d.X, d.y)\n"
           "print(d.source, d.n_samples, round(m.score(d.X, d.y), 6))\n")
    out = _run([str(py), "-c", fit], work, dict(env, ODTLAB_MIRROR=serve(shared_data).url))
    source, n, score = out.split()
    assert source == str(tmp_path / "cache" / "murtree-data" / "DL" / "anneal.txt") and n == "812"
    assert 0.5 < float(score) <= 1
    assert sorted(p.name for p in work.iterdir()) == []  # nothing written where the user stands
