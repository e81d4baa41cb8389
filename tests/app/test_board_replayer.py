"""The analysis board (UNO replayer, Kakomimasu and CHaser boards): links resolved or refused, scores as they
stand at the event, the playable cards, think time, the round-start line, the graph's and markers' data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from app import frames, i18n
from tests.app.test_pages import replay
from tests.conftest import query


def _frame(data: dict[str, Any], seq: int) -> dict[str, Any]:
    return next(f for f in data["frames"] if f["seq"] == seq)


def _refused(at: Any) -> str:
    """A refused link: one error, and no board, no table, no other message."""
    assert [e.value for e in at.error], "no refusal"
    with pytest.raises(LookupError):
        replay(at)
    assert not at.dataframe and not at.warning and not at.button
    return str(at.error[0].value)


# ---- links: the vocabulary (round, turn, event; seq an alias), and what does not exist refused


def test_links_resolve_round_turn_and_event(app: Any, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5", event="650")
    assert replay(at)["round"] == 5 and replay(at)["jump"]["seq"] == 650
    assert at.query_params["event"] == "650" and "seq" not in at.query_params  # the page writes the new name
    at = app(sample_db, "round_browser", seq="650")  # an old link, and no round: the round that holds the event
    assert replay(at)["round"] == 5 and replay(at)["jump"]["seq"] == 650
    import duckdb

    from queries import dashboard

    con = duckdb.connect(str(sample_db), read_only=True)
    try:
        bot = str(dashboard.bot_matches(con)["bot_id"].iloc[0])  # a bot's identity: "name @ dealer"
    finally:
        con.close()
    at = app(sample_db, "round_browser", round="5", turn="20", bot=bot)
    data = replay(at)
    assert _frame(data, data["jump"]["seq"])["turn"] == 20
    assert at.query_params["bot"] == bot  # the chosen bot stays in the link


@pytest.mark.parametrize(("query", "message"), [
    ({"round": "999"}, "This match has no round 999 (its rounds are 1–40). The link names nothing to show."),
    ({"round": "five"}, "This match has no round five (its rounds are 1–40). The link names nothing to show."),
    ({"round": "5", "turn": "999"}, "Round 5 has no turn 999 (its turns are 1–"),
    ({"round": "5", "seq": "99999999"}, "Round 5 has no event 99999999 (its events are numbered "),
    ({"event": "99999999"}, "This match has no event 99999999 (its events are numbered 5–"),
])  # fmt: skip
def test_links_to_what_does_not_exist_are_refused(app: Any, sample_db: Path, query: dict[str, str], message: str) -> None:
    at = app(sample_db, "round_browser", **query)
    assert _refused(at).startswith(message)
    assert not {"round", "turn", "event", "seq"} & set(at.query_params)  # forgotten: the next run shows the board


def test_refusal_in_japanese_and_the_board_after_it(app: Any, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="999", lang="ja")
    assert _refused(at) == "この試合に第 999 対戦はありません（あるのは第 1–40 対戦）。リンク先に表示できるものはありません。"
    at.run()  # the user does anything: the board again
    assert not at.error and replay(at)["round"] == 1


def test_kakomimasu_and_chaser_links(app: Any, demo_db: Path) -> None:
    km, ch = (query(demo_db, "select match_id from matches where game = ?", [g])[0][0] for g in ("kakomimasu", "chaser"))
    at = app(demo_db, "kakomimasu_board", match=km, turn="3")
    assert replay(at)["jump"]["seq"] == 3 and at.query_params["turn"] == "3"
    at = app(demo_db, "kakomimasu_board", match=km, turn="999")
    assert _refused(at).startswith("This game has no turn 999 (its turns are 0–")
    at = app(demo_db, "chaser_board", match=ch, seq="5")  # old CHaser links
    assert replay(at)["jump"]["seq"] == 5 and at.query_params["event"] == "5" and "seq" not in at.query_params
    data = replay(app(demo_db, "chaser_board", match=ch, turn="3"))
    assert data["jump"]["seq"] == min(f["seq"] for f in data["frames"] if f["turn"] == 3)
    at = app(demo_db, "chaser_board", match=ch, turn="999")
    assert _refused(at).startswith("This game has no turn 999 (its turns are 1–")
    at = app(demo_db, "chaser_board", match=ch, event="x", lang="ja")
    assert _refused(at).startswith("このゲームにアクション x はありません")
    # the same keys and markers: the labels the replayer's help and legend show, translated
    data = replay(app(demo_db, "kakomimasu_board", match=km, lang="ja"))
    assert data["labels"]["mark_finding"] == "指摘" and data["labels"]["keys_title"] == "盤面のキー操作"


# ---- the board's data


def test_scores_stand_as_at_the_event(app: Any, sample_db: Path) -> None:
    last4 = dict(query(sample_db, "select player_code, total_score from round_scores where round_no = 4"))
    end = query(sample_db, "select min(seq) from events where round_no = 5 and event = 'finish-turn'")[0][0]
    final = dict(query(sample_db, "select player_code, total_score from round_scores where round_no = 5"))
    names = dict(query(sample_db, "select player_code, player_name from players"))
    at = app(sample_db, "round_browser", round="5", event="650")  # mid-round: no spoiler
    table = at.dataframe[0].value
    assert table.loc["Round score"].isna().all()
    assert {c: int(v) for c, v in table.loc["Total"].items()} == {names[p]: v for p, v in last4.items()}
    at = app(sample_db, "round_browser", round="5", event=str(end))  # the round's end: its score and the new total
    table = at.dataframe[0].value
    assert table.loc["Round score"].notna().all()
    assert {c: int(v) for c, v in table.loc["Total"].items()} == {names[p]: v for p, v in final.items()}


def _round(db: Path, r: int) -> dict[str, Any]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return frames.round_from(con, "".join(con.execute("select match_id from matches").fetchone()), r, {}, {})
    finally:
        con.close()


def test_round_start_names_the_dealers_first_hand_over(sample_db: Path) -> None:
    # round 1 opens on a red reverse: the first-player line names P-00000004, the dealer hands the turn to P-00000005
    first = _round(sample_db, 1)["frames"][0]
    assert first["event"] == "first-player"
    assert first["sentence"] == "New deal: first card red reverse; P-00000005 goes first."
    with i18n.using("ja"):
        assert "P-00000005" in _round(sample_db, 1)["frames"][0]["sentence"]


def test_playable_cards_think_time_and_hand_points(sample_db: Path) -> None:
    data = _round(sample_db, 1)
    f = _frame(data, 6)  # P-00000005 to act on the red reverse
    hand = f["board"]["hands"]["P-00000005"]
    assert f["board"]["to_act"] == "P-00000005"
    assert sorted(hand[i] for i in f["board"]["playable"]) == ["black-wild_draw_4", "red-6"]
    assert f["board"]["points"]["P-00000005"] == 1 + 8 + 0 + 20 + 6 + 6 + 50
    # every frame's think time is the stored one (ms since the hand-over the actor received)
    think = dict(query(sample_db, "select seq, think_ms from think_times where round_no = 1"))
    assert think and {x["seq"]: x["think_ms"] for x in data["frames"] if x["think_ms"] is not None} == think
    # a pending draw 2 under ALGORI rules: nothing to play, the player draws
    pending = [x for x in data["frames"] if x["board"]["pending"] and x["board"]["playable"] is not None]
    assert all(x["board"]["playable"] == [] for x in pending)


def test_payload_carries_the_board_s_keys_and_markers(app: Any, sample_db: Path) -> None:
    at = app(sample_db, "round_browser", round="5", event="650")
    data = replay(at)
    assert data["cross"] == {"prev": True, "next": True}
    assert {"mark_finding", "mark_penalty", "mark_refused", "keys_title", "key_finding", "think"} <= set(data["labels"])
    kinds = {"penalty": any(f["event"] == "penalty" for f in data["frames"]),
             "refused": any(f["refused"] for f in data["frames"]), "finding": any(f["findings"] for f in data["frames"])}
    assert all(kinds.values()), kinds  # round 5 has every kind of marker
    with i18n.using("ja"):
        labels = frames.labels()
    assert labels["key_penalty"] == "次 / 前のペナルティ"


def test_playable_cards_follow_the_profile() -> None:
    from rules.uno.profile import get

    hand = ["red-draw_2", "blue-5", "black-wild_draw_4", "blue-draw_2"]
    jua, algori = get("jua-2016"), get("algori-2023/skip_bind_2")
    assert frames.playable_cards(jua, hand, "red-draw_2", ["red-draw_2"], 2) == [0, 2, 3]  # a draw stack answered
    assert frames.playable_cards(jua, hand, "green-wild_draw_4", ["black-wild_draw_4"], 4) == [2]  # +4 only on +4
    assert frames.playable_cards(algori, hand, "red-draw_2", ["red-draw_2"], 2) == []  # ALGORI: draw, no stacking
    assert frames.playable_cards(algori, hand, "blue-7", [], 0) == [1, 2, 3]


def test_think_time_from_the_log_where_the_rules_run_no_clock() -> None:
    from queries.boards import think_from_times

    rows = [(1, "first-player", None, "A", 1000), (2, "next-player", None, "B", 1005), (3, "play-card", "B", None, 1420),
            (4, "next-player", None, "A", 1421), (5, "color-change-request", None, "A", 1500),
            (6, "color-of-wild", "A", None, 1730), (7, "draw-card", "C", None, 1800)]  # fmt: skip
    assert think_from_times(rows) == {3: 415, 6: 230}  # C was never handed the turn: no think time


@pytest.fixture(scope="module")
def jua_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import ingest, jua_log

    d = tmp_path_factory.mktemp("board-jua")
    ingest(d / "kifu.duckdb", jua_log(d / "jua.jsonl", "board-jua", 4, 7, "jua-2016"))
    return d / "kifu.duckdb"


def test_jua_rounds_have_playable_answers_think_time_and_points(jua_match: Path) -> None:
    data = _round(jua_match, 1)
    assert data["rules"] == "jua-2016"
    assert sum(f["think_ms"] is not None for f in data["frames"]) > 10  # from the log's timestamps
    stacked = [f for r in (1, 2, 3) for f in _round(jua_match, r)["frames"]
               if f["board"]["stack"] and f["board"]["playable"] is not None and f["board"]["to_act"]]  # fmt: skip
    assert stacked
    for f in stacked:  # facing a draw stack: only the draw cards that answer it
        hand = f["board"]["hands"][f["board"]["to_act"]]
        wd4 = any(c.endswith("wild_draw_4") for c in f["board"]["stack"]["cards"])
        ok = ("wild_draw_4",) if wd4 else ("draw_2", "wild_draw_4")
        assert all(hand[i].endswith(ok) for i in f["board"]["playable"]), (f["seq"], f["board"]["stack"])
