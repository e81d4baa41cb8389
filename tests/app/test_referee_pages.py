"""A match Kifu's referee wrote under an ALGORI 2023 profile is browsed like a real dealer's log.

The referee writes the 2023 dealer's log shape (referee/algori.py): every ALGORI page shows its match
unchanged — no exception, no error box, a white wild and a wild draw 4 in the round replayer's
events — in English and Japanese.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from referee.bots import builtin
from referee.algori import AlgoriTable
from referee.match import Seat
from rules.uno.profile import get
from tests.conftest import ingest, query

PAGES = ["matches", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations",
         "players", "standings"]  # fmt: skip


@pytest.fixture(scope="module")
def referee_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("referee-algori")
    seats = [Seat(f"P-{i + 1:08d}", f"{k}-{i + 1}", builtin(k, 40 + i))
             for i, k in enumerate(["stacker", "greedy", "random", "stacker"])]  # fmt: skip
    log = d / "algori.jsonl"
    log.write_bytes(b"\n".join(AlgoriTable(get("algori-2023/skip_bind_2"), seats, seed=4, rounds=12).lines()) + b"\n")
    db = d / "kifu.duckdb"
    ingest(db, log)
    return db


def test_the_referee_match_is_stored_as_an_algori_match(referee_db: Path) -> None:
    assert query(referee_db, "select game, ruleset, white_wild, rounds_played, status from matches") == [
        ("algori-uno", "algori-2023/skip_bind_2", "skip_bind_2", 12, "finished")]
    assert query(referee_db, "select count(*) from violations") == [(0,)]


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("page", PAGES)
def test_every_algori_page_shows_a_referee_match(app: Callable[..., AppTest], referee_db: Path, page: str,
                                                 lang: str) -> None:  # fmt: skip
    at = app(referee_db, page, lang=lang)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
