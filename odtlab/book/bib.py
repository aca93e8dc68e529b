"""The bibliography (``docs/references.bib``) as a page: one entry per key, with its DOI, URL or arXiv link."""
import html
import re
import unicodedata

ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307"}

ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,")
FIELD = re.compile(r"\s*(\w+)\s*=\s*")


def _value(text, i):
    """The value starting at ``text[i]`` (``{...}`` with nested braces, ``"..."`` or a bare word) and the end."""
    if text[i] == "{":
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return text[i + 1:j], j + 1
            j += 1
    if text[i] == '"':
        j = text.index('"', i + 1)
        return text[i + 1:j], j + 1
    m = re.match(r"[^,}\s]+", text[i:])
    return m.group(0), i + m.end()


def parse(text):
    """``[{"type", "key", field: value, ...}, ...]`` in file order (``%`` comment lines dropped)."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("%"))
    entries = []
    for m in ENTRY.finditer(text):
        entry, i = {"type": m.group(1).lower(), "key": m.group(2)}, m.end()
        while True:
            f = FIELD.match(text, i)
            if not f:
                break
            value, i = _value(text, f.end())
            entry[f.group(1).lower()] = value
            i = re.match(r"\s*,?", text[i:]).end() + i
        entries.append(entry)
    return entries


def plain(value):
    """BibTeX text as plain text: accents and braces dropped, ``--`` as an en dash."""
    value = re.sub(r"\\(['`^\"~=.])\{?(\w)\}?", lambda m: m.group(2) + ACCENTS[m.group(1)], value)
    for tex, char in (("\\&", "&"), ("---", "—"), ("--", "–"), ("``", "“"), ("''", "”")):
        value = value.replace(tex, char)
    value = re.sub(r"\\\w+\s*", "", value)
    value = re.sub(r"\s+", " ", value.replace("{", "").replace("}", "")).strip()
    return unicodedata.normalize("NFC", value)


def links(entry):
    out = []
    if "doi" in entry:
        out.append((f"https://doi.org/{entry['doi']}", f"doi:{entry['doi']}"))
    if entry.get("archiveprefix", "").lower() == "arxiv" and "eprint" in entry:
        out.append((f"https://arxiv.org/abs/{entry['eprint']}", f"arXiv:{entry['eprint']}"))
    if "url" in entry:
        out.append((entry["url"], entry["url"]))
    return out


def render(entries):
    """The references page's body."""
    items = []
    for e in entries:
        where = next((plain(e[f]) for f in ("journal", "booktitle", "publisher", "howpublished") if f in e), "")
        author, title, year = (html.escape(plain(e.get(f, ""))) for f in ("author", "title", "year"))
        parts = (author.replace(" and ", "; "), f"<em>{title}</em>", html.escape(where), year)
        text = ". ".join(x.rstrip(".") for x in parts if x)
        link = " ".join(f'<a href="{html.escape(url)}">{html.escape(label)}</a>' for url, label in links(e))
        note = f'<br><span class="odtlab-note">{html.escape(plain(e["note"]))}</span>' if "note" in e else ""
        items.append(f'<li id="{html.escape(e["key"])}"><code>{html.escape(e["key"])}</code> {text}. {link}{note}</li>')
    return ('<h1 id="References">References</h1>\n<p>The papers the kit implements, the peer solvers and the '
            "data sources, from <code>docs/references.bib</code>; the chapters cite them by key.</p>\n"
            '<ul class="odtlab-references">\n' + "\n".join(items) + "\n</ul>")
