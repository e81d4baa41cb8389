"""Japanese and English: every user-visible string goes through the catalog, and every message has a translation."""

from __future__ import annotations

import ast
import string
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from streamlit.testing.v1 import AppTest

from app import i18n
from tests.app.test_pages import PAGES
from tests.conftest import REPO

App = Callable[..., AppTest]
#: Streamlit calls whose first argument (or ``label=``/``text=``) a viewer reads.
SHOWN = {"title", "header", "subheader", "caption", "markdown", "write", "text", "info", "success", "warning", "error",
         "button", "download_button", "selectbox", "multiselect", "radio", "toggle", "checkbox", "slider",
         "number_input", "text_input", "file_uploader", "metric", "expander", "spinner", "page_link", "progress",
         "segmented_control", "Page", "toast", "tabs", "form_submit_button"}  # fmt: skip
#: Literal texts shown as they are, on purpose (symbols, the language switch's own label).
ALLOWED = {"◀", "▶", "Language / 言語", "Kifu — game-log analytics"}


def _ja() -> dict[str, str]:
    with i18n.po_path("ja").open("rb") as fh:
        return {m.id: m.string for m in read_po(fh) if m.id and not m.fuzzy}


def test_every_message_has_a_japanese_translation() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("messages", REPO / "scripts" / "messages.py")
    messages = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(messages)
    wanted = {m.id for m in messages.template() if m.id}
    ja = _ja()
    untranslated = sorted(m for m in wanted if not ja.get(m))
    assert not untranslated, f"{len(untranslated)} message(s) without a Japanese translation (make messages): {untranslated[:5]}"
    assert len(wanted) > 300


def test_translations_keep_their_placeholders() -> None:
    def fields(s: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(s) if f is not None}

    for msgid, msgstr in _ja().items():
        assert fields(msgid) == fields(msgstr), (msgid, msgstr)


def _literal_text(node: ast.AST) -> str | None:
    """The literal text of a str constant or f-string, None for anything computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def test_no_user_visible_literal_bypasses_the_catalog() -> None:
    """A label written as a plain string (not ``_("…")``) would stay English on the Japanese pages."""
    offenders = []
    for path in sorted((REPO / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SHOWN):
                continue
            args = node.args[:1] + [k.value for k in node.keywords if k.arg in ("label", "text", "title", "help", "placeholder")]
            for arg in args:
                text = _literal_text(arg)
                if text is not None and any(c.isalpha() for c in text) and text not in ALLOWED and not text.startswith(("app_pages/", ":material/")):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {text[:60]!r}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_in_japanese_has_no_missing_translation(app: App, sample_db: Path, page: str) -> None:
    i18n.MISSING.clear()
    at = app(sample_db, page, lang="ja")
    assert not i18n.MISSING, sorted(i18n.MISSING)
    assert at.title[0].value == i18n.translations("ja").gettext(PAGES[page]) != PAGES[page]
    assert all(not any(c.isascii() and c.isalpha() for c in s.label) for s in at.sidebar.selectbox)


def test_language_switch_and_url(app: App, sample_db: Path) -> None:
    at = app(sample_db, "matches")
    assert at.title[0].value == "Matches" and at.query_params["lang"] == "en"
    at.segmented_control(key="lang").set_value("ja").run()
    assert at.title[0].value == "試合" and at.query_params["lang"] == "ja"
    at.switch_page("app_pages/penalties.py").run()
    assert at.title[0].value == "ペナルティ"  # the choice stays for the session


@pytest.mark.parametrize(("header", "lang"), [
    ("ja,en-US;q=0.9,en;q=0.8", "ja"), ("en-US,en;q=0.9,ja;q=0.8", "en"), ("ja-JP", "ja"), ("fr-FR,de;q=0.5", None),
    ("en;q=0.5,ja;q=0.9", "ja"), ("", None), (None, None), ("ja;q=0", None), ("ja;q=abc,en", "en"),
])  # fmt: skip
def test_browser_language(header: str | None, lang: str | None) -> None:
    assert i18n.from_accept_language(header) == lang
