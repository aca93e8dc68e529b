"""odtlab.datasets: every shipped benchmark file loads with the sizes its source records, the generated
and scikit-learn sets load, encodings reproduce the published files, and errors say what to do.

Benchmark files come from ODTLAB_DATA through conftest's ``shared_data`` fixture, which fails (not
skips) in CI when the folder is missing.
"""
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from odtlab import datasets
from odtlab.datasets import ChecksumError, MissingDataError, UnknownDatasetError

MANIFEST = {e["name"]: e for e in json.loads(datasets.MANIFEST.read_text())["datasets"]}


@pytest.fixture(autouse=True)
def _empty_cache(monkeypatch, tmp_path):
    """Isolate every test from the user's cache and mirror settings."""
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLAB_MIRROR", raising=False)


@pytest.fixture
def root(shared_data):
    """The shared benchmark folder (conftest's ``shared_data``) as an absolute path."""
    return Path(os.path.abspath(shared_data))


# Sizes of the source repositories' files (docs/data.md):
# name -> (n, features, classes) ; quantbnb: (n_train, n_test, features, classes or None)
EXPECTED = {
    "dl/anneal": (812, 93, 2), "dl/audiology": (216, 148, 2), "dl/australian-credit": (653, 125, 2),
    "dl/breast-wisconsin": (683, 120, 2), "dl/diabetes": (768, 112, 2), "dl/german-credit": (1000, 112, 2),
    "dl/heart-cleveland": (296, 95, 2), "dl/hepatitis": (137, 68, 2), "dl/hypothyroid": (3247, 88, 2),
    "dl/ionosphere": (351, 445, 2), "dl/kr-vs-kp": (3196, 73, 2), "dl/lymph": (148, 68, 2),
    "dl/mushroom": (8124, 119, 2), "dl/pendigits": (7494, 216, 2), "dl/primary-tumor": (336, 31, 2),
    "dl/segment": (2310, 235, 2), "dl/soybean": (630, 50, 2), "dl/tic-tac-toe": (958, 27, 2),
    "dl/vote": (435, 48, 2), "dl/zoo-1": (101, 36, 2),
    "branches/monk1-o": (124, 6, 2), "branches/monk1-l": (124, 11, 2), "branches/monk1-f": (124, 11, 2),
    "branches/monk1": (124, 17, 2), "branches/monk2-o": (169, 6, 2), "branches/monk2-f": (169, 11, 2),
    "branches/monk2": (169, 17, 2), "branches/monk3-o": (122, 6, 2), "branches/monk3-f": (122, 11, 2),
    "branches/monk3": (122, 17, 2),
    "branches/tic-tac-toe-o": (958, 9, 2), "branches/tic-tac-toe-f": (958, 18, 2),
    "branches/tic-tac-toe": (958, 27, 2), "branches/car-eval-o": (1728, 6, 4),
    "branches/car-eval-f": (1728, 15, 4), "branches/car-eval": (1728, 21, 4),
    "branches/nursery-o": (12960, 8, 5), "branches/nursery-f": (12960, 19, 5), "branches/nursery": (12960, 27, 5),
    "branches/mushroom-o": (8124, 22, 2), "branches/mushroom-f": (8124, 95, 2), "branches/mushroom": (8124, 117, 2),
    "branches/kr-vs-kp": (3196, 73, 2), "branches/zoo-o": (101, 16, 7), "branches/zoo-f": (101, 20, 7),
    "branches/zoo": (101, 36, 7), "branches/lymph-o": (148, 18, 4), "branches/lymph-f": (148, 41, 4),
    "branches/lymph": (148, 59, 4), "branches/balance-o": (625, 4, 3), "branches/balance-f": (625, 16, 3),
    "branches/balance": (625, 20, 3),
    "quantbnb/bank": (1097, 275, 4, 2), "quantbnb/bidding": (5056, 1265, 9, 2), "quantbnb/page": (4378, 1095, 10, 5),
    "quantbnb/raisin": (720, 180, 7, 2), "quantbnb/rice": (3048, 762, 7, 2), "quantbnb/segment": (1848, 462, 18, 7),
    "quantbnb/wilt": (4339, 500, 5, 2), "quantbnb/concrete": (824, 206, 8, None),
    "quantbnb/fish": (726, 182, 6, None), "quantbnb/qsar": (436, 110, 8, None),
    "gosdt/monk1": (124, 17, 2), "gosdt/monk2": (169, 17, 2), "gosdt/tic-tac-toe": (958, 18, 2),
}

