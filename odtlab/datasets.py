"""Benchmark data sets: a registry, loaders for every benchmark format, and fetch with checksums.

Names are namespaced by collection::

    dl/<name>         DL8.5 / MurTree binarised sets (murtree-data/DL, pydl8.5 zoo-1); label first
    branches/<name>   the Branches paper's UCI sets under the paper's names (monk1-o, car-eval-f, ...);
                      label last; "-o" files are ordinal (categorical), the others 0/1
    quantbnb/<name>   Quant-BnB's continuous sets (JSON, min-max scaled, fixed train/test split)
    gosdt/<name>      GOSDT's demo CSVs (header, label last)
    sklearn/<name>    iris, wine, breast_cancer, digits, diabetes (bundled with scikit-learn, offline)
    gen/<name>        generated on the fly: the papers' worked examples and seeded random sets

File-backed sets are listed in the package's manifest, ``odtlab/data/manifest.json`` (read with
:mod:`importlib.resources`, so it works from a wheel): path relative to a data root, public source URL at
a pinned commit, sha256 and size in bytes. A file is looked up in each root of :func:`data_paths` in
turn: ``$ODTLAB_DATA`` (an ``os.pathsep``-separated list), then the user cache (``$ODTLAB_CACHE``, default
``$XDG_CACHE_HOME/odtlab/data`` = ``~/.cache/odtlab/data``). A file that is in neither is downloaded into
the cache on first use (one line on stderr, a progress bar for a large file) and its sha256 checked;
``ODTLAB_OFFLINE=1`` turns that off (a missing file then raises :class:`MissingDataError` naming the file
and the command that fetches it), and ``ODTLAB_MIRROR=URL`` downloads from a mirror laid out like a data
root instead of the public sources. :func:`fetch` downloads explicitly, :func:`chapter_datasets` lists
what the notebook chapters use.

``load(name, encoding=...)`` returns a :class:`Dataset`. Encodings: categorical data ``"ordinal"``
(default) or ``"one-hot"`` / ``"one-hot-first"`` / ``"one-hot-last"`` (Branches' full / ``-f`` / ``-l``
files are exactly these encodings of the ``-o`` files); continuous data ``"raw"`` (default) or
``"midpoints"`` / ``"quantiles"`` through :class:`odtlab.encoders.ThresholdBinarizer` (fitted on the
training part only).
"""
from __future__ import annotations

import ast
import difflib
import functools
import glob
import hashlib
import importlib.resources
import inspect
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from odtlab.encoders import ThresholdBinarizer, check_binary, check_codes, one_hot

__all__ = [
    "Dataset",
    "load",
    "names",
    "info",
    "fetch",
    "fetch_many",
    "expand",
    "offline",
    "read_file",
    "chapter_datasets",
    "shell_command",
    "data_paths",
    "cache_dir",
    "collections",
    "DataError",
    "UnknownDatasetError",
    "MissingDataError",
    "ChecksumError",
    "DownloadError",
    "FormatError",
]

ENV_DATA = "ODTLAB_DATA"
ENV_CACHE = "ODTLAB_CACHE"
ENV_MIRROR = "ODTLAB_MIRROR"
ENV_OFFLINE = "ODTLAB_OFFLINE"
MANIFEST = importlib.resources.files("odtlab") / "data" / "manifest.json"
DOWNLOAD_TIMEOUT = 60  # seconds without data before a download is abandoned
DOWNLOAD_DEADLINE = 600  # seconds for a whole file, however slowly the bytes arrive
SIZE_SLACK = 1.1  # a download may exceed the manifest's ``bytes`` by 10 % (+ 64 KiB) before it is cut off
PROGRESS_BYTES = 2**20  # files from this size on get a progress bar

KINDS = ("categorical", "binary", "continuous")
TASKS = ("classification", "regression")
ENCODINGS = {
    "categorical": ("ordinal", "one-hot", "one-hot-first", "one-hot-last"),
    "continuous": ("raw", "midpoints", "quantiles"),
    "binary": ("binary",),
}
_ONE_HOT_DROP = {"one-hot": None, "one-hot-first": "first", "one-hot-last": "last"}


# --------------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------------

class DataError(Exception):
    """Base class of the data layer's errors (the CLI prints their message on one line)."""


class UnknownDatasetError(DataError, KeyError):
    """An unknown data set name. The message suggests close matches and lists the collections."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name
        self.message = message

    def __str__(self):  # KeyError would print the repr of the message
        return self.message


class MissingDataError(DataError, FileNotFoundError):
    """A manifest file that is in none of the data roots. The message says how to fetch it."""

    def __init__(self, name, path, roots, message):
        super().__init__(message)
        self.name = name
        self.filename = str(path)
        self.roots = [str(r) for r in roots]
        self.message = message

    def __str__(self):
        return self.message


class ChecksumError(DataError, ValueError):
    """A file whose sha256 differs from the manifest's."""

    def __init__(self, file, expected, actual, hint=""):
        self.file, self.expected, self.actual = str(file), expected, actual
        super().__init__(f"checksum mismatch for {file}: expected sha256 {expected}, got {actual}" + hint)


