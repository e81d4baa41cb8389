"""Every page and its main interactions, headless (Streamlit AppTest), on the bundled sample."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from app import ui
from tests.app.conftest import HOSTILE, HOSTILE_TITLE
from tests.conftest import SAMPLE, early_timeout_log, ingest

PAGES = {
    "matches": "Matches", "round_browser": "Round replayer", "player_rounds": "Where did my bot go wrong?",
    "penalties": "Penalties", "challenges": "Challenges",
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
    """A database `kifu serve` waits for (not made yet by `kifu watch`/`kifu ingest`) is said to be waited for."""
    at = app(tmp_path / "none.duckdb", page)
    assert at.info[0].value.startswith("`none.duckdb` does not exist yet — the dashboard waits for it")


def test_shared_filters_in_the_sidebar(app: App, sample_db: Path) -> None:
    at = app(sample_db)
    assert [s.label for s in at.sidebar.selectbox] == ["Match", "Player"]
    assert at.sidebar.selectbox(key="filter.player").options[0] == "(all players)"
    assert at.query_params["match"] == at.sidebar.selectbox(key="filter.match").value


def test_matches_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "matches")
    players = table(at, "Player", "Rank")
    assert list(players["Player"]) == ["Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"]
    assert list(players["Rank"]) == [1, 2, 3, 4]
    assert int(players.set_index("Player").loc["Misbehaver", "Penalties"]) == 118
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(spec["data"]) == 4 and len(values(spec["data"][0]["x"])) == 40
    # one fixed colour per player, the same as on the replayer's table
    assert [t["line"]["color"] for t in spec["data"]][:2] == ["#CC79A7", "#000000"]


def replay(at: AppTest) -> dict[str, Any]:
    """The data the replayer component received (its frames, the filter, the jump)."""
    for el in at.get("bidi_component") or [e for e in at.main if getattr(getattr(e, "proto", None), "component_name", "")]:
        if el.proto.component_name == "kifu_replayer":
            return json.loads(el.proto.json)  # type: ignore[no-any-return]
    raise LookupError("no replayer on the page")


def shown(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [data["frames"][i] for i in data["visible"]]


def test_replayer_gets_the_whole_round_once(app: App, sample_db: Path) -> None:
    from tests.conftest import query

    at = app(sample_db, "round_browser")
    data = replay(at)
    n = query(sample_db, "select count(*) from events where round_no = 1")[0][0]
    assert data["round"] == 1 and len(data["frames"]) == n and data["visible"] == list(range(n))
    assert [p["name"] for p in data["players"]] == ["Alternative 3", "Alternative 4", "JS Demo", "Misbehaver"] or \
        {p["name"] for p in data["players"]} == {"Alternative 3", "Alternative 4", "JS Demo", "Misbehaver"}
    first = data["frames"][0]
    assert first["event"] == "first-player" and first["label"] == "Round starts"
    assert sum(len(h) for h in first["board"]["hands"].values()) == 28 and first["board"]["top"]
    assert data["jump"]["seq"] == first["seq"]
    assert at.query_params["round"] == "1" and at.query_params["event"] == str(first["seq"])
    # the round's score rows, like the dealer's page
    scores = at.dataframe[0].value
    assert list(scores.index) == ["Round score", "Total"]


def test_replayer_round_navigation_and_next_flagged_round(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser")
    at.button(key="rb.next_round").click().run()
    assert replay(at)["round"] == 2 and at.query_params["round"] == "2"
    at.button(key="rb.prev_round").click().run()
    assert replay(at)["round"] == 1
    at.sidebar.selectbox(key="filter.player").set_value("P-00000006").run()
    assert at.query_params["player"] == "P-00000006"
    at.button(key="rb.next_flagged").click().run()
    data = replay(at)
    from tests.conftest import query

    first_pen = query(sample_db, "select min(seq) from penalties where player = 'P-00000006' and round_no = ?",
                      [data["round"]])[0][0]  # fmt: skip
    assert data["round"] > 1 and data["jump"]["seq"] <= first_pen
    flagged = [f for f in data["frames"] if f["seq"] == data["jump"]["seq"]][0]
    assert flagged["findings"] or flagged["event"] == "penalty"


def test_replayer_filters_keep_the_place(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5", seq="650")
    assert replay(at)["jump"]["seq"] == 650
    at.selectbox(key="rb.show").set_value("errors").run()
    data = replay(at)
    assert shown(data) and all(any(x["severity"] == "error" for x in f["findings"]) for f in shown(data))
    assert data["jump"]["seq"] == 650  # the component keeps the event, or the nearest one still shown
    at.selectbox(key="rb.show").set_value("refused").run()
    assert all(f["refused"] for f in shown(replay(at)))
    at.selectbox(key="rb.show").set_value("all").run()
    at.sidebar.selectbox(key="filter.player").set_value("P-00000005").run()
    assert {f["actor"] for f in shown(replay(at))} <= {"P-00000005"} | {f["actor"] for f in shown(replay(at))
                                                                        if "P-00000005" in f["gained"]}


def test_replayer_position_survives_leaving_and_returning(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="7", seq="1000")
    at.switch_page("app_pages/penalties.py").run()
    at.switch_page("app_pages/round_browser.py").run()
    assert replay(at)["round"] == 7 and replay(at)["jump"]["seq"] == 1000


def test_replayer_deep_links_by_seq_and_turn(app: App, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5", seq="650")
    data = replay(at)
    f = [x for x in data["frames"] if x["seq"] == 650][0]
    assert f["event"] == "penalty" and f["sentence"] == \
        "Penalty for Misbehaver, +2 card(s): Card does not match the top card (dealer: “Card play invalid with card before.”)"
    assert [x["code"] for x in f["findings"]] == ["card-legal-on-top"]
    assert sorted(f["gained"]["P-00000006"]) and len(f["gained"]["P-00000006"]) == 2  # the two penalty cards
    before = [x for x in data["frames"] if x["seq"] == 649][0]
    assert before["refused"] and before["attempt"] == "blue-5"
    assert before["sentence"].startswith("Misbehaver tries to play blue 5 — refused:")
    blocks = [m.value for m in at.markdown if "Card does not match the top card" in m.value]
    assert blocks and blocks[0].startswith(":red[**Error**]")  # severity and the check in words
    assert [c.value for c in at.caption if c.value == "card\\-legal\\-on\\-top"]  # the code: a small second line
    assert '"penalty"' in at.get("json")[0].proto.body
    at2 = app(sample_db, "round_browser", round="5", turn="20")
    data2 = replay(at2)
    assert [x for x in data2["frames"] if x["seq"] == data2["jump"]["seq"]][0]["turn"] == 20


def test_player_rounds_worst_first(app: App, sample_db: Path) -> None:
    at = app(sample_db, "player_rounds", player="P-00000006")
    rows = table(at, "Round", "Penalties", "Rule breaks")
    assert rows["Penalties"].tolist() == sorted(rows["Penalties"], reverse=True)
    assert set(rows["Player"]) == {"Misbehaver"} and len(rows) > 0
    at.toggle(key="pr.only").set_value(False).run()
    assert len(table(at, "Round", "Penalties")) == 40


def test_penalties_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "penalties")
    assert at.metric[0].value == "118" and at.metric[2].value == "118 / 118"
    rows = table(at, "Cause", "Event no.")
    assert len(rows) == 118
    at.selectbox(key="pen.cause").set_value("timeout").run()
    assert set(table(at, "Cause", "Event no.")["Cause"]) == {"Too slow (5 seconds) (dealer: “timeout”)"}
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    causes = charts[0]
    assert causes["data"][0]["orientation"] == "h"  # causes as horizontal bars with their counts printed
    printed = [t for t in causes["data"] if t.get("mode") == "text"][0]
    assert sorted(int(v) for v in printed["text"]) == sorted(int(v) for v in values(printed["x"]))
    assert sum(int(v) for v in printed["text"]) == 118


def test_challenges_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "challenges")
    values = {m.label: m.value for m in at.metric}
    assert values["Challenges"] == "32" and values["Declined"] == "3" and values["Succeeded (bluff caught)"] == "11"
    assert values["Success rate"] == "34%"
    rates = table(at, "Success rate")
    assert rates["Challenges"].sum() == 32
    at.radio(key="ch.by").set_value("target").run()
    assert "Player" in table(at, "Success rate").columns
    # with a player chosen: their own challenges and the ones against them, apart
    at.sidebar.selectbox(key="filter.player").set_value("P-00000006").run()
    labels = [m.label for m in at.metric]
    assert labels.count("Challenges") == 2
    made = int(at.metric[0].value)
    against = int(at.metric[4].value)
    from tests.conftest import query

    assert made == query(sample_db, "select count(*) from challenges where challenger = 'P-00000006' and is_challenge")[0][0]
    assert against == query(sample_db, "select count(*) from challenges where target = 'P-00000006' and is_challenge")[0][0]


def test_special_logic_page(app: App, sample_db: Path) -> None:
    at = app(sample_db, "special_logic")
    values = {m.label: m.value for m in at.metric}
    assert values["Firings"] == "116" and values["Accepted"] == "97"
    titles = table(at, "Title", "Outcome", "Count")
    assert set(titles["Outcome"]) == {"accepted", "refused: title longer than 32 characters", "refused: no valid title"}
    firings = table(at, "Event before")
    assert not any(" by " in v and "-" in v.split(" by ")[0] for v in firings["Event before"] if isinstance(v, str))


def test_violations_page_filters(app: App, sample_db: Path) -> None:
    at = app(sample_db, "violations")
    at.selectbox(key="vio.family").set_value("dealer-judgement").run()
    from rules.uno.catalog import CHECKS

    codes = set(table(at, "Check code", "What happened")["Check code"])
    assert codes and {CHECKS[c].family for c in codes} == {"dealer-judgement"}
    at.selectbox(key="vio.family").set_value("player-rule").run()
    at.selectbox(key="vio.severity").set_value("error").run()
    rows = table(at, "Check", "What happened")
    assert len(rows) == 118 and set(rows["Severity"]) == {"Error"}


def test_player_filter_applies_to_pages(app: App, sample_db: Path) -> None:
    at = app(sample_db, "penalties")
    at.sidebar.selectbox(key="filter.player").set_value("P-00000005").run()
    assert "No penalty" in at.success[0].value


def test_players_page_compares_two_bots(app: App, sample_db: Path) -> None:
    at = app(sample_db, "players")
    stats = table(at, "Player", "Win rate")
    assert set(stats["Player"]) == {"Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"}
    at.selectbox(key="pl.a").set_value("JS Demo").run()
    at.selectbox(key="pl.b").set_value("Misbehaver").run()
    side = at.dataframe[-1].value
    assert list(side.columns) == ["Statistic", "JS Demo", "Misbehaver"]
    row = side.set_index("Statistic").loc["Penalties per round"]
    assert all(v == "—" or v.count(".") == 0 or len(v.split(".")[1]) == 2 for v in row)  # 3.71, never 3.7083


def test_players_page_shows_think_times(app: App, sample_db: Path) -> None:
    at = app(sample_db, "players")
    p50, p95, top = "Think time median (ms)", "Think time p95 (ms)", "Think time max (ms)"
    stats = table(at, "Player", p50, p95, top, "Actions over 4 s").set_index("Player")
    assert (stats[p50] <= stats[p95]).all() and (stats[p95] <= stats[top]).all()
    assert int(stats.loc["Alternative 3", top]) == 309  # the sample's slowest action
    assert int(stats["Actions over 4 s"].sum()) == 0
    assert any("5-second clock" in c.value for c in at.caption)


def test_standings(app: App, sample_db: Path) -> None:
    at = app(sample_db, "standings")
    rows = table(at, "Player", "Rank")
    assert list(rows["Player"]) == ["Alternative 4", "Alternative 3", "JS Demo", "Misbehaver"]
    assert list(rows["Advances"]) == [False, False, True, True]  # demo players never advance
    at.radio(key="st.kind").set_value("final").run()
    assert list(table(at, "Player", "Rank")["Rank points"]) == [5, 3, 2, 1]


def test_hostile_names_and_titles_render_as_text(app: App, hostile_db: Path) -> None:
    at = app(hostile_db, "round_browser", round="6")
    data = replay(at)  # names reach the component as data; it writes them with textContent (browser test)
    assert HOSTILE in {p["name"] for p in data["players"]}
    assert [el.proto.body for el in at.get("html")] == [ui.PHONE_STYLE]  # Kifu's own style only, no log text
    at = app(hostile_db, "special_logic")
    titles = table(at, "Title", "Outcome", "Count")
    assert HOSTILE_TITLE in set(titles["Title"])  # shown as a value in a table cell, not as HTML
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

    from loaders.live.upload_job import run
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


@pytest.mark.parametrize("query", [
    {"round": "abc", "seq": "-1"}, {"round": "9999", "seq": "5"}, {"round": "5", "seq": "99999999"},
    {"round": "5", "turn": "x"}, {"player": "<b>nobody</b>", "lang": "xx"}, {"match": "no-such-match", "round": "3"},
])  # fmt: skip
def test_replayer_survives_malformed_urls(app: App, sample_db: Path, query: dict[str, str]) -> None:
    """A typed or mangled URL never breaks the page: a round, turn or event the match does not have is refused
    (said so, nothing else shown); unknown players and languages fall back to the defaults."""
    at = app(sample_db, "round_browser", **query)
    assert at.query_params["lang"] == "en" and "player" not in at.query_params
    if {"round", "turn", "seq"} & set(query) and "match" not in query:
        assert at.error and "The link names nothing to show." in at.error[0].value
        return
    data = replay(at)
    assert data["frames"] and data["round"] in range(1, 41)


def test_penalties_page_names_the_dealer_for_a_penalty_the_log_contradicts(app: App, tmp_path: Path) -> None:
    """A timeout written 300 ms after the hand-over: no rule break of the bot, the dealer's fault is shown."""
    log, seq = early_timeout_log(SAMPLE, tmp_path / "early-timeout.jsonl")
    db = tmp_path / "kifu.duckdb"
    ingest(db, log)
    at = app(db, "penalties")
    assert at.metric[2].value == "117 / 118"
    assert any("the dealer's fault, not the bot's): 1" in w.value for w in at.warning)
    rows = table(at, "Event no.", "Explained by check")
    (shown,) = rows[rows["Event no."] == seq]["Explained by check"].tolist()
    assert shown.startswith("Not the bot's fault: ") and "penalty-unjustified" not in shown  # the title, in words
