"""ipywidgets for stepping through odtlab searches, built on the events of the real kernels.

* :func:`explore` (estimator + data, a Search or a Solver) -> :class:`SearchPlayer`: Play / Pause, Step,
  Back, Run to end, speed, a slider over events, a filter by event kind and a caption in the paper's words.
* Views (pure functions of the first ``k`` events): :class:`TreeView`, :class:`BoundPlot`,
  :class:`EventLog`, :class:`SearchGraphView`, and per-algorithm panels registered in
  :mod:`odtlab.widgets.registry` by ``odtlab.widgets.<algorithm>``.
* :meth:`SearchPlayer.replay` / :meth:`SearchPlayer.to_html`: the recorded frames, replayed by a page with
  no kernel and no network (``static/replay.js``; the book uses the same); :meth:`SearchPlayer.static`:
  precomputed frames in linked widgets, for a notebook saved with its widget state.
"""
from odtlab.widgets.player import SearchPlayer, StaticPlayer, explore
from odtlab.widgets.recording import Frame, Recording
from odtlab.widgets.registry import Adapter, register_adapter, register_graph, register_panel
from odtlab.widgets.views import BoundPlot, EventLog, SearchGraphView, TreeView, View, default_views

__all__ = ["explore", "SearchPlayer", "StaticPlayer", "Recording", "Frame", "View", "TreeView", "BoundPlot",
           "EventLog", "SearchGraphView", "default_views", "Adapter", "register_adapter", "register_panel",
           "register_graph"]
