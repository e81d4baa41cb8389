"""AppTest of the matches overview (headless Streamlit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO, SAMPLE, ingest

ENTRY = str(REPO / "app" / "streamlit_app.py")


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("app") / "kifu.duckdb"
    ingest(db, SAMPLE)
    return db


def test_overview_lists_the_sample_match(sample_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIFU_DB", str(sample_db))
    at = AppTest.from_file(ENTRY).run(timeout=60)
    assert not at.exception
    assert at.title[0].value == "Kifu — matches"
    matches = at.dataframe[0].value
    assert list(matches["dealer_name"]) == ["misbehave-bind2-40"]
    assert list(matches["winner_name"]) == ["Alternative 4"]
    players = at.dataframe[1].value
    assert set(players["player_name"]) == {"Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"}
    assert int(players.set_index("player_name").loc["Misbehaver", "penalties"]) == 118


def test_empty_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIFU_DB", str(tmp_path / "nothing.duckdb"))
    at = AppTest.from_file(ENTRY).run(timeout=60)
    assert not at.exception
    assert "No data yet" in at.info[0].value
