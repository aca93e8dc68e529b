"""Shared test set-up: benchmark data from ODTLAB_DATA (a data folder beside the checkout by default)."""
import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests on hypothesis's fixed seed sequence, so a run cannot fail on a case no earlier run
# met (a landing is decided by one run); on a workstation they explore anew each time and keep what they find.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
if "ODTLAB_DATA" not in os.environ and _SHARED.is_dir():
    os.environ["ODTLAB_DATA"] = str(_SHARED)
os.environ.setdefault("ODTLAB_OFFLINE", "1")  # no test downloads by accident; the download tests unset it


@pytest.fixture(scope="session")
def shared_data():
    """The benchmark data folder; CI must provide it, so a missing folder fails instead of skipping."""
    roots = [Path(p) for p in os.environ.get("ODTLAB_DATA", "").split(os.pathsep) if p]
    for root in roots:
        if (root / "SHA256SUMS").is_file():
            return root
    if os.environ.get("CI"):
        pytest.fail("ODTLAB_DATA does not point at the benchmark data in CI")
    pytest.skip("benchmark data not available on this machine (set ODTLAB_DATA)")


@pytest.fixture
def picture_folders(tmp_path):
    """Where a test saves its PNGs: tmp_path, and docs/img too when ODTLAB_DOCS_IMG names that folder."""
    folders = [tmp_path]
    if os.environ.get("ODTLAB_DOCS_IMG"):
        folders.append(Path(os.environ["ODTLAB_DOCS_IMG"]))
        folders[-1].mkdir(parents=True, exist_ok=True)
    return folders


@pytest.fixture
def isolated_cache(monkeypatch, tmp_path):
    """Keep a test away from the user's data cache and mirror settings."""
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLAB_MIRROR", raising=False)


class LoopbackServer:
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) in a daemon thread, answering with ``handler`` (a
    request handler class); ``url`` is its address. Subclasses choose the handler."""

    def __init__(self, handler):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()

    def close(self):
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(5)


class FolderServer(LoopbackServer):
    """A loopback server serving one folder; it records GET paths in ``requests``."""

    def __init__(self, folder):
        self.requests = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        super().__init__(functools.partial(Handler, directory=str(folder)))


@pytest.fixture
def loopback():
    """Start loopback servers: ``loopback(ServerClass, *args)`` (a :class:`LoopbackServer`); all are shut down
    after the test."""
    servers = []

    def start(server_class, *args):
        servers.append(server_class(*args))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def serve(loopback):
    """Start loopback servers over folders: ``serve(folder).url``."""
    return functools.partial(loopback, FolderServer)
