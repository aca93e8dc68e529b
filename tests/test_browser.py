"""The player in a real browser: JupyterLab 4 (and Notebook 7 when installed) on loopback, headless Chromium.

The test starts a Jupyter server on 127.0.0.1 with a free port and a random token in a temporary root, opens a
small notebook that builds a SearchPlayer over CART, runs it, presses Step in the page, checks that the
drawing changed (and that the kernel-side caption follows), and saves a screenshot (also into
$ODTLAB_DOCS_IMG when set).

Needs Debian's ``chromium`` and Playwright's Python package (``tools/install_browser.sh`` installs both; no
browser download). Without them the test skips with a loud message, and fails when CI=true. The static export
(``player.to_html``) is one self-contained file: it needs no JavaScript from npm.
"""
import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]

NOTEBOOK_CELLS = [
    "from sklearn.datasets import load_iris\n"
    "from odtlab.solvers.cart import CARTClassifier\n"
    "from odtlab.widgets import explore\n"
    "X, y = load_iris(return_X_y=True, as_frame=True)\n"
    "y = y.map(dict(enumerate(load_iris().target_names)))\n"
    "player = explore(CARTClassifier(max_depth=3), X, y, interval=200)\n"
    "player",
    "print('kernel frame', player.k)",
]


def _need_browser():
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append("chromium (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if missing:
        message = ("BROWSER TEST NOT RUN: missing " + ", ".join(missing)
                   + ". Run tools/install_browser.sh to install them.")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        print("\n" + "!" * 80 + "\n" + message + "\n" + "!" * 80, file=sys.stderr)
        warnings.warn(message)  # in pytest's warnings summary, which is always shown
        pytest.skip(message)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_notebook(path):
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": src}
                    for src in NOTEBOOK_CELLS],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))