class DownloadError(DataError, OSError):
    """A download that failed (HTTP error, unreachable host, timeout, too large, too slow)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class FormatError(DataError, ValueError):
    """A data file that does not follow its format; the message names the file and the field."""

    def __init__(self, file, field, problem):
        self.file, self.field = str(file), field
        super().__init__(f"{file}: {field}: {problem}")


# --------------------------------------------------------------------------------------------------
# the Dataset
# --------------------------------------------------------------------------------------------------

@dataclass(repr=False)
class Dataset:
    """A loaded data set.

    ``X`` is int64 for categorical (codes ``0..C_j-1``) and binary (0/1) data, float64 for continuous
    data. ``y`` holds int64 class codes ``0..K-1`` (``class_names[k]`` is the original label of code
    ``k``) for classification, float64 targets (``(n,)`` or ``(n, m)``) for regression. ``n_categories``
    is int64 per feature (2 for binary features) and None for continuous data. ``X_test`` / ``y_test``
    hold the source's fixed test split, or None. ``source`` is the file path, ``"sklearn"`` or
    ``"generated"``; ``encoding`` says how ``X`` encodes the features. ``categories[j]`` lists the
    original value of each code of a categorical feature (None means the codes themselves), and
    ``encoder`` is the :class:`~odtlab.encoders.ThresholdBinarizer` or the one-hot ``mapping``
    (``(feature, category)`` per column) that produced ``X`` from the source, or None. ``description``
    is a short note on the source and ``params`` the parameters a ``gen/`` set was generated with.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list
    n_categories: np.ndarray | None
    kind: str
    task: str
    class_names: list | None = None
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    source: str = "generated"
    encoding: str = "raw"
    categories: list | None = None
    encoder: object = None
    description: str = ""
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}")
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}; got {self.task!r}")
        if self.X.ndim != 2 or self.X.shape[0] != self.y.shape[0]:
            raise ValueError(f"{self.name}: X {self.X.shape} and y {self.y.shape} do not match")
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(f"{self.name}: {len(self.feature_names)} feature names for "
                             f"{self.X.shape[1]} features")
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError(f"{self.name}: X_test and y_test must both be set or both be None")

    def _repr_html_(self):
        import pandas as pd

        from odtlab.reprs import card

        classes = None if self.class_names is None else ", ".join(map(str, self.class_names[:10])) + (
            " …" if len(self.class_names) > 10 else "")
        rows = [("task", self.task), ("features", f"{self.n_features} {self.kind} ({self.encoding})"),
                ("samples", self.n_samples), ("classes", classes),
                ("test split", None if self.X_test is None else f"{self.X_test.shape[0]} rows"),
                ("source", self.source), ("description", self.description or None)]
        head = pd.DataFrame(self.X[:5], columns=self.feature_names)
        head["y"] = self.y[:5] if self.y.ndim == 1 else list(self.y[:5])
        return card(f"Dataset {self.name}", rows, head.to_html(max_cols=12, border=0))

    @property
    def n_samples(self) -> int:
        """Number of training samples (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features (columns of ``X``)."""
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int | None:
        """Number of classes (``len(class_names)``); None for regression."""
        if self.task != "classification":
            return None
        return len(self.class_names)

    def frame(self, test: bool = False) -> pd.DataFrame:
        """The training (or, with ``test=True``, the test) part as a pandas DataFrame.

        Categorical features get a pandas Categorical dtype whose categories are the original values;
        binary features stay int64 0/1 and continuous ones float64. The target is the ``"label"``
        column (Categorical of ``class_names`` for classification; ``label_0 .. label_{m-1}`` for a
        multi-output regression).
        """
        X, y = (self.X_test, self.y_test) if test else (self.X, self.y)
        if X is None:
            raise ValueError(f"{self.name} has no test split")
        cols = {}
        for j, name in enumerate(self.feature_names):
            if self.kind == "categorical":
                cats = (self.categories[j] if self.categories is not None
                        else list(range(int(self.n_categories[j]))))
                cols[name] = pd.Categorical.from_codes(X[:, j], categories=cats)
            else:
                cols[name] = X[:, j]
        df = pd.DataFrame(cols)
        if self.task == "classification":
            df["label"] = pd.Categorical.from_codes(y, categories=self.class_names)
        elif y.ndim == 1:
            df["label"] = y
        else:
            for k in range(y.shape[1]):
                df[f"label_{k}"] = y[:, k]
        return df

    def __repr__(self):
        what = f"{self.n_classes} classes" if self.task == "classification" else "regression"
        test = f", test {self.X_test.shape[0]}" if self.X_test is not None else ""
        return (f"Dataset({self.name!r}: {self.n_samples} x {self.n_features} {self.kind}, {what}, "
                f"encoding={self.encoding!r}{test}, source={self.source!r})")


# --------------------------------------------------------------------------------------------------
# manifest, search path, checksums
# --------------------------------------------------------------------------------------------------

_ENTRY_KEYS = ("name", "collection", "format", "path", "url", "sha256", "bytes", "kind", "task")


@functools.lru_cache(maxsize=1)
def _manifest() -> dict:
    """The manifest's entries by name (read once per process); every entry has a sha256 and a size."""
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    entries = {}
    for e in data["datasets"]:
        missing = [k for k in _ENTRY_KEYS if e.get(k) is None]
        if missing:
            raise RuntimeError(f"manifest entry {e.get('name')!r} lacks {', '.join(missing)}")
        if e["name"] in entries:
            raise RuntimeError(f"duplicate name {e['name']!r} in the manifest")
        entries[e["name"]] = e
    return entries


