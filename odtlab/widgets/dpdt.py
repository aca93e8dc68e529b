"""DPDT in the widgets: the MDP of §4 as it is built, with the Q-value of every action.

DPDT ("Breiman meets Bellman", Kohler, Akrour, Preux) builds an MDP whose states are (rows, depth) and whose
actions at a state are "make a leaf" and the candidate splits a split generator offers (§5.2). A split
action leads to two child states; backward induction (Algorithm 1) sets Q(s, a) = -alpha + p_l V(s_l) + p_r
V(s_r) once both children are solved, and V(s) = max_a Q(s, a). Values are negative losses (higher is
better). The graph view draws the path from the root state to the current one with every action of each
state on it; the panel compares the actions of the current state. Bounds and the incumbent tree come from
the solver after each kernel call (DPDT certifies no lower bound: the trivial 0, except an exhaustive search once
finished).
"""
import numpy as np

from odtlab.widgets.recording import DEPTH, FEATURE, KIND, NODE, Fold
from odtlab.widgets.registry import Adapter, register_adapter, register_graph, register_panel
from odtlab.widgets.svg import GREEN, GREY, HIGHLIGHT, MUTED, SKY, TINT, bar_rows, fmt, legend, panel, svg_open, text
from odtlab.widgets.views import View

ALGORITHM = "dpdt"


def _kinds():
    from odtlab.core import dpdt

    return {"StateExpanded": dpdt.EV_STATE_EXPANDED, "CandidateSplit": dpdt.EV_CANDIDATE,
            "BellmanBackup": dpdt.EV_BACKUP, "StateSolved": dpdt.EV_STATE_SOLVED,
            "PolicyExtracted": dpdt.EV_POLICY}


@register_adapter
class DPDTAdapter(Adapter):
    """Snapshot bounds and trees (the current policy's tree and its L_alpha after every kernel call)."""

    algorithm = ALGORITHM
    bound_labels = ("L_α of the current policy", "lower bound (0; exhaustive: certified when done)")
    tree_title = "Tree of the current policy"
    generic_kinds = ()

    def __init__(self, solver):
        super().__init__(solver)
        from odtlab.core import events as core

        self.generic_kinds = (core.SEARCH_STARTED, core.TERMINATED)


class MDP:
    """Fold state: the states and candidate actions built so far, and the state the last event is about."""

    def __init__(self):
        self.states = {}  # id -> dict(parent, side, via, depth, n, leaf_loss, solved, V, action, Q_leaf)
        self.cands = {}  # id -> dict(state, feature, threshold, n_left, n_right, skip, Q, chosen, left, right)
        self.by_state = {}  # state -> [candidate ids]
        self.current = None

    def copy(self):
        """Shallow: states and candidates are replaced, never changed in place, once added."""
        other = MDP()
        other.states, other.cands, other.by_state = dict(self.states), dict(self.cands), dict(self.by_state)
        other.current = self.current
        return other


def _readers(codes):
    """Per kind, a reader of each payload field from a record tuple (``KINDS[code].reader``)."""
    from odtlab.core.events import KINDS

    return {name: {field: KINDS[code].reader(field) for field in KINDS[code].fields} for name, code in codes.items()}


