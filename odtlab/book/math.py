"""LaTeX to MathML at build time (``latex2mathml``; browsers render MathML, so no MathJax is loaded).

Markdown would mangle LaTeX (``_`` and ``*`` are emphasis), so :meth:`Converter.hide` swaps each formula for
a placeholder before rendering and :meth:`Converter.show` puts the MathML in its place after. Code spans
and fenced blocks are left alone.
"""
import html
import re

from latex2mathml.converter import convert

# a code span (kept), $$display$$, or $inline$ (within a paragraph: no blank line; not after a word or \$)
FORMULA = re.compile(r"(?P<code>`+).+?(?P=code)"
                     r"|\$\$(?P<display>.+?)\$\$"
                     r"|(?<![\\$\w])\$(?P<inline>(?:[^$\n]|\n(?!\s*\n))+?)\$(?![\w$])", re.S)
PLACEHOLDER = re.compile(r"odtlabmath(\d+)x")


class Converter:
    """Formulas seen so far (placeholders index them) and those latex2mathml could not convert."""

    def __init__(self):
        self.formulas = []
        self.failures = []

    def hide(self, text):
        def swap(m):
            if m.group("code"):
                return m.group(0)
            display = m.group("display") is not None
            self.formulas.append((m.group("display") if display else m.group("inline"), display))
            return f"odtlabmath{len(self.formulas) - 1}x"

        return FORMULA.sub(swap, text)

    def mathml(self, latex, display):
        try:
            mathml = convert(latex.strip(), display="block" if display else "inline")
            # the LaTeX as alternative text: read aloud where MathML is not, and indexed by the search
            return mathml.replace("<math ", f'<math alttext="{html.escape(latex.strip())}" ', 1)
        except Exception:  # latex2mathml raises its own errors and plain ones on what it does not know
            self.failures.append(latex.strip())
            return f'<code class="odtlab-latex">{html.escape(latex)}</code>'

    def show(self, text):
        return PLACEHOLDER.sub(lambda m: self.mathml(*self.formulas[int(m.group(1))]), text)