def cache_dir() -> Path:
    """The user cache root: ``$ODTLAB_CACHE``, else ``$XDG_CACHE_HOME/odtlab/data`` (``~/.cache``)."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "odtlab" / "data"


def data_paths() -> list[Path]:
    """The roots searched for data files, in order: the ``$ODTLAB_DATA`` entries, then the user cache."""
    roots = [Path(p).expanduser() for p in os.environ.get(ENV_DATA, "").split(os.pathsep) if p]
    return [Path(os.path.abspath(r)) for r in roots + [cache_dir()]]


def offline() -> bool:
    """True when ``$ODTLAB_OFFLINE`` is set to anything but ``""``/``"0"``: missing files are not downloaded."""
    return os.environ.get(ENV_OFFLINE, "") not in ("", "0")


def shell_command(args: str = "", name: str = "odtlab") -> str:
    """``NAME ARGS`` spelled so that it runs in the user's shell (for messages that say what to run).

    ``NAME`` when the one on PATH is this environment's; else the path of this environment's script
    (relative when under the current folder, e.g. ``.venv/bin/odtlab`` after ``make``); else, for odtlab,
    ``python -m odtlab.cli`` with this interpreter.
    """
    script = Path(sys.prefix) / (f"Scripts/{name}.exe" if os.name == "nt" else f"bin/{name}")
    on_path = shutil.which(name)
    if on_path and script.is_file() and os.path.samefile(on_path, script):
        program = name
    elif script.is_file():
        rel = os.path.relpath(script)
        program = rel if not rel.startswith("..") else str(script)
    else:
        program = f"{sys.executable} -m odtlab.cli" if name == "odtlab" else name
    return f"{program} {args}".rstrip()


def _find(entry) -> Path | None:
    for root in data_paths():
        p = root / entry["path"]
        if p.is_file():
            return p
    return None


_DIGESTS: dict = {}  # (resolved path, size, mtime_ns) -> sha256, so each file is hashed once per process


def _sha256_file(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def _verify(path: Path, entry):
    actual = _sha256_file(path)
    if actual != entry["sha256"]:
        raise ChecksumError(path, entry["sha256"], actual,
                            f"; the file is corrupt or a different version: delete it, or run "
                            f"`{shell_command('data fetch ' + entry['name'] + ' --force')}`")


# --------------------------------------------------------------------------------------------------
# file formats
# --------------------------------------------------------------------------------------------------

def _read_int_table(path: Path, what: str) -> np.ndarray:
    """A whitespace-separated integer table with at least one feature column besides the label."""
    try:
        table = pd.read_csv(path, sep=r"\s+", header=None, dtype=np.int64)
    except pd.errors.EmptyDataError:
        raise FormatError(path, "rows", f"the file is empty; a {what} file has one instance per line") from None
    except pd.errors.ParserError as exc:
        raise FormatError(path, "rows", f"rows of different lengths ({' '.join(str(exc).split())})") from None
    except (ValueError, TypeError) as exc:
        raise FormatError(path, "values", f"a {what} file holds space-separated integers only "
                                          f"({' '.join(str(exc).split())})") from None
    if table.shape[1] < 2:
        raise FormatError(path, "columns", f"a {what} row holds a label and at least one feature; "
                                           f"got {table.shape[1]} column")
    return table.to_numpy()


def _checked(path, field, check, *args, **kwargs):
    """``check(*args, **kwargs)`` with its ValueError / TypeError re-raised as a FormatError of ``field``."""
    try:
        return check(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        raise FormatError(path, field, str(exc)) from None


def _class_codes(labels):
    classes, y = np.unique(labels, return_inverse=True)
    return y.astype(np.int64).reshape(-1), classes.tolist()


def _load_dl(entry, path):
    """DL8.5 / MurTree format: one instance per line, label first, then 0/1 features."""
    A = _read_int_table(path, "DL8.5/MurTree")
    X = _checked(path, "features (columns 2..)", check_binary, A[:, 1:])
    y, classes = _class_codes(A[:, 0])
    return dict(X=X, y=y, feature_names=[f"x{j}" for j in range(X.shape[1])],
                n_categories=np.full(X.shape[1], 2, dtype=np.int64), kind="binary",
                task="classification", class_names=classes, encoding="binary")


def _load_branches(entry, path):
    """Branches' preprocessed files: space-separated ints, label last (-o files: ordinal codes).

    For ``-o`` files ``n_categories[j] = max code + 1`` computed from the file; a feature with a single
    category (mushroom-o) is kept, the solvers decide what to do with it.
    """
    A = _read_int_table(path, "Branches")
    y, classes = _class_codes(A[:, -1])
    if entry["kind"] == "categorical":
        X = _checked(path, "features (all columns but the last)", check_codes, A[:, :-1])
        C = X.max(axis=0) + 1
    else:
        X = _checked(path, "features (all columns but the last)", check_binary, A[:, :-1])
        C = np.full(X.shape[1], 2, dtype=np.int64)
    return dict(X=X, y=y, feature_names=[f"x{j}" for j in range(X.shape[1])],
                n_categories=C.astype(np.int64), kind=entry["kind"], task="classification",
                class_names=classes, encoding=entry["encoding"])


_QUANTBNB_KEYS = ("Xtrain", "Ytrain", "Xtest", "Ytest", "C", "treetype")


def _json_matrix(d, key, path, columns=None):
    """``d[key]`` as a finite float64 2-D array (with ``columns`` columns, when given)."""
    try:
        A = np.asarray(d[key], dtype=np.float64)
    except (ValueError, TypeError):
        raise FormatError(path, key, "must be a list of rows of numbers, all of the same length") from None
    if A.ndim != 2 or A.shape[0] == 0:
        raise FormatError(path, key, f"must be a non-empty list of rows; got shape {A.shape}")
    if columns is not None and A.shape[1] != columns:
        raise FormatError(path, key, f"has {A.shape[1]} columns, Xtrain has {columns}")
    if not np.isfinite(A).all():
        raise FormatError(path, key, "holds NaN or infinite values")
    return A


def _quantbnb_targets(d, key, C, treetype, path, rows):
    """``d[key]`` as class codes 0..C-1 (treetype C; one-hot rows accepted) or float targets (treetype R)."""
    try:
        Y = np.asarray(d[key], dtype=np.float64)
    except (ValueError, TypeError):
        raise FormatError(path, key, "must be a list of numbers or of rows of numbers") from None
    if Y.ndim not in (1, 2) or Y.shape[0] != rows:
        raise FormatError(path, key, f"has shape {Y.shape}; expected {rows} rows, one per row of "
                                     f"X{key[1:]}")
    if not np.isfinite(Y).all():
        raise FormatError(path, key, "holds NaN or infinite values")
    if treetype == "R":
        return Y[:, 0].copy() if Y.ndim == 2 and Y.shape[1] == 1 else Y
    if Y.ndim == 2:  # one-hot rows (the Julia solver's input); stored files use label codes
        if Y.shape[1] != C or not np.all((Y == 0) | (Y == 1)) or not np.all(Y.sum(axis=1) == 1):
            raise FormatError(path, key, f"is 2-D but not one-hot over C={C} classes")
        return Y.argmax(axis=1).astype(np.int64)
    if not np.all(Y == np.round(Y)) or Y.min() < 0 or Y.max() >= C:
        raise FormatError(path, key, f"class labels must be integers 0..{C - 1} (C={C})")
    return Y.astype(np.int64)


def _load_quantbnb(entry, path):
    """Quant-BnB JSON: keys Xtrain, Ytrain, Xtest, Ytest, C, N, F, treetype ('C'/'R'), Class, Xmax, Xmin.

    X is already min-max scaled to about [1e-4, 1] (this changes no optimal tree up to a relabelling of
    thresholds). Classification Y is stored as label codes 0..C-1 (one-hot rows are also accepted) and
    ``Class[k]`` is the original class of code k; regression Y is ``(n, targets)``, flattened when there
    is one target (and still scaled, as in the paper's experiments).
    """
    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError(path, "JSON", f"not a JSON file ({exc})") from None
    if not isinstance(d, dict):
        raise FormatError(path, "top level", f"must be a JSON object with keys {', '.join(_QUANTBNB_KEYS)}")
    for key in _QUANTBNB_KEYS:
        if key not in d:
            raise FormatError(path, key, f"missing (a Quant-BnB file has keys {', '.join(_QUANTBNB_KEYS)})")
    tt, C = d["treetype"], d["C"]
    if tt not in ("C", "R"):
        raise FormatError(path, "treetype", f"must be 'C' (classification) or 'R' (regression); got {tt!r}")
    if not isinstance(C, int) or isinstance(C, bool) or C < 1:
        raise FormatError(path, "C", f"must be a positive integer (classes, or 1 for regression); got {C!r}")
    X = _json_matrix(d, "Xtrain", path)
    X_test = _json_matrix(d, "Xtest", path, columns=X.shape[1])
    y = _quantbnb_targets(d, "Ytrain", C, tt, path, rows=X.shape[0])
    y_test = _quantbnb_targets(d, "Ytest", C, tt, path, rows=X_test.shape[0])
    task = "classification" if tt == "C" else "regression"
    class_names = None
    if task == "classification":
        names_ = d.get("Class")
        class_names = [str(c) for c in names_] if isinstance(names_, list) and len(names_) == C \
            else list(range(C))
    return dict(X=X, y=y, X_test=X_test, y_test=y_test,
                feature_names=[f"x{j}" for j in range(X.shape[1])], n_categories=None,
                kind="continuous", task=task, class_names=class_names, encoding="raw")


def _load_gosdt(entry, path):
    """GOSDT CSV: a header row, 0/1 features, label in the last column."""
    try:
        table = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise FormatError(path, "rows", "the file is empty; a GOSDT CSV has a header row") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise FormatError(path, "rows", f"not a CSV table ({' '.join(str(exc).split())})") from None
    if table.shape[1] < 2 or table.shape[0] == 0:
        raise FormatError(path, "columns", f"a GOSDT CSV has a header, rows, features and a label column; "
                                           f"got {table.shape[0]} rows x {table.shape[1]} columns")
    X = _checked(path, "features (all columns but the last)", check_binary, table.iloc[:, :-1].to_numpy(),
                 list(table.columns[:-1]))
    y, classes = _class_codes(table.iloc[:, -1].to_numpy())
    return dict(X=X, y=y, feature_names=[str(c) for c in table.columns[:-1]],
                n_categories=np.full(X.shape[1], 2, dtype=np.int64), kind="binary",
                task="classification", class_names=classes, encoding="binary")


_READERS = {"dl": _load_dl, "branches": _load_branches, "quantbnb-json": _load_quantbnb,
            "gosdt-csv": _load_gosdt}


# --------------------------------------------------------------------------------------------------
# scikit-learn bundled sets
# --------------------------------------------------------------------------------------------------

# name -> (loader name in sklearn.datasets, task, n, p, K)
_SKLEARN = {
    "iris": ("load_iris", "classification", 150, 4, 3),
    "wine": ("load_wine", "classification", 178, 13, 3),
    "breast_cancer": ("load_breast_cancer", "classification", 569, 30, 2),
    "digits": ("load_digits", "classification", 1797, 64, 10),
    "diabetes": ("load_diabetes", "regression", 442, 10, None),
}


def _load_sklearn(short):
    import sklearn.datasets

    loader, task, *_ = _SKLEARN[short]
    bunch = getattr(sklearn.datasets, loader)()
    X = np.asarray(bunch.data, dtype=np.float64)
    if task == "classification":
        y = np.asarray(bunch.target, dtype=np.int64)
        class_names = [c.item() if isinstance(c, np.generic) else c for c in bunch.target_names]
    else:
        y = np.asarray(bunch.target, dtype=np.float64)
        class_names = None
    return Dataset(name=f"sklearn/{short}", X=X, y=y, feature_names=[str(f) for f in bunch.feature_names],
                   n_categories=None, kind="continuous", task=task, class_names=class_names,
                   source="sklearn", encoding="raw", description=f"sklearn.datasets.{loader}()")


# --------------------------------------------------------------------------------------------------
# generated sets
# --------------------------------------------------------------------------------------------------

def _binary_set(name, X, y, names, description, params=None):
    X = np.asarray(X, dtype=np.int64)
    return Dataset(name=name, X=X, y=np.asarray(y, dtype=np.int64), feature_names=names,
                   n_categories=np.full(X.shape[1], 2, dtype=np.int64), kind="binary",
                   task="classification", class_names=[0, 1], encoding="binary",
                   description=description, params=params or {})


def _gen_xor():
    """XOR on two binary features, 4 points: y = x1 XOR x2 (a Branches worked example; optimum needs depth 2)."""
    X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    return _binary_set("gen/xor", X, [0, 1, 1, 0], ["X1", "X2"], _gen_xor.__doc__)


def _check_int(name, value, low):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _continuous_set(name, X, y, names, description, params, class_names=(0, 1)):
    return Dataset(name=name, X=np.asarray(X, dtype=np.float64), y=np.asarray(y, dtype=np.int64),
                   feature_names=names, n_categories=None, kind="continuous", task="classification",
                   class_names=list(class_names), encoding="raw", description=description, params=params)


def _gen_xor_dpdt(n=10_000, seed=0):
    """DPDT Definition 5.3: X ~ U([0,1]^2), y = (floor(2 x0) + floor(2 x1)) mod 2 (a 2x2 checkerboard).

    Drawn as ``default_rng(seed).uniform(size=(n, 2))``; with n = 10^4 and seed 0 (1), CART at depth 2
    gets 0.5272 (0.5028) training accuracy.
    """
    n = _check_int("n", n, 1)
    X = np.random.default_rng(seed).uniform(size=(n, 2))
    y = (np.floor(2 * X[:, 0]) + np.floor(2 * X[:, 1])) % 2
    return _continuous_set("gen/xor-dpdt", X, y, ["x0", "x1"], _gen_xor_dpdt.__doc__,
                           dict(n=n, seed=seed))


def _gen_dpdt_pathological(n=10_000, seed=42):
    """DPDT Figure 1 (reference code's version, docs/errata.md DPDT D4): X ~ U([0,1]^2) via default_rng(42), and
    y = 1 iff (x0<.5 & x1<.5) | (x0>=.5 & x1>=.5) | (x0<.25 & x1>=.5) | (x0>=.75 & x1<.5).

    Class 0 is the two rectangles [.25,.5)x[.5,1) and [.5,.75)x[0,.5) (25.92% of the default sample).
    CART at depth 3 gets 0.7555; a depth-3 tree (root x0 <= .5) is perfect; depth 2 cannot be.
    """
    n = _check_int("n", n, 1)
    X = np.random.default_rng(seed).uniform(size=(n, 2))
    x0, x1 = X[:, 0], X[:, 1]
    y = (((x0 < .5) & (x1 < .5)) | ((x0 >= .5) & (x1 >= .5)) | ((x0 < .25) & (x1 >= .5))
         | ((x0 >= .75) & (x1 < .5)))
    return _continuous_set("gen/dpdt-pathological", X, y, ["x0", "x1"], _gen_dpdt_pathological.__doc__,
                           dict(n=n, seed=seed))


def _gen_dpdt_example():
    """A DPDT worked example: six points (x0, x1; y), hand-checkable. CART's depth-2 tree gets 4/6 and
    DPDT with budget (3,) finds root x0 <= 0.5 then x1 <= 1.5 on both sides: 6/6."""
    X = [[0, 0], [3, 1], [1, 3], [1, 0], [0, 3], [1, 2]]
    return _continuous_set("gen/dpdt-example", X, [0, 1, 0, 1, 1, 0], ["x0", "x1"],
                           _gen_dpdt_example.__doc__, {})


def _gen_murtree_example():
    """A MurTree worked example: 6 instances, binary features a, b, c. Leaf cost 2; the best depth-2 tree has
    1 error (root a, left child b), greedy CART's depth-2 tree has 2, and depth 3 reaches 0."""
    X = [[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 1, 1], [0, 0, 1], [1, 0, 1]]
    return _binary_set("gen/murtree-example", X, [0, 0, 1, 0, 0, 1], ["a", "b", "c"],
                       _gen_murtree_example.__doc__)


def _gen_quantbnb_example():
    """Quant-BnB Appendix A.1/A.2 (Table 4; docs/errata.md Quant-BnB Q2 corrects the printed W0 row for j = 2):
    n = 6 samples, 3 continuous features, labels {1, 2} (codes 0, 1; class_names [1, 2]).

    Feature 1 has a tie (samples 3 and 4 at 3), so u(1) = 5. The depth-2 optimum has loss 1
    (e.g. root x1 < 2.5, then x2 < 0.5 on the left and x2 < 2.5 on the right).
    """
    X = np.array([[1, 2, 3, 3, 4, 5], [0, 1, 2, 3, 4, 5], [0, 0, 3, 3, 5, 5]], dtype=np.float64).T
    return _continuous_set("gen/quantbnb-example", X, [0, 1, 0, 1, 0, 1], ["x1", "x2", "x3"],
                           _gen_quantbnb_example.__doc__, {}, class_names=(1, 2))


def _categorical_set(name, codes, y, C, categories, names, class_names, description, params=None):
    return Dataset(name=name, X=np.asarray(codes, dtype=np.int64), y=np.asarray(y, dtype=np.int64),
                   feature_names=names, n_categories=np.asarray(C, dtype=np.int64), kind="categorical",
                   task="classification", class_names=list(class_names), encoding="ordinal",
                   categories=categories, description=description, params=params or {})


def _gen_encoding_toy():
    """Branches Appendix C, corrected (docs/errata.md Branches C2): one feature X with 4 categories {1,2,3,4}, one
    point each, y = 1 iff X in {1, 3}. Ordinal: 1 split (H = 1 - lambda, 1 iteration); one-hot
    (full or drop-last): 2 splits (1 - 2 lambda)."""
    return _categorical_set("gen/encoding-toy", [[0], [1], [2], [3]], [1, 0, 1, 0], [4], [[1, 2, 3, 4]],
                            ["X"], [0, 1], _gen_encoding_toy.__doc__)


def _gen_encoding_toy_multiclass():
    """Branches Appendix C, corrected example (b) (docs/errata.md Branches C2): one ternary feature X in {1,2,3} and Y = X (3 classes).
    Ordinal: 1 split; one-hot: 2 splits."""
    return _categorical_set("gen/encoding-toy-multiclass", [[0], [1], [2]], [0, 1, 2], [3], [[1, 2, 3]],
                            ["X"], [1, 2, 3], _gen_encoding_toy_multiclass.__doc__)


def _random_labels(rng, n, K):
    K = _check_int("K", K, 2)
    return rng.integers(0, K, size=n), list(range(K))


def _gen_random_categorical(n=100, q=4, C=3, K=2, seed=0):
    """Random categorical data: q features, feature j uniform on 0..C_j-1 (C an int or a list of q
    ints, C_j >= 1), labels uniform on 0..K-1; ``default_rng(seed)``. n_categories is C (a category
    may be unobserved in a small sample)."""
    n, q = _check_int("n", n, 1), _check_int("q", q, 1)
    Cs = [C] * q if isinstance(C, (int, np.integer)) else list(C)
    if len(Cs) != q:
        raise ValueError(f"C must be an int or a list of q={q} ints; got {C!r}")
    Cs = [_check_int("C", c, 1) for c in Cs]
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, c, size=n) for c in Cs])
    y, classes = _random_labels(rng, n, K)
    return _categorical_set("gen/random-categorical", X, y, Cs, None, [f"x{j}" for j in range(q)], classes,
                            _gen_random_categorical.__doc__, dict(n=n, q=q, C=C, K=K, seed=seed))


