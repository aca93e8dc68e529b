"""Reproduce a paper's table: run its grid, put our numbers beside the published ones, save both.

::

    from odtlab.experiments import reproduction
    rep = reproduction.reproduce("branches-table2", quick=True, out="results/")
    print(rep.text)            # the table as printed by `odtlab reproduce branches-table2 --quick`
    rep.comparison             # one tidy row per (table row, column): ours, paper, diff, agree, status
    rep.runs                   # the runs behind it (the runner's tidy frame)

Each cell is either a number, or a marker saying why there is none -- never a made-up value:
``[no data]`` the data set is not available here, ``[no algorithm]`` the algorithm is not registered
(or the peer not installed), ``[not run]`` the paper's method has no counterpart here, ``[skipped]``
the run has no result, ``[error]`` / ``[crashed]`` the run failed, ``[killed]`` the watchdog ended it
at a hard limit. An objective followed by
``*`` comes from a run that stopped at a limit (not proven optimal). In the Δ column ``ok`` / ``DIFF``
score a checked objective (see :mod:`odtlab.experiments.tables`); a bare number is information.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from odtlab.experiments import tables
from odtlab.experiments.published import Cell, agrees, parse_cell
from odtlab.experiments.runner import run_grid
from odtlab.experiments.runs import Run, split_folds
from odtlab.experiments.store import Store

MARKERS = {
    "missing_data": "[no data]",
    "unavailable": "[no algorithm]",
    "not_run": "[not run]",
    "skipped": "[skipped]",
    "error": "[error]",
    "crashed": "[crashed]",
    "killed": "[killed]",
    "interrupted": "[error]",
}
_PRIORITY = ("missing_data", "unavailable", "error", "crashed", "killed", "interrupted", "skipped")
COMPARISON_COLUMNS = ["table", "row", "column", "ours", "ours_std", "ours_status", "paper", "paper_text", "diff",
                      "agree", "marker", "detail", "note"]


@dataclass
class Reproduction:
    spec: object
    quick: bool
    runs: pd.DataFrame
    comparison: pd.DataFrame
    text: str
    files: dict = field(default_factory=dict)

    @property
    def summary(self):
        """Counts: checked objectives, agreeing, differing; rows without data; rows with an unavailable run."""
        c = self.comparison
        return {"checked": int(c["agree"].notna().sum()), "agree": int((c["agree"] == True).sum()),  # noqa: E712
                "differ": int((c["agree"] == False).sum()),  # noqa: E712
                "rows_without_data": c.loc[c["marker"] == "missing_data", "row"].nunique(),
                "rows_with_unavailable_algorithm": c.loc[c["marker"] == "unavailable", "row"].nunique()}

    @property
    def rows_without_data(self):
        """Labels of the rows marked ``[no data]`` (data set not shipped, or its file not here), sorted."""
        c = self.comparison
        return sorted(set(c.loc[c["marker"] == "missing_data", "row"]))

    def frame(self, columns=None, times=False, with_data=False):
        """The printed table (ours / paper / Δ per column) limited to ``columns`` (names); by default the
        columns that are not times (``times=False``) or only the time-ratio columns (``times=True``), so
        deterministic numbers and machine-dependent ratios can be shown apart. ``with_data=True`` leaves
        out the rows without data (list them with :attr:`rows_without_data`)."""
        if columns is None:
            columns = [c.name for c in self.spec.columns if (c.metric == "seconds") == times]
        c = self.comparison[self.comparison["column"].isin(columns)]
        if with_data:
            c = c[~c["row"].isin(self.rows_without_data)]
        if c.empty:
            raise MissingPiecesError(f"{self.spec.name}: no row to show for columns {list(columns)}"
                                     f"{' with data' if with_data else ''}; {missing_pieces(self.runs)}")
        return display_frame(self.spec, c)

    @property
    def legend(self):
        """The text under the printed table (see :func:`legend`)."""
        return "\n".join(legend(self.spec, self.comparison))

    def figure(self):
        """The table's figure (a matplotlib Figure) for specs that have one, else None."""
        return None if self.spec.figure is None else self.spec.figure(self.comparison, self.runs)

    def figure_image(self, dpi=100):
        """The table's figure as a PNG ``IPython.display.Image`` (shown whatever matplotlib's backend; the
        figure is closed), or None for a table without one."""
        import io

        import matplotlib.pyplot as plt
        from IPython.display import Image

        fig = self.figure()
        if fig is None:
            return None
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
        plt.close(fig)
        return Image(buf.getvalue())


