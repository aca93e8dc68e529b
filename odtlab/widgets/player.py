"""The step-through player: Play / Pause, Step, Back, Run to end, speed, a slider over events, a filter
by event kind, a caption in the paper's words, and the views of :mod:`odtlab.widgets.views`.

Design: ``Play`` is ``jslink``-ed to an ``IntSlider`` (smooth,
in the browser); the kernel observes the *slider* and sets ``HTML.value`` of every view from a pure render
function of the frame. No ``Output`` widget and no matplotlib redraw, so nothing leaks into cell output
and nothing flickers. Events come from ``search.steps()`` lazily: the player records ahead of the slider
and extends the recording when the slider nears its end. Frame ``k`` is the fold of ``events[:k]``, so
Back just shows an earlier frame.

:meth:`SearchPlayer.replay` records every frame (each distinct drawing once, compressed) for a page with no
kernel: the player's display carries it as :data:`REPLAY_MIME` beside the live widget (when
:attr:`SearchPlayer.embed_replay`, as in the chapters' builds), the book
(:mod:`odtlab.book`) and :meth:`SearchPlayer.to_html` replay it with ``static/replay.js``.
:meth:`SearchPlayer.static` precomputes frames into a ``Stack`` linked to the slider in the browser, so a
notebook saved with its widget state still steps through with no kernel.
"""
import base64
import gzip
import json
import os
import time
from html import escape as html_escape
from pathlib import Path

import ipywidgets as W
import numpy as np

from odtlab.search import Search, Solver
from odtlab.widgets.recording import DEFAULT_MAX_EVENTS, Recording
from odtlab.widgets.registry import adapter_for
from odtlab.widgets.svg import FONT, HIGHLIGHT, INK, MUTED, escape
from odtlab.widgets.views import BoundPlot, EventLog, SearchGraphView, TreeView, default_views

_WIDE = (TreeView, SearchGraphView)
REPLAY_MIME = "application/vnd.odtlab.replay+json"
PLAYER_FILES = Path(__file__).resolve().parent / "static"  # replay.js and replay.css
REPLAY_MAX_EVENTS = 5_000
REPLAY_MAX_CHARS = 1_500_000


def _basis(view):
    """Trees and search graphs get a row of their own (wide drawings stay legible and scroll); the other
    views share rows."""
    return "100%" if isinstance(view, _WIDE) else "440px"


def _pane_layout(view):
    return W.Layout(flex=f"1 1 {_basis(view)}", min_width="300px", margin="4px 10px 8px 0", overflow="auto")