def _gen_random_binary(n=100, q=8, K=2, seed=0):
    """Random binary data: q fair-coin features and labels uniform on 0..K-1; ``default_rng(seed)``."""
    n, q = _check_int("n", n, 1), _check_int("q", q, 1)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, q))
    y, classes = _random_labels(rng, n, K)
    ds = _binary_set("gen/random-binary", X, y, [f"x{j}" for j in range(q)], _gen_random_binary.__doc__,
                     dict(n=n, q=q, K=K, seed=seed))
    return replace(ds, class_names=classes)


def _gen_random_continuous(n=200, p=4, K=2, seed=0, task="classification", distinct=None, m=1):
    """Random continuous data: p features uniform on [0, 1]; ``default_rng(seed)``.

    ``distinct=u`` draws each feature from the grid {0, 1/(u-1), ..., 1} instead, so values tie (Quant-BnB
    works on ranks; u(f) < n). Classification labels are uniform on 0..K-1; regression targets are
    standard normal, shape (n,) or (n, m) with m > 1.
    """
    n, p = _check_int("n", n, 1), _check_int("p", p, 1)
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    rng = np.random.default_rng(seed)
    if distinct is None:
        X = rng.uniform(size=(n, p))
    else:
        u = _check_int("distinct", distinct, 1)
        X = rng.integers(0, u, size=(n, p)) / max(u - 1, 1)
    params = dict(n=n, p=p, K=K, seed=seed, task=task, distinct=distinct, m=m)
    names = [f"x{j}" for j in range(p)]
    if task == "classification":
        y, classes = _random_labels(rng, n, K)
        return _continuous_set("gen/random-continuous", X, y, names, _gen_random_continuous.__doc__,
                               params, class_names=classes)
    m = _check_int("m", m, 1)
    y = rng.normal(size=n if m == 1 else (n, m))
    return Dataset(name="gen/random-continuous", X=X, y=y, feature_names=names, n_categories=None,
                   kind="continuous", task="regression", encoding="raw",
                   description=_gen_random_continuous.__doc__, params=params)


