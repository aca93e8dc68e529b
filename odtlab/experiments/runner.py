"""Run a grid of experiment runs on a backend and collect one tidy pandas DataFrame.

::

    from odtlab import experiments as ex

    runs = ex.grid(["cart", "sklearn-cart"], ["sklearn/iris", "sklearn/wine"], {"depth": [2, 3]},
                   split="cv5", seeds=[0, 1], time_limit=60)
    df = ex.run_grid(runs, store="results/", backend="local", n_jobs=2)

Backends:

* ``"local"``: worker processes through joblib (loky); ``n_jobs=1`` runs in this process unless a run
  has a limit (the hard limit needs a process to end). A worker that dies (a watchdog kill, a crash)
  breaks joblib's pool; the runs that were in progress then are run again one at a time, and only one
  whose worker dies while it runs alone is recorded ``crashed``; the others go on. The workers end
  when the grid does.
* ``"dask"``: dask.distributed. Without ``scheduler`` a LocalCluster of ``n_jobs`` worker processes
  (one thread each, on 127.0.0.1) is started and closed; with ``scheduler="tcp://host:port"`` or a
  ``distributed.Client`` the runs go to that cluster (its workers need odtlab installed, but neither
  the data files, which the driver loads and sends, nor a file system shared with the driver: the
  watchdog's markers are kept by the scheduler). When a
  worker dies, dask hands its runs to another worker; a run that kills workers repeatedly becomes
  ``crashed``.

Either way the driver writes every result to the store the moment it arrives, so no finished run is
lost when a worker (or the driver) dies, and a rerun skips every stored run (same keys on both
backends) except the ``crashed`` ones, which are tried again unless ``retry_crashed=False``. Attempt
counts start afresh with each call. Progress is shown with ``tqdm.auto`` (a widget in notebooks, text
in a terminal).
"""
from __future__ import annotations

import logging
import os
import tempfile
from collections import Counter

from odtlab.experiments.execute import NOT_STORED, base_row, execute, finish_row, precheck, read_killed
from odtlab.experiments.store import Store, tidy

BACKENDS = ("local", "dask")


def run_grid(runs, store=None, backend="local", n_jobs=None, scheduler=None, progress=True, retry_crashed=True):
    """Run every run that the store does not hold yet; return all runs' rows (stored and new).

    ``store`` is a folder (or a :class:`Store`); without one, results are kept in memory only.
    Rows come back in the order of ``runs``. Runs whose data file is missing or whose algorithm is
    not available are returned with status ``missing_data`` / ``unavailable`` but not stored.
    """
    runs = list(runs)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("a scheduler (address or distributed.Client) needs backend='dask'")
    n_jobs = (os.cpu_count() or 1) if n_jobs is None else int(n_jobs)
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
    unique = list({r.key: r for r in runs}.values())
    temp = None
    if store is None:
        temp = tempfile.TemporaryDirectory(prefix="odtlab-runs-")
        store = Store(temp.name)
    elif not isinstance(store, Store):
        store = Store(store)
    try:
        done = store.finished(retry_crashed=retry_crashed)
        store.new_attempts()
        extra = {}
        pending = []
        for r in unique:
            if r.key in done:
                continue
            row = precheck(r)
            if row is None:
                pending.append(r)
            else:
                extra[r.key] = row

        def collect(row):
            if row["status"] in NOT_STORED:
                extra[row["key"]] = row
            else:
                store.append([row])
            counts[row["status"]] += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(dict(counts), refresh=False)

        counts = Counter()
        bar = None
        if progress and pending:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(pending), desc=f"odtlab runs ({backend})", unit="run")
        try:
            if pending:
                markers = str(store.markers)
                if backend == "local":
                    _run_local(pending, n_jobs, markers, collect)
                else:
                    _run_dask(pending, n_jobs, scheduler, collect)
        finally:
            if bar is not None:
                bar.close()
        stored = store.load().set_index("key", drop=False)
        rows = []
        for r in runs:
            if r.key in extra:
                rows.append(extra[r.key])
            elif r.key in stored.index:
                rows.append(stored.loc[r.key].to_dict())
        return tidy(rows)
    finally:
        if temp is not None:
            temp.cleanup()


