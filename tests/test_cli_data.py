"""`odtlab data list|info|fetch` through odtlab.cli.main, with a loopback HTTP mirror for fetch."""
import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from odtlab import cli, datasets


pytestmark = pytest.mark.usefixtures("isolated_cache")


@pytest.fixture
def root(shared_data):
    """The shared benchmark folder (conftest's ``shared_data``) as an absolute path."""
    return Path(os.path.abspath(shared_data))


@pytest.fixture
def mirror(root, serve):
    """The shared data folder served on loopback."""
    return serve(root).url


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json(root, capsys):
    code, out, err = run(capsys, "data", "list", "--json")
    assert code == 0 and err == ""
    rows = {r["name"]: r for r in json.loads(out)}
    assert set(rows) == set(datasets.names())
    assert rows["dl/anneal"] == {**rows["dl/anneal"], "kind": "binary", "n": 812, "n_features": 93,
                                 "n_classes": 2, "available": True, "on_disk": True}
    assert rows["quantbnb/bank"]["n_test"] == 275 and rows["gen/xor"]["n"] == 4


def test_list_table_and_collection(root, capsys):
    code, out, _ = run(capsys, "data", "list", "--collection", "branches")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["name", "kind", "task", "n", "test", "features", "classes",
                                              "on", "disk"]
    assert len(lines) == 1 + len(datasets.names("branches"))
    balance = next(line.split() for line in lines if line.startswith("branches/balance-o "))
    assert balance == ["branches/balance-o", "categorical", "classification", "625", "4", "3", "yes"]
    code, out, _ = run(capsys, "data", "list", "--available", "--collection", "dl")
    assert "dl/anneal" in out


def test_list_available_offline_and_online(capsys, tmp_path, monkeypatch):
    """Available = loadable now: on disk, or downloadable on first use unless ODTLAB_OFFLINE is set."""
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    code, out, _ = run(capsys, "data", "list", "--available", "--collection", "dl")
    assert code == 0 and out.splitlines()[1:] == []
    monkeypatch.setenv("ODTLAB_OFFLINE", "0")
    code, out, _ = run(capsys, "data", "list", "--available", "--collection", "dl")
    assert len(out.splitlines()) == 1 + len(datasets.names("dl")) and out.splitlines()[1].endswith(" no")


def test_info(root, capsys):
    code, out, _ = run(capsys, "data", "info", "quantbnb/bank", "--json")
    meta = json.loads(out)
    assert code == 0 and meta["available"] and meta["format"] == "quantbnb-json" and meta["n_test"] == 275
    code, out, _ = run(capsys, "data", "info", "dl/vote")
    assert code == 0 and any(line.split() == ["on_disk", "yes"] for line in out.splitlines())


def test_fetch_through_loopback_mirror(root, mirror, tmp_path, capsys):
    code, out, err = run(capsys, "data", "fetch", "branches/balance-o", "--mirror", mirror, "--dest", str(tmp_path))
    path = Path(out.strip())
    assert code == 0 and err == f"odtlab: downloading branches/balance-o (6 KiB) from {mirror}/" \
                                f"branches/preprocessed/balance-o.txt into {tmp_path}\n"
    assert path == tmp_path / "branches/preprocessed/balance-o.txt"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == datasets.info("branches/balance-o")["sha256"]


def test_fetch_several_names_a_collection_and_the_chapters_in_one_process(root, mirror, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    code, out, err = run(capsys, "data", "fetch", "gosdt/", "dl/vote", "dl/anneal", "--mirror", mirror)
    assert code == 0 and out == "odtlab: 5 data sets ready (5 downloaded into " + str(tmp_path / "cache") + ")\n"
    assert err.count("odtlab: downloading ") == 5
    code, out, err = run(capsys, "data", "fetch", "--chapters", "--mirror", mirror)
    chapters = datasets.chapter_datasets()
    assert code == 0 and out.startswith(f"odtlab: {len(chapters)} data sets ready (")
    assert err.count("odtlab: downloading ") == len(set(chapters) - {"dl/vote", "dl/anneal"})
    assert all(datasets.info(n)["on_disk"] for n in chapters)
    code, out, err = run(capsys, "data", "fetch", "--all", "--mirror", mirror)
    assert code == 0 and all(datasets.info(n)["on_disk"] for n in datasets.expand(["dl", "branches", "quantbnb"]))
    code, out, err = run(capsys, "data", "fetch", "--all", "--mirror", mirror)
    assert code == 0 and err == "" and "(0 downloaded" in out  # everything already there


def test_errors_are_one_line_with_exit_code_2(capsys, tmp_path):
    code, out, err = run(capsys, "data", "info", "dl/anneel")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("odtlab: error: unknown data set 'dl/anneel'")
    assert "dl/anneal" in err
    code, _, err = run(capsys, "data", "fetch", "gen/xor", "--dest", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "generated; there is nothing to fetch" in err
    code, _, err = run(capsys, "data", "fetch")
    assert code == 2 and "give data set names, a collection (dl/), --all or --chapters" in err
    code, _, err = run(capsys, "data", "list", "--collection", "uci")
    assert code == 2 and err.startswith("odtlab: error: unknown collection 'uci'")


def test_usage_errors_return_2(capsys):
    assert cli.main([]) == 2
    assert cli.main(["data"]) == 2
    assert cli.main(["data", "frobnicate"]) == 2
    assert cli.main(["data", "list", "--help"]) == 0
    capsys.readouterr()


def test_data_commands_work_without_the_solvers(monkeypatch, capsys):
    """`data` never imports odtlab.solvers (the solve command imports it only when it runs)."""
    monkeypatch.setitem(sys.modules, "odtlab.solvers", None)  # any import of it raises ImportError
    code, out, _ = run(capsys, "data", "info", "gen/xor", "--json")
    assert code == 0 and json.loads(out)["n"] == 4