_GENERATORS = {
    "xor": _gen_xor,
    "xor-dpdt": _gen_xor_dpdt,
    "dpdt-pathological": _gen_dpdt_pathological,
    "dpdt-example": _gen_dpdt_example,
    "murtree-example": _gen_murtree_example,
    "quantbnb-example": _gen_quantbnb_example,
    "encoding-toy": _gen_encoding_toy,
    "encoding-toy-multiclass": _gen_encoding_toy_multiclass,
    "random-categorical": _gen_random_categorical,
    "random-binary": _gen_random_binary,
    "random-continuous": _gen_random_continuous,
}


def _call_generator(short, params):
    fn = _GENERATORS[short]
    sig = inspect.signature(fn)
    try:
        sig.bind(**params)
    except TypeError:
        allowed = ", ".join(sig.parameters) or "none"
        raise TypeError(f"gen/{short} got unexpected parameters {sorted(params)}; "
                        f"allowed: {allowed}") from None
    return fn(**params)


# --------------------------------------------------------------------------------------------------
# registry: names, info
# --------------------------------------------------------------------------------------------------

def collections() -> list[str]:
    """The collection prefixes, in listing order."""
    seen = []
    for e in _manifest().values():
        if e["collection"] not in seen:
            seen.append(e["collection"])
    return seen + ["sklearn", "gen"]