class MissingPiecesError(RuntimeError):
    """A table that cannot show what a chapter asks for: the message names the missing data sets and peers
    and how to get them."""


def _base(dataset):
    from odtlab.experiments.runs import parse_dataset

    return parse_dataset(dataset)[0]


def unshipped(dataset):
    """Why ``dataset`` (a run's data set spec) is not in odtlab's data manifest, or ``""`` when it is (or
    is None)."""
    from odtlab import datasets

    if dataset is None:
        return ""
    try:
        datasets.info(_base(dataset))
    except (datasets.DataError, ValueError):
        return "not shipped: not in odtlab's data manifest (no verified copy of the file)"
    return ""


def no_file():
    """The detail of a ``[no data]`` cell whose file could not be had here (offline, or the download failed)."""
    from odtlab.datasets import shell_command

    return (f"data file not on this machine and not downloaded (offline or unreachable); "
            f"`{shell_command('data fetch --chapters')}` fetches it")


def has_data(row):
    """False when a row's data set is not shipped in any form, or its file is neither on this machine nor
    downloadable (see :func:`odtlab.datasets.info`'s ``available``)."""
    from odtlab import datasets

    if row.unavailable or row.dataset is None or unshipped(row.dataset):
        return False
    return bool(datasets.info(_base(row.dataset))["available"])


def peers_command():
    """The pip command that installs the peer solvers into this environment (the ``peers`` extra's list)."""
    import sys
    from importlib.metadata import PackageNotFoundError, requires

    try:
        reqs = [r.split(";")[0].strip() for r in requires("odtlab") or () if 'extra == "peers"' in r]
    except PackageNotFoundError:
        reqs = []
    return f"{sys.executable} -m pip install " + (" ".join(f"'{r}'" for r in reqs) or "'odtlab[peers]'")


def missing_pieces(runs):
    """One line: the data sets and peer solvers the ``runs`` frame lacked, and how to get them."""
    from odtlab.datasets import shell_command

    parts = []
    if len(runs):
        data = sorted({_base(d) for d in runs.loc[runs["status"] == "missing_data", "dataset"]})
        algs = sorted(set(runs.loc[runs["status"] == "unavailable", "algorithm"]))
        if data:
            parts.append(f"data sets {', '.join(data)} are missing (`{shell_command('data fetch --chapters')}` "
                         "downloads them)")
        if algs:
            parts.append(f"algorithms {', '.join(algs)} are not installed (the peer solvers: `{peers_command()}`)")
    return "; ".join(parts) or "no run of this table has data here (see the [no data] rows)"


def shown_rows(spec, quick=False):
    """Labels of the rows a table prints: all, or in quick mode the quick rows and every row without data
    (marked ``[no data]``, never hidden)."""
    spec = tables.get(spec)
    if not quick:
        return [r.label for r in spec.rows]
    chosen = set(spec.quick)
    return [r.label for r in spec.rows if r.label in chosen or not has_data(r)]


def table_runs(spec, quick=False):
    """The grid of a table: ``{(row label, run name): Run}`` for the rows run in this mode."""
    spec = tables.get(spec)
    chosen = set(spec.quick) if quick else {r.label for r in spec.rows}
    out = {}
    for row in spec.rows:
        if row.label not in chosen or row.unavailable:
            continue
        for name, rs in row.runs.items():
            dataset = rs.dataset or row.dataset
            if dataset is None or unshipped(dataset) or (quick and name in spec.quick_skip):
                continue
            for fold in split_folds(rs.split):
                out[(row.label, name, fold)] = Run(rs.algorithm, dataset, rs.params, rs.split, fold, spec.seed,
                                                    spec.time_limit, spec.memory_limit)
    return out


def _problem(df):
    """(marker, detail) when a run gave no numbers, else None."""
    if df is None or df.empty:
        return "skipped", "not run in this mode (see the table's quick rows)"
    statuses = df["status"].tolist()
    messages = df["message"].tolist()
    if "missing_data" in statuses:  # one reason for every such row, so the legend lists them together
        return "missing_data", no_file()
    for status in ("unavailable", "error", "crashed", "interrupted"):
        if status in statuses:
            return status, str(messages[statuses.index(status)] or "")
    for status, seconds, message in zip(statuses, df["seconds"].tolist(), messages):
        if status in ("time_limit", "memory_limit") and (seconds is None or math.isnan(seconds)):
            return "killed", str(message or "")
    return None