def _apply(codes):
    read = _readers(codes)
    cand, expanded, backup, solved = (read["CandidateSplit"], read["StateExpanded"], read["BellmanBackup"],
                                      read["StateSolved"])

    def apply(mdp, i, r):
        kind = int(r[KIND])
        s = int(r[NODE])
        if kind == codes["CandidateSplit"]:
            c = int(cand["candidate"](r))
            mdp.cands[c] = {"state": s, "feature": int(r[FEATURE]), "threshold": float(cand["threshold"](r)),
                            "n_left": int(cand["n_left"](r)), "n_right": int(cand["n_right"](r)),
                            "skip": int(cand["skip"](r)), "Q": np.nan, "chosen": False, "left": -1, "right": -1}
            mdp.by_state[s] = mdp.by_state.get(s, ()) + (c,)
        elif kind == codes["StateExpanded"]:
            weight = float(expanded["weight"](r))  # Q(s, leaf) = -(leaf loss) / (weight of the state's rows)
            side, via_id, leaf_loss = int(expanded["side"](r)), int(expanded["via_candidate"](r)), \
                float(expanded["leaf_loss"](r))
            mdp.states[s] = {"parent": int(expanded["parent_state"](r)), "side": side, "via": via_id,
                             "depth": int(r[DEPTH]), "n": int(expanded["n_samples"](r)), "leaf_loss": leaf_loss,
                             "solved": False, "V": np.nan, "action": None,
                             "Q_leaf": -leaf_loss / weight if weight > 0 else np.nan}
            via = mdp.cands.get(via_id)
            if via is not None and side in (1, 2):
                mdp.cands[via_id] = dict(via, **{"left" if side == 1 else "right": s})
        elif kind == codes["BellmanBackup"]:
            c = int(backup["candidate"](r))
            if c in mdp.cands:
                chosen = bool(int(backup["chosen"](r)))
                if chosen:
                    for other in mdp.by_state.get(s, ()):
                        if mdp.cands[other]["chosen"]:
                            mdp.cands[other] = dict(mdp.cands[other], chosen=False)
                mdp.cands[c] = dict(mdp.cands[c], Q=float(backup["Q"](r)), chosen=chosen or mdp.cands[c]["chosen"])
        elif kind == codes["StateSolved"] and s in mdp.states:
            mdp.states[s] = dict(mdp.states[s], solved=True, V=float(solved["V"](r)), action=int(solved["action"](r)),
                                 Q_leaf=float(solved["Q_leaf"](r)))
        if kind in codes.values():
            mdp.current = s
        return mdp

    return apply


def mdp_at(frame):
    fold = frame.recording.cache.get("dpdt.fold")
    if fold is None:
        fold = frame.recording.cache["dpdt.fold"] = Fold(frame.recording, MDP, _apply(_kinds()), MDP.copy)
    return fold.at(frame.k)


def _feature(solver, f):
    names = solver.feature_names
    return names[f] if names is not None and 0 <= f < len(names) else f"x{f}"


def _actions(mdp, s, solver):
    """[(label, Q, candidate id or -1 for the leaf, chosen)] of state ``s``."""
    st = mdp.states.get(s)
    out = []
    if st is not None:
        leaf_chosen = st["solved"] and st["action"] == -1
        out.append(("leaf", st["Q_leaf"], -1, leaf_chosen))
    for c in mdp.by_state.get(s, []):
        cand = mdp.cands[c]
        chosen = st is not None and st["solved"] and st["action"] == c
        label = f"{_feature(solver, cand['feature'])} ≤ {fmt(cand['threshold'], 4)}"
        if cand["skip"]:
            label += " (skipped)"
        out.append((label, cand["Q"], c, chosen or (not (st and st["solved"]) and cand["chosen"])))
    return out


@register_graph(ALGORITHM, title="DPDT: the MDP (states, actions, Q-values)",
                note="Each row is a state on the path from the root to the current state, with its actions: leaf, "
                     "or a candidate split; Q(s, a) = −α + p_l V(s_l) + p_r V(s_r) (Algorithm 1), values are "
                     "negative losses.")
