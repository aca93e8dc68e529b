"""The results store: finished runs on disk, one row per run, so a grid resumes where it stopped.

A store is a folder. Rows go to ``runs.parquet/`` (one part file per write, written to a temporary
name and renamed) when pyarrow is installed, and to ``runs.csv`` (one line appended and flushed per
run) otherwise; a folder that already holds one of them keeps its format. Only the driver writes rows,
so the backends never write at once. Workers share the ``markers/`` subfolder (the watchdog's
killed-run markers and the attempts log, see :mod:`odtlab.experiments.execute`).

Reading keeps the last row of each key. A run counts as finished when its stored status is one of
:data:`~odtlab.experiments.execute.FINAL_STATUSES`; rows with status ``error`` or ``interrupted`` are
kept for inspection and redone on the next run of the grid.
"""
from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from odtlab.experiments.execute import COLUMNS, FINAL_STATUSES

_INT = ["fold", "seed", "n_train", "n_test", "splits", "leaves", "depth", "iterations", "evaluations",
        "peak_memory", "peak_rss", "pid", "memory_limit"]
_FLOAT = ["time_limit", "objective", "lower_bound", "upper_bound", "gap", "train_loss", "test_loss",
          "train_accuracy", "test_accuracy", "seconds", "search_seconds"]
_TEXT = ["key", "algorithm", "dataset", "params", "split", "status", "message", "sense", "stats", "versions",
         "host", "finished_at"]


def _has_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def tidy(rows):
    """A DataFrame with exactly :data:`COLUMNS` and fixed dtypes from row dicts or a frame."""
    df = pd.DataFrame(rows) if not isinstance(rows, pd.DataFrame) else rows.copy()
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = None
    df = df[COLUMNS]
    for c in _INT:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype("Int64")
    for c in _FLOAT:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    for c in _TEXT:
        df[c] = df[c].astype("object").where(df[c].notna(), None)
    opt = df["optimal"].map(lambda v: None if v is None or (isinstance(v, float) and np.isnan(v))
                            else str(v).lower() in ("true", "1", "1.0"))
    df["optimal"] = opt.astype("boolean")
    return df.reset_index(drop=True)


class Store:
    """Finished runs in ``path`` (a folder, created on first write)."""

    def __init__(self, path, format=None):
        self.path = Path(path)
        if format is None:
            if (self.path / "runs.csv").exists():
                format = "csv"
            elif (self.path / "runs.parquet").exists():
                format = "parquet"
            else:
                format = "parquet" if _has_pyarrow() else "csv"
        if format not in ("csv", "parquet"):
            raise ValueError(f"format must be 'csv' or 'parquet', got {format!r}")
        if format == "parquet" and not _has_pyarrow():
            raise ValueError(f"the store {self.path} is Parquet but pyarrow is not installed")
        self.format = format
        self._parts = 0

    def __repr__(self):
        return f"Store({str(self.path)!r}, format={self.format!r})"

    @property
    def file(self):
        return self.path / ("runs.csv" if self.format == "csv" else "runs.parquet")

    @property
    def markers(self):
        """The folder shared with workers (created here)."""
        folder = self.path / "markers"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def append(self, rows):
        """Write rows (dicts or a frame); they are on disk (flushed) when this returns."""
        df = tidy(rows)
        if df.empty:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        if self.format == "csv":
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            size = self.file.stat().st_size if self.file.exists() else 0
            if size == 0:
                writer.writerow(COLUMNS)
            else:
                with open(self.file, "rb") as fh:
                    fh.seek(size - 1)
                    if fh.read(1) != b"\n":  # the last line was cut by a crash: start a new one
                        buf.write("\n")
            for rec in df.astype(object).where(df.notna(), None).itertuples(index=False):
                writer.writerow(["" if v is None else v for v in rec])
            with open(self.file, "a", newline="") as fh:  # one write: a crash cuts at most the last line,
                fh.write(buf.getvalue())                   # which load() drops (its finished_at is missing)
            return
        self._write_part(df)

    def _write_part(self, df):
        self.file.mkdir(parents=True, exist_ok=True)
        self._parts += 1
        name = f"part-{time.time_ns()}-{os.getpid()}-{self._parts}.parquet"
        tmp = self.file / ("." + name + ".tmp")
        df.to_parquet(tmp, index=False)
        os.replace(tmp, self.file / name)
        return self.file / name

    def load(self):
        """Every stored run (the last row of each key), as a tidy frame."""
        if not self.file.exists():
            return tidy([])
        if self.format == "csv":
            try:
                df = pd.read_csv(self.file, dtype=str, keep_default_na=False, on_bad_lines="skip",
                                 engine="python")
            except pd.errors.EmptyDataError:
                return tidy([])
            df = df.replace("", None)
        else:
            parts = sorted(p for p in self.file.glob("part-*.parquet"))
            df = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True) if parts else pd.DataFrame()
        df = tidy(df)
        df = df[df["key"].notna() & df["finished_at"].notna()]  # a line cut short by a crash is no run
        return df.drop_duplicates("key", keep="last").reset_index(drop=True)

    def finished(self, retry_crashed=False):
        """Keys of runs that need no rerun (``crashed`` ones too unless ``retry_crashed``)."""
        df = self.load()
        final = [s for s in FINAL_STATUSES if not (retry_crashed and s == "crashed")]
        return set(df.loc[df["status"].isin(final), "key"])

    def new_attempts(self):
        """Forget the attempts of earlier runs of a grid (each run of a grid counts its own)."""
        (self.markers / "attempts.log").unlink(missing_ok=True)

    def compact(self):
        """Rewrite the store as one file with one row per key (Parquet parts are merged)."""
        df = self.load()
        if self.format == "csv":
            tmp = self.file.with_suffix(".csv.tmp")
            df.to_csv(tmp, index=False)
            os.replace(tmp, self.file)
            return
        old = list(self.file.glob("part-*.parquet"))
        if len(old) > 1:
            merged = self._write_part(df)
            for p in old:
                if p != merged:
                    p.unlink()
