"""The experiment runner and the table reproductions (odtlab.experiments, `odtlab reproduce`).

End to end with CART (always registered) on both backends -- local worker processes and a dask
LocalCluster of two processes on 127.0.0.1 -- including resume, the limits, a killed worker and the
table output. Tests of the other solvers' published optima assert agreement when the solver is
registered, and the "algorithm not available" marker when it is not: nothing is skipped.
"""
import dataclasses
import json
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

from odtlab import cli, solvers
from odtlab.experiments import Folds, Run, Store, grid, run_grid, run_key, split_indices
from odtlab.experiments import execute as ex_execute
from odtlab.experiments import published, reproduction, runner, tables
from odtlab.experiments.runs import canonical_dataset, load_dataset, parse_dataset


# -- helpers the worker processes import (this module is on their sys.path) ------------------------

def kill_once(marker, **params):
    """A scikit-learn CART factory whose first call kills its own process (SIGKILL), keyed by a file."""
    from sklearn.tree import DecisionTreeClassifier

    if not os.path.exists(marker):
        with open(marker, "w"):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
    return DecisionTreeClassifier(**params)


def kill_always(calls, **params):
    """A factory whose every call notes itself in ``calls`` and kills its own process (SIGKILL)."""
    with open(calls, "a") as fh:
        fh.write("x")
    os.kill(os.getpid(), signal.SIGKILL)


def slow_cart(seconds, **params):
    """scikit-learn's CART after ``seconds`` of sleep: in progress when a neighbour kills its worker."""
    from sklearn.tree import DecisionTreeClassifier

    time.sleep(seconds)
    return DecisionTreeClassifier(**params)


class _Sleeper:
    def fit(self, X, y):
        time.sleep(120)  # ignores every limit: only the watchdog can stop it
        return self


def sleeper():
    return _Sleeper()


# -- runs, keys, folds ------------------------------------------------------------------------------

def test_run_key_is_canonical_and_stable():
    a = Run("cart", "sklearn/iris", {"depth": 2, "criterion": "gini"}, "cv5", 3, 1, 10)
    b = Run("cart", "sklearn/iris", {"criterion": "gini", "depth": 2}, "cv5", 3, 1, 10.0)
    assert a.key == b.key == run_key(a)
    # a constant: the key must not change between processes, sessions, backends or releases
    assert Run("cart", "sklearn/iris", {"depth": 2}).key == "302a8c822129bee9"
    others = [a.with_(fold=2), a.with_(seed=2), a.with_(time_limit=11), a.with_(memory_limit=10**9),
              a.with_(params={"depth": 3, "criterion": "gini"}), a.with_(algorithm="sklearn-cart"),
              a.with_(dataset="sklearn/wine"), Run("cart", "sklearn/iris", {"depth": 2, "criterion": "gini"},
                                                    "cv4", 3, 1, 10)]
    assert len({r.key for r in others} | {a.key}) == len(others) + 1
    assert canonical_dataset(" dl/anneal[duplicate=2 , encoding=x] ") == "dl/anneal[duplicate=2,encoding=x]"
    assert parse_dataset("gen/random-binary[n=60,q=6,flag=true]") == ("gen/random-binary",
                                                                      {"n": 60, "q": 6, "flag": True})
    with pytest.raises(ValueError, match="fold 5"):
        Run("cart", "sklearn/iris", split="cv5", fold=5)
    with pytest.raises(ValueError, match="split"):
        Run("cart", "sklearn/iris", split="holdout")
    with pytest.raises(ValueError, match="time_limit"):
        Run("cart", "sklearn/iris", time_limit=0)
    with pytest.raises(TypeError, match="parameter"):
        Run("cart", "sklearn/iris", {"depth": object()})


def test_grid_multiplies_lists_and_keeps_tuples():
    runs = grid(["cart", "sklearn-cart"], "sklearn/iris", {"depth": [2, 3], "candidates": (8, 1, 1)}, "cv3",
                seeds=[0, 1])
    assert len(runs) == 2 * 2 * 3 * 2
    assert {r.options["candidates"] == [8, 1, 1] for r in runs} == {True}
    assert len({r.key for r in runs}) == len(runs)
    assert len(grid("cart", "sklearn/iris", [{"depth": 1}, {}])) == 2


