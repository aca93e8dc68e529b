"""The ``odtlab`` command.

::

    odtlab --version
    odtlab data list [--json] [--collection C] [--available]
    odtlab data info NAME [--json]
    odtlab data fetch [NAME|COLLECTION/ ...] [--all] [--chapters [--notebooks DIR]] [--mirror URL] [--dest DIR] [--force]
    odtlab solve ALGO DATASET|FILE.csv [--target COLUMN] [--OPTION VALUE ...] [--json] [--progress]
    odtlab solve --list
    odtlab warmup [ALGO ...]
    odtlab tour [PATH] [CHAPTER ...]
    odtlab reproduce TABLE [--quick] ...

Every sub-command stores its handler with ``set_defaults(handler=...)``: ``handler(args) -> int``
(the exit code; None counts as 0). Exit codes: 0 success; 2 a usage error (argparse's, :class:`UsageError`,
an unknown name, a value a check refuses, an algorithm for the other task); 1 a runtime error (a missing or
corrupt file, a failed download, a chapter that failed); 130 Ctrl-C. Errors print one line
``odtlab: error: <message>`` on stderr, without a traceback; Ctrl-C prints ``odtlab: interrupted``.

``odtlab --help`` and a sub-command's ``--help`` import neither numba nor the solvers: the data layer is
imported on first use (:func:`_lazy_module`) and the solver registry only by the handlers, so that a
Ctrl-C during start-up still lands inside :func:`main`.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sys
import threading


def _lazy_module(name):
    """The module ``name``, imported on first attribute access (:class:`importlib.util.LazyLoader`)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


datasets = _lazy_module("odtlab.datasets")


def command(name="odtlab"):
    """How the user's shell runs ``name`` from this environment (:func:`odtlab.datasets.shell_command`)."""
    return datasets.shell_command(name=name)