def mdp_graph(frame, box_w=150, row_h=96):
    """SVG: the states from the root to the current one, each with its actions and their Q-values."""
    solver = frame.solver
    mdp = mdp_at(frame)
    path = []
    s = mdp.current
    while s is not None and s in mdp.states:
        path.append(s)
        p = mdp.states[s]["parent"]
        s = p if p >= 0 else None
    path = path[::-1]
    if not path and 0 in mdp.states:
        path = [0]
    W = 900
    H = 30 + (max(len(path), 1) - 1) * row_h + 46 + 44
    parts = [svg_open(W, H, states=len(mdp.states), current=-1 if mdp.current is None else mdp.current)]
    parts.append(text(10, 18, f"{len(mdp.states)} states, {len(mdp.cands)} candidate splits built; "
                              f"{sum(st['solved'] for st in mdp.states.values())} states solved", 13))
    for r, s in enumerate(path):
        st = mdp.states[s]
        y = 30 + r * row_h
        current = s == mdp.current
        fill, opacity = (GREEN, 0.45) if st["solved"] else (SKY, 0.45)
        stroke, sw = (HIGHLIGHT, 4) if current else (HIGHLIGHT, 2)
        side = {0: "root", 1: "left", 2: "right"}.get(st["side"], "")
        cls = ' class="current"' if current else ""
        parts.append(f'<g id="state-{s}"{cls}>'
                     f'<rect x="10" y="{y}" width="{box_w}" height="46" rx="7" fill="{fill}" fill-opacity="{opacity}" '
                     f'stroke="{stroke}" stroke-width="{sw}" />'
                     + text(10 + box_w / 2, y + 18, f"state {s} ({side}, d={st['depth']})", 12, "middle", weight="bold")
                     + text(10 + box_w / 2, y + 36, (f"V {fmt(st['V'], 4)}" if st["solved"] else "unsolved")
                            + f" · n={st['n']}", 12, "middle") + "</g>")
        nxt = path[r + 1] if r + 1 < len(path) else None
        via = mdp.states[nxt]["via"] if nxt is not None else None
        x = 10 + box_w + 16
        for label, q, c, chosen in _actions(mdp, s, solver)[:7]:
            pill = f"{label}  Q {fmt(q, 4)}" if np.isfinite(q) else f"{label}  Q –"
            w = 7.0 * len(pill) + 18
            on_path = c >= 0 and c == via
            colour = HIGHLIGHT if on_path else ("#333" if chosen else GREY)
            if x == 10 + box_w + 16:
                parts.append(f'<line x1="{10 + box_w}" y1="{y + 23}" x2="{x}" y2="{y + 23}" stroke="#BBB" />')
            parts.append(f'<g class="action{" chosen" if chosen else ""}"><rect x="{x:.1f}" y="{y + 11}" '
                         f'width="{w:.1f}" height="24" rx="12" fill="{TINT if chosen else "#F4F4F4"}" '
                         f'stroke="{colour}" stroke-width="{2.5 if on_path or chosen else 1}" />'
                         + text(x + w / 2, y + 28, pill, 12, "middle", weight="bold" if chosen else "normal") + "</g>")
            if on_path:
                parts.append(f'<line x1="{x + w / 2:.1f}" y1="{y + 35}" x2="{10 + box_w / 2}" y2="{y + row_h}" '
                             f'stroke="{HIGHLIGHT}" stroke-width="2" />')
            x += w + 8
            if x > W - 120:
                break
    parts.append(legend([("expanded, unsolved", {"fill": SKY, "opacity": 0.45}),
                         ("solved: V = max Q", {"fill": GREEN, "opacity": 0.45}),
                         ("best action so far", {"shape": "pill", "fill": TINT, "width": 2.5}),
                         ("path to the current state", {"shape": "line", "stroke": HIGHLIGHT, "width": 2})],
                        10, H - 12))
    parts.append("</svg>")
    return "".join(parts)


@register_panel(ALGORITHM)
class ActionValuePanel(View):
    """Q-values of the actions of the current state, best in orange (shown once backed up)."""

    title = "DPDT: Q-values of the current state's actions"

    def __init__(self, width=460):
        self.width = width

    def svg(self, frame):
        solver = frame.solver
        mdp = mdp_at(frame)
        s = mdp.current
        W = self.width
        if s is None or s not in mdp.states:
            return svg_open(W, 44) + text(10, 26, "No state built yet.", 13) + "</svg>"
        st = mdp.states[s]
        rows = _actions(mdp, s, solver)
        H = 56 + 26 * len(rows) + 10
        parts = [svg_open(W, H, state=s, actions=len(rows)),
                 text(10, 20, f"State {s}: depth {st['depth']}, {st['n']} rows, leaf loss {fmt(st['leaf_loss'])}",
                      14, weight="bold"),
                 text(10, 40, (f"solved: V = {fmt(st['V'], 5)}" if st["solved"] else "not solved yet"), 13,
                      fill=MUTED)]
        qs = np.array([q for _, q, _, _ in rows], dtype=np.float64)
        ok = np.isfinite(qs)
        # bar = Q above a base a little below the worst action's Q: the longest bar is the best action
        best, worst = (float(qs[ok].max()), float(qs[ok].min())) if ok.any() else (0.0, 0.0)
        base = worst - (0.25 * (best - worst) if best > worst else max(abs(worst), 1.0))
        parts.append(bar_rows([(label, q - base, HIGHLIGHT if chosen else SKY, 0.9 if chosen else 0.6,
                                f"Q = {fmt(q, 4)}" if np.isfinite(q) else "not backed up yet", chosen)
                               for label, q, _, chosen in rows], 205, W - 100, 52, best - base, label_size=12,
                              label_chars=27))
        parts.append("</svg>")
        return "".join(parts)

    def render(self, frame):
        return panel(self.title, self.svg(frame), "bar: Q(s, a) of each action, measured from a base below the "
                                                  "worst action's Q (longer is better); orange: the state's best "
                                                  "action")