def test_folds_are_stratified_shuffled_and_seeded():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    folds = [split_indices(y, "cv5", f, seed=0) for f in range(5)]
    test = np.concatenate([t for _, t in folds])
    assert sorted(test) == list(range(100))                      # a partition
    for train, t in folds:
        assert set(train).isdisjoint(t) and len(train) + len(t) == 100
        assert list(np.bincount(y[t])) == [10, 6, 4]             # stratified
    assert not np.array_equal(folds[0][1], np.arange(20))        # shuffled
    again = split_indices(y, "cv5", 0, seed=0)[1]
    other = split_indices(y, "cv5", 0, seed=1)[1]
    assert np.array_equal(again, folds[0][1]) and not np.array_equal(other, folds[0][1])
    small = np.array([0] * 10 + [1] * 3)                          # a class smaller than K
    tests = [split_indices(small, "cv5", f, seed=0)[1] for f in range(5)]
    assert sorted(np.concatenate(tests)) == list(range(13)) and max(map(len, tests)) - min(map(len, tests)) <= 1
    train, test = split_indices(y, "all", 0, seed=0)
    assert test is None and len(train) == 100


def test_folds_splitter_gives_the_runners_folds_to_scikit_learn():
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    y = np.repeat([0, 1, 2], [50, 30, 20])
    X = np.arange(100.0)[:, None]
    splitter = Folds(5, seed=3)
    for fold, (train, test) in enumerate(splitter.split(X, y)):
        expected = split_indices(y, "cv5", fold, seed=3)
        assert np.array_equal(train, expected[0]) and np.array_equal(test, expected[1])
    assert splitter.get_n_splits() == 5
    assert len(cross_val_score(DecisionTreeClassifier(random_state=0), X, y, cv=splitter)) == 5
    with pytest.raises(ValueError, match="at least 2 folds"):
        Folds(1)


def test_dataset_modifiers_duplicate_rows_and_encode():
    once, twice = load_dataset("sklearn/iris"), load_dataset("sklearn/iris[duplicate=2]")
    assert twice.X.shape == (300, 4) and np.array_equal(twice.X[150:], once.X) and np.array_equal(twice.y[150:],
                                                                                                     once.y)
    gen = load_dataset("gen/random-categorical[n=30,q=3,C=3,encoding=one-hot-last]")
    assert gen.X.shape == (30, 6) and set(np.unique(gen.X)) <= {0, 1}


# -- the store ---------------------------------------------------------------------------------------

def test_csv_store_keeps_last_row_per_key_and_drops_a_cut_line(tmp_path):
    store = Store(tmp_path / "s", format="csv")
    run = Run("cart", "sklearn/iris", {"depth": 2})
    row = ex_execute.execute(run)
    store.append([dict(row, status="error", message="first, failed")])
    assert store.finished() == set()                            # errors are redone
    store.append([row])
    with open(store.file, "a") as fh:                           # a crash in the middle of a line
        fh.write(run.with_(seed=9).key + ",cart,sklearn/iris")
    store.append([ex_execute.execute(run.with_(seed=1))])
    df = store.load()
    assert len(df) == 2 and store.finished() == {run.key, run.with_(seed=1).key}
    assert df.loc[df["key"] == run.key, "status"].item() == "done"
    assert df["train_accuracy"].dtype == np.float64 and str(df["splits"].dtype) == "Int64"
    assert df["optimal"].tolist() == [False, False]
    store.compact()                                             # one line per key, the cut line gone
    assert len(store.file.read_text().splitlines()) == 3 and len(store.load()) == 2