DATA_GLOBS = ("murtree-data/DL/*.txt", "pydl8.5/*.txt", "branches/preprocessed/*.txt", "quant-bnb/*/*.json",
              "gosdt-guesses/*.csv")


def _check_kind(ds):
    if ds.kind == "binary":
        assert ds.X.dtype == np.int64 and set(np.unique(ds.X)) <= {0, 1}
        assert np.all(ds.n_categories == 2)
    elif ds.kind == "categorical":
        assert ds.X.dtype == np.int64 and ds.X.min() >= 0
        assert ds.n_categories.dtype == np.int64 and np.all(ds.X < ds.n_categories)
    else:
        assert ds.X.dtype == np.float64 and np.isfinite(ds.X).all() and ds.n_categories is None
    if ds.task == "classification":
        assert ds.y.dtype == np.int64 and ds.y.min() >= 0 and ds.y.max() < ds.n_classes
    else:
        assert ds.y.dtype == np.float64 and ds.n_classes is None


def test_every_shared_file_maps_to_a_manifest_name_that_loads(root):
    by_path = {e["path"]: name for name, e in MANIFEST.items()}
    files = sorted(str(p.relative_to(root)) for g in DATA_GLOBS for p in root.glob(g)
                   if p.name != "LICENSE.txt")
    assert len(files) >= 60  # 19 DL + zoo-1 + 31 Branches + 10 Quant-BnB + 3 GOSDT in the data folder
    unmapped = [f for f in files if f not in by_path]
    assert not unmapped, f"data files without a manifest entry: {unmapped}"
    for f in files:
        name = by_path[f]
        e = MANIFEST[name]
        ds = datasets.load(name)
        assert Path(ds.source) == root / f
        assert (ds.n_samples, ds.n_features) == (e["n"], e["n_features"]), name
        assert (ds.kind, ds.task, ds.n_classes) == (e["kind"], e["task"], e["n_classes"]), name
        _check_kind(ds)
        exp = EXPECTED[name]
        if name.startswith("quantbnb/"):
            assert (ds.n_samples, ds.X_test.shape[0], ds.n_features, ds.n_classes) == exp, name
            assert ds.X_test.shape[1] == ds.n_features and ds.y_test.shape[0] == ds.X_test.shape[0]
            assert ds.y.ndim == 1
        else:
            assert (ds.n_samples, ds.n_features, ds.n_classes) == exp, name
            assert ds.X_test is None and ds.y_test is None


def test_named_examples(root):
    anneal = datasets.load("dl/anneal")
    assert (anneal.n_samples, anneal.n_features, anneal.kind, anneal.n_classes) == (812, 93, "binary", 2)
    balance = datasets.load("branches/balance-o")
    assert (balance.n_samples, balance.n_classes, balance.kind) == (625, 3, "categorical")
    assert balance.n_categories.tolist() == [5, 5, 5, 5]
    mushroom = datasets.load("branches/mushroom-o")
    assert mushroom.n_categories.min() == 1  # a single-category feature is kept
    bank = datasets.load("quantbnb/bank")
    assert (bank.n_samples, bank.X_test.shape[0], bank.n_features) == (1097, 275, 4)
    assert bank.class_names == ["0", "1"]
    segment = datasets.load("quantbnb/segment")
    assert segment.class_names == ["6", "3", "2", "7", "1", "4", "5"]  # the JSON's Class order
    assert set(np.unique(segment.y)) == set(range(7))
    gosdt = datasets.load("gosdt/monk1")
    assert gosdt.feature_names[0] == "head_shape_round" and gosdt.n_features == 17


