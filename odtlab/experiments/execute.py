"""Run one :class:`~odtlab.experiments.runs.Run` and return its row of the tidy results table.

This is the function every backend ships to its workers. It never raises for a run's own failure: a
missing data file becomes status ``missing_data``, an algorithm that is not registered (nor a peer,
nor an importable ``module:factory``) becomes ``unavailable`` ("algorithm not available"), and any
exception in building or fitting becomes ``error`` with the message. No number is made up: a
column the algorithm does not report stays empty.

Limits. A run's ``time_limit`` and ``memory_limit`` act at two levels:

* inside the search (cooperative): every odtlab estimator's :class:`~odtlab.search.Search` runs with
  the time left to the run and ``memory_limit`` on the process (:mod:`odtlab.memory`: the search gets
  what the worker does not already hold), so it stops within about 0.1 s, keeps
  its incumbent tree and certified bounds, and reports status ``time_limit`` / ``memory_limit``;
  peers get their own ``time_limit`` parameter where they have one;
* around the process (hard, in worker processes only): a watchdog thread ends the worker when the fit
  overruns ``1.5 * time_limit + min(15, 1 + time_limit)`` seconds, or when the process's resident
  memory grows by more than ``2 * memory_limit + 256 MiB`` during the fit. It first writes a marker file, so
  the run is recorded with status ``time_limit`` / ``memory_limit`` (message "killed ...") when the
  backend hands it out again, instead of being run once more.

Timing: ``seconds`` is the wall-clock time of ``fit``. Before the first timed fit of an algorithm
(odtlab solver or peer) with given parameters in a process, the same estimator is fitted once on a
few rows, so compiled kernels (numba's disk cache) and lazy imports load outside the timed region. ``peak_rss`` is the process's resident-set
high-water mark during the fit (Linux; reset per run), ``peak_memory`` the search state's own peak.
"""
from __future__ import annotations

import importlib
import json
import math
import os
import platform
import socket
import threading
import time
from pathlib import Path

import numpy as np

from odtlab.experiments import peers
from odtlab.experiments.runs import load_dataset, split_indices

HARD_TIME_FACTOR, HARD_TIME_GRACE = 1.5, 15.0          # hard time: 1.5 t + min(15, 1 + t) seconds
HARD_MEMORY_FACTOR, HARD_MEMORY_SLACK = 2.0, 256 * 2**20  # hard memory growth: 2 m + 256 MiB
KILLED_EXIT_CODE = 70

RUN_COLUMNS = ["key", "algorithm", "dataset", "params", "split", "fold", "seed", "time_limit", "memory_limit"]
RESULT_COLUMNS = ["status", "message", "objective", "lower_bound", "upper_bound", "gap", "optimal", "sense",
                  "n_train", "n_test", "train_loss", "test_loss", "train_accuracy", "test_accuracy", "splits",
                  "leaves", "depth", "iterations", "evaluations", "seconds", "search_seconds", "peak_memory",
                  "peak_rss", "stats", "versions", "host", "pid", "finished_at"]
COLUMNS = RUN_COLUMNS + RESULT_COLUMNS

# statuses kept in a store and skipped on a rerun; the others (error, missing_data, unavailable,
# interrupted) are tried again, so a run that failed for a fixable reason is redone once it is fixed
FINAL_STATUSES = ("optimal", "uncertified", "done", "time_limit", "memory_limit", "iteration_limit", "crashed")
NOT_STORED = ("missing_data", "unavailable")

_WARMED = set()


# --------------------------------------------------------------------------------------------------
# algorithms
# --------------------------------------------------------------------------------------------------