def test_parquet_store_only_with_pyarrow(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        assert Store(tmp_path).format == "csv"
        with pytest.raises(ValueError, match="pyarrow"):
            Store(tmp_path / "p", format="parquet")
        return
    store = Store(tmp_path / "p", format="parquet")
    rows = [ex_execute.execute(Run("cart", "sklearn/iris", {"depth": d})) for d in (1, 2)]
    store.append(rows[:1])
    store.append(rows[1:])
    store.compact()
    assert len(list(store.file.glob("part-*.parquet"))) == 1 and len(store.load()) == 2


# -- running grids -----------------------------------------------------------------------------------

def test_local_backend_end_to_end_and_resume(tmp_path, monkeypatch):
    runs = grid(["cart", "sklearn-cart"], ["sklearn/iris", "sklearn/wine"], {"depth": [2, 3]}, "cv3")
    df = run_grid(runs, store=tmp_path, backend="local", n_jobs=2, progress=False)
    assert list(df["key"]) == [r.key for r in runs] and set(df["status"]) == {"done"}
    assert df["train_accuracy"].between(0.5, 1).all() and df["test_accuracy"].between(0.5, 1).all()
    assert (df["n_train"] + df["n_test"]).isin([150, 178]).all()
    assert (df["depth"] <= df["params"].map(lambda p: json.loads(p)["depth"])).all()
    assert df["versions"].str.contains("odtlab=").all() and (df["seconds"] > 0).all()
    ours = df[df["algorithm"] == "cart"].reset_index(drop=True)
    peer = df[df["algorithm"] == "sklearn-cart"].reset_index(drop=True)
    assert np.allclose(ours["train_accuracy"], peer["train_accuracy"])   # same folds, same CART
    assert ours["objective"].notna().all() and peer["objective"].isna().all()

    calls = []
    monkeypatch.setattr(runner, "_run_local", lambda *a: calls.append(a))
    again = run_grid(runs, store=tmp_path, backend="local", n_jobs=2, progress=False)
    assert calls == []                                           # the second run does no work
    pd.testing.assert_frame_equal(again, df)


def test_markers_for_missing_data_and_unknown_algorithms_are_not_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    runs = [Run("cart", "dl/anneal", {"depth": 2}), Run("no-such-algorithm", "sklearn/iris"),
            Run("cart", "sklearn/iris", {"no_such_option": 1}), Run("cart", "sklearn/iris", {"depth": 2})]
    df = run_grid(runs, store=tmp_path / "s", n_jobs=1, progress=False)
    assert list(df["status"]) == ["missing_data", "unavailable", "error", "done"]
    assert "odtlab data fetch dl/anneal" in df["message"][0]
    assert "algorithm not available" in df["message"][1] and "no_such_option" in df["message"][2]
    stored = Store(tmp_path / "s").load()
    assert set(stored["status"]) == {"error", "done"}            # markers are recomputed, errors redone
    assert Store(tmp_path / "s").finished() == {runs[3].key}


@pytest.mark.jit_only  # a full CART on 8000 rows as plain Python takes minutes
def test_time_and_memory_limits_stop_the_search_and_keep_its_tree():
    data = "gen/random-continuous[n=8000,p=3]"
    runs = [Run("cart", data, {}, time_limit=0.02), Run("cart", data, {}, memory_limit=1000), Run("cart", data, {})]
    df = run_grid(runs, n_jobs=1, progress=False)
    assert list(df["status"]) == ["time_limit", "memory_limit", "done"]
    assert df["train_accuracy"].notna().all() and df.loc[1, "splits"] >= 1   # the incumbent trees
    assert df.loc[0, "splits"] < df.loc[2, "splits"] and df.loc[1, "peak_memory"] > 1000  # stopped early
    assert df.loc[0, "train_accuracy"] < df.loc[2, "train_accuracy"] == 1.0


def test_watchdog_ends_a_run_that_ignores_its_limit_and_the_pool_is_replaced(tmp_path):
    runs = [Run("test_experiments:sleeper", "sklearn/iris", time_limit=0.2)]
    runs += grid("cart", "sklearn/iris", {"depth": [1, 2]}, "cv3")
    t0 = time.perf_counter()
    df = run_grid(runs, store=tmp_path / "s", backend="local", n_jobs=2, progress=False)
    assert time.perf_counter() - t0 < 100                        # not the sleeper's 120 s
    assert df.loc[0, "status"] == "time_limit" and "killed by the watchdog" in df.loc[0, "message"]
    assert set(df["status"][1:]) == {"done"} and df["seconds"][1:].notna().all()
    assert Store(tmp_path / "s").finished() == {r.key for r in runs}


def test_watchdog_writes_its_marker_before_ending_the_worker(tmp_path, monkeypatch):
    exits = []

    def fake_exit(code):  # stops the watchdog thread instead of this process
        exits.append(code)
        threading.current_thread().stop.set()

    monkeypatch.setattr(os, "_exit", fake_exit)
    monkeypatch.setattr(ex_execute, "HARD_TIME_GRACE", 0.0)
    monkeypatch.setattr(ex_execute, "HARD_MEMORY_SLACK", 0)
    slow = Run("cart", "sklearn/iris", time_limit=0.05)
    dog = ex_execute._Watchdog(slow, str(tmp_path))
    dog.start()
    dog.join(5)
    assert exits == [ex_execute.KILLED_EXIT_CODE]
    assert ex_execute.read_killed(str(tmp_path), slow.key)["status"] == "time_limit"
    big = Run("cart", "sklearn/iris", memory_limit=2**20)
    dog = ex_execute._Watchdog(big, str(tmp_path))
    dog.start()
    ballast = np.ones(64 * 2**20 // 8)  # 64 MiB of resident memory, far above 2 x 1 MiB
    dog.join(5)
    assert ballast.sum() > 0 and exits == [ex_execute.KILLED_EXIT_CODE] * 2
    killed = ex_execute.execute(big, str(tmp_path))                   # the run, handed out again
    assert killed["status"] == "memory_limit" and "killed by the watchdog" in killed["message"]


def test_only_the_run_whose_own_process_dies_is_crashed_and_it_is_retried_next_time(tmp_path):
    calls = tmp_path / "calls"
    killer = Run("test_experiments:kill_always", "sklearn/iris", {"calls": str(calls)})
    healthy = Run("test_experiments:slow_cart", "sklearn/iris", {"seconds": 1.0, "max_depth": 2})
    store = Store(tmp_path / "s")
    (store.markers / "attempts.log").write_text((healthy.key + "\n") * 5)  # counts of an earlier run of the grid
    df = run_grid([killer, healthy], store=store, n_jobs=2, progress=False)
    assert list(df["status"]) == ["crashed", "done"]      # the neighbour of a dying worker is not crashed
    assert "worker process died" in df.loc[0, "message"]
    before = len(calls.read_text())
    assert run_grid([killer, healthy], store=store, n_jobs=2, progress=False)["status"].tolist() == ["crashed", "done"]
    assert len(calls.read_text()) > before              # crashed is tried again on the next run of the grid
    before = len(calls.read_text())
    run_grid([killer, healthy], store=store, n_jobs=2, progress=False, retry_crashed=False)
    assert len(calls.read_text()) == before             # unless the user says otherwise


def test_the_hard_time_limit_holds_for_a_single_run_with_one_job(tmp_path):
    t0 = time.perf_counter()
    df = run_grid([Run("test_experiments:sleeper", "sklearn/iris", time_limit=0.2)], store=tmp_path, n_jobs=1,
                  progress=False)
    assert time.perf_counter() - t0 < 60                        # not the sleeper's 120 s
    assert df.loc[0, "status"] == "time_limit" and "killed by the watchdog" in df.loc[0, "message"]


def test_dask_local_cluster_survives_a_killed_worker_and_local_resumes_its_store(tmp_path, monkeypatch):
    marker = tmp_path / "killed-once"
    runs = grid("cart", ["sklearn/iris", "sklearn/wine"], {"depth": [2, 3]}, "cv3")
    runs.insert(3, Run("test_experiments:kill_once", "sklearn/wine", {"marker": str(marker), "max_depth": 3}))
    df = run_grid(runs, store=tmp_path, backend="dask", n_jobs=2, progress=False)
    assert marker.exists()                                        # a worker died mid-grid ...
    assert set(df["status"]) == {"done"} and len(df) == len(runs)  # ... and its runs were redone
    assert (df["pid"] != os.getpid()).all()   # all in workers (under load the survivor may do them all)
    calls = []
    monkeypatch.setattr(runner, "_run_local", lambda *a: calls.append(a))
    again = run_grid(runs, store=tmp_path, backend="local", n_jobs=2, progress=False)
    assert calls == [] and list(again["key"]) == [r.key for r in runs]


def test_dask_cluster_whose_workers_have_neither_the_data_nor_the_markers_folder(tmp_path):
    """A loopback scheduler and worker started in a folder of their own, without ODTLAB_DATA: the driver
    sends the arrays, and the watchdog's marker reaches the driver through the scheduler."""
    import subprocess
    import sys

    from distributed import Client

    here = os.path.dirname(os.path.abspath(__file__))
    env = {k: v for k, v in os.environ.items() if k != "ODTLAB_DATA"}
    env.update(ODTLAB_CACHE=str(tmp_path / "empty-cache"), ODTLAB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(filter(None, [env.get("PYTHONPATH"), here])))
    (tmp_path / "w").mkdir()
    info = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(info)], cwd=tmp_path / "w",
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.time() + 120
        while not info.exists() and time.time() < deadline:
            time.sleep(0.2)
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                       str(info), "--nthreads", "1", "--no-dashboard", "--local-directory",
                                       str(tmp_path / "w")], cwd=tmp_path / "w", env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with Client(scheduler_file=str(info), timeout=120) as client:
            client.wait_for_workers(1, timeout=120)
            assert set(client.run(lambda: os.environ.get("ODTLAB_DATA")).values()) == {None}
            runs = grid("cart", ["dl/anneal", "branches/monk1-o"], {"depth": [2]})
            runs.append(Run("test_experiments:sleeper", "dl/anneal", time_limit=0.2))
            df = run_grid(runs, store=tmp_path / "s", backend="dask", scheduler=client, progress=False)
            assert client.status == "running"                           # the user's client stays open
        assert list(df["status"]) == ["done", "done", "time_limit"], df["message"].tolist()
        assert "killed by the watchdog" in df.loc[2, "message"] and (df["pid"] != os.getpid()).all()
        assert not list((tmp_path / "s" / "markers").glob("killed-*"))  # no marker file on the driver's disk
    finally:
        for proc in procs[::-1]:
            proc.terminate()
            proc.wait(30)


