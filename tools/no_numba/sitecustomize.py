"""Put this folder first on PYTHONPATH to run Python as where numba is not installed: ``import numba`` and
``import llvmlite`` raise ImportError (tests/test_no_numba.py, benchmarks/bench_no_numba.py)."""
import sys


class BlockNumba:
    """A meta-path finder that fails every import of numba or llvmlite, before any other finder sees it."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numba", "llvmlite"):
            raise ImportError(f"No module named {name!r} (blocked by tools/no_numba)", name=name)
        return None


sys.meta_path.insert(0, BlockNumba())
