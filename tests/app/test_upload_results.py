"""What the Upload page says after an upload (the status written by the real upload job), every game named on
it, and the dashboard's warning for a KIFU_MEMORY_LIMIT it cannot use."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from app import ui
from tests.conftest import REPO, SAMPLE, query

App = Callable[..., AppTest]
BASE = REPO / "tests" / "data" / "probe_head.jsonl"
MP = pytest.MonkeyPatch
UNCHANGED = "The database is unchanged."


def _warning(value: str) -> str:
    return (f"KIFU_MEMORY_LIMIT is `{value}`, which the dashboard cannot use: it uses 512MB instead. "
            "Give a number and a unit, e.g. 256MB, 1.5GB or 2GiB, and restart it.")


def _upload(tmp_path: Path, db: Path, data: bytes, name: str = "up.jsonl") -> dict[str, Any]:
    """The status the upload job writes for a file holding ``data``, ingested into ``db``."""
    from loaders.live.upload_job import run

    path = tmp_path / name
    path.write_bytes(data)
    status = tmp_path / f"{name}.status.json"
    run(path, db, status)
    return json.loads(status.read_text())  # type: ignore[no-any-return]


def _page(app: App, db: Path, status: dict[str, Any], lang: str = "en", **state: Any) -> AppTest:
    at = app(db, lang=lang)
    at.session_state["up.report"] = status
    for k, v in state.items():
        at.session_state[k] = v
    at.switch_page("app_pages/upload.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def db(sample_db: Path, tmp_path: Path) -> Path:
    """A copy of the sample's database (uploads write into it)."""
    path = tmp_path / "kifu.duckdb"
    shutil.copy(sample_db, path)
    return path


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_an_upload_that_read_nothing_says_why(app: App, db: Path, tmp_path: Path) -> None:
    status = _upload(tmp_path, db, b"", "empty.json")
    assert status["accepted"] == 0 and status["problem"] == "the file is empty"
    # a stale list of matches from an earlier upload in the session: not named as added by this one
    earlier = [m for (m,) in query(db, "select match_id from matches")]
    at = _page(app, db, status, **{"up.added": earlier})
    assert [e.value for e in at.error] == [f"Nothing could be read: the file is empty. {UNCHANGED}"]
    assert not at.success and not at.info
    assert not any("Added or updated" in t or "Already in the database" in t for t in _texts(at))


def test_an_upload_refused_record_by_record_gives_the_reason(app: App, db: Path, tmp_path: Path) -> None:
    status = _upload(tmp_path, db, b"<html>not a log</html>\n", "page.log")
    reason = status["problem"]
    assert reason.startswith("invalid JSON: ")
    assert reason.endswith("unknown game format? (Kifu reads logs of ALGORI UNO, Kakomimasu and CHaser)")
    at = _page(app, db, status)
    assert [e.value for e in at.error] == [f"Nothing could be read: {ui.md(reason)}. {UNCHANGED}"]
    assert [t.value for t in at.text] == [f"line 1: {status['issues'][0][1]}"]


def test_an_upload_of_what_is_already_there_says_nothing_new(app: App, db: Path, tmp_path: Path) -> None:
    status = _upload(tmp_path, db, SAMPLE.read_bytes(), "again.jsonl.gz")
    assert (status["accepted"], status["ingested"], status["duplicates"]) == (5887, 0, 5887)
    at = _page(app, db, status, **{"up.added": status["match_ids"]})
    assert [i.value for i in at.info] == [
        "Nothing new: every record of this file was already in the database (5,887 already present · 0 "
        "quarantined)."]  # fmt: skip
    assert not at.success and not at.error
    texts = _texts(at)
    assert any(t.startswith("Already in the database: **ALGORI UNO · misbehave") for t in texts), texts
    assert not any("Added or updated" in t for t in texts)


def test_an_upload_that_added_says_so(app: App, db: Path, tmp_path: Path) -> None:
    status = _upload(tmp_path, db, BASE.read_bytes())
    assert status["ingested"] == 24
    at = _page(app, db, status, **{"up.added": status["match_ids"]})
    assert [s.value for s in at.success] == [
        "24 records · 24 new events · 0 already present · 0 quarantined · 1 match."]
    assert sum("Added or updated: **ALGORI UNO" in t for t in _texts(at)) == 1


def test_the_results_in_japanese(app: App, db: Path, tmp_path: Path) -> None:
    status = _upload(tmp_path, db, b"", "empty.json")
    at = _page(app, db, status, lang="ja")
    assert [e.value for e in at.error] == ["何も読み取れませんでした: the file is empty。データベースは変わっていません。"]


def test_the_upload_page_names_every_game(app: App, db: Path) -> None:
    for lang, names in (("en", ("ALGORI UNO", "Kakomimasu", "CHaser")),
                        ("ja", ("ALGORI UNO", "囲みマス", "CHaser"))):  # fmt: skip
        at = app(db, lang=lang)
        at.switch_page("app_pages/upload.py").run()
        intro = next(t for t in _texts(at) if "gzip" in t)
        assert all(f"**{n}**" in intro for n in names), intro


def test_a_memory_limit_the_dashboard_cannot_use_is_a_warning(app: App, db: Path, monkeypatch: MP) -> None:
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "banana")
    at = app(db)
    assert [w.value for w in at.warning] == [_warning("banana")]
    assert at.title[0].value == "Matches" and not at.error
    at = app(db, lang="ja")
    assert at.warning[0].value.startswith("KIFU_MEMORY_LIMIT が `banana` になっていて、ダッシュボードでは使えません。")


def test_a_memory_limit_duckdb_refuses_is_a_warning(app: App, db: Path, monkeypatch: MP) -> None:
    ui.close_all()  # a new hub, made with this limit
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "10KB")
    try:
        at = app(db)
        assert [w.value for w in at.warning] == [_warning("10KB")]
        assert at.title[0].value == "Matches" and not at.error
        assert ui._hub().execute("select current_setting('memory_limit')").fetchall() == [("488.2 MiB",)]
    finally:
        ui.close_all()


def test_a_good_memory_limit_reaches_the_dashboards_duckdb(app: App, db: Path, monkeypatch: MP) -> None:
    ui.close_all()
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "1 gib")
    try:
        at = app(db)
        assert not at.warning and at.title[0].value == "Matches"
        assert ui._hub().execute("select current_setting('memory_limit')").fetchall() == [("1.0 GiB",)]
    finally:
        ui.close_all()


def test_an_empty_duckdb_file_is_no_data_yet(app: App, tmp_path: Path) -> None:
    db = tmp_path / "kifu.duckdb"
    duckdb.connect(str(db)).close()
    at = app(db)
    assert [i.value for i in at.info][0].startswith("No data yet in `kifu.duckdb`")
    assert not at.warning and not at.error
    at.switch_page("app_pages/upload.py").run()
    assert not at.exception and at.get("file_uploader")