def names(collection: str | None = None, available_only: bool = False) -> list[str]:
    """All data set names (optionally of one collection; optionally only those loadable now).

    ``sklearn/`` and ``gen/`` names are always available; a file-backed name is available when its
    file is found on the search path or, unless :func:`offline`, can be downloaded on first use (the
    checksum is checked at load time, not here).
    """
    cols = collections()
    if collection is not None and collection not in cols:
        raise ValueError(f"unknown collection {collection!r}; collections: {', '.join(cols)}")
    out = []
    for name, e in _manifest().items():
        if collection in (None, e["collection"]) and (not available_only or _available(e)):
            out.append(name)
    if collection in (None, "sklearn"):
        out += [f"sklearn/{s}" for s in _SKLEARN]
    if collection in (None, "gen"):
        out += [f"gen/{s}" for s in _GENERATORS]
    return out


def _unknown(name) -> UnknownDatasetError:
    everything = names()
    tail = name.split("/")[-1]
    close = [n for n in everything if n.split("/", 1)[1] == tail]
    close += [c for c in difflib.get_close_matches(name, everything, n=5, cutoff=0.6) if c not in close]
    tails = {n.split("/", 1)[1] for n in everything}
    for t in difflib.get_close_matches(tail, sorted(tails), n=3, cutoff=0.75):
        close += [n for n in everything if n.split("/", 1)[1] == t and n not in close]
    hint = f"; did you mean {', '.join(close[:6])}" if close else ""
    return UnknownDatasetError(
        name, f"unknown data set {name!r}{hint}. Names are <collection>/<name> with collections "
              f"{', '.join(collections())}; `odtlab data list` shows them all")


def _split(name):
    if not isinstance(name, str):
        raise TypeError(f"a data set name is a string such as 'dl/anneal'; got {name!r}")
    if name in _manifest():
        return "file", name
    col, _, short = name.partition("/")
    if col == "sklearn" and short in _SKLEARN:
        return "sklearn", short
    if col == "gen" and short in _GENERATORS:
        return "gen", short
    raise _unknown(name)


def info(name: str) -> dict:
    """What is known about ``name`` without loading it.

    Keys: name, collection, format, path (relative), file (where it was found, or None), on_disk
    (``file`` is not None), available (loadable now: on disk, or downloadable on first use unless
    :func:`offline`), url, sha256, license, kind, task, n, n_test, n_features, n_classes, bytes, note
    (and, for gen/, the generator's parameters with their defaults).
    """
    where, key = _split(name)
    if where == "file":
        e = _manifest()[key]
        found = _find(e)
        out = {k: e.get(k) for k in ("name", "collection", "format", "path")}
        out.update(file=str(found) if found else None, on_disk=found is not None, url=e["url"],
                   sha256=e["sha256"], license=e["license"], available=found is not None or not offline())
        out.update({k: e.get(k) for k in ("kind", "task", "n", "n_test", "n_features", "n_classes",
                                          "bytes", "encoding")})
        out["note"] = e.get("note", "")
        return out
    base = dict(name=name, collection=where, path=None, file=None, on_disk=True, url=None, sha256=None,
                available=True, n_test=None, note="")
    if where == "sklearn":
        loader, task, n, p, K = _SKLEARN[key]
        base.update(format="sklearn", license="BSD-3-Clause (scikit-learn bundled data)", kind="continuous",
                    task=task, n=n, n_features=p, n_classes=K, encoding="raw",
                    note=f"sklearn.datasets.{loader}(), offline")
        return base
    ds = _GENERATORS[key]()  # defaults; every generator is cheap
    sig = inspect.signature(_GENERATORS[key])
    base.update(format="generated", license="generated", kind=ds.kind, task=ds.task, n=ds.n_samples,
                n_features=ds.n_features, n_classes=ds.n_classes, encoding=ds.encoding,
                params={k: v.default for k, v in sig.parameters.items()},
                note=(ds.description.strip().splitlines() or [""])[0])
    return base


# --------------------------------------------------------------------------------------------------
# load
# --------------------------------------------------------------------------------------------------

def _available(entry) -> bool:
    return not offline() or _find(entry) is not None


def _missing(entry, reason=None) -> MissingDataError:
    """The error for a file that is on no data root: ``reason`` says why it was not downloaded."""
    roots = data_paths()
    why = reason or f"downloads are off ({ENV_OFFLINE}={os.environ.get(ENV_OFFLINE)})"
    msg = (f"data file {entry['path']} for {entry['name']!r} is not in the search path "
           f"[{os.pathsep.join(str(r) for r in roots)}] and {why}; run "
           f"`{shell_command('data fetch ' + entry['name'])}` where the internet (or a mirror, "
           f"--mirror URL) is reachable, or point {ENV_DATA} at a folder holding {entry['path']}")
    return MissingDataError(entry["name"], entry["path"], roots, msg)


def _check_shape(entry, path, fields):
    """The read file has the manifest's size (n, n_test, n_features, n_classes); FormatError otherwise."""
    X, X_test = fields["X"], fields.get("X_test")
    found = {"n": X.shape[0], "n_test": None if X_test is None else X_test.shape[0], "n_features": X.shape[1],
             "n_classes": None if fields["class_names"] is None else len(fields["class_names"])}
    for key, value in found.items():
        if entry.get(key) != value:
            raise FormatError(path, key, f"the file gives {value}, the manifest {entry.get(key)} for "
                                         f"{entry['name']}")


def read_file(path, format: str, kind: str = "binary", encoding: str | None = None,
              name: str | None = None) -> Dataset:
    """Read a file in one of the benchmark formats (``dl``, ``branches``, ``quantbnb-json``, ``gosdt-csv``).

    ``kind`` and ``encoding`` only matter for ``branches`` files (``"categorical"`` / ``"ordinal"`` for
    ``-o`` files). A file that breaks its format raises :class:`FormatError` naming the file and the field.
    """
    if format not in _READERS:
        raise ValueError(f"format must be one of {', '.join(_READERS)}; got {format!r}")
    if kind not in ("categorical", "binary"):
        raise ValueError(f"kind must be 'categorical' or 'binary' for a file; got {kind!r}")
    path = Path(path)
    entry = {"kind": kind, "encoding": encoding or ("ordinal" if kind == "categorical" else "binary")}
    fields = _READERS[format](entry, path)
    return Dataset(name=name or path.stem, source=str(path), **fields)


