"""The contestant's path (AppTest): a bot chosen once (``?bot=``) and kept across pages, every page opening on
something worth seeing and saying so, the match named on top, empty states that point to the faults, bots told
apart by identity, JUA's own page, and ``kifu play --name``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import ui
from tests.app.test_pages import table
from tests.conftest import query

MISBEHAVER = "Misbehaver @ misbehave-skipbind2-80"


def match_of(db: Path, dealer: str) -> str:
    return str(query(db, "select match_id from matches where dealer_name = ?", [dealer])[0][0])


def captions(at: object) -> str:
    return "\n".join(str(c.value) for c in at.caption)  # type: ignore[attr-defined]


def links(at: object) -> list[tuple[str, str, dict[str, str]]]:
    """(label, page, query) of every page link."""
    from urllib.parse import parse_qsl

    return [(el.proto.label, el.proto.page, dict(parse_qsl(el.proto.query_string)))
            for el in at.get("page_link")]  # type: ignore[attr-defined]  # fmt: skip


def test_a_bot_in_the_url_opens_its_worst_match_and_stays_chosen_across_pages(app, jua_db: Path) -> None:
    worst = match_of(jua_db, "misbehave-skipbind2-80")
    at = app(jua_db, None, bot=MISBEHAVER)
    assert at.query_params["match"] == worst and at.query_params["bot"] == MISBEHAVER
    assert at.selectbox(key="path.bot").value == MISBEHAVER
    assert "your bot's worst match" in captions(at)
    code = str(query(jua_db, "select player_code from players where match_id = ? and player_name = 'Misbehaver'", [worst])[0][0])
    assert at.sidebar.selectbox(key="filter.player").value == code  # the bot's own rows
    # the first fault, one click away, in the link vocabulary (match, round, event, bot)
    first_seq, first_round = query(jua_db, """
        select min(seq), arg_min(round_no, seq) from (
            select seq, round_no from penalties where match_id = $1 and player = $2
            union all select seq, round_no from violations
            where match_id = $1 and player = $2 and severity in ('error', 'warning'))""", [worst, code])[0]
    fault = [q for label, page, q in links(at) if page.endswith("round_browser") and "first fault" in label]
    assert fault and fault[0]["match"] == worst and fault[0]["event"] == str(first_seq)
    assert fault[0]["round"] == str(first_round) and fault[0]["bot"] == MISBEHAVER
    for page in ("penalties", "player_rounds", "challenges"):  # a page switch keeps the bot and its match
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception
        assert at.query_params["bot"] == MISBEHAVER and at.query_params["match"] == worst
        assert at.selectbox(key="path.bot").value == MISBEHAVER
    assert len(table(at, "Challenger")) >= 0  # the page rendered its table with the bot's match


def test_no_bot_opens_on_the_match_with_the_most_faults_and_says_so(app, jua_db: Path) -> None:
    at = app(jua_db, "penalties")
    faults = {str(m): int(n) for m, n in query(jua_db, """
        select m.match_id, coalesce(p.n, 0) + coalesce(v.n, 0) from matches m
        left join (select match_id, count(*) n from penalties group by 1) p using (match_id)
        left join (select match_id, count(*) n from violations where severity in ('error', 'warning')
                   and player is not null group by 1) v using (match_id)
        where m.game = 'algori-uno'""")}  # fmt: skip
    shown = at.query_params["match"]
    assert faults[shown] == max(faults.values())
    assert f"most faults: {faults[shown]}" in captions(at)
    assert at.selectbox(key="path.bot").value == ui.NO_BOT
    # the match is named on top of the main area, with a control to change it
    assert "ALGORI UNO" in at.markdown[0].value and "misbehave" in at.markdown[0].value
    other = match_of(jua_db, "demo4-bind2-60")
    at.selectbox(key="path.match").set_value(other).run()
    assert at.query_params["match"] == other and at.sidebar.selectbox(key="filter.match").value == other


def test_an_empty_state_points_to_where_the_penalties_are(app, jua_db: Path) -> None:
    clean = match_of(jua_db, "demo4-bind2-60")
    assert query(jua_db, "select count(*) from penalties where match_id = ?", [clean])[0][0] == 0
    at = app(jua_db, "penalties", match=clean)
    assert any("No penalty in this selection" in i.value for i in at.info)
    total = query(jua_db, "select count(*) from penalties p join matches m using (match_id) where m.game = 'algori-uno'")[0][0]
    assert any(f"{total} in these matches" in i.value for i in at.info)
    targets = [q["match"] for label, page, q in links(at) if page.endswith("penalties") and "match" in q]
    worst = query(jua_db, "select match_id from penalties group by 1 order by count(*) desc limit 1")[0][0]
    assert targets and targets[0] == worst and clean not in targets


def test_an_unknown_bot_says_so(app, jua_db: Path) -> None:
    at = app(jua_db, None, bot="Nobody @ nowhere")
    assert any("Nobody" in w.value and "nowhere" in w.value and "no bot" in w.value for w in at.warning)
    assert at.selectbox(key="path.bot").value == ui.NO_BOT


def test_players_tells_bots_of_one_name_apart_and_a_click_makes_one_my_bot(app, jua_db: Path) -> None:
    at = app(jua_db, "players")
    rows = table(at, "Player", "Dealer")
    dealers = set(query(jua_db, """select m.dealer_name from players p join matches m using (match_id)
                                   where p.player_name = 'Alternative 4'"""))  # fmt: skip
    alt4 = [p for p in rows["Player"] if str(p).startswith("Alternative 4")]
    assert len(dealers) >= 2 and len(alt4) == len(dealers)  # one row per identity, not one per name
    assert all(" · " in p for p in alt4)
    pick = list(rows["Player"]).index("Alternative 4 · demo4-bind2-60")
    at.session_state["pl.table.algori-uno"] = {"selection": {"rows": [pick], "columns": [], "cells": []}}
    at.run()
    assert at.title[0].value == "Where did my bot go wrong?"
    assert at.query_params["bot"] == "Alternative 4 @ demo4-bind2-60"
    assert at.query_params["match"] == match_of(jua_db, "demo4-bind2-60")


def test_jua_has_its_own_page_counting_its_rules_per_bot(app, jua_db: Path) -> None:
    match = match_of(jua_db, "jua-10p")
    at = app(jua_db, "jua_rules", match=match)
    assert not at.exception and at.title[0].value == "JUA rules in play"
    assert at.markdown[0].value.startswith("**JUA UNO**")
    counts = table(at, "Player", "Pair plays", "Challenges by colour")
    pairs = query(jua_db, """select count(*) from events e where e.match_id = ? and e.event = 'play-card'
                             and e.contents->>'card_play_pair' is not null""", [match])[0][0]  # fmt: skip
    challenges = query(jua_db, "select count(*) from challenges where match_id = ? and is_challenge", [match])[0][0]
    assert counts["Pair plays"].sum() <= pairs and counts["Challenges"].sum() == challenges > 0
    assert len(counts) == 10
    listed = table(at, "Challenger", "Colour in question", "Outcome")
    assert len(listed) == challenges and set(listed["Colour in question"]) <= {"red", "yellow", "green", "blue", "unknown"}
    stacks = table(at, "Stack length (cards played)", "Who paid")
    assert stacks["Stack length (cards played)"].max() >= 3  # the 10-player match holds a stack of 3
    at.session_state["jua.challenges"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert at.title[0].value == "Round replayer"
    assert at.query_params["event"] == str(query(jua_db, """select min(seq) from challenges where match_id = ?
                                                            and is_challenge""", [match])[0][0])  # fmt: skip


def test_kifu_play_names_the_match(tmp_path: Path) -> None:
    from kifu.cli import main

    def dealer(*args: str) -> str:
        out = tmp_path / "m.jsonl"
        assert main(["play", "--out", str(out), "--rounds", "1", "--no-progress", *args]) == 0
        return str(json.loads(out.read_text().splitlines()[0])["dealer"])

    assert dealer("--name", "Friday league") == "Friday league"
    assert dealer("--players", "6") == "random-1, greedy-2, stacker-3, random-4 +2 · seed 1"


@pytest.mark.parametrize(("page", "key", "dealer"), [
    ("penalties", "pen.mine", "misbehave-skipbind2-80"), ("player_rounds", "pr.mine", "misbehave-skipbind2-80"),
    ("standings", "st.mine", "misbehave-skipbind2-80"), ("players", "pl.mine.algori-uno", None),
    ("jua_rules", "jua.mine", "jua-10p"),
])  # fmt: skip
def test_this_is_my_bot_under_every_table_that_names_bots(app, jua_db: Path, page: str, key: str,
                                                          dealer: str | None) -> None:  # fmt: skip
    at = app(jua_db, page, **({"match": match_of(jua_db, dealer)} if dealer else {}))
    mine = at.selectbox(key=key)
    assert mine.label == "This is my bot" and mine.value is None  # no bot chosen yet
    known = {f"{n} · {d}": f"{n} @ {d}" for n, d in query(jua_db, """select distinct
        coalesce(p.player_name, p.player_code), coalesce(m.dealer_name, m.dealer_code, m.match_id)
        from players p join matches m using (match_id)""")}  # fmt: skip
    assert mine.options and set(mine.options) <= set(known)  # the table's bots, by identity (name · dealer)
    bot = known[mine.options[-1]]
    mine.set_value(bot).run()
    assert not at.exception
    assert at.query_params["bot"] == bot and at.selectbox(key="path.bot").value == bot
    plays = {str(m) for (m,) in query(jua_db, """select p.match_id from players p join matches m using (match_id)
        where coalesce(p.player_name, p.player_code) || ' @ '
              || coalesce(m.dealer_name, m.dealer_code, m.match_id) = ?""",
        [bot])}  # fmt: skip
    assert at.query_params["match"] in plays  # the page moved to one of its matches, as My bot does
    at.switch_page("app_pages/challenges.py").run()  # kept across pages
    assert at.query_params["bot"] == bot and at.selectbox(key="path.bot").value == bot
