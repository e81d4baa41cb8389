"""Untrusted text made inert for where it goes: one function per destination.

Anything that came from a log is untrusted: bot, dealer and player names, game titles, board and
map names, the dealer's messages, match and player ids, file names. A bot chooses its own name, so
a name can hold terminal escape sequences (retitle the window, clear the screen), bidi overrides
(make text read backwards), Markdown or HTML (a heading, an image with ``onerror``, a link).

- :func:`terminal` — for stdout and stderr: every non-printable character (C0 and C1 controls,
  DEL, bidi controls, zero-width characters, line and paragraph separators, unassigned code points)
  written as a Python-style escape (``\\x1b``, ``\\u202e``); everything printable, Japanese
  included, stays as it is.
- :func:`markdown` — for a Markdown report (a heading, a paragraph or a table cell): the text made
  terminal-safe first (reports are read in terminals too), then only the ASCII characters Markdown
  can act on backslash-escaped (``\\ ` * _ [ ] ( ) # ! | ~ $``, and a leading ``-``, ``+``, ``=`` or
  ``1.``/``1)`` that would start a block), ``< > &`` as HTML entities (no tag, no entity survives),
  and a word joiner (U+2060, invisible) where a renderer would otherwise turn a URL or an e-mail
  address into a link.
- :func:`json_dumps` — JSON for a file or a terminal: valid JSON whose strings keep Japanese
  readable and write every non-printable character as a ``\\uXXXX`` escape (``json.loads`` gives
  the original text back).

The dashboard has its own helpers for Streamlit's Markdown (``app.ui.md``); this module has no
dependency, so the CLI, the loaders and the reports share it.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["terminal", "markdown", "json_dumps"]


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    o = ord(ch)
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def terminal(text: Any) -> str:
    """``text`` for a terminal (stdout or stderr): non-printable characters shown as escapes."""
    s = "" if text is None else str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


#: The ASCII characters Markdown can act on anywhere in a line: CommonMark's code, emphasis, links,
#: images, headings, escapes and raw HTML, GFM's tables (``|``) and strikethrough (``~``), KaTeX's
#: ``$``. They are backslash-escaped, but for ``& < >``, written as HTML entities (no tag, no entity
#: survives). Every other punctuation (``- . , : = / + ' "`` ...) stays as it is, so the Markdown
#: reads well raw.
_MD_ALWAYS = re.compile(r"([\\`*_\[\]()#!|~$])")
_MD_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: What starts a block when it opens the text (a bullet, a setext underline, a quote — already an
#: entity —, an ordered list item ``1.`` or ``1)``): its marker escaped.
_MD_BLOCK = re.compile(r"^([-+=])|^(\d+)([.)])")
#: Where a renderer (GFM's extended autolinks) would turn a URL or an e-mail address into a link: a
#: word joiner (U+2060, invisible) put between ``http``/``https``/… and ``://``, ``www`` and ``.``,
#: and before every ``@``.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?=@)")


def markdown(text: Any) -> str:
    """``text`` as literal Markdown (heading, paragraph or table cell): nothing in it renders as markup."""
    s = terminal(text)
    s = _MD_ALWAYS.sub(r"\\\1", s)
    s = _MD_BLOCK.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", s)
    s = "".join(_MD_ENTITY.get(ch, ch) for ch in s)
    return _AUTOLINK.sub("\u2060", s)


def _json_safe(s: str) -> str:
    return "".join(ch if ch.isprintable() or ch in "\n\t" else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000
                   else "".join(f"\\u{u:04x}" for u in _surrogates(ord(ch))) for ch in s)  # fmt: skip


def _surrogates(o: int) -> tuple[int, int]:
    o -= 0x10000
    return 0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)


def json_dumps(data: Any, *, indent: int | None = 2) -> str:
    """``data`` as JSON: readable Japanese, every non-printable character as a ``\\uXXXX`` escape.

    ``json.dumps(ensure_ascii=False)`` already escapes C0 controls; this also escapes C1 controls,
    DEL, bidi controls and the like, which a terminal would act on."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, default=str)
    # Outside strings JSON holds only printable ASCII and the indent's whitespace, so escaping every
    # other non-printable character here touches string contents only.
    return _json_safe(text)