_LIST_COLUMNS = ("name", "kind", "task", "n", "n_test", "n_features", "n_classes", "on_disk")
_HEADERS = {"n_test": "test", "n_features": "features", "n_classes": "classes", "on_disk": "on disk"}


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def _data_list(args) -> int:
    rows = [datasets.info(n) for n in datasets.names(args.collection, available_only=args.available)]
    if args.json:
        print(json.dumps([{k: r.get(k) for k in _LIST_COLUMNS + ("available", "collection", "path", "url")}
                          for r in rows], indent=1))
        return 0
    table = [[_HEADERS.get(c, c) for c in _LIST_COLUMNS]]
    table += [[_fmt(r.get(c)) for c in _LIST_COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(_LIST_COLUMNS))]
    for row in table:
        print("  ".join(cell.ljust(w) if i < 3 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return 0


def _data_info(args) -> int:
    meta = datasets.info(args.name)
    if args.json:
        print(json.dumps(meta, indent=1, default=str))
        return 0
    width = max(len(k) for k in meta)
    for k, v in meta.items():
        print(f"{k.ljust(width)}  {_fmt(v)}")
    return 0


def _data_fetch(args) -> int:
    specs = list(args.names)
    if args.all:
        specs += datasets.collections()[:-2]  # the file-backed collections (not sklearn/, gen/)
    if args.chapters:
        specs += datasets.chapter_datasets(args.notebooks)
    if not specs:
        print("odtlab data fetch: error: give data set names, a collection (dl/), --all or --chapters",
              file=sys.stderr)
        return 2
    if len(specs) == 1 and "/" in specs[0] and not specs[0].endswith("/"):
        print(datasets.fetch(specs[0], mirror=args.mirror, dest=args.dest, force=args.force))
        return 0
    on_disk = {n for n in datasets.expand(specs) if args.dest is None and datasets.info(n)["on_disk"]}
    paths = datasets.fetch_many(specs, mirror=args.mirror, dest=args.dest, force=args.force)
    fetched = len(paths) if args.force else len(set(paths) - on_disk)
    print(f"odtlab: {len(paths)} data sets ready ({fetched} downloaded into "
          f"{args.dest or datasets.cache_dir()})")
    return 0


def _add_data_command(subparsers):
    data = subparsers.add_parser("data", help="list, inspect and fetch benchmark data sets",
                                 description="Benchmark data sets (see odtlab.datasets).")
    sub = data.add_subparsers(dest="data_command", metavar="{list,info,fetch}")

    p = sub.add_parser("list", help="list data set names with their size and availability")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--collection", metavar="C", default=None,
                   help="only this collection (dl, branches, quantbnb, gosdt, sklearn, gen)")
    p.add_argument("--available", action="store_true",
                   help="only data sets that can be loaded now (on disk, or downloadable unless ODTLAB_OFFLINE=1)")
    p.set_defaults(handler=_data_list)

    p = sub.add_parser("info", help="show what is known about one data set (without loading it)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_data_info)

    p = sub.add_parser("fetch", help="download data files and check their sha256",
                       description="Download data files into the user cache (ODTLAB_CACHE, default "
                                   "~/.cache/odtlab/data) and check their sha256; files already on the data "
                                   "path (ODTLAB_DATA or the cache) are kept.")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="data set names (dl/anneal) or collections (dl/, branches/, quantbnb/, gosdt/)")
    p.add_argument("--all", action="store_true", help="every file-backed data set")
    p.add_argument("--chapters", action="store_true",
                   help="every data set the notebook chapters use (derived from their sources)")
    p.add_argument("--notebooks", metavar="DIR", default=None,
                   help="with --chapters: the folder of the chapters (default: the checkout's notebooks/)")
    p.add_argument("--mirror", metavar="URL", default=None,
                   help="base URL serving the manifest's relative paths (default: env ODTLAB_MIRROR, "
                        "else the public source URL)")
    p.add_argument("--dest", metavar="DIR", default=None,
                   help="install under DIR instead of the user cache")
    p.add_argument("--force", action="store_true", help="download again even if a valid copy exists")
    p.set_defaults(handler=_data_fetch)
    data.set_defaults(handler=lambda args: _usage(data))


def _usage(parser) -> int:
    parser.print_usage(sys.stderr)
    return 2


class UsageError(Exception):
    """A command line that asks for something that cannot be done as written (exit code 2)."""


def _add_solve_command(subparsers):
    """``odtlab solve ALGO DATASET|FILE.csv [options]``: defined here so that ``--help`` needs no solver; the
    algorithm's options are the registry's (:func:`_solve_options`), read without it."""
    p = subparsers.add_parser("solve", help="fit an algorithm on a data set or a CSV file and print the result",
                              usage="%(prog)s [-h] [--list] [ALGO] [DATASET] [--OPTION VALUE ...] [--target COLUMN] "
                                    "[--memory-limit SIZE] [--json] [--progress]",
                              description="Fit a registered algorithm (`odtlab solve --list`) on a data set "
                                          "(`odtlab data list`) or a CSV file with a header row.",
                              epilog="Algorithm options: --OPTION VALUE for each option of the algorithm's "
                                     "registry entry, e.g. --depth 3, --lam 0.02, --time-limit 10 (seconds of "
                                     "search, counted after compilation); `odtlab solve --list` shows each "
                                     "algorithm's options and the estimator parameter each one sets.")
    p.add_argument("algorithm", nargs="?", metavar="ALGO", help="an algorithm name (see --list)")
    p.add_argument("dataset", nargs="?", metavar="DATASET",
                   help="a data set name, e.g. dl/anneal, or a CSV file (with --target)")
    p.add_argument("--list", action="store_true", help="list the algorithms with their task and options, and exit")
    p.add_argument("--target", metavar="COLUMN", help="the CSV column to predict (the others are the features)")
    p.add_argument("--memory-limit", dest="memory_limit", default="auto", metavar="SIZE",
                   help="cap on the search's memory, e.g. 4GiB or 500MB; 'none' for no cap (default: auto, "
                        "half the available memory)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the tree as nested dicts)")
    p.add_argument("--progress", action="store_true", help="show a progress bar when the search takes over a second")
    p.set_defaults(handler=_solve, options={})


def _option_value(text):
    """A command-line value as an int, else a float, else the text (the estimator's parameter check refuses
    a wrong one by name, e.g. ``--depth two``)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _solve_options(parser, argv):
    """Parse ``argv`` where ``solve`` also takes ``--OPTION VALUE`` (or ``--OPTION=VALUE``) pairs it does not
    define: the algorithm's options, which the registry maps to estimator parameters when the command runs
    (:func:`odtlab.solvers.make_estimator` names an algorithm's options when one is unknown). Every option
    takes one value, so a pair may stand anywhere on the line. Returns argparse's namespace with
    ``options`` (``--time-limit`` as ``time_limit``)."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    if args.handler is not _solve:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    unknown, options, rest = {e for e in extra if e.startswith("--")}, {}, []
    items = iter(argv)
    for item in items:
        name, eq, value = item.partition("=")
        if item not in unknown:
            rest.append(item)
            continue
        if not eq:
            value = next(items, None)
            if value is None or value.startswith("--"):
                raise UsageError(f"{name} needs a value, e.g. {name} 3")
        options[name[2:].replace("-", "_")] = _option_value(value)
    args = parser.parse_args(rest)
    args.options = options
    return args


def _solve_list():
    from odtlab import solvers

    for spec in solvers.specs():
        options = ", ".join(f"--{option.replace('_', '-')} ({parameter})" for option, parameter in spec.options.items())
        print(f"{spec.name:<20} {spec.task:<15} {spec.summary}\n{'':<36} options: {options or 'none'}")
    return 0


def _read_csv(path, target):
    """A CSV file as a :class:`odtlab.datasets.Dataset`: numeric feature columns, ``target`` to predict.

    Its task is regression when the target holds non-integer numbers, classification when it holds text;
    an integer target fits either kind of algorithm."""
    import numpy as np
    import pandas as pd

    frame = pd.read_csv(path)
    if target is None:
        raise UsageError(f"{path} is a CSV file: name the column to predict with --target "
                         f"(columns: {', '.join(map(str, frame.columns))})")
    if target not in frame.columns:
        raise UsageError(f"--target {target!r} is not a column of {path} (columns: {', '.join(map(str, frame.columns))})")
    features = frame.drop(columns=[target])
    text = [str(c) for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if text:
        raise UsageError(f"{path}: column(s) {', '.join(text)} are not numeric; odtlab solve reads numeric "
                         "features (encode categories as integer codes first)")
    y = frame[target].to_numpy()
    if pd.api.types.is_numeric_dtype(y) and not np.all(np.mod(y[np.isfinite(y)], 1) == 0):
        task = "regression"
    elif not pd.api.types.is_numeric_dtype(y):
        task = "classification"
    else:
        task = None  # integer target: the algorithm decides
    X = features.to_numpy(dtype=np.float64)
    return X, y, [str(c) for c in features.columns], task


def _solve_data(args, spec):
    """The data set to fit: a manifest/gen/sklearn name, or a CSV file (its task inferred by _read_csv)."""
    if args.dataset.lower().endswith(".csv") or os.path.isfile(args.dataset):
        X, y, names, task = _read_csv(args.dataset, args.target)
        task = task or spec.task
        classes = sorted(set(y.tolist())) if task == "classification" else None
        return datasets.Dataset(name=args.dataset, X=X, y=y, feature_names=names, n_categories=None,
                                kind="continuous", task=task, class_names=classes, source=args.dataset)
    if args.target is not None:
        raise UsageError("--target applies to a CSV file; a named data set knows its target")
    return datasets.load(args.dataset)


def _solve(args):
    if args.list:
        return _solve_list()
    if args.algorithm is None or args.dataset is None:
        raise UsageError(f"give an algorithm and a data set, e.g. `{command()} solve cart sklearn/iris` "
                         f"(`{command()} solve --list` lists the algorithms)")
    from odtlab import solvers

    data = _solve_data(args, solvers.get(args.algorithm))
    est, X = solvers.fit(args.algorithm, data, progress=args.progress, memory_limit=args.memory_limit, **args.options)  # checks the task first
    if est.result_.status == "interrupted":  # Search.run stops cleanly on Ctrl-C; the command still exits 130
        raise KeyboardInterrupt
    out = {"algorithm": args.algorithm, "dataset": data.name}
    out.update(est.summary(X, data.y))
    if args.json:
        out["tree"] = est.tree_.to_dict()
        print(json.dumps(out, default=float))
        return 0
    width = max(map(len, out))
    for key, value in out.items():
        if key != "tree":
            print(f"{key:<{width}}  {value}")
    print(out["tree"])
    return 0


def _add_warmup_command(subparsers):
    p = subparsers.add_parser("warmup", help="compile every kernel now (once per machine; cached on disk)",
                              description="Compile (or load from numba's disk cache) every kernel the "
                                          "estimators use, with a progress bar, so that the first fit is fast.")
    p.add_argument("algorithms", nargs="*", metavar="ALGO", help="only these algorithms (default: all)")

    def run(args):
        from odtlab import solvers, warmup

        try:
            names = [solvers.get(a).name for a in args.algorithms]
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        if not warmup.COMPILED:
            print("odtlab: nothing to compile: the kernels run as plain Python here (numba is not installed, "
                  "or NUMBA_DISABLE_JIT is set)")
            return 0
        seconds = warmup.warm(names or None)
        print(f"odtlab: warmup done in {seconds:.1f} s (kernels cached in "
              f"{os.environ.get('NUMBA_CACHE_DIR') or 'numba __pycache__ folders next to odtlab'})")
        return 0

    p.set_defaults(handler=run)


def _add_tour_command(subparsers):
    p = subparsers.add_parser("tour", help="run every chapter headless and report each one",
                              description="Run the chapters in a fresh kernel each, printing one line per "
                                          "chapter as it ends. The chapters are found in PATH if given, else "
                                          "in ./notebooks, else in the checkout odtlab is installed from.")
    p.add_argument("items", nargs="*", metavar="PATH|CHAPTER",
                   help="a folder holding the chapter notebooks, and/or chapter name prefixes, e.g. 00 03")

    def run(args):
        from odtlab import tour

        folders = [a for a in args.items if os.path.isdir(a)]
        if len(folders) > 1:
            raise UsageError(f"give one chapter folder, not {len(folders)}: {', '.join(folders)}")
        names = [a for a in args.items if a not in folders]
        return 1 if tour.run(names, folders[0] if folders else None) else 0

    p.set_defaults(handler=run)


def _add_reproduce_command(subparsers):
    """``odtlab reproduce TABLE [--quick] [--backend local|dask] [--scheduler ADDRESS] [--out DIR]`` and
    ``odtlab reproduce --list`` (see odtlab.experiments.reproduction)."""
    p = subparsers.add_parser(
        "reproduce", help="run a paper's table and print ours beside the published numbers",
        description="Run the grid of a paper's table (resuming from --out), print our numbers beside the "
                    "paper's with the difference, and save the table, the comparison and the runs in --out.")
    p.add_argument("table", nargs="?", metavar="TABLE", help="a table name (see --list)")
    p.add_argument("--list", action="store_true", help="list the tables and exit")
    p.add_argument("--quick", action="store_true", help="only the table's quick rows (well under 2 minutes)")
    p.add_argument("--backend", choices=("local", "dask"), default=None,
                   help="local: joblib worker processes (default); dask: dask.distributed")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="address of an existing dask scheduler (implies --backend dask); default: a LocalCluster")
    p.add_argument("--out", metavar="DIR", default="odtlab-results",
                   help="folder for the run store and the outputs (default: ./odtlab-results)")
    p.add_argument("--jobs", metavar="N", type=int, default=None, help="worker processes (default: all cores)")

    def run(args):
        from odtlab.experiments import reproduction as rep

        if args.list:
            print(rep.list_tables().to_string(index=False))
            return 0
        if args.table is None:
            p.print_usage(sys.stderr)
            print("odtlab reproduce: error: give a TABLE or --list", file=sys.stderr)
            return 2
        backend = args.backend or ("dask" if args.scheduler else "local")
        result = rep.reproduce(args.table, quick=args.quick, backend=backend, n_jobs=args.jobs,
                               scheduler=args.scheduler, out=args.out)
        print(result.text)
        print("saved: " + ", ".join(str(f) for f in result.files.values()))
        return 0

    p.set_defaults(handler=run)


def build_parser() -> argparse.ArgumentParser:
    """The full ``odtlab`` argument parser (it imports no solver)."""
    from odtlab import __version__

    parser = argparse.ArgumentParser(
        prog="odtlab", description="odtlab: optimal decision trees for teaching and research.")
    parser.add_argument("--version", action="version", version=f"odtlab {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="{data,solve,warmup,tour,reproduce}")
    _add_data_command(subparsers)
    _add_solve_command(subparsers)
    _add_warmup_command(subparsers)
    _add_tour_command(subparsers)
    _add_reproduce_command(subparsers)
    parser.set_defaults(handler=lambda args: _usage(parser))
    return parser


def _error(message, code):
    print("odtlab: error: " + " ".join(str(message).split("\n")), file=sys.stderr)
    return code


def _run(argv):
    parser = build_parser()
    try:
        args = _solve_options(parser, sys.argv[1:] if argv is None else list(argv))
    except SystemExit as exc:  # argparse: usage errors (2) and --help / --version (0)
        return exc.code if isinstance(exc.code, int) else 2
    except UsageError as exc:
        return _error(exc, 2)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # `odtlab data list | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except UsageError as exc:
        return _error(exc, 2)
    except datasets.DataError as exc:
        usage = isinstance(exc, datasets.UnknownDatasetError)
        return _error(exc, 2 if usage else 1)
    except OSError as exc:
        return _error(exc, 1)
    except (ValueError, TypeError) as exc:  # a value the command line gave, refused by a check
        return _error(exc, 2)


def main(argv=None) -> int:
    """Run the ``odtlab`` command with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Ctrl-C anywhere prints one line and exits 130, even when the KeyboardInterrupt it raised was swallowed on
    its way (raised inside a finaliser, or by a search that finished in the same kernel call): the SIGINT
    handler notes every interrupt, and a noted one decides the exit code."""
    caught = []

    def on_sigint(signum, frame):
        caught.append(signum)
        raise KeyboardInterrupt

    code, previous = None, None
    try:  # a Ctrl-C before the handler is in place, or after it is restored, lands in the outer except
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            code = _run(argv)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    except KeyboardInterrupt:
        caught.append(signal.SIGINT)
    if caught:
        print("odtlab: interrupted", file=sys.stderr, flush=True)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
