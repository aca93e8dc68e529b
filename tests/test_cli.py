"""The odtlab command's conventions: --version, a --help that imports no solver, exit codes (0, 1 runtime,
2 usage, 130 Ctrl-C), `solve` on a CSV file, the --json tree as a dict, the task check, and the tour's
reporting. Subprocess tests start a fresh interpreter (1-3 s each)."""
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import odtlab
from odtlab import cli, datasets, solvers, tour
from odtlab.solvers.cart import CARTClassifier

ROOT = Path(__file__).resolve().parents[1]
# Written by the test's wrapper when main() starts its work (its SIGINT handler in place), so that SIGINT is not
# sent before (a Ctrl-C before main() is called is Python's, not odtlab's: a loaded machine once sent it there).
STARTED = "test: main() starts"
MAIN = ("import sys; from odtlab import cli; run = cli._run; "
        f"cli._run = lambda argv: print({STARTED!r}, file=sys.stderr, flush=True) or run(argv); sys.exit(cli.main())")


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def odtlab_process(*argv, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-c", MAIN, *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


# -- --version and --help ---------------------------------------------------------------------------

def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"odtlab {odtlab.__version__}"


def test_help_answers_without_importing_the_solvers():
    code = ("import sys, io, contextlib\nfrom odtlab import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()) as text:\n"
            "    codes = [cli.main(a) for a in (['--help'], ['solve', '--help'], ['warmup', '--help'], ['tour', '--help'])]\n"
            "print(codes, 'usage: odtlab' in text.getvalue(),"
            " sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith('odtlab.solvers')))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[0, 0, 0, 0] True []", out.stderr


# -- exit codes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["solve"], "give an algorithm and a data set"),
    (["solve", "cartt", "sklearn/iris"], "unknown algorithm 'cartt'"),
    (["solve", "cart", "sklearn/iriss"], "unknown data set 'sklearn/iriss'"),
    (["solve", "cart", "sklearn/iris", "--target", "species"], "--target applies to a CSV file"),
    (["solve", "cart", "sklearn/iris", "--depth", "-1"], "max_depth"),
    (["warmup", "cartt"], "unknown algorithm 'cartt'"),
    (["solve", "cart", "sklearn/iris", "--lam", "0.1"], "cart has no option 'lam'; it takes: depth, time_limit"),
    (["solve", "cart", "sklearn/iris", "--depth"], "--depth needs a value"),
])
def test_usage_errors_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("odtlab: error: ") and message in err


def test_argparse_errors_exit_2(capsys):
    assert cli.main(["solve", "cart", "sklearn/iris", "--depth", "two"]) == 2
    assert cli.main(["frobnicate"]) == 2
    assert cli.main(["data", "list", "--depth", "2"]) == 2  # algorithm options belong to `solve` only
    assert "unrecognized arguments: --depth 2" in capsys.readouterr().err


def test_runtime_errors_exit_1(capsys, tmp_path):
    code, _, err = run(capsys, "solve", "cart", tmp_path / "absent.csv", "--target", "y")
    assert code == 1 and err.count("\n") == 1 and "absent.csv" in err
    code, _, err = run(capsys, "tour", tmp_path)
    assert code == 1 and err.count("\n") == 1 and str(tmp_path) in err and "no chapter notebooks" in err


def test_classifier_refused_on_a_regression_data_set_and_vice_versa(capsys):
    """Issue reproducer: `odtlab solve cart sklearn/diabetes` fitted a classifier to a regression target."""
    code, out, err = run(capsys, "solve", "cart", "sklearn/diabetes")
    assert code == 2 and out == ""
    assert "cart fits classification but sklearn/diabetes is a regression data set" in err
    assert "cart-regressor" in err and "murtree-regressor" not in err  # MurTree needs binary features
    code, _, err = run(capsys, "solve", "quantbnb-regressor", "sklearn/iris")
    assert code == 2 and err.rstrip().endswith("use one of: cart, dpdt, quantbnb")
    code, out, _ = run(capsys, "solve", "cart-regressor", "sklearn/diabetes", "--depth", "2", "--json")
    assert code == 0 and json.loads(out)["squared_error"] > 0


# -- solve: the algorithms' options come from the registry ------------------------------------------------

def test_solve_list_shows_every_registered_algorithm_with_its_options(capsys):
    code, out, _ = run(capsys, "solve", "--list")
    assert code == 0
    for spec in solvers.specs():
        line = next(line for line in out.splitlines() if line.split()[:2] == [spec.name, spec.task])
        options = out.splitlines()[out.splitlines().index(line) + 1]
        assert all(f"--{o.replace('_', '-')} ({p})" in options for o, p in spec.options.items()), options