class _Algorithm:
    """How to build one algorithm's estimator: odtlab registry, peer, or ``module:factory``."""

    def __init__(self, name):
        self.name = name
        self.kind, self.reason, self.spec, self.peer, self.factory = None, None, None, None, None
        if ":" in name:
            module, _, attr = name.partition(":")
            try:
                self.factory = getattr(importlib.import_module(module), attr)
                self.kind = "factory"
            except (ImportError, AttributeError) as exc:
                self.reason = f"algorithm not available: cannot import {name!r} ({exc})"
            return
        if name in peers.PEERS:
            self.peer = peers.PEERS[name]
            if self.peer.available():
                self.kind = "peer"
            else:
                self.reason = (f"algorithm not available: peer {name!r} needs {self.peer.distribution} "
                               "(pip install 'odtlab[peers]')")
            return
        from odtlab import solvers

        if name in solvers.available():
            self.kind, self.spec = "odtlab", solvers.get(name)
        else:
            self.reason = (f"algorithm not available: {name!r} is not registered (registered: "
                           f"{', '.join(solvers.available())}; peers: {', '.join(peers.PEERS)})")

    def version(self):
        if self.kind == "peer":
            return f"{self.peer.distribution}={self.peer.version()}"
        return ""

    def make(self, params, seed, task, time_limit):
        params = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
        if self.kind == "peer":
            return self.peer.make(params, seed, task, time_limit)
        if self.kind == "factory":
            return self.factory(**params)
        est = self.spec.estimator()
        valid = est.get_params()
        mapped = {self.spec.options.get(k, k): v for k, v in params.items()}
        unknown = sorted(k for k in mapped if k not in valid)
        if unknown:
            raise ValueError(f"{self.name} has no parameter {', '.join(map(repr, unknown))}; options: "
                             f"{', '.join(sorted(self.spec.options))}; estimator parameters: "
                             f"{', '.join(sorted(valid))}")
        if "random_state" in valid:
            mapped.setdefault("random_state", seed)
        if "record" in valid:
            mapped.setdefault("record", "none")  # no event code in the compiled kernel: the fastest level
        if time_limit is not None and "time_limit" in valid:
            mapped["time_limit"] = time_limit if mapped.get("time_limit") is None else min(mapped["time_limit"],
                                                                                          time_limit)
        return est.set_params(**mapped)


_ALGORITHMS = {}


def algorithm(name):
    """The (cached) :class:`_Algorithm` for a name; ``.kind is None`` and ``.reason`` say it is not here."""
    if name not in _ALGORITHMS:
        _ALGORITHMS[name] = _Algorithm(name)
    return _ALGORITHMS[name]


def precheck(run):
    """The row of a run that cannot start here (algorithm not available, data file missing), or None.

    Cheap: nothing is fitted and no data is read, so the driver answers these runs without a worker.
    """
    from odtlab import datasets
    from odtlab.experiments.runs import parse_dataset

    name = parse_dataset(run.dataset)[0]
    try:
        available = datasets.info(name)["available"]
    except (datasets.DataError, TypeError, ValueError):
        available = True  # execute() reports the bad name as this run's error
    if not available:
        try:
            datasets.load(name)
        except datasets.MissingDataError as exc:
            return finish_row(base_row(run), "missing_data", f"data set not available: {exc}")
    alg = algorithm(run.algorithm)
    if alg.kind is None:
        return finish_row(base_row(run), "unavailable", alg.reason)
    return None


def _limit_searches(estimator, deadline, memory_cap):
    """Make every search the estimator runs stop at ``deadline`` (perf_counter) and at ``memory_cap``.

    TreeEstimator builds its search in ``_new_search``; wrapping it on the instance covers every
    estimator, including those that run several searches or post-process in ``fit``.
    """
    make_search = estimator._new_search

    def new_search(*args, **kwargs):
        search = make_search(*args, **kwargs)
        run = search.run

        def limited_run(time_limit=None, max_iterations=None, memory_limit="auto", progress=False):
            if deadline is not None:
                left = max(deadline - time.perf_counter(), 1e-9)
                time_limit = left if time_limit is None else min(time_limit, left)
            if memory_cap is not None:
                memory_limit = memory_cap
            return run(time_limit=time_limit, max_iterations=max_iterations, memory_limit=memory_limit,
                       progress=progress)

        search.run = limited_run
        return search

    estimator._new_search = new_search
    return estimator


# --------------------------------------------------------------------------------------------------
# process memory (Linux /proc; NaN elsewhere)
# --------------------------------------------------------------------------------------------------

def _status_field(name):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM to the current RSS (Linux >= 4.0)
    except OSError:
        pass


def current_rss():
    return _status_field("VmRSS")


# --------------------------------------------------------------------------------------------------
# markers shared by workers (killed runs, attempts)
# --------------------------------------------------------------------------------------------------

DASK_MARKERS = "dask-scheduler"  # markers kept as the dask scheduler's metadata: no shared file system needed


def _killed_path(markers, key):
    return Path(markers) / f"killed-{key}.json"


def read_killed(markers, key):
    """The marker a watchdog wrote before ending a worker on this run, or None."""
    if markers is None:
        return None
    if markers == DASK_MARKERS:
        from distributed import get_client

        return get_client().get_metadata(["odtlab-killed", key], default=None)
    try:
        return json.loads(_killed_path(markers, key).read_text())
    except (OSError, ValueError):
        return None