def _ratio_cell(cell, ref):
    if ref.marker == "not reported" or cell.marker == "not reported":
        return Cell("", marker="not reported")
    if cell.value is None or ref.value is None or cell.marker or ref.marker or ref.value == 0:
        text = f"{cell.text or '—'} / {ref.text or '—'}"
        return Cell(text, marker=cell.marker or ref.marker or "not reported")
    qualifier = ""
    if cell.qualifier and not ref.qualifier:
        qualifier = cell.qualifier
    elif ref.qualifier and not cell.qualifier:
        qualifier = {"<": ">", ">": "<"}[ref.qualifier]
    elif cell.qualifier or ref.qualifier:
        return Cell(f"{cell.text} / {ref.text}", marker="bound / bound")
    return Cell(f"{cell.text} / {ref.text}", cell.value / ref.value, qualifier=qualifier)


def _values(row, col_metric, df, scale=1.0):
    return tables.runs_frame_metric(col_metric, df, row) * scale if col_metric != "status" else df["status"]


def compare(spec, results, quick=False):
    """The long comparison frame of a table from the runner's results (see :data:`COMPARISON_COLUMNS`)."""
    spec = tables.get(spec)
    grid = table_runs(spec, quick)
    by_key = results.drop_duplicates("key").set_index("key", drop=False) if len(results) else None
    frames = {}
    for (label, name, fold), run in grid.items():
        if by_key is not None and run.key in by_key.index:
            frames.setdefault((label, name), []).append(by_key.loc[[run.key]])
    frames = {k: pd.concat(v, ignore_index=True) for k, v in frames.items()}
    problems = {k: _problem(v) for k, v in frames.items()}
    if quick:
        for row in spec.rows:
            for name in spec.quick_skip:
                problems[(row.label, name)] = ("skipped", "left out of --quick (too slow); run the full table")
            if row.label not in spec.quick and not row.unavailable:
                for name in row.runs:
                    problems[(row.label, name)] = ("missing_data", unshipped(row.dataset) or no_file())
    chosen = set(shown_rows(spec, quick))
    records = []
    for row in spec.rows:
        if row.label not in chosen:
            continue
        for col in spec.columns:
            records.append(_compare_cell(spec, row, col, frames, problems))
    return pd.DataFrame(records, columns=COMPARISON_COLUMNS)


def _compare_cell(spec, row, col, frames, problems):
    rec = dict(table=spec.name, row=row.label, column=col.name, ours=math.nan, ours_std=math.nan, ours_status="",
               paper=math.nan, paper_text="", diff=math.nan, agree=None, marker="", detail="", note=row.note)
    needed = [col.run] + ([col.ref] if col.ref else []) + ([col.check[4:]] if col.check.startswith("run:") else [])
    if col.run is not None and row.runs and any(r not in row.runs for r in needed):
        return rec  # the column does not apply to this row (e.g. a depth ratio on the first depth)
    cell = parse_cell(row.paper.get(col.paper)) if col.paper else None
    if cell is not None and col.paper_ref:
        cell = _ratio_cell(cell, parse_cell(row.paper.get(col.paper_ref)))
    if cell is not None:
        rec["paper_text"] = cell.text
        if cell.value is not None and cell.marker in ("", "gap %"):
            rec["paper"] = cell.value
    if col.run is None:
        rec.update(marker="not_run", detail=col.reason)
        return rec
    if row.unavailable or unshipped(row.dataset):
        rec.update(marker="missing_data", detail=row.unavailable or unshipped(row.dataset))
        return rec
    df = frames.get((row.label, col.run))
    found = [p for p in (problems.get((row.label, r), _problem(None)) for r in needed) if p]
    problem = min(found, key=lambda p: _PRIORITY.index(p[0])) if found else None
    if problem is not None:
        rec.update(marker=problem[0], detail=problem[1])
        return rec
    rec["ours_status"] = ",".join(sorted(set(df["status"])))
    if col.metric == "status":
        rec["ours"] = math.nan
        rec["detail"] = rec["ours_status"]
        return rec
    values = _values(row, col.metric, df, col.scale)
    if col.ref:
        ref = _values(row, col.metric, frames[(row.label, col.ref)], col.scale)
        rec["ours"] = values.mean() / ref.mean() if ref.mean() else math.nan
    else:
        rec["ours"] = values.mean()
        if len(values) > 1:
            rec["ours_std"] = values.std(ddof=0)
    proven = bool(df["optimal"].fillna(False).all())
    if col.check == "paper" and cell is not None:
        finished = parse_cell(row.paper.get(col.finished)).finished if col.finished else True
        if row.no_check:
            rec["detail"] = "not scored: " + row.no_check
        elif not (cell.finished and finished):
            rec["detail"] = "not scored: the paper's run did not finish"
        elif not proven:
            rec["detail"] = f"not scored: our run is not proven optimal ({rec['ours_status']})"
        else:
            rec["agree"] = agrees(rec["ours"], cell)
    elif col.check.startswith("run:"):
        other_df = frames[(row.label, col.check[4:])]
        other = _values(row, col.metric, other_df, col.scale)
        if proven and bool(other_df["optimal"].fillna(False).all()):
            rec["agree"] = bool(np.allclose(values.to_numpy(), other.to_numpy(), rtol=0, atol=1e-9))
            rec["paper"] = other.mean()
            rec["paper_text"] = f"{col.check[4:]}: {other.mean():g}"
        else:
            rec["detail"] = "not scored: a run is not proven optimal"
    if not math.isnan(rec["paper"]) and not math.isnan(rec["ours"]):
        rec["diff"] = rec["ours"] - rec["paper"]
    return rec


