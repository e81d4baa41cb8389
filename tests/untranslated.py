"""Find Kifu's own English left on a Japanese page: visible text compared with the English catalog.

Every message of the dashboard is in ``app/locale/kifu.pot`` (English, the source language) with
its Japanese translation in ``kifu.po``.  A piece of text shown on a Japanese page that *is* one
of those English messages (a whole label, or a message with its ``{placeholders}`` filled in, or a
sentence of three words or more inside a longer text) was not translated where it is shown.
Streamlit's own English strings that Kifu can replace or hide are listed too.  Text inside
“curly quotes” is a quotation kept as the original on purpose (the dealer's own message shown
second, after its meaning in Japanese) and is not compared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from babel.messages.pofile import read_po

from app import i18n

#: Streamlit's own visible English that a Japanese page must not show (Kifu replaces or hides it).
STREAMLIT_ENGLISH = ("View more", "View less", "Drag and drop file here", "Browse files", "per file",
                     "This app has encountered an error", "Choose an option", "No results")  # fmt: skip
#: Streamlit's own labels that are English only as a whole text ("Upload" alone is its uploader's button).
STREAMLIT_LABELS = {"Upload", "Browse files", "Fullscreen", "Download as CSV", "Search"}
#: Catalog messages that are the same in both languages (names, symbols, units).
SAME_IN_BOTH = {"ALGORI", "UNO", "CHaser", "Kifu", "Cool", "Hot", "MB", "ms", "ID", "URL", "HTML"}
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_QUOTED = re.compile(r"“[^”]*”")


@dataclass(frozen=True)
class English:
    exact: frozenset[str]
    patterns: tuple[tuple[str, re.Pattern[str]], ...]
    phrases: tuple[str, ...]


def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-z]{2,}", text))


@cache
def english() -> English:
    """The English messages whose Japanese differs, as exact labels, filled-in patterns and phrases."""
    with i18n.po_path("ja").open("rb") as fh:
        po = read_po(fh)
    exact, patterns, phrases = set(), [], []
    for m in po:
        if not m.id or isinstance(m.id, tuple | list):
            continue
        msgid, msgstr = str(m.id).strip(), str(m.string or "").strip()
        if not re.search(r"[A-Za-z]{2,}", msgid) or msgid in SAME_IN_BOTH or msgstr == msgid:
            continue
        literal = _PLACEHOLDER.sub("", msgid)
        if _PLACEHOLDER.search(msgid):
            if _words(literal) >= 2:
                parts = [re.escape(p) for p in _PLACEHOLDER.split(msgid)]
                patterns.append((msgid, re.compile(r"\s*" + r".+?".join(parts) + r"\s*", re.S)))
        else:
            exact.add(msgid)
            if _words(msgid) >= 3:
                phrases.append(msgid)
    return English(frozenset(exact), tuple(patterns), tuple(sorted(phrases, key=len, reverse=True)))


def left_in_english(texts: list[str]) -> list[str]:
    """The texts (as shown, one per element or line) that are Kifu's or Streamlit's English."""
    eng = english()
    found = []
    for raw in texts:
        text = " ".join(_QUOTED.sub("“”", raw).split())
        if not text.strip("“” "):
            continue
        hit = next((s for s in STREAMLIT_ENGLISH if s in text), None)
        if hit is None and text in STREAMLIT_LABELS:
            hit = text
        if hit is None and text in eng.exact:
            hit = text
        if hit is None:
            hit = next((msgid for msgid, rx in eng.patterns if rx.fullmatch(text)), None)
        if hit is None and len(text) > 12:
            hit = next((p for p in eng.phrases if p in text), None)
        if hit is not None:
            found.append(f"{text[:80]!r} (message {hit[:60]!r})")
    return found