@pytest.mark.parametrize("stem", ["monk1", "monk2", "monk3", "tic-tac-toe", "car-eval", "nursery", "mushroom",
                                  "zoo", "lymph", "balance"])
def test_one_hot_of_ordinal_files_reproduces_the_branches_files(root, stem):
    """Branches' full and -f files are one_hot(-o codes) with no / the first category dropped."""
    for suffix, enc in (("", "one-hot"), ("-f", "one-hot-first")) + ((("-l", "one-hot-last"),)
                                                                    if stem == "monk1" else ()):
        encoded = datasets.load(f"branches/{stem}-o", encoding=enc)
        published = datasets.load(f"branches/{stem}{suffix}")
        assert encoded.kind == "binary" and encoded.encoding == enc == published.encoding
        np.testing.assert_array_equal(encoded.X, published.X)
        np.testing.assert_array_equal(encoded.y, published.y)
        assert len(encoded.encoder) == encoded.n_features


def test_midpoints_binarisation_matches_quantbnb_table6(root):
    """Table 6's "equiv. conv." column is sum over features of (u(f) - 1) on the training data."""
    for name, width in {"bank": 4078, "raisin": 5032}.items():
        ds = datasets.load(f"quantbnb/{name}", encoding="midpoints")
        assert ds.n_features == width and ds.kind == "binary"
        assert ds.X_test.shape == (datasets.load(f"quantbnb/{name}").X_test.shape[0], width)
    q = datasets.load("quantbnb/bank", encoding="quantiles", n_quantiles=4)
    assert q.n_features <= 4 * 3 and q.feature_names[0].startswith("x0 > ")


def test_regression_and_frames(root):
    concrete = datasets.load("quantbnb/concrete")
    assert concrete.task == "regression" and concrete.y.shape == (824,) and concrete.y_test.shape == (206,)
    df = concrete.frame(test=True)
    assert df.shape == (206, 9) and df["label"].dtype == np.float64
    car = datasets.load("branches/car-eval-o").frame()
    assert isinstance(car["x0"].dtype, pd.CategoricalDtype) and list(car.columns)[-1] == "label"
    assert isinstance(car["label"].dtype, pd.CategoricalDtype) and car.shape == (1728, 7)
    with pytest.raises(ValueError, match="no test split"):
        datasets.load("dl/vote").frame(test=True)


SKLEARN = {"iris": (150, 4, 3), "wine": (178, 13, 3), "breast_cancer": (569, 30, 2), "digits": (1797, 64, 10)}


@pytest.mark.parametrize("name", sorted(SKLEARN))
def test_sklearn_sets(name):
    ds = datasets.load(f"sklearn/{name}")
    assert (ds.n_samples, ds.n_features, ds.n_classes) == SKLEARN[name]
    assert ds.kind == "continuous" and ds.source == "sklearn"
    _check_kind(ds)


def test_sklearn_regression():
    ds = datasets.load("sklearn/diabetes")
    assert (ds.task, ds.X.shape, ds.y.dtype, ds.n_classes) == ("regression", (442, 10), np.float64, None)


@pytest.mark.parametrize("name", [n for n in datasets.names("gen")])
def test_every_generated_set_loads_deterministically(name):
    a, b = datasets.load(name), datasets.load(name)
    _check_kind(a)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.source == "generated"
    info = datasets.info(name)
    assert (info["n"], info["n_features"], info["kind"]) == (a.n_samples, a.n_features, a.kind)


