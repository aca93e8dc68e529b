"""The book: the executed chapters as a static web site that works offline (``make book``).

:func:`build` turns ``notebooks/NN_*.ipynb`` (their stored outputs; nothing is executed) into one HTML page
per chapter with nbconvert's ``HTMLExporter`` and one shared page template, plus a landing page from the
front matter (``notebooks/README.md``), the errata (``docs/errata.md``) and the references
(``docs/references.bib``). On the way it removes the exercises' solutions (the ``solution`` cells, as
``make student`` does), turns LaTeX into MathML (``latex2mathml``; no MathJax), turns each recorded
step-through player (:data:`odtlab.widgets.player.REPLAY_MIME`) into a player that ``replay.js`` runs in the
page, draws the chapter graph as SVG, and writes a search index. Every file the pages load is in the site.
"""
from odtlab.book.build import build, main

__all__ = ["build", "main"]