def _crashed(run, message):
    return finish_row(base_row(run), "crashed", message)


def _run_local(pending, n_jobs, markers, collect):
    """Run ``pending`` in worker processes (joblib's loky), or in this process when ``n_jobs == 1`` and no
    run has a limit (a hard limit needs a process the watchdog can end). When a worker dies the pool
    breaks: the runs that were in progress then (started, no row) are run again one at a time, and one
    whose worker dies while it runs alone is ``crashed``; the runs that had not started go on as before.
    The workers end with the grid."""
    if n_jobs == 1 and not any(r.time_limit or r.memory_limit for r in pending):
        for run in pending:
            collect(execute(run, markers))
        return
    from joblib import Parallel, delayed
    from joblib.externals.loky import get_reusable_executor
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    from odtlab.experiments.execute import attempts

    left = {r.key: r for r in pending}
    suspects = []
    driver = os.getpid()
    try:
        while left:
            if suspects or n_jobs == 1:
                batch = [left[suspects.pop()] if suspects else next(iter(left.values()))]
            else:
                batch = list(left.values())
            try:  # n_jobs >= 2 even for one run: joblib runs n_jobs=1 in this process
                jobs = Parallel(n_jobs=max(2, min(n_jobs, len(batch))), return_as="generator_unordered",
                                batch_size=1)
                for row in jobs([delayed(execute)(r, markers, driver) for r in batch]):
                    left.pop(row["key"], None)
                    collect(row)
            except TerminatedWorkerError as exc:
                reason = " ".join(str(exc).split())[:200]
                if len(batch) == 1:  # it ran alone: its own process died (or the watchdog ended it)
                    run = left.pop(batch[0].key)
                    killed = read_killed(markers, run.key) is not None  # then execute reads the marker
                    collect(execute(run, markers) if killed else _crashed(run, f"its worker process died ({reason})"))
                else:
                    started = attempts(markers)
                    suspects = [k for k in left if k in started]
    finally:
        get_reusable_executor().shutdown(wait=True)


def _run_dask(pending, n_jobs, scheduler, collect):
    """Run ``pending`` on a dask cluster: a LocalCluster of ``n_jobs`` processes, a scheduler address, or a
    ``distributed.Client`` (left open). The driver loads each data set (cached) and sends its arrays with the
    runs, and the watchdog's markers live in the scheduler, so the workers need neither the data files nor a
    file system shared with the driver."""
    try:
        from distributed import Client, LocalCluster, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as exc:
        raise ValueError("the dask backend needs dask.distributed: pip install 'dask[distributed]'") from exc

    from odtlab.experiments.execute import DASK_MARKERS
    from odtlab.experiments.runs import load_dataset

    cluster = None
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is None:
        cluster = LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=logging.CRITICAL)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        driver = os.getpid()
        by_key = {}
        futures = []
        for run in pending:
            try:  # the arrays go with the task (a scattered copy would die with its worker)
                data = load_dataset(run.dataset)
            except Exception:  # noqa: BLE001 - a bad name or modifier: the worker reports it as the run's error
                data = None
            future = client.submit(execute, run, DASK_MARKERS, driver, data, key=f"odtlab-run-{run.key}",
                                   pure=False)
            by_key[future.key] = run
            futures.append(future)
        for future in as_completed(futures):
            run = by_key[future.key]
            try:
                row = future.result()
            except KilledWorker as exc:
                row = _crashed(run, f"dask: {' '.join(str(exc).split())[:200]}")
            except Exception as exc:  # noqa: BLE001 - a failure of the cluster, not of the run
                row = finish_row(base_row(run), "error", f"dask: {type(exc).__name__}: {exc}")
            collect(row)
            future.release()
    finally:
        if client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()