# --------------------------------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------------------------------

def _fmt(value, digits):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if abs(value) >= 1e5 and digits == 0:
        return f"{value:.3g}"
    return f"{value:.{digits}f}"


def display_frame(spec, comparison):
    """The printed table: one line per row, (column, ours / paper / Δ) cells as text."""
    spec = tables.get(spec)
    cols = {c.name: c for c in spec.columns}
    has_paper = {c.name: bool(comparison.loc[comparison["column"] == c.name, "paper_text"].astype(bool).any())
                 for c in spec.columns}
    data = {}
    for rec in comparison.itertuples(index=False):
        col = cols[rec.column]
        if rec.marker:
            ours = MARKERS[rec.marker]
        elif col.metric == "status":
            ours = rec.detail
        elif col.check.startswith("run:"):
            ours = {True: "ok", False: "DIFF", None: "-"}[rec.agree]
        else:
            ours = _fmt(rec.ours, col.digits)
            if not math.isnan(rec.ours_std):
                ours += f"±{_fmt(rec.ours_std, col.digits)}"
            if col.check == "paper" and rec.ours_status and rec.ours_status != "optimal" and not col.ref:
                ours += "*"
        cell = {(rec.column, "ours"): ours}
        if has_paper[rec.column] and not col.check.startswith("run:"):
            cell[(rec.column, "paper")] = (_fmt(rec.paper, col.digits) if col.paper_ref and not math.isnan(rec.paper)
                                           else rec.paper_text)
            delta = "" if math.isnan(rec.diff) else f"{round(rec.diff, col.digits) + 0.0:+.{col.digits}f}"
            if rec.agree is not None:
                delta = ("ok " if rec.agree else "DIFF ") + delta
            cell[(rec.column, "Δ")] = delta.strip()
        data.setdefault(rec.row, {}).update(cell)
    frame = pd.DataFrame.from_dict(data, orient="index")
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    order = [c for c in frame.columns]
    return frame[order].fillna("")


