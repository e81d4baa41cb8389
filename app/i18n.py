"""Japanese and English for the dashboard.

Messages are marked in the code with ``_()`` (translated where they are shown) or ``N_()``
(marked only: module-level constants, translated later with ``_()``).  The catalogs are
standard gettext ``.po`` files under ``app/locale/<lang>/LC_MESSAGES/kifu.po``, extracted
with Babel (``make messages``) and compiled in memory when first used, so a fresh clone
needs no build step.  English is the source language; Japanese is the default when the
browser asks for it.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "kifu"
#: language code -> its own name, as shown in the switch
LANGUAGES = {"ja": "日本語", "en": "English"}
DEFAULT = "en"
#: msgids looked up in a non-English catalog that had no translation (tests read this)
MISSING: set[str] = set()


class _Catalog(gettext.GNUTranslations):
    def gettext(self, message: str) -> str:
        if message and message not in self._catalog:  # type: ignore[attr-defined]
            MISSING.add(message)
        return super().gettext(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        if (msgid1, 0) not in self._catalog:  # type: ignore[attr-defined]
            MISSING.add(msgid1)
        return super().ngettext(msgid1, msgid2, n)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (English: the messages themselves)."""
    if lang not in LANGUAGES or lang == "en" or not po_path(lang).exists():
        return gettext.NullTranslations()
    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    buf = BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return _Catalog(buf)


def from_accept_language(header: str | None) -> str | None:
    """The first supported language a browser's Accept-Language (or locale) asks for."""
    best: tuple[float, int, str] | None = None
    for i, part in enumerate((header or "").split(",")):
        tag, _, q = part.strip().partition(";q=")
        lang = tag.strip().lower().split("-")[0].split("_")[0]
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        if lang in LANGUAGES and weight > 0 and (best is None or (weight, -i) > (best[0], best[1])):
            best = (weight, -i, lang)
    return best[2] if best else None


_FORCED: ContextVar[str | None] = ContextVar("kifu_lang", default=None)


@contextmanager
def using(lang: str) -> Iterator[None]:
    """Translate into ``lang`` inside this block (work done outside the page script, files)."""
    token = _FORCED.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _FORCED.reset(token)


def pin() -> Token[str | None]:
    """Fix the viewer's language for the rest of this page run (read once: a page words thousands of rows, and
    reading the session for each costs more than the wording). Undo with :func:`unpin` when the run ends."""
    return _FORCED.set(current())


def unpin(token: Token[str | None] | None) -> None:
    if token is not None:
        _FORCED.reset(token)


def current() -> str:
    """The viewer's language: their choice (session, ``?lang=``), else what the browser asks for."""
    forced = _FORCED.get()
    if forced is not None:
        return forced
    try:
        import streamlit as st
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        if get_script_run_ctx(suppress_warning=True) is None:  # not inside a page run
            return DEFAULT
        chosen = st.session_state.get("lang")
        if chosen in LANGUAGES:
            return str(chosen)
        asked = st.query_params.get("lang")
        if asked in LANGUAGES:
            return str(asked)
        ctx = st.context
        wanted = from_accept_language(getattr(ctx, "locale", None)) or from_accept_language(
            (getattr(ctx, "headers", None) or {}).get("Accept-Language")
        )
        return wanted or DEFAULT
    except Exception:  # outside a Streamlit run (scripts, notebooks)
        return DEFAULT


def _(message: str) -> str:
    """``message`` in the viewer's language."""
    return translations(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark a message for extraction without translating it here (translate it where it is shown)."""
    return message