def test_scheduler_needs_the_dask_backend():
    with pytest.raises(ValueError, match="dask"):
        run_grid([], backend="local", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="backend"):
        run_grid([], backend="ray")


# -- published numbers and the comparison ------------------------------------------------------------

def test_published_cells_and_printed_precision():
    cell = published.parse_cell("0.812")
    assert published.agrees(0.81252, cell) and published.agrees(0.8119, cell)       # truncated or rounded
    assert not published.agrees(0.8114, cell) and not published.agrees(0.8131, cell)
    assert published.parse_cell("0.772 (144 s) / 0.820 (TO)").value == 0.772           # the later version
    assert published.parse_cell("TO").marker == "timeout" and not published.parse_cell("TO").finished
    assert published.parse_cell("<0.5").qualifier == "<" and not published.parse_cell("<0.5").finished
    assert published.parse_cell("5·10⁶").value == 5e6 and published.parse_cell("−1.05").value == -1.05
    assert published.parse_cell("0.936±0.008").std == 0.008
    assert published.parse_cell("(1.3%)").marker == "gap %"
    lam = {r["dataset"]: r["λ"] for r in published.BRANCHES_TABLE5}
    assert lam["monk1-f"] == "0.001" and lam["monk1-l"] == "0.01" and len(lam) == 25


