"""AppTest fixtures: a database of the bundled sample, one with a hostile bot name, an empty one."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO, SAMPLE, built_once, ingest

ENTRY = str(REPO / "app" / "streamlit_app.py")
HOSTILE = "<img src=x onerror=alert(1)>"
HOSTILE_TITLE = "<script>alert('t')</script>"
HOSTILE_DEALER = 'hostile <b>dealer</b> "1"'



@pytest.fixture(autouse=True)
def _clear_caches() -> Iterator[None]:
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def hostile_log(path: Path) -> Path:
    """The sample with the misbehaving bot renamed to an HTML payload and a script as a title."""
    text = gzip.open(SAMPLE, "rt").read()
    text = text.replace('"player_name":"Misbehaver"', '"player_name":' + json.dumps(HOSTILE))
    text = text.replace('"title":"BadMove"', '"title":' + json.dumps(HOSTILE_TITLE))
    text = text.replace('"dealer":"misbehave-bind2-40"', '"dealer":' + json.dumps(HOSTILE_DEALER))
    path.write_text(text)
    return path


@pytest.fixture(scope="session")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with hostile names (:func:`hostile_log`) in a database, built once per run (read-only)."""
    return built_once(tmp_path_factory, "hostile",
                      lambda d: ingest(d / "kifu.duckdb", hostile_log(d / "hostile.jsonl"))) / "kifu.duckdb"  # fmt: skip


def make_app(monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """``make(db, page, **query)`` → an AppTest on that page, already run (no exception)."""

    def make(db: Path, page: str | None = None, **query: str) -> AppTest:
        monkeypatch.setenv("KIFU_DB", str(db))
        at = AppTest.from_file(ENTRY, default_timeout=60)
        for k, v in query.items():
            at.query_params[k] = v
        at.run()
        if page:
            at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """``app(db, page, **query)`` → an AppTest on that page, already run."""
    return make_app(monkeypatch)