class SearchPlayer(W.VBox):
    """Step through a :class:`~odtlab.search.Search` event by event.

    ``views``: the views to show (default: tree, search graph, bounds, the algorithm's panels, event log).
    ``record``: event level asked from ``steps()`` ("full" or "summary"). ``interval``: Play's delay per
    step in ms. ``lookahead``: how many events to record ahead of the slider. ``max_events``: cap on the
    recording (a search that goes further stops being recorded there, and the caption says so).

    Drive it from Python with :meth:`step`, :meth:`back`, :meth:`run_to_end`, :meth:`goto` and
    :meth:`show_kinds`, or through its widgets (``play``, ``slider``, ``step_button``, ...).
    """

    def __init__(self, search, views=None, record="full", interval=400, lookahead=64,
                 max_events=DEFAULT_MAX_EVENTS):
        if not isinstance(search, Search):
            raise TypeError(f"SearchPlayer needs an odtlab.search.Search, got {type(search).__name__}; "
                            "use odtlab.widgets.explore(estimator, X, y) for an estimator")
        if not lookahead >= 1:
            raise ValueError(f"lookahead must be at least 1, got {lookahead!r}")
        self.search = search
        self.adapter = adapter_for(search.solver)
        self.recording = Recording(search, record=record, snapshots=self.adapter.snapshots, max_events=max_events,
                                   stable_incumbent=self.adapter.stable_incumbent)
        self.views = list(views) if views is not None else default_views(search.solver)
        self.lookahead = int(lookahead)
        self.last_frame_ms = 0.0
        self._kinds = None
        self._stops = np.zeros(1, dtype=np.int64)
        self._extend(self.lookahead)

        self.play = W.Play(value=0, min=0, max=self._last, step=1, interval=int(interval), show_repeat=False,
                           description="Play", tooltip="Play / Pause")
        self.slider = W.IntSlider(value=0, min=0, max=self._last, step=1, description="event",
                                  continuous_update=True, readout=True,
                                  layout=W.Layout(width="100%", min_width="320px", flex="1 1 auto"))
        self.speed = W.IntSlider(value=int(interval), min=20, max=2000, step=20, description="ms/step",
                                 continuous_update=True, layout=W.Layout(width="260px"),
                                 style={"description_width": "56px"})
        self.links = [W.jslink((self.play, "value"), (self.slider, "value")),
                      W.jslink((self.speed, "value"), (self.play, "interval"))]
        self.back_button = W.Button(description="Back", icon="step-backward", tooltip="previous event",
                                    layout=W.Layout(width="auto"))
        self.step_button = W.Button(description="Step", icon="step-forward", tooltip="next event",
                                    layout=W.Layout(width="auto"))
        self.end_button = W.Button(description="Run to end", icon="fast-forward", tooltip="record the whole search",
                                   layout=W.Layout(width="auto"))
        kinds = self.adapter.kinds()  # the algorithm's own kinds and the generic ones it emits
        names = [k.name for k in kinds.values()]
        options = [(k.name if names.count(k.name) == 1 else f"{k.name} ({k.algorithm})", code)
                   for code, k in kinds.items()]
        self.kinds = W.SelectMultiple(options=options, value=tuple(code for _, code in options),
                                      rows=min(6, max(len(options), 2)), description="kinds",
                                      tooltip="Step, Back, Play and the event log go through these kinds only",
                                      layout=W.Layout(width="300px"), style={"description_width": "40px"})
        self.caption = W.HTML(layout=W.Layout(margin="6px 0 4px 0"))
        self.panes = [W.HTML(layout=_pane_layout(v)) for v in self.views]

        self.back_button.on_click(lambda _: self.back())
        self.step_button.on_click(lambda _: self.step())
        self.end_button.on_click(lambda _: self.run_to_end())
        self.slider.observe(self._on_slider, names="value")
        self.kinds.observe(self._on_kinds, names="value")

        controls = W.HBox([self.play, self.back_button, self.step_button, self.end_button, self.speed],
                          layout=W.Layout(flex_flow="row wrap", align_items="center"))
        top = W.HBox([W.VBox([controls, self.slider], layout=W.Layout(flex="1 1 600px")), self.kinds],
                     layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))
        body = W.Box(self.panes, layout=W.Layout(display="flex", flex_flow="row wrap", align_items="flex-start"))
        super().__init__([top, self.caption, body])
        self.add_class("odtlab-player")
        self._show(0)

    # -- stops: the frames the slider visits ------------------------------------------------------
    @property
    def _last(self):
        return int(self._stops.shape[0] - 1)

    def _matches(self, records):
        if self._kinds is None:
            return np.ones(records.shape[0], dtype=bool)
        return np.isin(records["kind"], list(self._kinds))

    def _update_stops(self):
        hits = np.flatnonzero(self._matches(self.recording.records)) + 1
        self._stops = np.concatenate([[0], hits]).astype(np.int64)
        if hasattr(self, "slider"):
            self.play.max = self._last
            self.slider.max = self._last

    def _extend(self, more):
        """Record until ``more`` new stops exist (or the search ends)."""
        counted, found = [self.recording.n], [0]

        def enough(rec):
            found[0] += int(np.count_nonzero(self._matches(rec.records[counted[0]:])))
            counted[0] = rec.n
            return found[0] >= more

        added = self.recording.extend(min_events=0, until=enough)
        if added or not hasattr(self, "slider"):
            self._recorded()
        return added

    def _recorded(self):
        """After recording more events: new stops for the slider, and the views' folds run to the end."""
        self._update_stops()
        self.recording.advance_folds()

    # -- navigation -------------------------------------------------------------------------------
    @property
    def k(self):
        """The current frame: how many events are applied."""
        return int(self._stops[self.slider.value])

    @property
    def frame(self):
        return self.recording.frame(self.k, self._kinds, self.adapter)

    def step(self):
        """Go to the next event (of the kinds shown), recording more of the search when needed."""
        if self.slider.value >= self._last:
            self._extend(self.lookahead)
        if self.slider.value < self._last:
            self.slider.value += 1

    def back(self):
        """Go to the previous event (of the kinds shown)."""
        if self.slider.value > 0:
            self.slider.value -= 1

    def run_to_end(self):
        """Record the rest of the search (up to ``max_events``) and show its last event."""
        self.recording.extend_all()
        self._recorded()
        if self.slider.value == self._last:
            self._show(self.k)
        self.slider.value = self._last

    def goto(self, k):
        """Show frame ``k`` (the first ``k`` events; the nearest shown event at or before it)."""
        k = int(k)
        if k < 0:
            raise ValueError(f"frame must be >= 0, got {k}")
        if k > self.recording.n:
            self.recording.extend(min_events=k - self.recording.n)
            self._recorded()
        k = min(k, self.recording.n)
        i = int(np.searchsorted(self._stops, k, side="right")) - 1
        if self.slider.value == i:
            self._show(self.k)
        self.slider.value = i

    def show_kinds(self, kinds=None):
        """Step through these event kinds only (names or codes; None: all)."""
        options = dict(self.kinds.options)
        if kinds is None:
            self.kinds.value = tuple(options.values())
            return
        by_name = {}
        for label, code in self.kinds.options:
            by_name.setdefault(label.split(" (")[0], []).append(code)
        codes = []
        for kind in kinds:
            if isinstance(kind, str):
                if kind not in by_name:
                    raise ValueError(f"unknown event kind {kind!r}; this search has: {', '.join(sorted(by_name))}")
                codes.extend(by_name[kind])
            else:
                codes.append(int(kind))
        self.kinds.value = tuple(c for c in options.values() if c in codes)

    def _on_kinds(self, change):
        selected = set(change["new"])
        every = {code for _, code in self.kinds.options}
        self._kinds = None if selected >= every else frozenset(selected)
        k = self.k if hasattr(self, "_shown") else 0
        self._update_stops()
        if self._last < self.lookahead:
            self._extend(self.lookahead)
        i = int(np.searchsorted(self._stops, k, side="right")) - 1
        if self.slider.value == i:
            self._show(int(self._stops[i]))
        else:
            self.slider.value = i

    def _on_slider(self, change):
        i = int(change["new"])
        if i >= self._last - self.lookahead // 4 and not self.recording.done:
            self._extend(self.lookahead)
        self._show(int(self._stops[min(i, self._last)]))

    # -- rendering --------------------------------------------------------------------------------
    def caption_html(self, frame):
        """The caption of a frame: position, iteration and the solver's description of the last event."""
        rec = self.recording
        total = f"{rec.n}" if rec.done else f"{rec.n}+"
        if frame.k == 0:
            what = "Before the first event: press Step or Play."
            head = f"Event 0 of {total}"
        else:
            event = frame.event
            what = (f'<span style="color:{HIGHLIGHT};font-weight:600">{escape(event.name)}</span>: '
                    f"{escape(frame.describe(event))}")
            head = f"Event {frame.k} of {total} · iteration {int(event.iteration)}"
        tail = ""
        if frame.k == rec.n and rec.exhausted:
            tail = f" — search finished ({escape(self.search.status)})"
        elif frame.k == rec.n and rec.capped:
            tail = f" — recording stopped at max_events = {rec.max_events}"
        return (f'<div class="odtlab-caption" style="font-family:{FONT};font-size:15px;color:{INK};'
                f'line-height:1.4;white-space:pre-line"><span style="color:{MUTED}">{head}{tail}</span>\n{what}</div>')

    def render_frame(self, k):
        """``(caption, [view html, ...])`` of frame ``k``: a pure function of ``events[:k]``."""
        frame = self.recording.frame(k, self._kinds, self.adapter)
        return self.caption_html(frame), [view.render(frame) for view in self.views]

    def frame_html(self, k):
        """One frame as a single HTML block (what static exports show)."""
        caption, views = self.render_frame(k)
        cells = "".join(f'<div style="flex:1 1 {_basis(v)};min-width:300px;'
                        f'margin:4px 10px 8px 0;overflow:auto">{html}</div>' for v, html in zip(self.views, views))
        return f'<div>{caption}<div style="display:flex;flex-flow:row wrap;align-items:flex-start">{cells}</div></div>'

    def _show(self, k):
        t0 = time.perf_counter()
        caption, views = self.render_frame(k)
        self.caption.value = caption
        for pane, html in zip(self.panes, views):
            pane.value = html
        self._shown = k
        self.last_frame_ms = 1000 * (time.perf_counter() - t0)

    # -- replay export: the recorded frames, replayed by a page with no kernel ------------------------
    def replay(self, max_events=REPLAY_MAX_EVENTS, max_chars=REPLAY_MAX_CHARS):
        """The recorded search as a compact replay for a page with no kernel (``odtlab/widgets/static/
        replay.js`` plays it): frames ``0..n`` of the first ``n <= max_events`` events, drawn as the player
        draws them (with the kinds shown now), the kind of each event for the page's filter, gzip-compressed.

        Each distinct caption or pane HTML is stored once, as an edit of the same pane's previous one (see
        :func:`_delta`); frames point at them. ``max_chars`` caps what each view may add: a view past its
        share so far (a tenth of the cap, plus the rest pro rata: ``max_chars * (0.1 + 0.9 k / n)`` at frame
        ``k``) keeps its last drawing for that frame (the last frame is always drawn whole). So a long
        search's costly views (the bound plot redraws every point as its axis grows) are redrawn every few
        events while the caption and the cheap views follow every event; the payload says how many drawings
        each view kept (``redrawn``) and at how many frames it held an older one (``held``), and the page
        says so.

        Returns a JSON-ready dict ``{"version", "encoding": "gzip+base64", "data"}``; see :func:`decode_replay`.
        """
        if not max_events >= 1:
            raise ValueError(f"max_events must be at least 1, got {max_events!r}")
        if not max_chars >= 1:
            raise ValueError(f"max_chars must be at least 1, got {max_chars!r}")
        rec = self.recording
        if rec.n < max_events:
            rec.extend(min_events=max_events - rec.n)
            self._recorded()
        n = min(rec.n, int(max_events))
        strings, index = [], {}
        columns = [[] for _ in range(1 + len(self.views))]
        spent = [0] * len(columns)
        redrawn, held = [0] * len(columns), [0] * len(columns)
        shown = [None] * len(columns)  # each column's current HTML (decoded)
        for k in range(n + 1):
            frame = rec.frame(k, self._kinds, self.adapter)
            for j, column in enumerate(columns):
                if 0 < k < n and j and spent[j] > max_chars * (0.1 + 0.9 * k / n):
                    column.append(column[-1])  # over its share: this view keeps its last drawing
                    held[j] += 1
                    continue
                html = self.caption_html(frame) if j == 0 else self.views[j - 1].render(frame)
                i = index.get(html)
                if i is None:
                    i = index[html] = len(strings)
                    stored = html if shown[j] is None else _delta(html, shown[j], column[-1])
                    strings.append(stored)
                    spent[j] += len(stored[3]) if isinstance(stored, list) else len(html)
                if not column or i != column[-1]:
                    redrawn[j] += 1
                    shown[j] = html
                column.append(i)
        payload = {"strings": strings, "frames": columns, "kinds": rec.records["kind"][:n].tolist(),
                   "options": [[label, int(code)] for label, code in self.kinds.options],
                   "selected": [int(c) for c in self.kinds.value], "basis": [_basis(v) for v in self.views],
                   "views": [type(v).__name__ for v in self.views], "redrawn": redrawn[1:], "held": held[1:],
                   "tree": next((j for j, v in enumerate(self.views) if isinstance(v, TreeView)), -1),
                   "interval": int(self.play.interval), "events": n, "recorded": rec.n, "done": rec.done}
        raw = json.dumps(payload, separators=(",", ":")).encode()
        return {"version": 1, "encoding": "gzip+base64",
                "data": base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")}

    #: Display the recorded replay beside the live widget (``ODTLAB_EMBED_REPLAY=1``; ``notebooks/build.py``
    #: sets it for the chapters). Off by default: recording and drawing every frame takes seconds for a
    #: long search (monk1-o's 2,445 events: about 6 s of CPU), which a live session need not wait for.
    embed_replay = os.environ.get("ODTLAB_EMBED_REPLAY", "") == "1"

    def _repr_mimebundle_(self, **kwargs):
        """The live widget for JupyterLab (which ranks the widget view first) and, with
        :attr:`embed_replay`, the recorded replay (:data:`REPLAY_MIME`) that the book turns into a player
        with no kernel (JupyterLab has no renderer for it and shows only the widget)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.embed_replay:
            bundle[REPLAY_MIME] = self.replay()
        return bundle

    # -- static export ----------------------------------------------------------------------------
    def static(self, max_frames=200, record_all=True):
        """A kernel-free copy: up to ``max_frames`` precomputed frames in a ``Stack`` whose
        ``selected_index`` is linked in the browser to a slider (and the slider to a Play).

        ``record_all``: record the whole search first (up to ``max_events``), so the frames cover it; the
        frames are spread evenly over the events (of the kinds shown) when there are more.
        """
        if not max_frames >= 2:
            raise ValueError(f"max_frames must be at least 2, got {max_frames!r}")
        if record_all:
            self.recording.extend_all()
            self._recorded()
        stops = self._stops
        if stops.shape[0] > max_frames:
            pick = np.unique(np.linspace(0, stops.shape[0] - 1, int(max_frames)).round().astype(np.int64))
            stops = stops[pick]
        return StaticPlayer([self.frame_html(int(k)) for k in stops], stops, interval=self.play.interval)

    def to_html(self, path, title=None, max_events=REPLAY_MAX_EVENTS):
        """Write a standalone HTML page that replays the search (see :meth:`replay`) with no kernel and no
        network: the replay, ``replay.js`` and ``replay.css`` are all inside the one file. Returns ``path``."""
        title = html_escape(title or f"odtlab: {self.search.solver.name} search")
        Path(path).write_text(
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>\n'
            f'<style>{(PLAYER_FILES / "replay.css").read_text()}</style></head>\n<body><h1 style="font-family:'
            f'{FONT};font-size:20px">{title}</h1>\n{replay_html(self.replay(max_events=max_events))}\n'
            f'<script>{(PLAYER_FILES / "replay.js").read_text()}</script>\n</body></html>\n')
        return path


class StaticPlayer(W.VBox):
    """Precomputed frames in a ``Stack``; Play -> slider -> ``Stack.selected_index`` are ``jslink``-ed, so it
    steps through in the browser with no kernel (an exported notebook, an HTML page)."""

    def __init__(self, frames, events, interval=400):
        self.events = np.asarray(events, dtype=np.int64)
        self.stack = W.Stack([W.HTML(html) for html in frames], selected_index=0)
        last = len(frames) - 1
        self.play = W.Play(value=0, min=0, max=last, step=1, interval=int(interval), show_repeat=False)
        self.slider = W.IntSlider(value=0, min=0, max=last, description="frame", continuous_update=True,
                                  layout=W.Layout(width="100%", min_width="320px"))
        self.links = [W.jslink((self.play, "value"), (self.slider, "value")),
                      W.jslink((self.slider, "value"), (self.stack, "selected_index"))]
        super().__init__([W.HBox([self.play, self.slider]), self.stack])
        self.add_class("odtlab-static-player")


def _delta(s, t, base):
    """``s`` as itself or, when shorter, as ``[base, head, tail, middle]``: the ``head`` first and ``tail``
    last characters of the earlier string ``t`` (stored at index ``base``) around ``middle`` (consecutive
    frames redraw mostly the same SVG)."""
    head = _common_prefix(s, t)
    tail = _common_prefix(s[head:][::-1], t[head:][::-1])
    middle = s[head:len(s) - tail]
    return [base, head, tail, middle] if len(middle) + 24 < len(s) else s


def _common_prefix(a, b):
    """The length of the longest common prefix of ``a`` and ``b`` (binary search on slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def replay_html(bundle, placeholder=""):
    """The element that ``replay.js`` turns into a player: the replay bundle in a ``<script>`` of type
    :data:`REPLAY_MIME` inside a ``div.odtlab-replay`` (``placeholder``: HTML shown until the script runs)."""
    payload = json.dumps(bundle, separators=(",", ":")).replace("</", "<\\/")
    return f'<div class="odtlab-replay"><script type="{REPLAY_MIME}">{payload}</script>{placeholder}</div>'


def decode_replay(bundle):
    """The payload of :meth:`SearchPlayer.replay` with its strings restored (what ``replay.js`` does)."""
    payload = json.loads(gzip.decompress(base64.b64decode(bundle["data"])))
    strings = []
    for s in payload["strings"]:
        if isinstance(s, list):
            b, head, tail, middle = s
            t = strings[b]
            s = t[:head] + middle + t[len(t) - tail:]
        strings.append(s)
    payload["strings"] = strings
    return payload


def explore(obj, X=None, y=None, **player_options):
    """One call that shows the right player and views for any solver.

    ``obj``: an odtlab estimator (fitted or not) with ``X, y`` (the player steps through
    ``obj.search(X, y)``, a fresh search over that data, with the estimator's ``_player_params`` set on a
    clone: MurTree's ``bound_probing``, so the lower bound rises while the student watches), a
    :class:`~odtlab.search.Search`, or a :class:`~odtlab.search.Solver` (both stepped as given).
    ``player_options`` go to :class:`SearchPlayer`.
    """
    if isinstance(obj, Search):
        search = obj
    elif isinstance(obj, Solver):
        search = Search(obj, record="full")
    elif hasattr(obj, "search") and callable(obj.search):
        if X is None or y is None:
            raise ValueError(f"explore({type(obj).__name__}) needs the data: explore(estimator, X, y)")
        shown = getattr(obj, "_player_params", {})
        if shown:
            from sklearn.base import clone

            obj = clone(obj).set_params(**shown)
        search = obj.search(X, y)
    else:
        raise TypeError(f"explore needs an odtlab estimator with X and y, a Search or a Solver; "
                        f"got {type(obj).__name__}")
    return SearchPlayer(search, **player_options)


__all__ = ["SearchPlayer", "StaticPlayer", "explore", "BoundPlot", "EventLog", "TreeView"]