def test_worked_examples_match_the_papers():
    xor = datasets.load("gen/xor")
    assert xor.X.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]] and xor.y.tolist() == [0, 1, 1, 0]
    patho = datasets.load("gen/dpdt-pathological")
    assert patho.n_samples == 10_000 and abs((patho.y == 0).mean() - 0.2592) < 1e-12  # DPDT's pathological set
    x = datasets.load("gen/xor-dpdt", n=500, seed=3)
    assert np.array_equal(x.y, (np.floor(2 * x.X[:, 0]) + np.floor(2 * x.X[:, 1])) % 2)
    mt = datasets.load("gen/murtree-example")
    assert mt.feature_names == ["a", "b", "c"] and np.flatnonzero(mt.y).tolist() == [2, 5]  # D+ = {3, 6}
    qb = datasets.load("gen/quantbnb-example")
    assert len(np.unique(qb.X[:, 0])) == 5 and qb.class_names == [1, 2]  # u(1) = 5
    toy = datasets.load("gen/encoding-toy")
    assert toy.n_categories.tolist() == [4] and toy.y.tolist() == [1, 0, 1, 0]
    assert toy.frame()["X"].tolist() == [1, 2, 3, 4]
    hot = datasets.load("gen/encoding-toy", encoding="one-hot-last")
    assert hot.feature_names == ["X=1", "X=2", "X=3"] and hot.X.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1],
                                                                             [0, 0, 0]]


def test_random_generators_parameters():
    rc = datasets.load("gen/random-categorical", n=50, q=3, C=[2, 3, 5], K=3, seed=1)
    assert rc.X.shape == (50, 3) and rc.n_categories.tolist() == [2, 3, 5] and rc.n_classes == 3
    assert np.all(rc.X < rc.n_categories)
    assert not np.array_equal(rc.X, datasets.load("gen/random-categorical", n=50, q=3, C=[2, 3, 5], seed=2).X)
    rb = datasets.load("gen/random-binary", n=30, q=5, K=4, seed=7)
    assert rb.X.shape == (30, 5) and rb.n_classes == 4
    ties = datasets.load("gen/random-continuous", n=100, p=3, distinct=4)
    assert all(len(np.unique(ties.X[:, j])) <= 4 for j in range(3))
    reg = datasets.load("gen/random-continuous", task="regression", m=2)
    assert reg.task == "regression" and reg.y.shape == (200, 2) and reg.frame().columns[-1] == "label_1"
    binar = datasets.load("gen/random-continuous", n=40, p=2, encoding="midpoints")
    assert binar.n_features == 2 * 39  # u - 1 columns for u distinct values
    with pytest.raises(TypeError, match="allowed: n, q, K, seed"):
        datasets.load("gen/random-binary", depth=3)
    with pytest.raises(ValueError, match="K must be an integer >= 2"):
        datasets.load("gen/random-binary", K=1)
    with pytest.raises(ValueError, match="C must be an int or a list of q=2"):
        datasets.load("gen/random-categorical", q=2, C=[2, 2, 2])
    with pytest.raises(TypeError, match="takes no parameters"):
        datasets.load("sklearn/iris", n=3)


def test_unknown_encoding_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: ordinal, one-hot, one-hot-first, one-hot-last"):
        datasets.load("gen/encoding-toy", encoding="onehot")
    with pytest.raises(ValueError, match="allowed: raw, midpoints, quantiles"):
        datasets.load("sklearn/iris", encoding="ordinal")
    with pytest.raises(ValueError, match="allowed: binary"):
        datasets.load("gen/xor", encoding="midpoints")
    with pytest.raises(TypeError, match="n_quantiles only applies"):
        datasets.load("sklearn/iris", encoding="midpoints", n_quantiles=3)


def test_names_and_collections(root):
    everything = datasets.names()
    assert set(MANIFEST) <= set(everything) and "sklearn/iris" in everything and "gen/xor" in everything
    assert all(n.startswith("quantbnb/") for n in datasets.names("quantbnb"))
    available = datasets.names(available_only=True)  # offline (conftest): only what is on disk
    assert "dl/anneal" in available and "gen/xor" in available
    assert "dl/letter" not in everything  # dropped: no verified copy of its file
    with pytest.raises(ValueError, match="collections: dl, branches, quantbnb, gosdt, sklearn, gen"):
        datasets.names("uci")
    meta = datasets.info("dl/anneal")
    assert meta["available"] and meta["on_disk"] and Path(meta["file"]) == root / "murtree-data/DL/anneal.txt"
    assert meta["url"].startswith("https://raw.githubusercontent.com/MurTree/murtree-data/65d54d1")
    assert len(meta["sha256"]) == 64 and meta["format"] == "dl" and meta["license"] == "MIT"