def _write_killed(markers, key, status, message, client=None):
    if markers is None:
        return
    if markers == DASK_MARKERS:
        client.set_metadata(["odtlab-killed", key], {"status": status, "message": message})
        return
    path = _killed_path(markers, key)
    tmp = path.with_suffix(".tmp")
    try:
        tmp.write_text(json.dumps({"status": status, "message": message}))
        os.replace(tmp, path)
    except OSError:
        pass


def note_attempt(markers, key):
    """Append the run's key to ``attempts.log`` (how the local backend finds runs that crash workers)."""
    if markers is None or markers == DASK_MARKERS:
        return
    try:
        with open(Path(markers) / "attempts.log", "a") as fh:
            fh.write(key + "\n")
    except OSError:
        pass


def attempts(markers):
    """How many times each key was started, from ``attempts.log``."""
    counts = {}
    try:
        with open(Path(markers) / "attempts.log") as fh:
            for line in fh:
                counts[line.strip()] = counts.get(line.strip(), 0) + 1
    except OSError:
        pass
    return counts


class _Watchdog(threading.Thread):
    """Ends this worker process when the run overruns its hard time or memory limit (see module doc)."""

    def __init__(self, run, markers):
        super().__init__(daemon=True, name=f"odtlab-watchdog-{run.key}")
        self.run_ = run
        self.markers = markers
        if markers == DASK_MARKERS:  # the task's client, taken in its thread (the watchdog has none)
            from distributed import get_client

            self.client = get_client()
        else:
            self.client = None
        self.stop = threading.Event()
        self.start_time = time.perf_counter()
        t, m = run.time_limit, run.memory_limit
        self.hard_time = None if t is None else HARD_TIME_FACTOR * t + min(HARD_TIME_GRACE, 1.0 + t)
        base = current_rss()
        self.hard_rss = None if m is None or base is None else base + HARD_MEMORY_FACTOR * m + HARD_MEMORY_SLACK

    def run(self):
        while not self.stop.wait(0.1):
            elapsed = time.perf_counter() - self.start_time
            if self.hard_time is not None and elapsed > self.hard_time:
                self._kill("time_limit", f"killed by the watchdog after {elapsed:.1f} s (time limit "
                                         f"{self.run_.time_limit:g} s not honoured by the algorithm)")
            rss = current_rss() if self.hard_rss is not None else None
            if rss is not None and rss > self.hard_rss:
                self._kill("memory_limit", f"killed by the watchdog at {rss / 2**20:.0f} MiB resident "
                                           f"(memory limit {self.run_.memory_limit} bytes not honoured)")

    def _kill(self, status, message):
        _write_killed(self.markers, self.run_.key, status, message, self.client)
        os._exit(KILLED_EXIT_CODE)


# --------------------------------------------------------------------------------------------------
# one run
# --------------------------------------------------------------------------------------------------

_VERSIONS = None


def versions():
    """``python=... odtlab=... numpy=... numba=... scikit-learn=...`` of this process."""
    global _VERSIONS
    if _VERSIONS is None:
        from importlib.metadata import PackageNotFoundError, version

        import odtlab

        found = []
        for dist in ("numpy", "numba", "scikit-learn"):
            try:
                found.append(f"{dist}={version(dist)}")
            except PackageNotFoundError:
                found.append(f"{dist}=unknown")
        _VERSIONS = f"python={platform.python_version()} odtlab={odtlab.__version__} " + " ".join(found)
    return _VERSIONS


def base_row(run):
    row = {c: None for c in COLUMNS}
    row.update(key=run.key, algorithm=run.algorithm, dataset=run.dataset, params=run.params, split=run.split,
               fold=run.fold, seed=run.seed, time_limit=run.time_limit, memory_limit=run.memory_limit)
    return row


