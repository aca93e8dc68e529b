"""The ``odtlab`` command.

::

    odtlab data list [--json] [--collection C] [--available]
    odtlab data info NAME [--json]
    odtlab data fetch [NAME|COLLECTION/ ...] [--all] [--chapters [--notebooks DIR]] [--mirror URL] [--dest DIR] [--force]
    odtlab solve ...            (added by odtlab.solvers.add_solve_command)

Every sub-command stores its handler with ``set_defaults(handler=...)``: ``handler(args) -> int``
(the exit code; None counts as 0). Errors of
the data layer (:class:`odtlab.datasets.DataError`, OSError, ValueError) are printed
as one line ``odtlab: error: <message>`` on stderr with exit code 2, without a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from odtlab import datasets

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


def _add_solve_command(subparsers):
    """Register ``odtlab solve`` from odtlab.solvers; keep the data commands working without it."""
    try:
        from odtlab.solvers import add_solve_command
    except ImportError as exc:
        reason = str(exc)

        def unavailable(args):
            print(f"odtlab: error: the solve command is not available ({reason})", file=sys.stderr)
            return 2

        p = subparsers.add_parser("solve", help="(not available in this installation)", add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(handler=unavailable)
        return
    add_solve_command(subparsers)


def _add_tour_command(subparsers):
    p = subparsers.add_parser("tour", help="run every chapter headless and report each one")
    p.add_argument("chapters", nargs="*", help="chapter name prefixes, e.g. 00 03 (default: all)")
    p.set_defaults(handler=lambda args: 1 if _tour(args.chapters) else 0)


def _tour(names):
    from odtlab import tour

    return tour.run(names)


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
    """The full ``odtlab`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="odtlab", description="odtlab: optimal decision trees for teaching and research.")
    subparsers = parser.add_subparsers(dest="command", metavar="{data,solve,tour,reproduce}")
    _add_data_command(subparsers)
    _add_solve_command(subparsers)
    _add_tour_command(subparsers)
    _add_reproduce_command(subparsers)
    parser.set_defaults(handler=lambda args: _usage(parser))
    return parser


def main(argv=None) -> int:
    """Run the ``odtlab`` command with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # `odtlab data list | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (datasets.DataError, OSError, ValueError) as exc:
        message = " ".join(str(exc).split("\n"))
        print(f"odtlab: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