def test_manifest_is_consistent():
    for name, e in MANIFEST.items():
        assert name.startswith(e["collection"] + "/")
        assert e["format"] in ("dl", "branches", "quantbnb-json", "gosdt-csv")
        assert e["url"].startswith("https://raw.githubusercontent.com/") and "/" not in e["path"][:1]
        assert len(e["sha256"]) == 64 and int(e["sha256"], 16) >= 0 and e["bytes"] > 0
        if e["collection"] == "quantbnb":
            assert e["task"] in ("classification", "regression")


def test_manifest_matches_the_published_checksums(root):
    """Every entry's sha256 and size are those of the file at its pinned commit (the folder's SHA256SUMS)."""
    sums = dict(line.split()[::-1] for line in (root / "SHA256SUMS").read_text().splitlines())
    for e in MANIFEST.values():
        assert sums["./" + e["path"]] == e["sha256"], e["name"]
        assert (root / e["path"]).stat().st_size == e["bytes"], e["name"]


def test_manifest_is_package_data_read_through_importlib_resources():
    import importlib.resources

    assert datasets.MANIFEST == importlib.resources.files("odtlab") / "data" / "manifest.json"
    assert datasets.MANIFEST.is_file() and set(MANIFEST) == set(datasets._manifest())


def test_unknown_name_suggests_close_matches():
    with pytest.raises(UnknownDatasetError) as info:
        datasets.load("anneal")
    assert isinstance(info.value, KeyError)
    message = str(info.value)
    assert message.startswith("unknown data set 'anneal'; did you mean dl/anneal")
    assert "collections dl, branches, quantbnb, gosdt, sklearn, gen" in message
    with pytest.raises(UnknownDatasetError, match="did you mean branches/car-eval-o"):
        datasets.load("branches/careval-o")


def test_missing_file_names_file_search_path_and_command(monkeypatch, tmp_path):
    empty, cache = tmp_path / "empty", tmp_path / "cache"
    empty.mkdir()
    monkeypatch.setenv("ODTLAB_DATA", str(empty))
    monkeypatch.setenv("ODTLAB_CACHE", str(cache))
    monkeypatch.setenv("ODTLAB_OFFLINE", "1")
    assert datasets.data_paths() == [empty, cache]
    with pytest.raises(MissingDataError) as info:
        datasets.load("dl/anneal")
    assert isinstance(info.value, FileNotFoundError)
    message = str(info.value)
    for part in ("murtree-data/DL/anneal.txt", str(empty), str(cache), "data fetch dl/anneal`"):
        assert part in message
    assert datasets.names("dl", available_only=True) == []


def test_shell_command_runs_in_the_users_shell(monkeypatch, tmp_path):
    """``odtlab`` when this environment's script is on PATH, else the script's path, else ``python -m``."""
    script = Path(sys.prefix) / "bin" / "odtlab"
    if script.is_file():
        monkeypatch.setenv("PATH", str(script.parent))
        assert datasets.shell_command("data fetch X") == "odtlab data fetch X"
        monkeypatch.setenv("PATH", str(tmp_path))
        monkeypatch.chdir(tmp_path)
        assert datasets.shell_command("data fetch X") == f"{script} data fetch X"
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert datasets.shell_command("data list") == f"{sys.executable} -m odtlab.cli data list"


def test_search_path_order(root, monkeypatch, tmp_path):
    """The first root holding the file wins; the shared folder is used for what the first lacks."""
    first = tmp_path / "first"
    (first / "murtree-data/DL").mkdir(parents=True)
    shutil.copy(root / "murtree-data/DL/vote.txt", first / "murtree-data/DL/vote.txt")
    monkeypatch.setenv("ODTLAB_DATA", os.pathsep.join([str(first), str(root)]))
    assert Path(datasets.load("dl/vote").source) == first / "murtree-data/DL/vote.txt"
    assert Path(datasets.load("dl/hepatitis").source) == root / "murtree-data/DL/hepatitis.txt"


