"""odtlab.datasets.fetch over a real loopback HTTP server serving the shared data folder: the download
code path with no mock. Checksums are verified, corrupt or missing files leave nothing behind."""
import hashlib
import json
import os
from pathlib import Path

import pytest

from odtlab import datasets
from odtlab.datasets import ChecksumError, DownloadError, UnverifiedDataError

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
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
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
    monkeypatch.setenv("ODTLAB_CACHE", str(tmp_path / "cache"))
    server = serve(tmp_path)
    url = server.url
    server.close()  # nothing listens on that port any more
    with pytest.raises(DownloadError, match="could not download dl/anneal from http://127.0.0.1"):
        datasets.fetch("dl/anneal", mirror=url)


def test_entry_without_checksum_needs_verify_false(serve, tmp_path):
    mirror = tmp_path / "mirror"
    letter = mirror / MANIFEST["dl/letter"]["path"]
    letter.parent.mkdir(parents=True)
    letter.write_text("1 0 1\n0 1 0\n")
    server = serve(mirror)
    dest = tmp_path / "dest"
    with pytest.raises(UnverifiedDataError, match=r"verify=False \(`odtlab data fetch dl/letter --no-verify`\)"):
        datasets.fetch("dl/letter", mirror=server.url, dest=dest)
    assert server.requests == [] and _leftovers(dest) == []
    with pytest.warns(UserWarning, match="without a recorded checksum"):
        path = datasets.fetch("dl/letter", mirror=server.url, dest=dest, verify=False)
    assert path.read_text() == "1 0 1\n0 1 0\n"


def test_file_url_mirror_and_nothing_to_fetch(root, tmp_path):
    path = datasets.fetch("gosdt/monk2", mirror=root.as_uri(), dest=tmp_path)
    assert _sha(path) == MANIFEST["gosdt/monk2"]["sha256"]
    with pytest.raises(ValueError, match="generated; there is nothing to fetch"):
        datasets.fetch("gen/xor")
