"""odtlab.datasets.fetch over a real loopback HTTP server serving the shared data folder: the download
code path with no mock. Checksums are verified; corrupt, too large, too slow, missing or interrupted
downloads leave nothing behind; a missing file is downloaded by load itself unless ODTLAB_OFFLINE is set."""
import functools
import hashlib
import http.server
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from conftest import LoopbackServer
from odtlab import datasets
from odtlab.datasets import ChecksumError, DownloadError, MissingDataError

MANIFEST = {e["name"]: e for e in json.loads(datasets.MANIFEST.read_text())["datasets"]}


pytestmark = pytest.mark.usefixtures("isolated_cache")


@pytest.fixture
def root(shared_data):
    """The shared benchmark folder (conftest's ``shared_data``) as an absolute path."""
    return Path(os.path.abspath(shared_data))


def _sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _leftovers(folder):
    return [p for p in Path(folder).rglob("*") if p.is_file()]


@pytest.mark.parametrize("name", ["dl/anneal", "branches/monk1-o", "quantbnb/bank", "gosdt/monk1"])
def test_fetch_from_mirror_then_load_finds_it(root, serve, tmp_path, monkeypatch, name):
    server = serve(root)
    dest = tmp_path / "dest"
    path = datasets.fetch(name, mirror=server.url + "/", dest=dest)
    assert path == dest / MANIFEST[name]["path"]
    assert _sha(path) == MANIFEST[name]["sha256"]
    assert server.requests == ["/" + MANIFEST[name]["path"]]
    assert [p.name for p in _leftovers(dest)] == [path.name]  # no temporary file left
    monkeypatch.setenv("ODTLAB_DATA", str(dest))
    ds = datasets.load(name)
    assert Path(ds.source) == path
    assert ds.n_samples == MANIFEST[name]["n"]


def test_fetch_to_cache_with_env_mirror_and_reuse(root, serve, tmp_path, monkeypatch):
    server = serve(root)
    monkeypatch.setenv("ODTLAB_MIRROR", server.url)
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    path = datasets.fetch("dl/vote")
    assert path == tmp_path / "cache" / "murtree-data/DL/vote.txt"
    assert Path(datasets.load("dl/vote").source) == path  # found in the user cache
    assert datasets.fetch("dl/vote") == path and len(server.requests) == 1  # valid copy kept
    datasets.fetch("dl/vote", force=True)
    assert len(server.requests) == 2


def test_fetch_replaces_a_corrupt_cached_copy(root, serve, tmp_path):
    server = serve(root)
    dest = tmp_path / "dest"
    target = dest / MANIFEST["dl/vote"]["path"]
    target.parent.mkdir(parents=True)
    target.write_text("garbage")
    assert datasets.fetch("dl/vote", mirror=server.url, dest=dest) == target
    assert _sha(target) == MANIFEST["dl/vote"]["sha256"]


def test_corrupt_mirror_raises_and_leaves_no_file(root, serve, tmp_path):
    rel = MANIFEST["dl/hepatitis"]["path"]
    mirror = tmp_path / "mirror"
    (mirror / rel).parent.mkdir(parents=True)
    data = bytearray((root / rel).read_bytes())
    data[-2] = ord("1") if data[-2] == ord("0") else ord("0")
    (mirror / rel).write_bytes(bytes(data))
    server = serve(mirror)
    dest = tmp_path / "dest"
    with pytest.raises(ChecksumError) as info:
        datasets.fetch("dl/hepatitis", mirror=server.url, dest=dest)
    message = str(info.value)
    assert MANIFEST["dl/hepatitis"]["sha256"] in message and _sha(mirror / rel) in message
    assert "nothing was installed" in message
    assert _leftovers(dest) == []


def test_http_404_is_a_clear_error(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))  # not found on the data path: downloaded
    empty = tmp_path / "empty"
    empty.mkdir()
    server = serve(empty)
    with pytest.raises(DownloadError) as info:
        datasets.fetch("dl/anneal", mirror=server.url)
    assert isinstance(info.value, OSError)
    message = str(info.value)
    assert "dl/anneal" in message and "HTTP 404" in message
    assert f"{server.url}/murtree-data/DL/anneal.txt" in message
    assert _leftovers(tmp_path / "cache") == []


