"""The search index: each page cut at its headings into sections of plain text (code, outputs and drawings
left out, formulas as their LaTeX), written as ``_static/search_index.js`` (a script, since pages opened from
``file://`` may not fetch JSON) and searched by ``_static/search.js``."""
import html
import re
from html.parser import HTMLParser

SKIP = {"script", "style", "svg", "math", "pre", "table"}
HEADING = {"h1", "h2", "h3"}
MAX_CHARS = 4000


def slug(text):
    """An anchor id from heading HTML (tags dropped, spaces as dashes), as nbconvert's headings get."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
    return re.sub(r"\s+", "-", text)


class _Sections(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = [{"id": "", "title": "", "text": []}]
        self.skip = 0
        self.outputs = []  # depth stack of output areas (their text is results, not prose)
        self.depth = 0
        self.heading = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in ("br", "img", "input", "meta", "link", "hr", "col"):
            self.depth += 1
            if "jp-OutputArea" in (attrs.get("class") or "") and not self.outputs:
                self.outputs.append(self.depth)
        if tag == "math" and attrs.get("alttext") and not self.skip and not self.outputs:
            self.handle_data(f" {attrs['alttext']} ")  # a formula is searched as its LaTeX
        if tag in SKIP:
            self.skip += 1
        elif tag in HEADING and attrs.get("id"):
            self.heading = {"id": attrs["id"], "title": [], "text": []}

    def handle_endtag(self, tag):
        if tag in SKIP and self.skip:
            self.skip -= 1
        elif tag in HEADING and self.heading is not None:
            self.heading["title"] = re.sub(r"\s+", " ", "".join(self.heading["title"])).strip().rstrip("¶")
            self.sections.append(self.heading)
            self.heading = None
        if tag not in ("br", "img", "input", "meta", "link", "hr", "col"):
            if self.outputs and self.outputs[-1] == self.depth:
                self.outputs.pop()
            self.depth -= 1

    def handle_data(self, data):
        if self.skip or self.outputs:
            return
        if self.heading is not None:
            self.heading["title"].append(data)
        else:
            self.sections[-1]["text"].append(data)


def sections(file, page_title, body):
    """``[{"page", "title", "section", "id", "text"}, ...]`` for one page's body HTML."""
    parser = _Sections()
    parser.feed(body)
    out = []
    for s in parser.sections:
        text = re.sub(r"\s+", " ", " ".join(s["text"])).strip()
        if text or s["title"]:
            out.append({"page": file, "title": page_title, "section": s["title"] or page_title, "id": s["id"],
                        "text": text[:MAX_CHARS]})
    return out