@pytest.mark.parametrize("argv", [["cart", "sklearn/iris", "--depth", "2", "--time-limit", "60"],
                                  ["--depth=2", "cart", "--time-limit=60", "sklearn/iris"],
                                  ["cart", "--depth", "2", "sklearn/iris", "--time-limit", "60"]])
def test_solve_options_stand_anywhere_and_reach_the_estimator(capsys, monkeypatch, argv):
    """Every registry option takes one value, so `--depth 2` before the positionals is not read as ALGO."""
    seen = {}

    def fit(name, data, **options):
        seen.update(options, name=name, data=data.name)
        raise KeyboardInterrupt  # stop here: the options are what this test checks

    monkeypatch.setattr(solvers, "fit", fit)
    assert run(capsys, "solve", *argv)[0] == 130
    assert seen == {"name": "cart", "data": "sklearn/iris", "progress": False, "memory_limit": "auto",
                    "depth": 2, "time_limit": 60}


# -- solve: CSV, --json, --progress -------------------------------------------------------------------

@pytest.fixture
def iris_csv(tmp_path):
    data = datasets.load("sklearn/iris")
    frame = pd.DataFrame(data.X, columns=[f"f{j}" for j in range(data.n_features)])
    frame.insert(2, "species", np.array(data.class_names)[data.y])
    path = tmp_path / "iris.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_solve_a_csv_file_prints_the_tree_as_a_dict(capsys, iris_csv):
    path, frame = iris_csv
    code, out, err = run(capsys, "solve", "cart", path, "--target", "species", "--depth", "2", "--json")
    printed = json.loads(out)
    X, y = frame.drop(columns=["species"]), frame["species"]
    expected = CARTClassifier(max_depth=2).fit(X, y)
    assert code == 0 and printed["dataset"] == str(path)
    assert printed["tree"] == expected.tree_.to_dict()
    assert printed["tree"]["feature_name"] in X.columns
    assert printed["misclassifications"] == int((expected.predict(X) != y).sum())


def test_solve_csv_usage_errors(capsys, iris_csv, tmp_path):
    path, frame = iris_csv
    code, _, err = run(capsys, "solve", "cart", path)
    assert code == 2 and "--target" in err and "species" in err
    code, _, err = run(capsys, "solve", "cart", path, "--target", "kind")
    assert code == 2 and "'kind' is not a column" in err
    text = tmp_path / "text.csv"
    frame.assign(colour="red").to_csv(text, index=False)
    code, _, err = run(capsys, "solve", "cart", text, "--target", "species")
    assert code == 2 and "colour" in err and "not numeric" in err
    numeric = tmp_path / "numeric.csv"
    frame.drop(columns=["species"]).to_csv(numeric, index=False)
    code, _, err = run(capsys, "solve", "cart", numeric, "--target", "f0")  # a continuous target
    assert code == 2 and "regression" in err and "cart-regressor" in err


def test_solve_text_output_and_progress_quiet_under_a_second(capsys):
    code, out, err = run(capsys, "solve", "cart", "sklearn/iris", "--depth", "2", "--progress")
    assert code == 0 and err == ""
    assert "status" in out and "|--- petal length (cm) <= 2.45" in out


# -- Ctrl-C ---------------------------------------------------------------------------------------------

def _interrupt(proc, marker, after, timeout=240):
    """Send SIGINT ``after`` seconds after stderr shows ``marker``; return (exit code, stderr)."""
    err = b""
    deadline = time.monotonic() + timeout
    while marker not in err and time.monotonic() < deadline:
        if select.select([proc.stderr], [], [], 1.0)[0]:
            err += os.read(proc.stderr.fileno(), 4096)
    assert marker in err, err.decode()
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    return proc.returncode, (err + rest).decode()


def test_ctrl_c_during_start_up_prints_one_line_and_exits_130():
    # the marker with its newline: unbuffered, print writes the text and the newline apart, and a SIGINT sent
    # between the two (a clean-clone run did) raised inside the wrapper's print, not in odtlab
    code, err = _interrupt(odtlab_process("solve", "cart", "sklearn/iris"), marker=f"{STARTED}\n".encode(),
                           after=0)
    assert code == 130 and err.strip().splitlines() == [STARTED, "odtlab: interrupted"], err