def test_unreachable_host_is_a_clear_error(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    server = serve(tmp_path)
    url = server.url
    server.close()  # nothing listens on that port any more
    with pytest.raises(DownloadError, match="could not download dl/anneal from http://127.0.0.1"):
        datasets.fetch("dl/anneal", mirror=url)


def test_file_url_mirror_and_nothing_to_fetch(root, tmp_path):
    path = datasets.fetch("gosdt/monk2", mirror=root.as_uri(), dest=tmp_path)
    assert _sha(path) == MANIFEST["gosdt/monk2"]["sha256"]
    with pytest.raises(ValueError, match="generated; there is nothing to fetch"):
        datasets.fetch("gen/xor")


# -- hostile servers: a body too large, a body too slow, a server that never answers -----------------

class _Hostile(LoopbackServer):
    """A loopback server whose every GET answers with ``behaviour(handler)``; it counts the bytes sent."""

    def __init__(self, behaviour):
        self.sent = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                try:
                    behaviour(self, outer)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client hung up, as it should

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    def send(self, handler, data):
        handler.wfile.write(data)
        handler.wfile.flush()
        self.sent += len(data)


@pytest.fixture
def hostile(loopback):
    """Start hostile servers: ``hostile(behaviour).url``."""
    return functools.partial(loopback, _Hostile)


def _stream(total, announce=None, pause=0.0, first_pause=0.0):
    """A behaviour that sends ``total`` bytes of zeros in 64 KiB chunks (1 byte at a time with a pause)."""
    def behaviour(handler, server):
        time.sleep(first_pause)
        handler.send_response(200)
        if announce is not None:
            handler.send_header("Content-Length", str(announce))
        handler.end_headers()
        step = 1 if pause else 1 << 16
        for start in range(0, total, step):
            server.send(handler, b"0" * min(step, total - start))
            time.sleep(pause)
    return behaviour


def test_a_body_past_the_manifest_size_is_cut_off_and_leaves_nothing(hostile, tmp_path):
    cap = datasets._max_bytes(MANIFEST["dl/anneal"])
    assert MANIFEST["dl/anneal"]["bytes"] < cap < 2 * MANIFEST["dl/anneal"]["bytes"] + 2**16
    server = hostile(_stream(300 * 2**20))  # 300 MB for a 149 KiB file, no Content-Length
    t0 = time.perf_counter()
    with pytest.raises(DownloadError, match=rf"sent more than {cap} bytes for dl/anneal .*nothing was installed"):
        datasets.fetch("dl/anneal", mirror=server.url, dest=tmp_path)
    assert time.perf_counter() - t0 < 10
    assert server.sent < 64 * 2**20  # stopped long before the 300 MB (socket buffers hold a few MB)
    assert _leftovers(tmp_path) == []


def test_an_announced_oversize_body_is_refused_before_reading(hostile, tmp_path):
    server = hostile(_stream(2**20, announce=300 * 2**20))
    with pytest.raises(DownloadError, match=r"announces 314572800 bytes, more than the \d+ allowed for dl/anneal"):
        datasets.fetch("dl/anneal", mirror=server.url, dest=tmp_path)
    assert _leftovers(tmp_path) == []


def test_a_trickling_body_stops_at_the_overall_deadline(hostile, tmp_path):
    server = hostile(_stream(MANIFEST["dl/anneal"]["bytes"], announce=MANIFEST["dl/anneal"]["bytes"], pause=0.05))
    t0 = time.perf_counter()
    with pytest.raises(DownloadError, match=r"took longer than 0.5 s; stopped, nothing was installed"):
        datasets.fetch("dl/anneal", mirror=server.url, dest=tmp_path, deadline=0.5)
    assert 0.5 <= time.perf_counter() - t0 < 2
    assert 0 < server.sent < 100 and _leftovers(tmp_path) == []


def test_a_silent_server_times_out_within_the_deadline(hostile, tmp_path):
    server = hostile(_stream(10, first_pause=5))
    t0 = time.perf_counter()
    with pytest.raises(DownloadError, match="could not download dl/anneal .*timed out"):
        datasets.fetch("dl/anneal", mirror=server.url, dest=tmp_path, deadline=0.5)
    assert time.perf_counter() - t0 < 2 and _leftovers(tmp_path) == []


def test_ctrl_c_during_a_download_removes_the_part_file(hostile, tmp_path):
    server = hostile(_stream(MANIFEST["dl/anneal"]["bytes"], announce=MANIFEST["dl/anneal"]["bytes"], pause=0.01))
    parts = []

    def interrupt():
        while not parts:
            parts.extend(tmp_path.rglob("*.part"))
            time.sleep(0.01)
        time.sleep(0.1)  # some bytes are in the .part file by now
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        datasets.fetch("dl/anneal", mirror=server.url, dest=tmp_path, deadline=60)
    assert parts and not parts[0].exists() and _leftovers(tmp_path) == []


def test_a_part_file_left_by_a_killed_process_is_removed_by_the_next_fetch(root, serve, tmp_path):
    target = tmp_path / MANIFEST["dl/vote"]["path"]
    target.parent.mkdir(parents=True)
    stale, fresh = target.parent / ".vote.txt.abc.part", target.parent / ".vote.txt.def.part"
    stale.write_bytes(b"half a file")
    fresh.write_bytes(b"another process is writing this one")
    old = time.time() - datasets.DOWNLOAD_DEADLINE - datasets.DOWNLOAD_TIMEOUT - 5
    os.utime(stale, (old, old))
    datasets.fetch("dl/vote", mirror=serve(root).url, dest=tmp_path)
    assert not stale.exists() and fresh.exists() and _sha(target) == MANIFEST["dl/vote"]["sha256"]


# -- load downloads a missing file by itself ------------------------------------------------------

def test_load_downloads_a_missing_file_into_the_cache_with_one_line(root, serve, tmp_path, monkeypatch, capfd):
    server = serve(root)
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("ODTLAB_MIRROR", server.url)
    monkeypatch.delenv("ODTLAB_OFFLINE", raising=False)
    assert datasets.info("dl/anneal")["available"] and not datasets.info("dl/anneal")["on_disk"]
    ds = datasets.load("dl/anneal")
    target = tmp_path / "cache" / MANIFEST["dl/anneal"]["path"]
    assert Path(ds.source) == target and ds.n_samples == MANIFEST["dl/anneal"]["n"]
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [f"odtlab: downloading dl/anneal (149 KiB) from {server.url}/murtree-data/DL/anneal.txt "
                   f"into {tmp_path / 'cache'}"]
    datasets.load("dl/anneal")
    assert len(server.requests) == 1 and capfd.readouterr().err == ""  # found in the cache the second time


def test_offline_load_of_a_missing_file_says_how_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("ODTLAB_OFFLINE", "1")
    assert datasets.info("dl/anneal")["available"] is False
    with pytest.raises(MissingDataError, match=r"murtree-data/DL/anneal.txt for 'dl/anneal' is not in the search "
                                               r"path .* and downloads are off \(ODTLAB_OFFLINE=1\); run `.*odtlab"
                                               r"(\.cli)? data fetch dl/anneal`") as info:
        datasets.load("dl/anneal")
    assert "\n" not in str(info.value)


def test_a_failed_automatic_download_is_a_missing_data_error(serve, tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ODTLAB_DATA", str(tmp_path / "nothing"))
    monkeypatch.setenv("ODTLAB_MIRROR", serve(empty).url)
    monkeypatch.delenv("ODTLAB_OFFLINE", raising=False)
    with pytest.raises(MissingDataError, match=r"downloading it failed \(could not download dl/anneal .*HTTP 404"):
        datasets.load("dl/anneal")
    assert _leftovers(tmp_path / "cache") == []


def test_fetch_many_takes_names_and_collections_in_one_call(root, serve, tmp_path):
    server = serve(root)
    paths = datasets.fetch_many(["gosdt/", "dl/vote", "gosdt/monk1"], mirror=server.url, dest=tmp_path)
    assert sorted(paths) == ["dl/vote", "gosdt/monk1", "gosdt/monk2", "gosdt/tic-tac-toe"]
    assert all(_sha(p) == MANIFEST[n]["sha256"] for n, p in paths.items())
    assert datasets.expand(["gosdt"]) == datasets.names("gosdt")
