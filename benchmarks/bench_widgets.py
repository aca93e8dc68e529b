"""Frame times of the SearchPlayer over long searches (the widgets' responsiveness target: < 20 ms a frame).

For each search the player records at least ``--events`` events (10,000 by default) through
``search.steps()``, then times frames the way a person produces them: Step from the start and near the
end, Back, and random slider jumps. A frame is everything the kernel does for one slider move: the
caption and every view (tree, bounds, the algorithm's panels, event log) rendered to their HTML strings
and set on the widgets. Reported: median, 95th percentile and maximum per kind of move, the slowest
view, and the recording time (not a frame cost: the player records ahead of the slider).

Searches: CART grown to purity on random labels (about 10,000 events), Branches, MurTree, Quant-BnB and
DPDT on benchmark sets with up to 10,000 events recorded (the searches that finish earlier are shown whole).

``--browser``: the page's replay instead (what the book and ``to_html`` show): the CART search's first
``--events`` events recorded by :meth:`SearchPlayer.replay`, opened in headless Chromium (Debian's
``chromium``, driven by Playwright) and stepped by ``replay.js``; a frame is one ``go(i)`` (the panes whose
HTML changes are replaced) plus the layout it forces. Reported: the replay's size and encoding time, and
median, 95th percentile and maximum frame times for Step, Back and random slider jumps: wall-clock in the
page, and the renderer main thread's CPU time per move (DevTools' ThreadTime, which includes the small cost
of the DevTools call; on a loaded machine the fairer measure).

Run: ``ODTLAB_DATA=/path/to/data .venv/bin/python benchmarks/bench_widgets.py [--events 10000] [--quick] [--browser]``
"""
import argparse
import os
import statistics
import time

import numpy as np

from odtlab.solvers.cart import CARTClassifier
from odtlab.widgets import SearchPlayer

TARGET_MS = 20.0


def cart_search(events):
    """CART grown to purity on random labels (3 classes, 6 normal features): one event per node, about
    0.72 nodes a row, so ``events / 0.72`` rows give about ``events`` events."""
    rng = np.random.default_rng(0)
    n = max(100, int(events / 0.72))
    X = rng.normal(size=(n, 6))
    y = rng.integers(0, 3, size=n)
    return f"cart (random labels, {n} rows)", CARTClassifier().search(X, y)


def other_searches():
    """Searches of the other algorithms on benchmark sets that give 10,000 events or more."""
    from odtlab import datasets

    out = []
    cases = [
        ("branches (branches/tic-tac-toe-o, lambda 0.005)", "branches/tic-tac-toe-o",
         lambda: __import__("odtlab.solvers.branches", fromlist=["x"]).BranchesClassifier(lam=0.005)),
        ("murtree (dl/anneal, depth 5)", "dl/anneal",
         lambda: __import__("odtlab.solvers.murtree", fromlist=["x"]).MurTreeClassifier(max_depth=5)),
        ("quantbnb (quantbnb/raisin, depth 3)", "quantbnb/raisin",
         lambda: __import__("odtlab.solvers.quantbnb", fromlist=["x"]).QuantBnBClassifier(max_depth=3)),
        ("dpdt (sklearn/breast_cancer, depth 4, candidates 8/8/4)", "sklearn/breast_cancer",
         lambda: __import__("odtlab.solvers.dpdt", fromlist=["x"]).DPDTClassifier(max_depth=4, candidates=(8, 8, 4))),
    ]
    for name, dataset, make in cases:
        try:
            data = datasets.load(dataset)
            out.append((name, make().search(data.X, data.y)))
        except Exception as exc:  # data or solver missing: say so, keep benchmarking the rest
            print(f"{name}: skipped ({type(exc).__name__}: {exc})")
    return out


def time_frames(player, positions):
    """Wall-clock and CPU (this thread) milliseconds of each move; on a busy machine the CPU time is the
    fairer measure of what the player costs."""
    wall, cpu = [], []
    for k in positions:
        t0, c0 = time.perf_counter(), time.thread_time()
        player.goto(int(k))
        wall.append(1000 * (time.perf_counter() - t0))
        cpu.append(1000 * (time.thread_time() - c0))
    return wall, cpu


def per_view(player, k, repeat=5):
    frame = player.recording.frame(k, None, player.adapter)
    out = {}
    for view in player.views:
        best = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            view.render(frame)
            best = min(best, 1000 * (time.perf_counter() - t0))
        out[type(view).__name__] = best
    t0 = time.perf_counter()
    player.caption_html(frame)
    out["caption"] = 1000 * (time.perf_counter() - t0)
    return out


def summary(name, measured):
    wall, cpu = (sorted(t) for t in measured)
    p95 = [t[min(len(t) - 1, int(0.95 * len(t)))] for t in (wall, cpu)]
    flag = "ok" if p95[1] < TARGET_MS else "SLOW"
    print(f"  {name:22s} wall: median {statistics.median(wall):6.2f} p95 {p95[0]:6.2f} max {wall[-1]:7.2f} ms | "
          f"cpu: median {statistics.median(cpu):6.2f} p95 {p95[1]:6.2f} max {cpu[-1]:7.2f} ms [{flag}]")
    return p95[1]