def test_corrupt_file_raises_checksum_error(root, monkeypatch, tmp_path):
    src = root / "murtree-data/DL/hepatitis.txt"
    bad = tmp_path / "root/murtree-data/DL/hepatitis.txt"
    bad.parent.mkdir(parents=True)
    data = bytearray(src.read_bytes())
    data[2] = ord("1") if data[2] == ord("0") else ord("0")  # flip one feature value
    bad.write_bytes(bytes(data))
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "root"))
    with pytest.raises(ChecksumError) as info:
        datasets.load("dl/hepatitis")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert str(bad) in message and MANIFEST["dl/hepatitis"]["sha256"] in message
    assert info.value.actual != info.value.expected and info.value.actual in message
    with pytest.raises(ChecksumError):  # the cached digest still rejects it
        datasets.load("dl/hepatitis")


# -- corrupt files: a FormatError naming the file and the field --------------------------------------

def _quantbnb(tmp_path, root, **changes):
    d = json.loads((root / MANIFEST["quantbnb/bank"]["path"]).read_text())
    d.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del d[key]
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(d))
    return path


@pytest.mark.parametrize("changes, field, problem", [
    (dict(treetype="X"), "treetype", "must be 'C' (classification) or 'R' (regression); got 'X'"),
    (dict(Xtest=[[0.5, 0.5, 0.5]]), "Xtest", "has 3 columns, Xtrain has 4"),
    (dict(Ytrain=None), "Ytrain", "missing (a Quant-BnB file has keys Xtrain, Ytrain"),
    (dict(Ytest=[0, 1]), "Ytest", "has shape (2,); expected 275 rows, one per row of Xtest"),
    (dict(Ytrain=[7] * 1097), "Ytrain", "class labels must be integers 0..1 (C=2)"),
    (dict(Xtrain=[[0.1, 0.2], [0.3]]), "Xtrain", "must be a list of rows of numbers, all of the same length"),
    (dict(Xtrain=[[0.1, None, 0.2, 0.3]]), "Xtrain", "holds NaN or infinite values"),
    (dict(C="2"), "C", "must be a positive integer"),
])
def test_corrupt_quantbnb_files_name_the_file_and_the_field(root, tmp_path, changes, field, problem):
    path = _quantbnb(tmp_path, root, **changes)
    with pytest.raises(datasets.FormatError) as info:
        datasets.read_file(path, "quantbnb-json")
    assert isinstance(info.value, ValueError) and info.value.field == field
    assert str(info.value).startswith(f"{path}: {field}: {problem}")


@pytest.mark.parametrize("fmt, text, field, problem", [
    ("dl", "", "rows", "the file is empty"),
    ("dl", "0 1 0\n1 0 1 1\n", "rows", "rows of different lengths"),
    ("dl", "0 1 0\n1 0 x\n", "values", "a DL8.5/MurTree file holds space-separated integers only"),
    ("dl", "0 1 2\n1 0 1\n", "features (columns 2..)", "column 1 is not binary"),
    ("dl", "0\n1\n", "columns", "a DL8.5/MurTree row holds a label and at least one feature"),
    ("branches", "0 1 0\n1 0 0.5\n", "values", "a Branches file holds space-separated integers only"),
    ("gosdt-csv", "a,b,label\n0,3,1\n1,0,0\n", "features (all columns but the last)", "column 1 ('b') is not binary"),
    ("gosdt-csv", "", "rows", "the file is empty"),
])
def test_corrupt_text_files_name_the_file_and_the_field(tmp_path, fmt, text, field, problem):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(datasets.FormatError) as info:
        datasets.read_file(path, fmt)
    assert info.value.field == field and str(info.value).startswith(f"{path}: {field}: {problem}")
    assert "\n" not in str(info.value)


