"""Every page and its main interactions, headless (Streamlit AppTest), on the bundled sample."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import HOSTILE, HOSTILE_TITLE

PAGES = {
    "matches": "Matches", "round_browser": "Round browser", "penalties": "Penalties", "challenges": "Challenges",
    "special_logic": "Special logic", "violations": "Violations", "players": "Players", "standings": "Standings",
    "upload": "Upload a log",
}  # fmt: skip
App = Callable[..., AppTest]


def values(arr: Any) -> list[Any]:
    """A Plotly array from a figure spec (plain list, or typed {dtype, bdata})."""
    if isinstance(arr, dict) and "bdata" in arr:
        import base64

        import numpy as np

        return list(np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"])))
    return list(arr)


def table(at: AppTest, *columns: str) -> Any:
    """The first dataframe on the page that has all these columns (AppTest has no dataframe keys)."""
    for df in at.dataframe:
        if set(columns) <= set(df.value.columns):
            return df.value
    raise LookupError(f"no table with columns {columns}")


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_renders(app: App, sample_db: Path, page: str) -> None:
    at = app(sample_db, page)
    assert at.title[0].value == PAGES[page]
    assert not at.error


@pytest.mark.parametrize("page", [p for p in PAGES if p != "upload"])
def test_empty_state_on_every_page(app: App, tmp_path: Path, page: str) -> None:
    at = app(tmp_path / "none.duckdb", page)
    assert "No data yet" in at.info[0].value


def test_shared_filters_in_the_sidebar(app: App, sample_db: Path) -> None:
    at = app(sample_db)
    assert [s.label for s in at.sidebar.selectbox] == ["Match", "Player"]
    assert at.sidebar.selectbox(key="filter.player").options[0] == "(all players)"
    assert at.query_params["match"] == at.sidebar.selectbox(key="filter.match").value


def test_matches_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "matches")
    players = table(at, "player_name", "rank")
    assert list(players["player_name"]) == ["Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"]
    assert list(players["rank"]) == [1, 2, 3, 4]
    assert int(players.set_index("player_name").loc["Misbehaver", "penalties"]) == 118
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(spec["data"]) == 4 and len(values(spec["data"][0]["x"])) == 40


def _header(at: AppTest) -> str:
    return at.markdown[0].value


def test_round_browser_steps_through_turns(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser")
    assert _header(at).startswith("**Round 1 ·") and "event 1/" in _header(at)
    assert "`first-player`" in _header(at)
    at.button(key="rb.next").click().run()
    assert "event 2/" in _header(at) and "`next-player`" in _header(at)
    at.button(key="rb.next").click().run()
    at.button(key="rb.prev").click().run()
    assert "event 2/" in _header(at)
    at.slider(key="rb.pos").set_value(10).run()
    assert "event 11/" in _header(at)
    at.number_input(key="rb.turn").set_value(5).run()
    assert re.search(r"turn [5-9]", _header(at))
    at.selectbox(key="rb.round").set_value(2).run()
    assert _header(at).startswith("**Round 2 ·") and "event 1/" in _header(at)


def test_round_browser_filters(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5")
    at.multiselect(key="rb.types").set_value(["penalty"]).run()
    events = table(at, "who", "what")
    assert set(events["event"]) == {"penalty"} and len(events) > 0
    at.multiselect(key="rb.types").set_value(["play-card", "penalty"]).run()
    at.selectbox(key="rb.only").set_value("events with errors").run()
    errors = table(at, "who", "what")
    assert (errors["errors"] > 0).all()
    at.selectbox(key="rb.only").set_value("all events").run()
    at.selectbox(key="rb.who").set_value("P-00000005").run()
    assert set(table(at, "who", "what")["who"]) <= {"JS Demo"}


def test_round_browser_perspective_hides_other_hands(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="3", seq="400")
    board = at.get("html")[0].proto.body
    assert 'class="kc kc-back"' not in board
    seats = at.selectbox(key="rb.view").options[1:]
    at.selectbox(key="rb.view").set_value(seats[0]).run()
    board = at.get("html")[0].proto.body
    assert board.count('class="kc kc-back"') > 0
    assert "pts" in board  # the viewer's own hand keeps its points


def test_round_browser_deep_link_and_raw_json(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5", seq="650")
    assert "seq 650" in _header(at) and "`penalty`" in _header(at)
    assert at.text[0].value == "Penalty for Misbehaver: Card play invalid with card before. (+2 card(s))."
    assert at.query_params["seq"] == "650" and at.query_params["round"] == "5"
    assert table(at, "code", "penalty_seq")["code"].tolist() == ["card-legal-on-top"]
    raw = at.get("json")[0].proto.body
    assert '"penalty"' in raw
    at2 = app(sample_db, "round_browser", round="5", turn="20")
    assert "turn 20" in _header(at2)


def test_penalties_page_links_to_the_board(app: App, sample_db: Path) -> None:
    at = app(sample_db, "penalties")
    assert at.metric[0].value == "118" and at.metric[2].value == "118 / 118"
    rows = table(at, "open", "cause")
    assert len(rows) == 118 and rows["open"].str.startswith("/round_browser?match=").all()
    at.selectbox(key="pen.cause").set_value("timeout").run()
    assert set(table(at, "open", "cause")["cause"]) == {"timeout"}
    assert len(at.get("plotly_chart")) == 2


def test_challenges_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "challenges")
    values = {m.label: m.value for m in at.metric}
    assert values["Challenges made"] == "32" and values["Declined"] == "3" and values["Bluffs caught"] == "11"
    rates = table(at, "success_rate")
    assert rates["challenges"].sum() == 32
    at.radio(key="ch.by").set_value("target").run()
    assert "target_name" in table(at, "success_rate").columns


def test_special_logic_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "special_logic")
    values = {m.label: m.value for m in at.metric}
    assert values["Firings"] == "116" and values["Accepted"] == "97"
    titles = table(at, "title", "outcome", "count")
    assert set(titles["outcome"]) == {"accepted", "Special logic title too long.", "Param title invalid."}


def test_violations_page_filters(app: App, sample_db: Path) -> None:
    at = app(sample_db, "violations")
    at.selectbox(key="vio.family").set_value("dealer-judgement").run()
    assert set(table(at, "open", "family")["family"]) == {"dealer-judgement"}
    at.selectbox(key="vio.family").set_value("player-rule").run()
    at.selectbox(key="vio.severity").set_value("error").run()
    rows = table(at, "open", "family")
    assert len(rows) == 118 and set(rows["severity"]) == {"error"}


def test_player_filter_applies_to_pages(app: App, sample_db: Path) -> None:
    at = app(sample_db, "penalties")
    at.sidebar.selectbox(key="filter.player").set_value("P-00000005").run()
    assert "No penalty" in at.success[0].value


def test_players_page_compares_two_bots(app: App, sample_db: Path) -> None:
    at = app(sample_db, "players")
    stats = table(at, "player_name", "win_rate")
    assert set(stats["player_name"]) == {"Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"}
    at.selectbox(key="pl.a").set_value("JS Demo").run()
    at.selectbox(key="pl.b").set_value("Misbehaver").run()
    side = at.dataframe[-1].value
    assert list(side.columns) == ["JS Demo", "Misbehaver"]


def test_players_page_shows_think_times(app: App, sample_db: Path) -> None:
    at = app(sample_db, "players")
    stats = table(at, "player_name", "think_p50_ms", "think_p95_ms", "think_max_ms", "actions_over_4s").set_index("player_name")
    assert (stats["think_p50_ms"] <= stats["think_p95_ms"]).all() and (stats["think_p95_ms"] <= stats["think_max_ms"]).all()
    assert int(stats.loc["Alternative 3", "think_max_ms"]) == 309  # the sample's slowest action
    assert int(stats["actions_over_4s"].sum()) == 0
    assert "5-second clock" in at.caption[0].value


def test_standings(app: App, sample_db: Path) -> None:
    at = app(sample_db, "standings")
    rows = table(at, "player_name", "rank")
    assert list(rows["player_name"]) == ["Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"]
    assert list(rows["advances"]) == [False, False, True, True]  # demo players never advance
    at.radio(key="st.kind").set_value("final (rank points 5/3/2/1)").run()
    assert list(table(at, "player_name", "rank")["rank_points"]) == [5, 3, 2, 1]


def test_hostile_names_and_titles_render_as_text(app: App, hostile_db: Path) -> None:
    at = app(hostile_db, "round_browser", round="6")
    board = at.get("html")[0].proto.body
    assert HOSTILE not in board and "&lt;img src=x onerror=alert(1)&gt;" in board
    at = app(hostile_db, "special_logic")
    titles = table(at, "title", "outcome", "count")
    assert HOSTILE_TITLE in set(titles["title"])  # shown as a value in a table cell, not as HTML
    for el in at.get("html"):
        assert "<script" not in el.proto.body
    for md in at.markdown:
        assert HOSTILE not in md.value and HOSTILE_TITLE not in md.value


def _odd_log(tmp_path: Path, name_value: str, cut_after_deal: bool) -> Path:
    import gzip as _gzip

    from tests.conftest import SAMPLE

    lines = _gzip.open(SAMPLE, "rt").read().splitlines()
    lines = [ln.replace('"player_name":"Misbehaver"', f'"player_name":{name_value}') for ln in lines]
    if cut_after_deal:  # the log ends right after round 2's first-player
        deals = [i for i, ln in enumerate(lines) if '"event":"first-player"' in ln]
        lines = lines[: deals[1] + 1]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize(("name_value", "cut"), [("null", False), ("123", True), ('{"x":1}', True)],
                         ids=["name-null", "name-number-cut-round", "name-object-cut-round"])
def test_pages_render_odd_names_and_a_match_cut_after_a_deal(
    app: App, tmp_path: Path, page: str, name_value: str, cut: bool
) -> None:
    from tests.conftest import ingest

    db = tmp_path / "odd.duckdb"
    ingest(db, _odd_log(tmp_path, name_value, cut))
    at = app(db, page, round="2") if page == "round_browser" else app(db, page)
    assert at.title[0].value == PAGES[page]
    assert not at.error, [e.value for e in at.error]


def test_upload_page_off_or_behind_a_token(app: App, sample_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIFU_UPLOAD", "off")
    at = app(sample_db, "upload")
    assert "Uploading is off" in at.info[0].value and not at.get("file_uploader")
    monkeypatch.delenv("KIFU_UPLOAD")
    monkeypatch.setenv("KIFU_UPLOAD_TOKEN", "correct-horse")
    at = app(sample_db, "upload")
    assert not at.get("file_uploader")
    at.text_input(key="up.token").set_value("wrong-token").run()
    assert "not this server's upload token" in at.error[0].value and not at.get("file_uploader")
    at.text_input(key="up.token").set_value("correct-horse").run()
    assert at.get("file_uploader")


def test_upload_job_ingests_and_removes_the_file_even_when_it_fails(tmp_path: Path) -> None:
    import shutil

    from loaders.upload_job import run
    from tests.conftest import SAMPLE, query

    db = tmp_path / "k.duckdb"
    good = tmp_path / "up.jsonl.gz"
    shutil.copy(SAMPLE, good)
    status = tmp_path / "s.json"
    assert run(good, db, status) == 0
    result = json.loads(status.read_text())
    assert result["state"] == "done" and result["ingested"] == 5887 and not good.exists()
    assert query(db, "select count(*) from events") == [(5887,)]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("x\n")
    (tmp_path / "notkifu.duckdb").write_bytes(b"not a database at all" * 100)
    assert run(bad, tmp_path / "notkifu.duckdb", status) == 1
    result = json.loads(status.read_text())
    assert result["state"] == "failed" and "not a DuckDB database" in result["error"] and not bad.exists()


def test_upload_budget_refuses_what_does_not_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app import uploads

    monkeypatch.setenv("KIFU_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("KIFU_UPLOAD_BUDGET_MB", "1")
    first = uploads.save("a.jsonl", b"x" * 700_000)
    with pytest.raises(uploads.UploadRefused, match="upload space is full"):
        uploads.save("b.jsonl", b"y" * 700_000)
    first.unlink()
    assert uploads.save("b.jsonl", b"y" * 700_000).exists()


def test_round_browser_caps_a_giant_round(app: App, tmp_path: Path) -> None:
    """A round of thousands of pointed-not-say-uno lines (a bot spamming) is browsable, capped."""
    from queries.dashboard import ROUND_EVENTS_LIMIT
    from tests.conftest import REPO, ingest, read_lines, write_lines

    head = read_lines(REPO / "tests" / "data" / "probe_head.jsonl")
    deal = next(i for i, ln in enumerate(head) if b'"first-player"' in ln)
    doc = json.loads(head[deal + 1])
    spam = {"dealer_code": doc["dealer_code"], "dealer": doc["dealer"], "event": "pointed-not-say-uno",
            "player": "P-00000013", "turn": doc["turn"],
            "contents": {"pointer": "P-00000013", "target": "P-00000002", "have_say_uno": False}}  # fmt: skip
    lines = head[: deal + 2] + [json.dumps({**spam, "dateCreated": 1_795_000_000_000 + i}).encode()
                                for i in range(ROUND_EVENTS_LIMIT + 100)]  # fmt: skip
    db = tmp_path / "giant.duckdb"
    ingest(db, write_lines(tmp_path / "giant.jsonl", lines))
    at = app(db, "round_browser", round=str(doc["turn"]))
    assert any(f"more than {ROUND_EVENTS_LIMIT:,} events" in w.value for w in at.warning)