def bench(name, search, events, frames, seed=0):
    t0 = time.perf_counter()
    player = SearchPlayer(search)
    player.goto(events)  # records up to `events` events (fewer if the search ends first)
    rec_s = time.perf_counter() - t0
    n = player.recording.n
    print(f"{name}: {n} events recorded in {rec_s:.2f} s ({1e6 * rec_s / max(n, 1):.0f} us/event), "
          f"views: {', '.join(type(v).__name__ for v in player.views)}")
    rng = np.random.default_rng(seed)
    frames = min(frames, max(n - 1, 1))
    worst = 0.0
    player.goto(0)
    worst = max(worst, summary("Step from the start", time_frames(player, range(1, frames + 1))))
    player.goto(n - frames - 1)
    worst = max(worst, summary("Step near the end", time_frames(player, range(n - frames, n))))
    worst = max(worst, summary("Back near the end", time_frames(player, range(n - 1, n - frames - 1, -1))))
    worst = max(worst, summary("random slider jumps", time_frames(player, rng.integers(0, n + 1, size=frames))))
    views = per_view(player, n - 1)
    slow = max(views, key=views.get)
    print("  per view at the last event (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in views.items())
          + f"; slowest: {slow}")
    return worst


BROWSER_TIMING = """async (moves) => {
  const r = document.querySelector('.odtlab-replay').odtlabReplay, out = [];
  for (const i of moves) {
    const t0 = performance.now();
    r.go(i);
    void document.body.offsetHeight;  // the style and layout the change forces
    out.push(performance.now() - t0);
  }
  return out;
}"""


def browser_replay(events, frames, seed=0):
    """Frame times of the replayed CART search in headless Chromium (see the module's docstring)."""
    import json
    import tempfile
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from odtlab.widgets.player import PLAYER_FILES, REPLAY_MIME

    name, search = cart_search(events)
    player = SearchPlayer(search)
    t0 = time.perf_counter()
    bundle = player.replay(max_events=events)
    encode_s = time.perf_counter() - t0
    n = json.loads(__import__("gzip").decompress(__import__("base64").b64decode(bundle["data"])))["events"]
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "replay.html"
        page_path.write_text(
            '<!DOCTYPE html><meta charset="utf-8">'
            f'<link rel="stylesheet" href="{(PLAYER_FILES / "replay.css").as_uri()}">'
            f'<div class="odtlab-replay"><script type="{REPLAY_MIME}">{json.dumps(bundle)}</script></div>'
            f'<script src="{(PLAYER_FILES / "replay.js").as_uri()}"></script>')
        size = page_path.stat().st_size
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--headless"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t0 = time.perf_counter()
            page.goto(page_path.as_uri())
            page.wait_for_selector(".odtlab-replay-ready", timeout=120_000)
            load_s = time.perf_counter() - t0
            rng = np.random.default_rng(seed)
            print(f"{name} replayed in Chromium: {n} events, page {size / 1e6:.2f} MB, encoded in {encode_s:.1f} s, "
                  f"loaded and decoded in {load_s:.2f} s")
            stops = n  # every kind shown: stop i is frame i
            moves = {"Step from the start": list(range(1, min(frames, stops) + 1)),
                     "Step near the end": list(range(max(stops - frames, 0), stops + 1)),
                     "Back near the end": list(range(stops, max(stops - frames, 0) - 1, -1)),
                     "random slider jumps": rng.integers(0, stops + 1, size=frames).tolist()}
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")

            def thread_ms():
                return 1000 * next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]
                                   if m["name"] == "ThreadTime")

            worst = 0.0
            for label, positions in moves.items():
                page.evaluate("i => document.querySelector('.odtlab-replay').odtlabReplay.go(i)", positions[0] - 1
                              if positions[0] > 0 else 1)
                wall = sorted(page.evaluate(BROWSER_TIMING, positions))
                page.evaluate("i => document.querySelector('.odtlab-replay').odtlabReplay.go(i)", positions[0] - 1
                              if positions[0] > 0 else 1)
                cpu = []
                for i in positions:  # the renderer's main-thread CPU time per move (less of the machine's load)
                    t0 = thread_ms()
                    page.evaluate(BROWSER_TIMING, [i])
                    cpu.append(thread_ms() - t0)
                cpu.sort()
                p95 = [t[min(len(t) - 1, int(0.95 * len(t)))] for t in (wall, cpu)]
                worst = max(worst, p95[1])
                print(f"  {label:22s} wall: median {statistics.median(wall):6.2f} p95 {p95[0]:6.2f} "
                      f"max {wall[-1]:7.2f} ms | renderer CPU: median {statistics.median(cpu):6.2f} "
                      f"p95 {p95[1]:6.2f} max {cpu[-1]:7.2f} ms "
                      f"[{'ok' if p95[1] < TARGET_MS else 'SLOW'}]")
            browser.close()
    return worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000, help="events recorded per search (at most)")
    parser.add_argument("--cart-events", type=int, default=10_000, help="events of the CART search (about)")
    parser.add_argument("--frames", type=int, default=200, help="frames timed per kind of move")
    parser.add_argument("--quick", action="store_true", help="CART (1,000 events) only, 100 frames per move")
    parser.add_argument("--browser", action="store_true", help="the page's replay in headless Chromium instead")
    args = parser.parse_args(argv)
    frames = 100 if args.quick else args.frames
    if args.browser:
        worst = browser_replay(1_000 if args.quick else args.events, frames)
        print(f"worst p95 frame (renderer CPU) in Chromium {worst:.2f} ms (target < {TARGET_MS:.0f} ms); "
              f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        return
    warm = SearchPlayer(cart_search(200)[1])  # compile / load the kernels before timing
    warm.run_to_end()
    searches = [cart_search(1_000 if args.quick else args.cart_events)] + ([] if args.quick else other_searches())
    worst = max(bench(name, search, args.events, frames) for name, search in searches)
    print(f"worst p95 frame CPU time {worst:.2f} ms (target < {TARGET_MS:.0f} ms); load average now "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