def test_categorical_branches_file_with_a_negative_code(tmp_path):
    path = tmp_path / "bad-o.txt"
    path.write_text("0 2 1\n-1 0 0\n")
    with pytest.raises(datasets.FormatError, match=r"bad-o.txt: features \(all columns but the last\): column 0 "
                                                   r"holds negative codes"):
        datasets.read_file(path, "branches", kind="categorical")


def test_a_file_whose_size_differs_from_the_manifest_is_a_format_error(root, monkeypatch, tmp_path):
    """Checked after the checksum, so only a manifest that disagrees with its own file gets here."""
    entry = dict(MANIFEST["quantbnb/bank"], n_features=5)
    monkeypatch.setitem(datasets._manifest(), "quantbnb/bank", entry)
    with pytest.raises(datasets.FormatError, match=r"bank.json: n_features: the file gives 4, the manifest 5"):
        datasets.load("quantbnb/bank")


def test_read_file_reads_a_users_file_in_a_benchmark_format(root):
    ds = datasets.read_file(root / MANIFEST["branches/monk1-o"]["path"], "branches", kind="categorical")
    assert ds.name == "monk1-o" and ds.kind == "categorical" and ds.n_samples == MANIFEST["branches/monk1-o"]["n"]
    with pytest.raises(ValueError, match="format must be one of dl, branches, quantbnb-json, gosdt-csv"):
        datasets.read_file("x", "arff")


# -- what the chapters use -------------------------------------------------------------------------

CHAPTER_SOURCES = Path(__file__).resolve().parents[1] / "notebooks" / "src"


def test_chapter_datasets_cover_every_literal_load_and_table_in_the_chapters():
    """An independent regex pass over the chapter sources: each quoted manifest name, and each data set of
    each reproduction table a chapter runs, is in ``chapter_datasets()`` (the newcomer test checks the same
    at run time: the tour downloads nothing that ``--chapters`` did not)."""
    import re

    from odtlab.experiments import tables
    from odtlab.experiments.reproduction import table_runs

    used = set(datasets.chapter_datasets(quick=True))
    text = "\n".join(p.read_text() for p in sorted(CHAPTER_SOURCES.glob("[0-9][0-9]_*.py")))
    quoted = set(re.findall(r"""["']([a-z]+/[\w.+-]+)(?:\[[^]"']*\])?["']""", text))
    assert {q for q in quoted if q in MANIFEST} <= used
    named_tables = {t for t in tables.names() if f'"{t}"' in text}
    assert len(named_tables) >= 8
    for t in named_tables:
        assert {run.dataset.split("[")[0] for run in table_runs(t, True).values()} <= used, t
    assert {"quantbnb/page", "quantbnb/rice", "quantbnb/segment"} <= used  # chapter 08: names() filtered by kind
    assert "quantbnb/concrete" in used and "branches/monk1-f" in used  # f"quantbnb/{name}", f"branches/monk1-{s}"


def test_chapter_datasets_rules_on_a_made_up_chapter_folder(tmp_path):
    (tmp_path / "00_a.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "source": ["%matplotlib inline\n", "d = datasets.load('dl/vote')"]},
        {"cell_type": "markdown", "source": ["'dl/anneal' in prose is not a load"]},
        {"cell_type": "code", "source": ["for s in ('l', 'f'):\n", "    datasets.load(f'branches/monk1-{s}')"]},
        {"cell_type": "code", "source": ["xs = [n for n in datasets.names('quantbnb') "
                                         "if datasets.info(n)['task'] == 'regression']"]},
        {"cell_type": "code", "source": ["rep = run('branches-table2')"]}]}))
    got = set(datasets.chapter_datasets(tmp_path, quick=True))
    from odtlab.experiments.reproduction import table_runs

    table = {r.dataset.split("[")[0] for r in table_runs("branches-table2", True).values()}
    regression = {n for n, e in MANIFEST.items() if e["collection"] == "quantbnb" and e["task"] == "regression"}
    assert got == {"dl/vote", "branches/monk1-l", "branches/monk1-f"} | regression | table
    with pytest.raises(FileNotFoundError, match="no chapters .* in "):
        datasets.chapter_datasets(tmp_path / "nothing")