def _encode(ds: Dataset, encoding, n_quantiles) -> Dataset:
    allowed = ENCODINGS[ds.kind]
    if ds.kind == "binary":
        allowed = tuple(dict.fromkeys(allowed + (ds.encoding,)))
    if encoding is None:
        encoding = ds.encoding if ds.kind == "binary" else allowed[0]
    if encoding not in allowed:
        raise ValueError(f"encoding {encoding!r} is not available for {ds.kind} data set {ds.name!r}; "
                         f"allowed: {', '.join(allowed)}")
    if n_quantiles is not None and encoding != "quantiles":
        raise TypeError("n_quantiles only applies to encoding='quantiles'")
    if encoding in ("ordinal", "raw", "binary") or encoding == ds.encoding:
        return ds
    if ds.kind == "categorical":
        drop = _ONE_HOT_DROP[encoding]
        X, _, mapping = one_hot(ds.X, ds.n_categories, drop)
        X_test = one_hot(ds.X_test, ds.n_categories, drop)[0] if ds.X_test is not None else None
        cats = ds.categories
        fnames = [f"{ds.feature_names[j]}={cats[j][c] if cats is not None else c}" for j, c in mapping]
        return replace(ds, X=X, X_test=X_test, feature_names=fnames, kind="binary", encoding=encoding,
                       n_categories=np.full(X.shape[1], 2, dtype=np.int64), categories=None, encoder=mapping)
    binarizer = ThresholdBinarizer(method=encoding, **({} if n_quantiles is None else
                                                       {"n_quantiles": n_quantiles}))
    X = binarizer.fit(ds.X).transform(ds.X)
    X_test = binarizer.transform(ds.X_test) if ds.X_test is not None else None
    # names from the data set's own feature names (the binarizer saw a bare array)
    fnames = [f"{ds.feature_names[j]} > {t:.6g}" for j, t in binarizer.splits_]
    return replace(ds, X=X, X_test=X_test, feature_names=fnames, kind="binary", encoding=encoding,
                   n_categories=np.full(X.shape[1], 2, dtype=np.int64), encoder=binarizer)


def load(name: str, encoding: str | None = None, **params) -> Dataset:
    """Load data set ``name`` (see the module docstring for names and encodings).

    ``params`` go to ``gen/`` generators (e.g. ``load("gen/random-binary", n=50, q=5, seed=1)``);
    ``n_quantiles=`` goes with ``encoding="quantiles"``. A file-backed set is read from the first data
    root that has it, else downloaded into the cache (see :func:`fetch`; not when :func:`offline`), and
    its sha256 is checked once per file per process.

    Raises UnknownDatasetError (KeyError), MissingDataError (FileNotFoundError: offline, or the
    download failed), ChecksumError and FormatError (ValueError), and ValueError for an encoding that
    does not apply.
    """
    where, key = _split(name)
    n_quantiles = params.pop("n_quantiles", None)
    if where == "gen":
        ds = _call_generator(key, params)
    else:
        if params:
            raise TypeError(f"{name} takes no parameters; got {sorted(params)}")
        if where == "sklearn":
            ds = _load_sklearn(key)
        else:
            entry = _manifest()[key]
            path = _find(entry) or _download_missing(entry)
            _verify(path, entry)
            fields = _READERS[entry["format"]](entry, path)
            _check_shape(entry, path, fields)
            ds = Dataset(name=name, source=str(path), description=entry.get("note", ""), **fields)
    return _encode(ds, encoding, n_quantiles)


# --------------------------------------------------------------------------------------------------
# fetch
# --------------------------------------------------------------------------------------------------

def _file_entry(name):
    where, key = _split(name)
    if where != "file":
        raise ValueError(f"{name} is {'bundled with scikit-learn' if where == 'sklearn' else 'generated'}; "
                         "there is nothing to fetch")
    return _manifest()[key]


def _source_url(entry, mirror=None) -> str:
    """The manifest's public URL, or ``mirror/<path>`` with ``mirror`` (default ``$ODTLAB_MIRROR``)."""
    mirror = mirror or os.environ.get(ENV_MIRROR)
    return (mirror.rstrip("/") + "/" + urllib.parse.quote(entry["path"])) if mirror else entry["url"]


def _max_bytes(entry) -> int:
    """The size cap of a download: the manifest's ``bytes`` with :data:`SIZE_SLACK` and 64 KiB to spare."""
    return int(entry["bytes"] * SIZE_SLACK) + 2**16