def test_published_tables_are_read_from_their_data_file(tmp_path):
    assert len(published.TABLES) == 19 and published.BRANCHES_TABLE2 is published.TABLES["BRANCHES_TABLE2"]
    assert len(published.MURTREE_TABLE5) == 47 and published.DPDT_TABLE1_OPERATIONS[0]["Quant-BnB"] == "10⁶"
    with pytest.raises(AttributeError, match="NO_SUCH_TABLE"):
        published.NO_SUCH_TABLE  # noqa: B018
    (tmp_path / "t.md").write_text("# title\n\n## A\n\nwhere from\n\n| x | y |\n|---|---|\n| 1 | — |\n"
                                   "| 2 | |\n\n## EMPTY\n\nno table\n")
    assert published.read_tables(tmp_path / "t.md") == {"A": [{"x": "1", "y": "—"}, {"x": "2", "y": ""}]}


def _toy_spec():
    rows = [tables.Row("iris", "sklearn/iris", {"cart": tables.RunSpec("cart", {"depth": 2}),
                                                "ref": tables.RunSpec("sklearn-cart", {"depth": 2})},
                       {"acc": "0.96", "t": "2.0", "t ref": "1.0"}),
            tables.Row("wine", "sklearn/wine", {"cart": tables.RunSpec("cart", {"depth": 2}),
                                                "ref": tables.RunSpec("sklearn-cart", {"depth": 2})},
                       {"acc": "0.5"}),
            tables.Row("anneal", "dl/anneal", {"cart": tables.RunSpec("cart", {"depth": 2}),
                                               "ref": tables.RunSpec("no-such-peer", {"depth": 2})}, {"acc": "0.8"}),
            tables.Row("paper only", None, {}, {"acc": "0.9"}, unavailable="not shipped anywhere"),
            tables.Row("new algorithm", "sklearn/iris", {"cart": tables.RunSpec("no-such-algorithm"),
                                                         "ref": tables.RunSpec("sklearn-cart", {"depth": 2})},
                       {"acc": "0.9"})]
    columns = [tables.Column("train acc", "cart", "train_accuracy", "acc", check="paper"),
               tables.Column("time / ref", "cart", "seconds", "t", ref="ref", paper_ref="t ref"),
               tables.Column("= ref", "cart", "train_accuracy", check="run:ref")]
    return tables.TableSpec("toy", "a toy table", "tests", rows, columns, ["iris", "anneal", "paper only"],
                            time_limit=60)


