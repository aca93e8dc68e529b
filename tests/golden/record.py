"""Record the golden traces: ``python -m tests.golden.record`` (from the repository root) rewrites
``tests/golden/traces.json``. Re-record only in a commit that changes a behaviour on purpose, and say in
its message which cases changed and why (``--only CARTClassifier`` re-records one estimator's cases)."""
import argparse
import json
from pathlib import Path

from . import cases

PATH = Path(__file__).with_name("traces.json")


def load():
    """The recorded digests, ``{case id: {level: digest}}``."""
    return json.loads(PATH.read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append", metavar="ESTIMATOR",
                        help="re-record only this estimator's cases (repeatable); the others are kept")
    args = parser.parse_args(argv)
    old = load() if PATH.exists() else {}
    new = {}
    for est in sorted(cases.CASES):
        for i in range(len(cases.CASES[est])):
            cid = cases.case_id(est, i)
            if args.only and est not in args.only:
                if cid in old:
                    new[cid] = old[cid]
                continue
            new[cid] = {level: cases.run_case(est, i, level) for level in cases.LEVELS}
            if old.get(cid) != new[cid]:
                print(("changed: " if cid in old else "new: ") + cid)
    PATH.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
    print(f"{len(new)} cases written to {PATH}")


if __name__ == "__main__":
    main()
