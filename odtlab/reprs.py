"""Small HTML tables for notebooks: the ``_repr_html_`` of :class:`~odtlab.search.Result`,
:class:`~odtlab.search.Search` and :class:`~odtlab.datasets.Dataset` share this one layout."""
from html import escape


def card(title, rows, extra=""):
    """An HTML card: a bold ``title``, a two-column table of ``rows`` ((name, value) pairs; None values are
    left out) and optional trusted ``extra`` HTML below (a tree's SVG, a data preview)."""
    cells = "".join(f'<tr><th style="text-align:left;padding:1px 10px 1px 0">{escape(str(k))}</th>'
                    f'<td style="text-align:left">{escape(str(v))}</td></tr>' for k, v in rows if v is not None)
    return (f'<div style="font-family:sans-serif;font-size:13px"><b>{escape(title)}</b>'
            f'<table style="border-collapse:collapse;margin:4px 0">{cells}</table>{extra}</div>')


def number(x):
    """A short form of a bound or objective (6 significant digits)."""
    return f"{float(x):.6g}"