def finish_row(row, status, message=None):
    """Complete a row with its status, message, versions, host, pid and time."""
    row.update(status=status, message=message, versions=row.get("versions") or versions(),
               host=socket.gethostname(), pid=os.getpid(),
               finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    return row


def _one_line(exc):
    return f"{type(exc).__name__}: " + " ".join(str(exc).split())


def _warm_up(alg, run, X, y, task):
    """Fit the same estimator once on a few rows, so compiled kernels and lazily imported modules load
    outside the timed fit (odtlab solvers and peers; a user's factory is not called twice)."""
    sig = (run.algorithm, run.params, X.dtype.kind, task)
    if alg.kind == "factory" or sig in _WARMED:
        return
    _WARMED.add(sig)
    if task == "classification":
        rows = np.concatenate([np.flatnonzero(y == c)[:3] for c in np.unique(y)])
    else:
        rows = np.arange(min(len(y), 12))
    try:
        est = alg.make(run.options, run.seed, task, 5.0)
        if alg.kind == "odtlab":
            _limit_searches(est, time.perf_counter() + 5.0, None)
        est.fit(X[rows], y[rows])
    except Exception:  # noqa: BLE001 - the timed fit reports any real problem
        pass


def _scores(est, X, y, task):
    pred = np.asarray(est.predict(X))
    if task == "classification":
        miss = int(np.sum(pred.reshape(-1) != np.asarray(y).reshape(-1)))
        return float(miss), 1.0 - miss / len(y)
    return float(np.sum((pred.reshape(len(y), -1) - np.asarray(y, dtype=float).reshape(len(y), -1)) ** 2)), None


def _clean_stats(stats):
    out = {}
    for k, v in stats.items():
        if isinstance(v, (np.generic,)):
            v = v.item()
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        out[k] = v
    return json.dumps(out, default=str, separators=(",", ":"))


def execute(run, markers=None, driver_pid=None, data=None):
    """Run ``run`` and return its result row (a dict with :data:`COLUMNS`).

    ``markers`` is a folder shared with the driver (killed-run markers, attempts log), or
    :data:`DASK_MARKERS` (the dask scheduler keeps them); the hard-limit watchdog runs only in a worker
    process, i.e. when ``os.getpid() != driver_pid``. ``data``: the run's data set, loaded by the driver
    (workers on other machines need no data files); None loads it here.
    """
    row = base_row(run)
    killed = read_killed(markers, run.key)
    if killed is not None:
        return finish_row(row, killed["status"], killed["message"])
    note_attempt(markers, run.key)
    alg = algorithm(run.algorithm)
    if alg.kind is None:
        return finish_row(row, "unavailable", alg.reason)
    from odtlab import datasets

    try:
        data = load_dataset(run.dataset) if data is None else data
    except datasets.MissingDataError as exc:
        return finish_row(row, "missing_data", f"data set not available: {exc}")
    except Exception as exc:  # noqa: BLE001 - an unknown name or a bad modifier is this run's error
        return finish_row(row, "error", _one_line(exc))
    task = data.task
    try:
        train, test = split_indices(data.y, run.split, run.fold, run.seed, task)
    except ValueError as exc:
        return finish_row(row, "error", _one_line(exc))
    X, y = data.X[train], data.y[train]
    if test is not None:
        X_test, y_test = data.X[test], data.y[test]
    else:
        X_test, y_test = data.X_test, data.y_test
    row.update(n_train=len(y), n_test=None if y_test is None else len(y_test))
    try:
        est = alg.make(run.options, run.seed, task, run.time_limit)
    except Exception as exc:  # noqa: BLE001
        return finish_row(row, "error", _one_line(exc))
    row["versions"] = " ".join(filter(None, (versions(), alg.version())))
    _warm_up(alg, run, X, y, task)

    watchdog = None
    if driver_pid is not None and os.getpid() != driver_pid and (run.time_limit or run.memory_limit):
        watchdog = _Watchdog(run, markers)
        watchdog.start()
    deadline = None if run.time_limit is None else time.perf_counter() + run.time_limit
    if alg.kind == "odtlab":
        _limit_searches(est, deadline, run.memory_limit)
    _reset_peak_rss()
    t0 = time.perf_counter()
    try:
        est.fit(X, y)
    except Exception as exc:  # noqa: BLE001
        return finish_row(row, "error", _one_line(exc))
    finally:
        seconds = time.perf_counter() - t0
        if watchdog is not None:
            watchdog.stop.set()
    row["seconds"] = seconds
    row["peak_rss"] = _status_field("VmHWM")
    try:
        row["train_loss"], row["train_accuracy"] = _scores(est, X, y, task)
        if y_test is not None:
            row["test_loss"], row["test_accuracy"] = _scores(est, X_test, y_test, task)
        row["splits"], row["leaves"], row["depth"] = peers.size(est)
    except Exception as exc:  # noqa: BLE001
        return finish_row(row, "error", "scoring failed: " + _one_line(exc))
    result = getattr(est, "result_", None)
    if result is not None and hasattr(result, "as_dict"):
        stats = dict(result.stats)
        row.update(objective=float(result.objective), lower_bound=float(result.lower_bound),
                   upper_bound=float(result.upper_bound), gap=float(result.gap), optimal=bool(result.optimal),
                   sense=result.sense, iterations=stats.pop("iterations", None),
                   search_seconds=stats.pop("seconds", None), peak_memory=stats.pop("peak_memory", None),
                   evaluations=stats.get("evaluations"), stats=_clean_stats(stats))
        return finish_row(row, result.status)
    status, optimal = peers.status(est, seconds)
    row["optimal"] = optimal
    return finish_row(row, status)
