"""Small pure SVG/HTML helpers shared by the views: text, axes with readable ticks, step lines, bars.

Colours come from :data:`odtlab.export.PALETTE` (Okabe-Ito, colour-blind safe); text is 12-14 px so a
drawing stays legible at 125 % zoom.
"""
from html import escape
import math

import numpy as np

from odtlab.export import HIGHLIGHT, PALETTE

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK = "#222222"
MUTED = "#555555"
GRID = "#DDDDDD"
ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE, GREY = PALETTE
UPPER, LOWER = VERMILLION, BLUE
TINT = "#FFF3D6"  # a light tint of the palette's orange: the background of a chosen action
__all__ = ["FONT", "INK", "MUTED", "GRID", "HIGHLIGHT", "PALETTE", "TINT", "svg_open", "text", "fmt",
           "nice_ticks", "step_path", "legend", "bar_rows", "panel", "escape"]


def svg_open(width, height, **data):
    """The opening ``<svg>`` tag with a white background; ``data`` become ``data-*`` attributes."""
    attrs = "".join(f' data-{k.replace("_", "-")}="{escape(str(v))}"' for k, v in data.items())
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="13"{attrs}>'
            f'<rect width="100%" height="100%" fill="#fff" />')


def text(x, y, s, size=13, anchor="start", fill=INK, weight="normal", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}"{extra}>{escape(str(s))}</text>')


def fmt(x, digits=4):
    """A short number: integers as integers, others with ``digits`` significant digits."""
    if x is None:
        return "–"
    x = float(x)
    if not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "NaN")
    if x == int(x) and abs(x) < 1e12:
        return str(int(x))
    return f"{x:.{digits}g}"


def nice_ticks(lo, hi, n=5):
    """About ``n`` round tick values covering [lo, hi]."""
    if not hi > lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(n - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    start = math.ceil(lo / step - 1e-9) * step
    ticks = []
    t = start
    while t <= hi + 1e-9 * step:
        ticks.append(round(t, 12))
        t += step
    return ticks


def step_path(px, py, x_end):
    """SVG path of a right-continuous step function through pixel points ``(px, py)``, held until ``x_end``."""
    if len(px) == 0:
        return ""
    px, py = np.asarray(px, dtype=np.float64).tolist(), np.asarray(py, dtype=np.float64).tolist()
    steps = "".join(map("H{:.1f}V{:.1f}".format, px[1:], py[1:]))
    return f"M{px[0]:.1f},{py[0]:.1f}{steps}H{max(x_end, px[-1]):.1f}"


def thin(xs, *ys, width=400):
    """Keep at most about ``width`` points of a step series: the last point of each pixel column (bounds
    are monotone, so the last value of a column is its extreme)."""
    n = len(xs)
    if n <= width:
        return (xs, *ys)
    lo, hi = xs[0], xs[-1]
    col = np.floor((xs - lo) / max(hi - lo, 1e-12) * width).astype(np.int64)
    keep = np.ones(n, dtype=bool)
    keep[:-1] = col[1:] != col[:-1]
    keep[0] = True
    return (xs[keep], *(y[keep] for y in ys))


def legend(items, x, y):
    """One row of legend entries, text baseline at ``y``, from ``x``. ``items``: ``(label, swatch)`` with
    ``swatch`` a dict: ``fill`` and ``opacity`` of a box (``shape="pill"``: a rounded one, as the actions are
    drawn), edge ``stroke`` and ``width``; ``shape="line"``: a stroke of colour ``stroke`` and ``width``."""
    parts = []
    for label, sw in items:
        shape, stroke, width = sw.get("shape", "box"), sw.get("stroke", "#333"), sw.get("width", 1)
        if shape == "line":
            w = 30
            parts.append(f'<line x1="{x:.1f}" x2="{x + w:.1f}" y1="{y - 4}" y2="{y - 4}" stroke="{stroke}" '
                         f'stroke-width="{width}" />')
        else:
            w, rx = (24, 6) if shape == "pill" else (16, 3)
            parts.append(f'<rect x="{x:.1f}" y="{y - 12}" width="{w}" height="14" rx="{rx}" '
                         f'fill="{sw.get("fill", "#FFFFFF")}" fill-opacity="{sw.get("opacity", 1.0)}" '
                         f'stroke="{stroke}" stroke-width="{width}" />')
        parts.append(text(x + w + 5, y, label, 12))
        x += w + 24 + 6.8 * len(label)
    return "".join(parts)


def bar_rows(rows, x0, x1, y0, top, pitch=26, label_size=13, label_chars=18):
    """Horizontal bars, one a row from ``y0`` every ``pitch`` px, as SVG (the panels' tables of values).

    ``rows``: ``(label, length, colour, opacity, value text, bold label)``; a bar spans ``length / top`` of
    ``x0 .. x1`` (at least 2 px) with its value text after it (on a white ground); a non-finite length draws
    no bar, only the value text (muted), e.g. "not backed up yet".
    """
    parts = []
    for r, (label, length, colour, opacity, value, bold) in enumerate(rows):
        y = y0 + pitch * r
        parts.append(text(10, y + 15, label[:label_chars], label_size, weight="bold" if bold else "normal"))
        if not math.isfinite(length):
            parts.append(text(x0, y + 15, value, 12, fill=MUTED))
            continue
        w = max((x1 - x0) * max(length, 0.0) / top if top > 0 else 0.0, 2.0)
        parts.append(f'<rect x="{x0}" y="{y}" width="{w:.1f}" height="20" fill="{colour}" fill-opacity="{opacity}" />')
        # the value on a white ground (about 7 px a character), readable over lines drawn under it
        parts.append(f'<rect x="{x0 + w + 3:.1f}" y="{y + 2}" width="{7 * len(value) + 6}" height="17" '
                     f'fill="#FFFFFF" />' + text(x0 + w + 6, y + 15, value, 12))
    return "".join(parts)


def panel(title, body, note="", width=None):
    """A titled box of HTML used by every view (inline styles only, so static exports keep them)."""
    w = f"max-width:{width}px;" if width else ""
    sub = f'<div style="font-size:12px;color:{MUTED};margin:0 0 4px 0">{escape(note)}</div>' if note else ""
    return (f'<div class="odtlab-view" style="font-family:{FONT};color:{INK};{w}">'
            f'<div style="font-size:14px;font-weight:600;margin:0 0 2px 0">{escape(title)}</div>{sub}'
            f'<div style="overflow-x:auto">{body}</div></div>')