def test_ctrl_c_during_a_long_solve_prints_one_line_and_exits_130(shared_data):
    """Issue reproducer: an interrupted `odtlab solve` exited 0. The bar shows after a second of search."""
    proc = odtlab_process("solve", "branches", "branches/kr-vs-kp", "--lam", "0.0005", "--progress")
    code, err = _interrupt(proc, marker=b" it", after=0.5)  # well inside the search, not at the bar's first draw
    lines = err.replace("\r", "\n").strip().splitlines()
    assert code == 130 and lines[-1] == "odtlab: interrupted" and "Traceback" not in err, err


@pytest.mark.parametrize("where", ["datasets.fetch", "solvers.fit"])
def test_ctrl_c_in_fetch_or_validation_is_one_line(capsys, monkeypatch, where):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    module, name = where.split(".")
    monkeypatch.setattr({"datasets": datasets, "solvers": solvers}[module], name, interrupted)
    argv = ["data", "fetch", "dl/anneal"] if module == "datasets" else ["solve", "cart", "sklearn/iris"]
    code, out, err = run(capsys, *argv)
    assert code == 130 and out == "" and err == "odtlab: interrupted\n"


# -- tour ------------------------------------------------------------------------------------------------

def _notebook(path, source):
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)


def test_tour_reports_each_chapter_in_one_plain_line(tmp_path, capfd):
    _notebook(tmp_path / "00_fine.ipynb", "print(1 + 1)")
    _notebook(tmp_path / "01_peer.ipynb", "import pystreed_not_installed")
    lines = []
    failures = tour.run(folder=tmp_path, out=lines.append)
    out, err = capfd.readouterr()
    assert failures == 1 and lines[0] == f"running 2 chapters from {tmp_path}"
    assert lines[1].startswith("[ 1/2] 00_fine") and lines[1].endswith(" ok")
    assert "FAILED: missing package pystreed_not_installed: the peer solvers come with" in lines[2]
    assert "pip install" in lines[2] and "\x1b[" not in "".join(lines)
    assert lines[3] == "1 of 2 chapters ran cleanly"
    assert "without encryption" not in out + err


def test_tour_explains_missing_data_in_one_line():
    message = ("data file dl/letter.txt for \x1b[0;31m'dl/letter'\x1b[0m was not found in the search path "
               "[/x]; run `odtlab data fetch dl/letter`\n to download it")
    line = tour.explain("MissingDataError", message)
    assert line.startswith("missing data set dl/letter: run `") and "data fetch --chapters" in line
    assert "\n" not in line
    assert tour.explain("ValueError", "\x1b[0;31mbad\x1b[0m value\nmore") == "ValueError: bad value"


def test_tour_finds_the_chapters_of_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    _notebook(tmp_path / "notebooks" / "00_here.ipynb", "1")
    monkeypatch.chdir(tmp_path)
    assert tour.find_chapters() == tmp_path / "notebooks"
    with pytest.raises(tour.ChaptersNotFound, match="no chapter notebooks"):
        tour.find_chapters(tmp_path / "elsewhere")


def test_messages_name_a_command_the_shell_can_run(monkeypatch):
    """After `make` the environment is not activated: messages say .venv/bin/odtlab, or odtlab once on PATH."""
    monkeypatch.chdir(Path(sys.executable).parents[2])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert cli.command("odtlab") == os.path.relpath(Path(sys.executable).parent / "odtlab")
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    assert cli.command("odtlab") == "odtlab"


# -- Makefile ------------------------------------------------------------------------------------------

def _make(*argv, **env):
    out = subprocess.run(["make", "-n" if argv[0] != "help" else "-s", *argv], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, **env}, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_make_help_lists_every_target_a_user_runs():
    text = _make("help")
    for target in ("lab", "tour", "warmup", "test", "bench", "clean"):
        assert f"make {target} " in text
    assert ".venv/bin/odtlab" in text


def test_make_lab_starts_jupyter_as_root_and_headless_only_when_needed():
    root = os.getuid() == 0
    jupyter = [line for line in _make("lab", DISPLAY="").splitlines() if "jupyter lab" in line][0]
    assert ("--allow-root" in jupyter) == root and "--no-browser" in jupyter
    jupyter = [line for line in _make("lab", DISPLAY=":0").splitlines() if "jupyter lab" in line][0]
    assert "--no-browser" not in jupyter
    recipe = _make("lab", DISPLAY="")
    assert '".[lab,peers]"' in recipe and "odtlab warmup >" in recipe and "data fetch --chapters" in recipe