def legend(spec, comparison):
    """The lines printed under a table: scored objectives, why cells have no number, the rows' errata and
    the table's notes (no times: deterministic for a given grid)."""
    spec = tables.get(spec)
    c = comparison
    lines = [f"checked objectives: {c['agree'].notna().sum()} ({int((c['agree'] == True).sum())} agree, "  # noqa: E712
             f"{int((c['agree'] == False).sum())} differ)"]  # noqa: E712
    details = {}
    for rec in c[c["marker"] != ""].itertuples(index=False):
        key = (MARKERS[rec.marker], rec.detail.split(";")[0][:160])
        details.setdefault(key, []).append(rec.row)
    for (marker, detail), rows in details.items():
        rows = list(dict.fromkeys(rows))
        shown = ", ".join(rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")
        lines.append(f"{marker} {shown}: {detail}")
    notes = [(r, n) for r, n in c.drop_duplicates("row")[["row", "note"]].itertuples(index=False) if n]
    for row, note in notes:
        lines.append(f"note {row}: {note}")
    for r in spec.rows:
        if r.no_check and r.label in set(c["row"]):
            lines.append(f"not scored {r.label}: {r.no_check}")
    lines.append("* = stopped at a limit (not proven optimal); ok / DIFF = a checked objective agrees / differs.")
    lines += [f"- {n}" for n in spec.notes]
    return lines


def render(spec, comparison, quick=False, extra=""):
    """The text ``odtlab reproduce`` prints."""
    spec = tables.get(spec)
    lines = [f"{spec.title}", f"source: {spec.source}"]
    if quick:
        lines.append(f"quick mode: {len(spec.quick)} of {len(spec.rows)} rows run, rows without data marked "
                     "(run without --quick for all)")
    frame = display_frame(spec, comparison)
    with pd.option_context("display.width", 10000, "display.max_columns", None, "display.max_rows", None,
                           "display.max_colwidth", 40):
        lines.append(frame.to_string())
    lines.append("")
    lines += legend(spec, comparison)
    if extra:
        lines.append(extra)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------------

def reproduce(name, quick=False, backend="local", n_jobs=None, scheduler=None, out=None, progress=True):
    """Run a table's grid (resuming from ``out``), compare it with the paper, save and return it.

    ``out`` is a folder: its ``runs.csv`` / ``runs.parquet`` store is shared by every table run into it,
    and ``NAME.txt`` (the printed table), ``NAME.csv`` (the comparison) and, for a figure,
    ``NAME.png`` are written there. Without ``out`` nothing is saved and nothing is resumed.
    """
    spec = tables.get(name)
    grid = table_runs(spec, quick)
    store = Store(out) if out is not None else None
    results = run_grid(list(grid.values()), store=store, backend=backend, n_jobs=n_jobs, scheduler=scheduler,
                       progress=progress)
    comparison = compare(spec, results, quick)
    files = {}
    extra = ""
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        if spec.figure is not None:
            import matplotlib.pyplot as plt

            fig = spec.figure(comparison, results)
            files["figure"] = folder / f"{spec.name}.png"
            fig.savefig(files["figure"], dpi=120)
            plt.close(fig)
            extra = f"figure: {files['figure']}"
        files["comparison"] = folder / f"{spec.name}.csv"
        comparison.to_csv(files["comparison"], index=False)
    text = render(spec, comparison, quick, extra)
    if out is not None:
        files["text"] = Path(out) / f"{spec.name}.txt"
        files["text"].write_text(text + "\n")
        files["runs"] = store.file
    return Reproduction(spec, quick, results, comparison, text, files)


def quick_from_env():
    """The chapters' switch: quick unless the environment variable ``ODTLAB_QUICK`` is ``"0"``."""
    return os.environ.get("ODTLAB_QUICK", "1") != "0"


def notebook_run(name, quick=None):
    """:func:`reproduce` as the chapters call it: ``quick`` from :func:`quick_from_env` by default; a quick
    table runs in this process (the solvers compile once), a full one on every core with its results kept
    in ``odtlab-results/`` (so an interrupted run resumes); no progress bars (deterministic output). A run
    that could not start here (its data set missing, its peer solver not installed) raises
    :class:`MissingPiecesError`, whose one line names what is missing and how to get it."""
    quick = quick_from_env() if quick is None else quick
    rep = reproduce(name, quick=quick, n_jobs=1 if quick else None, out=None if quick else "odtlab-results",
                    progress=False)
    if rep.runs["status"].isin(["missing_data", "unavailable"]).any():
        raise MissingPiecesError(f"{name}: {missing_pieces(rep.runs)}")
    return rep


def list_tables():
    """One line per table: name, rows, quick rows, rows whose data is here, title."""
    rows = []
    for name in tables.names():
        spec = tables.get(name)
        rows.append({"table": name, "rows": len(spec.rows), "quick": len(spec.quick),
                     "data here": sum(map(has_data, spec.rows)), "title": spec.title})
    return pd.DataFrame(rows)
