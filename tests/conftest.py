"""Shared test set-up: benchmark data from ODTLAB_DATA (../shared/data beside the checkout by default)."""
import os
from pathlib import Path

import pytest

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
if "ODTLAB_DATA" not in os.environ and _SHARED.is_dir():
    os.environ["ODTLAB_DATA"] = str(_SHARED)


@pytest.fixture(scope="session")
def shared_data():
    """The benchmark data folder; CI must provide it, so a missing folder fails instead of skipping."""
    roots = [Path(p) for p in os.environ.get("ODTLAB_DATA", "").split(os.pathsep) if p]
    for root in roots:
        if (root / "SHA256SUMS").is_file():
            return root
    if os.environ.get("CI"):
        pytest.fail("ODTLAB_DATA does not point at the benchmark data (../shared/data) in CI")
    pytest.skip("benchmark data not available on this machine (set ODTLAB_DATA)")