def _human(n) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def _copy_url(url, out, max_bytes, deadline, label, total) -> str:
    """Stream ``url`` into the open file ``out``; return the sha256 of what was written.

    Stops with DownloadError past ``max_bytes`` (also when the server announces more) or ``deadline``
    seconds after the start, however slowly the bytes arrive (each read returns what has arrived, and
    waits at most ``min(DOWNLOAD_TIMEOUT, deadline)`` for it).
    """
    start = time.monotonic()
    h, size, bar = hashlib.sha256(), 0, None
    req = urllib.request.Request(url, headers={"User-Agent": "odtlab"})
    try:
        with urllib.request.urlopen(req, timeout=min(DOWNLOAD_TIMEOUT, deadline)) as resp:
            announced = resp.headers.get("Content-Length")
            if announced is not None and announced.isdigit() and int(announced) > max_bytes:
                raise DownloadError(f"{url} announces {int(announced)} bytes, more than the {max_bytes} "
                                    f"allowed for {label} ({total} expected); nothing was installed")
            if total >= PROGRESS_BYTES:
                from tqdm.auto import tqdm

                bar = tqdm(total=total, unit="B", unit_scale=True, desc=label, leave=False)
            while chunk := resp.read1(1 << 16):
                size += len(chunk)
                if size > max_bytes:
                    raise DownloadError(f"{url} sent more than {max_bytes} bytes for {label} ({total} "
                                        "expected); stopped, nothing was installed")
                if time.monotonic() - start > deadline:
                    raise DownloadError(f"downloading {label} from {url} took longer than {deadline:g} s; "
                                        "stopped, nothing was installed")
                h.update(chunk)
                out.write(chunk)
                if bar is not None:
                    bar.update(len(chunk))
    except DownloadError:
        raise
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the open error response
        raise DownloadError(f"could not download {label} from {url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DownloadError(f"could not download {label} from {url}: {reason}") from exc
    finally:
        if bar is not None:
            bar.close()
    return h.hexdigest()


def _remove_stale_parts(target: Path, deadline):
    """Remove ``.part`` files of ``target`` left by a process that was killed (older than any download)."""
    cutoff = time.time() - deadline - DOWNLOAD_TIMEOUT
    for part in target.parent.glob(f".{glob.escape(target.name)}.*.part"):
        try:
            if part.stat().st_mtime < cutoff:
                part.unlink()
        except FileNotFoundError:
            pass


def fetch(name: str, mirror: str | None = None, dest=None, force: bool = False,
          deadline: float = DOWNLOAD_DEADLINE) -> Path:
    """Download ``name``'s file, check its sha256 and install it; return its path.

    The URL is the manifest's public source at a pinned commit, or, with ``mirror`` (or the env
    ``ODTLAB_MIRROR``), ``mirror.rstrip('/') + '/' + <manifest path>`` (any URL urllib opens, including
    ``file://``). The file goes to ``dest`` (default: the user cache, :func:`cache_dir`) under the
    manifest's relative path. One line on stderr says what is downloaded (and a progress bar follows
    for a file of :data:`PROGRESS_BYTES` or more). The bytes go to a ``.part`` file in the same folder,
    cut off past the manifest's size (:func:`_max_bytes`) or ``deadline`` seconds, verified, then
    renamed; any failure, Ctrl-C included, removes the ``.part`` file (ChecksumError / DownloadError),
    and one left by a killed process is removed by the next fetch of the same file.

    A valid file already on the data path (or, with ``dest``, in ``dest``) is returned as it is, unless
    ``force``.
    """
    entry = _file_entry(name)
    if dest is None and not force:
        found = _find(entry)
        if found is not None and _sha256_file(found) == entry["sha256"]:
            return found
    root = Path(dest).expanduser() if dest is not None else cache_dir()
    target = root / entry["path"]
    if target.is_file() and not force and _sha256_file(target) == entry["sha256"]:
        return target
    url = _source_url(entry, mirror)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(target, deadline)
    print(f"odtlab: downloading {name} ({_human(entry['bytes'])}) from {url} into {root}", file=sys.stderr,
          flush=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            actual = _copy_url(url, out, _max_bytes(entry), deadline, name, entry["bytes"])
        if actual != entry["sha256"]:
            raise ChecksumError(url, entry["sha256"], actual, "; nothing was installed")
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def _download_missing(entry) -> Path:
    """:func:`fetch` for :func:`load`: MissingDataError when offline or when the download failed."""
    if offline():
        raise _missing(entry)
    try:
        return fetch(entry["name"])
    except DownloadError as exc:
        raise _missing(entry, f"downloading it failed ({exc})") from exc


def expand(specs) -> list[str]:
    """Manifest names from names and collections (``"dl/"`` or ``"dl"``: every file of the collection)."""
    out = []
    file_collections = collections()[:-2]
    for spec in specs:
        col = spec.rstrip("/")
        if col in file_collections and (spec.endswith("/") or "/" not in spec):
            out += names(col)
        else:
            out.append(_file_entry(spec)["name"])
    return list(dict.fromkeys(out))


def fetch_many(specs, mirror=None, dest=None, force=False, deadline=DOWNLOAD_DEADLINE) -> dict:
    """:func:`fetch` each name or collection of ``specs`` (see :func:`expand`); return ``{name: path}``.

    Every file is tried; when some fail, DownloadError lists them after the others are installed.
    """
    done, failed = {}, []
    for name in expand(specs):
        try:
            done[name] = fetch(name, mirror=mirror, dest=dest, force=force, deadline=deadline)
        except (DownloadError, ChecksumError) as exc:
            failed.append(f"{name}: {exc}")
    if failed:
        raise DownloadError(f"{len(failed)} of {len(failed) + len(done)} downloads failed: " + " | ".join(failed))
    return done


# --------------------------------------------------------------------------------------------------
# what the chapters use
# --------------------------------------------------------------------------------------------------

CHAPTERS = Path(__file__).resolve().parents[1] / "notebooks"  # a checkout's chapters


def _chapter_sources(folder: Path) -> dict:
    """``{chapter: source text}``: ``src/NN_*.py`` of a checkout's notebooks folder, else ``NN_*.ipynb``
    code cells (IPython magics and shell lines commented out)."""
    sources = {p.stem: p.read_text(encoding="utf-8") for p in sorted((folder / "src").glob("[0-9][0-9]_*.py"))}
    if sources:
        return sources
    for p in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        sources[p.stem] = "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line
                                     for line in "\n".join(code).splitlines())
    return sources


def _base_name(text):
    """``"quantbnb/bank"`` from ``"quantbnb/bank[encoding=midpoints]"``; None for a non-manifest string."""
    name = text.split("[", 1)[0]
    return name if name in _manifest() else None


def _names_filter(comp):
    """For a comprehension over ``names(...)``: the manifest names it can yield. The collection argument
    and the ``info(x)[key] == "value"`` conditions narrow them; other conditions are ignored (a superset)."""
    call = comp.generators[0].iter
    col = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
    wanted = {}
    for cond in comp.generators[0].ifs:
        for node in ast.walk(cond):
            if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)
                    and isinstance(node.left, ast.Subscript) and isinstance(node.left.slice, ast.Constant)
                    and isinstance(node.comparators[0], ast.Constant)):
                wanted[node.left.slice.value] = node.comparators[0].value
    return [n for n, e in _manifest().items()
            if col in (None, e["collection"]) and all(e.get(k) == v for k, v in wanted.items())]


def _source_datasets(text, table_names, quick) -> set:
    """The manifest names one chapter source uses (see :func:`chapter_datasets`)."""
    from odtlab.experiments.reproduction import table_runs
    from odtlab.experiments.runs import parse_dataset

    tree = ast.parse(text)
    consts = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    used = {b for b in map(_base_name, consts) if b}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # f"quantbnb/{name}": instances with the chapter's strings
            pattern = "".join(re.escape(v.value) if isinstance(v, ast.Constant) else "(.+)" for v in node.values)
            for name in _manifest():
                m = re.fullmatch(pattern, name)
                if m and all(g in consts for g in m.groups()):
                    used.add(name)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            call = node.generators[0].iter
            if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", "")) == "names":
                used.update(_names_filter(node))
    for table in consts & set(table_names):
        used.update(parse_dataset(run.dataset)[0] for run in table_runs(table, quick).values())
    return {n for n in used if n in _manifest()}


def chapter_datasets(folder=None, quick: bool | None = None) -> list[str]:
    """The manifest data sets the notebook chapters in ``folder`` use, derived from their sources.

    ``folder`` defaults to the checkout's ``notebooks/`` (else ``./notebooks``). A chapter uses: every
    string in it that is a manifest name (``"dl/anneal"``, ``"quantbnb/bank[encoding=midpoints]"``);
    every manifest name an f-string in it gives with the chapter's strings (``f"quantbnb/{name}"``);
    the names a comprehension over :func:`names` yields, narrowed by its ``info(name)[key] == value``
    conditions; and the data sets of every reproduction table it names, in quick mode unless
    ``ODTLAB_QUICK=0`` (``quick`` overrides).
    """
    from odtlab.experiments import tables
    from odtlab.experiments.reproduction import quick_from_env

    if folder is None:
        folder = CHAPTERS if CHAPTERS.is_dir() else Path("notebooks")
    folder = Path(folder)
    sources = _chapter_sources(folder)
    if not sources:
        raise FileNotFoundError(f"no chapters (NN_name.ipynb or src/NN_name.py) in {folder}; give the folder "
                                "that holds them")
    quick = quick_from_env() if quick is None else quick
    table_names = tables.names()
    used = set()
    for text in sources.values():
        used |= _source_datasets(text, table_names, quick)
    return sorted(used)
