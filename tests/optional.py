"""Optional packages (the peers, cairosvg): CI installs every one of them, so there a missing one fails the test
that needs it; on a workstation without it the test is skipped."""
import importlib
import os

import pytest


def need(module):
    """The imported ``module``; outside CI (``CI=true``) a skip when it is not installed."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)