def test_comparison_scores_optima_and_marks_what_has_no_number(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    spec = _toy_spec()
    rep = reproduction.reproduce(spec, n_jobs=1, out=tmp_path / "out", progress=False)
    c = rep.comparison.set_index(["row", "column"])
    iris = c.loc[("iris", "train acc")]
    assert iris["ours"] == pytest.approx(0.96) and iris["paper"] == 0.96 and iris["diff"] == pytest.approx(0)
    assert iris["agree"] is None and "not proven optimal" in iris["detail"]   # CART certifies nothing
    assert c.loc[("iris", "time / ref"), "paper"] == 2.0 and c.loc[("iris", "time / ref"), "ours"] > 0
    assert c.loc[("anneal", "train acc"), "marker"] == "missing_data"
    assert c.loc[("paper only", "train acc"), "marker"] == "missing_data"
    assert c.loc[("paper only", "train acc"), "paper"] == 0.9                  # the paper's number stays
    assert c.loc[("wine", "train acc"), "diff"] == pytest.approx(c.loc[("wine", "train acc"), "ours"] - 0.5)
    assert c.loc[("new algorithm", "train acc"), "marker"] == "unavailable"
    assert "[no data]" in rep.text and "not shipped anywhere" in rep.text and "[no algorithm]" in rep.text
    for name in ("text", "comparison", "runs"):
        assert rep.files[name].exists()
    assert rep.rows_without_data == ["anneal", "paper only"] and rep.legend in rep.text
    assert set(rep.frame(times=True).columns.get_level_values(0)) == {"time / ref"}
    assert set(rep.frame().columns.get_level_values(0)) == {"train acc", "= ref"}
    assert "anneal" not in rep.frame(with_data=True).index and rep.figure() is None

    # scoring: an optimal run agrees or differs at the printed precision; a run check compares two runs
    results = rep.runs.copy()
    results["optimal"] = True
    results.loc[results["algorithm"] == "sklearn-cart", "train_accuracy"] += 0.01
    c = reproduction.compare(spec, results).set_index(["row", "column"])
    assert c.loc[("iris", "train acc"), "agree"] == True                      # noqa: E712
    assert c.loc[("wine", "train acc"), "agree"] == False                     # noqa: E712
    assert c.loc[("iris", "= ref"), "agree"] == False                         # noqa: E712
    assert c.loc[("anneal", "= ref"), "marker"] == "missing_data"
    quick = reproduction.compare(spec, results, quick=True)
    assert set(quick["row"]) == {"iris", "anneal", "paper only"}
    text = reproduction.render(spec, reproduction.compare(spec, results))
    assert "DIFF" in text and "ok" in text


def _check_rows(name, labels, algorithm):
    """Reproduce some rows of a paper table with only ``algorithm``'s runs: every objective of it that is
    checked against the paper agrees when it is registered, and carries the "algorithm not available"
    marker when it is not."""
    spec = tables.get(name)
    row = spec.row(labels[0])
    runs = [k for k, v in row.runs.items() if v.algorithm == algorithm]
    columns = [c for c in spec.columns if c.check == "paper" and c.run in runs]
    rows = [dataclasses.replace(r, runs={k: r.runs[k] for k in runs}) for r in spec.rows if r.label in labels]
    spec = dataclasses.replace(spec, rows=rows, columns=columns, quick=labels, quick_skip=())
    rep = reproduction.reproduce(spec, quick=True, n_jobs=1, progress=False)
    assert len(rep.comparison) == len(labels) * len(columns) >= len(labels)
    if algorithm in solvers.available():
        assert rep.comparison["agree"].eq(True).all(), rep.comparison[["row", "column", "ours", "paper", "detail"]]
    else:
        assert rep.comparison["marker"].eq("unavailable").all() and "[no algorithm]" in rep.text
    return rep


@pytest.mark.slow  # benchmark data; with a cold numba cache it compiles the solver's kernel first
def test_branches_reproduces_published_optima(shared_data):
    rep = _check_rows("branches-table2", ["monk1-o", "monk3-o", "car-eval-o", "mushroom-o", "balance-o"], "branches")
    assert "brute force 0.6716" in rep.text                                   # the erratum is shown


@pytest.mark.slow
def test_murtree_reproduces_published_optima(shared_data):
    _check_rows("murtree-table5", ["anneal d=2", "anneal d=3", "anneal d=4"], "murtree")


@pytest.mark.slow
def test_quantbnb_reproduces_published_optimal_accuracy(shared_data):
    _check_rows("quantbnb-table3", ["bank d=2"], "quantbnb")


def test_quick_mode_marks_rows_without_data_and_figures_draw(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    nothing = pd.DataFrame(columns=["key"])
    for name in tables.names():
        spec = tables.get(name)
        c = reproduction.compare(spec, nothing, quick=True)
        assert set(c["row"]) == {r.label for r in spec.rows if r.label in spec.quick or not reproduction.has_data(r)}
        assert c["ours"].isna().all()                            # no run, so no number of ours
        if spec.figure is not None:                              # the paper's points alone
            assert len(spec.figure(c, nothing).axes) >= 1
            plt.close("all")
    figures = [n for n in tables.names() if tables.get(n).figure is not None]
    assert {"branches-lambda", "murtree-table4", "quantbnb-table2", "dpdt-table1"} <= set(figures)


def test_every_table_builds_and_quick_rows_are_rows():
    for name in tables.names():
        spec = tables.get(name)
        labels = [r.label for r in spec.rows]
        assert len(labels) == len(set(labels)) and set(spec.quick) <= set(labels) and spec.quick
        assert spec.time_limit is not None
        for row in spec.rows:
            for col in spec.columns:
                if col.paper and not col.paper_ref and col.paper in row.paper and row.paper[col.paper]:
                    published.parse_cell(row.paper[col.paper])       # every printed cell reads
    assert reproduction.table_runs("quantbnb-table2", quick=True)               # runs are built, data or not


# -- the command line --------------------------------------------------------------------------------

def test_cli_reproduce_list_and_quick_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "empty"))   # every row marked, nothing fitted
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    assert cli.main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in tables.names())
    assert cli.main(["reproduce", "quantbnb-table2", "--quick", "--jobs", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "[no data]" in out and "htru" in out and "casp" in out
    assert (tmp_path / "quantbnb-table2.txt").read_text().strip() in out
    assert cli.main(["reproduce", "no-such-table"]) == 2
    assert "unknown table" in capsys.readouterr().err
    assert cli.main(["reproduce"]) == 2
    assert cli.main(["reproduce", "quantbnb-table2", "--backend", "local", "--scheduler", "tcp://x:1"]) == 2
