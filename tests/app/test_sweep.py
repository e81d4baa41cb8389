"""Every page headless (AppTest) in English and Japanese on three databases: the `make demo` one (a
sample of every game), one of every game with many matches and JUA matches of 2, 4 and 10 players (the pages
open on a real log's match; tests/app/test_jua_pages.py sweeps the UNO pages on each JUA match), an empty one.

No exception and no error box anywhere; on Japanese pages no message looked up without a
translation, and nothing a viewer reads — titles, captions, labels, options, metrics, table headers
and table cells of Kifu's own vocabulary — left in English.  The browser sweep
(``tests/e2e/test_sweep.py``) adds what only a browser sees: layout, charts, console, network.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app import i18n
from kifu.cli import SAMPLES
from queries import apply_schema, connect
from tests.conftest import ingest
from tests.untranslated import left_in_english

App = Callable[..., AppTest]
ALGORI = ["matches", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations",
          "players", "standings"]  # fmt: skip
EVERY = [*ALGORI, "kakomimasu_board", "kakomimasu_analysis", "chaser_board", "chaser_games", "upload"]
#: Pages only a database with JUA matches has (JUA UNO's own page).
JUA_ONLY = ["jua_rules"]
PAGES_OF = {"demo": EVERY, "mixed": [*EVERY, *JUA_ONLY], "empty": [*ALGORI, "upload"]}
#: The session fixture of each database ("mixed": every real log and the JUA matches, tests/conftest.py).
FIXTURE = {"demo": "demo_db", "mixed": "jua_db", "empty": "empty_db"}


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What `make demo` ingests: one sample log of every game."""
    db = tmp_path_factory.mktemp("demo") / "kifu.duckdb"
    ingest(db, *SAMPLES)
    return db


@pytest.fixture(scope="session")
def empty_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Kifu database with its tables and no match."""
    db = tmp_path_factory.mktemp("empty") / "kifu.duckdb"
    con = connect(db)
    apply_schema(con)
    con.close()
    return db


def shown_texts(at: AppTest) -> list[str]:
    """Everything a viewer reads on the page, as AppTest sees it (one text per element, option, header, cell)."""
    texts: list[str] = []
    for kind in ("title", "header", "subheader", "caption", "markdown", "info", "success", "warning", "error", "toast"):
        texts += [str(e.value) for e in at.get(kind)]
    for kind in ("button", "toggle", "checkbox", "text_input", "number_input", "slider", "expander"):
        texts += [str(getattr(e, "label", "") or "") for e in at.get(kind)]
    for kind in ("selectbox", "multiselect", "radio", "segmented_control"):
        for e in at.get(kind):
            if getattr(e, "key", None) == "lang":
                continue
            texts.append(str(e.label))
            texts += [str(o) for o in getattr(e, "options", [])]
    for m in at.get("metric"):
        texts += [str(m.label), str(m.value)]
    for df in at.dataframe:
        value = df.value
        texts += [str(c) for c in value.columns] + [str(i) for i in value.index if isinstance(i, str)]
        for col in value.columns:
            if value[col].dtype == object or pd.api.types.is_string_dtype(value[col]):
                texts += [v for v in value[col].drop_duplicates().head(200) if isinstance(v, str)]
    return texts


def _run(app: App, db: Path, page: str, lang: str) -> AppTest:
    i18n.MISSING.clear()
    return app(db, None if page == "matches" else page, lang=lang)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("db", "page"), [(db, p) for db, pages in PAGES_OF.items() for p in pages])
def test_every_page_in_both_languages_on_every_database(app: App, request: pytest.FixtureRequest, db: str, page: str,
                                                       lang: str) -> None:  # fmt: skip
    at = _run(app, request.getfixturevalue(FIXTURE[db]), page, lang)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.title, "the page shows no title"
    if lang == "ja":
        assert not i18n.MISSING, sorted(i18n.MISSING)
        left = left_in_english(shown_texts(at))
        assert not left, "\n".join(left)


def test_the_sweep_sees_english_when_it_is_there(app: App, demo_db: Path) -> None:
    """The check itself: the English page, read as if it were the Japanese one, is full of English."""
    at = _run(app, demo_db, "matches", "en")
    assert len(left_in_english(shown_texts(at))) >= 3
    assert left_in_english(["Where did my bot go wrong?", "round 7 of 40", "View more"]) and \
        not left_in_english(["試合", "“Can not play card.”", "Misbehaver"])  # fmt: skip


def _tables(at: AppTest) -> list[Any]:
    return [df.value for df in at.dataframe]


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("page", EVERY)
def test_no_table_has_two_columns_of_one_name(app: App, request: pytest.FixtureRequest, page: str, lang: str) -> None:
    """Two messages translated alike ("Game" and "Match" are both 試合) must never head one table."""
    at = _run(app, request.getfixturevalue(FIXTURE["mixed"]), page, lang)
    for value in _tables(at):
        cols = [str(c) for c in value.columns]
        assert len(cols) == len(set(cols)), cols