def _start_server(app, root, port, token):
    settings = root / ".settings"
    notify = settings / "@jupyterlab" / "apputils-extension"
    notify.mkdir(parents=True)
    (notify / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                         "checkForUpdates": False}))
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["ODTLAB_EMBED_REPLAY"] = "1"  # the player's display carries its replay, as in the chapters
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("IPYTHONDIR", "ipython")):
        env[var] = str(root / f".{sub}")
    cmd = [sys.executable, "-m", "jupyter", app, "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", f"--LabServerApp.user_settings_dir={settings}",
           f"--LabServerApp.workspaces_dir={root / '.workspaces'}"]
    if app == "lab":
        cmd += ["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.extension_manager=readonly"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(root / "server.log", "w")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise AssertionError("the Jupyter server did not start:\n" + (root / "server.log").read_text()[-3000:])


def _first_difference(a, b):
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at {i}:\n{a[max(0, i - 100):i + 100]}\n{b[max(0, i - 100):i + 100]}"


def _wait_caption(page, text):
    page.wait_for_function("t => document.querySelector('.odtlab-player .odtlab-caption').innerText.includes(t)",
                           arg=text)


def _wait_tree(page, ok, seconds=10):
    """The tree drawing once ``ok(svg)`` holds (each view is its own widget message, so the caption can
    arrive a moment before the drawing); the last drawing seen after ``seconds``."""
    deadline = time.monotonic() + seconds
    svg = _tree_svg(page)
    while not ok(svg) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        svg = _tree_svg(page)
    return svg


def _tree_svg(page):
    return page.eval_on_selector(".odtlab-player .odtlab-view svg", "e => e.outerHTML")


def _wait_kernel_idle(port, token, seconds=30):
    """Wait until the server reports a kernel in the idle state (the page has started and connected it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/kernels?token={token}", timeout=2) as r:
                kernels = json.loads(r.read())
            if any(k.get("execution_state") == "idle" and k.get("connections", 1) > 0 for k in kernels):
                return
        except OSError:
            pass
        time.sleep(0.25)


def _run_all(page):
    """Run every cell from the Run menu; retry while the kernel is still starting (a run sent before the
    kernel is connected is dropped)."""
    for _ in range(6):
        page.click(".lm-MenuBar-itemLabel:text-is('Run')")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        try:
            page.wait_for_selector(".odtlab-player .odtlab-caption", timeout=8_000)
            return
        except Exception:
            page.keyboard.press("Escape")
    page.wait_for_selector(".odtlab-player .odtlab-caption", timeout=5_000)


HAS_NOTEBOOK7 = importlib.util.find_spec("notebook") is not None
APPS = [("lab", "lab/tree"),
        pytest.param("notebook", "notebooks",
                     marks=pytest.mark.skipif(not HAS_NOTEBOOK7, reason="Notebook 7 (package 'notebook') is not installed"))]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One Jupyter server on loopback for the module (it serves JupyterLab and, when installed, Notebook 7)."""
    _need_browser()
    root = tmp_path_factory.mktemp("jupyter-root")
    port, token = _free_port(), secrets.token_hex(16)
    proc = _start_server("lab", root, port, token)
    yield root, port, token
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Debian Chromium through Playwright, with a fresh profile."""
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1100}, device_scale_factor=1.25)
        yield context
        context.close()


@pytest.mark.jit_only  # measures no kernel code: left out of the NUMBA_DISABLE_JIT coverage run
@pytest.mark.parametrize("app, route", APPS)
def test_player_steps_in_a_real_browser(app, route, server, browser, tmp_path, picture_folders):
    root, port, token = server
    name = f"player_{app}.ipynb"
    _write_notebook(root / name)
    page = browser.new_page()
    try:
        page.set_default_timeout(25_000)
        page.goto(f"http://127.0.0.1:{port}/{route}/{name}?token={token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .jp-InputArea-editor")
        _wait_kernel_idle(port, token)
        _run_all(page)
        page.wait_for_selector(".odtlab-player .odtlab-view svg")
        assert "Before the first event" in page.inner_text(".odtlab-player .odtlab-caption")
        # the replay output beside the widget (application/vnd.odtlab.replay+json) shows nothing in Jupyter:
        # one output, the live player, and no error
        assert page.locator(".jp-Cell").first.locator(".jp-OutputArea-child").count() == 1
        assert page.locator(".odtlab-player").count() == 1 and page.locator(".odtlab-replay").count() == 0
        assert page.locator('[data-mime-type="application/vnd.jupyter.stderr"]').count() == 0
        before = _tree_svg(page)
        assert 'stroke-dasharray="6 4"' in before  # the root is not decided yet
        step = page.locator(".odtlab-player button", has_text="Step")
        back = page.locator(".odtlab-player button", has_text="Back")
        step.click()
        _wait_caption(page, "Event 1 ")
        step.click()
        _wait_caption(page, "Event 2 ")
        after = _wait_tree(page, lambda svg: svg != before)
        assert 'class="highlight"' in after and "petal" in after  # the root split, outlined
        assert "Split" in page.inner_text(".odtlab-player .odtlab-caption")
        back.click()
        _wait_caption(page, "Event 1 ")
        back_svg = _wait_tree(page, lambda svg: svg == before)
        assert back_svg == before, _first_difference(back_svg, before)
        step.click()
        _wait_caption(page, "Event 2 ")
        again = _wait_tree(page, lambda svg: svg == after)
        assert again == after, _first_difference(again, after)
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
        player = page.locator(".odtlab-player")
        for folder in picture_folders:
            player.screenshot(path=str(folder / f"player_{app}.png"))
        assert (tmp_path / f"player_{app}.png").stat().st_size > 10_000
    except Exception:
        page.screenshot(path=str(tmp_path / f"failure_{app}.png"))
        print(f"screenshot of the failure: {tmp_path / f'failure_{app}.png'}\nserver log:\n"
              + (root / "server.log").read_text()[-4000:], file=sys.stderr)
        raise
    finally:
        page.close()


@pytest.mark.jit_only  # measures no kernel code: left out of the NUMBA_DISABLE_JIT coverage run
def test_static_export_steps_with_no_kernel(browser, tmp_path, picture_folders):
    """player.to_html(): one file that replays the recorded search in the browser alone (replay.js inline);
    the page makes no request at all."""
    from sklearn.datasets import load_iris

    from odtlab.solvers.cart import CARTClassifier
    from odtlab.widgets import explore

    X, y = load_iris(return_X_y=True, as_frame=True)
    player = explore(CARTClassifier(max_depth=3), X, y.map(dict(enumerate(load_iris().target_names))))
    page_path = player.to_html(tmp_path / "static.html")
    requests, errors = [], []
    page = browser.new_page()
    try:
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda route: route.continue_() if route.request.url == Path(page_path).as_uri()
                   else (requests.append(route.request.url), route.abort()))
        page.goto(Path(page_path).as_uri())
        page.wait_for_selector(".odtlab-replay-ready .odtlab-caption", timeout=20_000)
        caption = page.locator(".odtlab-replay .odtlab-caption")
        assert "Event 0 of" in caption.inner_text()
        page.locator(".odtlab-replay-step").click()
        page.locator(".odtlab-replay-step").click()
        assert "Event 2 of" in caption.inner_text() and "Split" in caption.inner_text()
        page.locator(".odtlab-replay-back").click()
        assert "Event 1 of" in caption.inner_text()
        page.locator(".odtlab-replay-play").click()  # Play to the end
        page.wait_for_function("() => document.querySelector('.odtlab-replay .odtlab-caption').innerText"
                               ".includes('search finished')", timeout=15_000)
        assert f"Event {player.recording.n} of {player.recording.n}" in caption.inner_text()
        assert not requests and not errors, (requests, errors)
        for folder in picture_folders:
            page.locator(".odtlab-replay").screenshot(path=str(folder / "static_player.png"))
    finally:
        page.close()
