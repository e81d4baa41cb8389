"""JUA matches (Kifu's referee, 2–10 players) browse like ALGORI ones (AppTest): the card table seats every
player, shows a pair play, the running draw stack and who must answer it, a challenge's outcome and the hand
shown to the challenger only; the matches and standings pages show the scoreboard; pages about what only the
ALGORI rules have say so for a JUA match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app import frames, i18n, ui
from tests.app.test_pages import replay, table
from tests.app.test_sweep import shown_texts
from tests.conftest import JUA_MATCHES, jua_log, query
from tests.untranslated import left_in_english

UNO_PAGES = ["matches", "round_browser", "player_rounds", "penalties", "challenges", "special_logic", "violations",
             "players", "standings"]  # fmt: skip


def match_of(db: Path, dealer: str) -> str:
    return str(query(db, "select match_id from matches where dealer_name = ?", [dealer])[0][0])


def rounds_of(db: Path, match: str) -> list[int]:
    return [int(r) for (r,) in query(db, "select round_no from rounds where match_id = ? order by round_no", [match])]


def every_frame(at_of: Any, db: Path, match: str) -> list[tuple[int, dict[str, Any]]]:
    """(round, frame) of every round of ``match``, as the replayer receives them."""
    out = []
    for r in rounds_of(db, match):
        data = replay(at_of(round=str(r)))
        out += [(r, f) for f in data["frames"]]
    return out


@pytest.fixture(scope="module")
def ten(app: Any, jua_db: Path) -> dict[str, Any]:
    """The 10-player match: its id, its payload per round and every frame (round, frame)."""
    match = match_of(jua_db, "jua-10p")
    data = {r: replay(app(jua_db, "round_browser", match=match, round=str(r))) for r in rounds_of(jua_db, match)}
    return {"match": match, "rounds": data, "frames": [(r, f) for r, d in data.items() for f in d["frames"]]}


@pytest.fixture(scope="module")
def app(monkeypatch_module: pytest.MonkeyPatch) -> Any:  # the module-scoped twin of tests/app/conftest.py's `app`
    from tests.app.conftest import make_app

    return make_app(monkeypatch_module)


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


# ----------------------------------------------------------------------------- the card table


def test_the_ten_player_match_holds_what_the_tests_need(ten: dict[str, Any]) -> None:
    """The referee's 10-player match (tests/conftest.py JUA_MATCHES) has every JUA moment the table shows: a
    change to the referee or its bots that loses one makes this fail, not the tests below pass on nothing."""
    events = [f for _r, f in ten["frames"]]
    assert any(f["played"].get("pair") for f in events), "no pair play"
    assert any(f["board"]["stack"] and len(f["board"]["stack"]["cards"]) >= 3 for f in events), "no stack of 3"
    assert any(f["challenge"] and f["challenge"]["success"] for f in events), "no successful challenge"
    assert any(f["challenge"] and f["challenge"]["made"] and not f["challenge"]["success"] for f in events)


def test_ten_seats_in_play_order_each_with_its_own_colour(ten: dict[str, Any], jua_db: Path) -> None:
    data = ten["rounds"][1]
    order = query(jua_db, "select play_order::varchar from rounds where match_id = ? and round_no = 1", [ten["match"]])[0][0]
    assert len(data["seats"]) == 10 and data["seats"] == __import__("json").loads(order)
    assert len(data["players"]) == 10 and len({p["color"] for p in data["players"]}) == 10
    assert data["rules"] == "jua-2016" and data["stacking"] is True
    first = data["frames"][0]
    assert first["event"] == "first-player" and len(first["board"]["hands"]) == 10
    assert all(len(h) == 7 for h in first["board"]["hands"].values())


def test_a_pair_play_shows_both_cards(ten: dict[str, Any]) -> None:
    pairs = [f for _r, f in ten["frames"] if f["event"] == "play-card" and f["played"].get("pair")]
    assert pairs
    for f in pairs:
        assert f["played"]["pair"] == f["board"]["top"]  # two identical number cards: the second is on top
        assert f["sentence"].startswith(f["who"] + " plays a pair: ")
    with i18n.using("ja"):
        assert "2枚出し" in i18n._("{actor} plays a pair: {card} and {second}")


def test_a_draw_stack_is_added_up_and_names_who_must_answer(ten: dict[str, Any]) -> None:
    seen = 0
    for _r, f in ten["frames"]:
        stack = f["board"]["stack"]
        if not stack:
            assert f["board"]["pending"] == 0
            continue
        assert stack["total"] == f["board"]["pending"] > 0
        if stack["cards"]:  # known card by card: they add up to the total
            assert sum(frames.stack_value(c) for c in stack["cards"]) == stack["total"]
        if f["event"] == "next-player":  # the player handed the turn is the one to answer
            assert stack["answer"] == f["actor"]
            assert "faces the draw stack " in f["sentence"]
        if len(stack["cards"]) >= 3:
            seen += 1
            faces = " ".join("+4" if c.endswith("wild_draw_4") else "+2" for c in stack["cards"])
            if f["event"] == "next-player":
                assert f"{faces} = {stack['total']}" in f["sentence"]
    assert seen
    # the player who answers by drawing takes the whole stack, said with its cards
    draws = [f for _r, f in ten["frames"] if f["event"] == "draw-card" and "the draw stack +" in f["sentence"]]
    assert draws and all(" = " in f["sentence"] for f in draws)


def test_a_challenge_says_who_won_and_who_drew_how_many(ten: dict[str, Any], jua_db: Path) -> None:
    chs = [(r, f) for r, f in ten["frames"] if f["challenge"] and f["challenge"]["made"]]
    won = [f for _r, f in chs if f["challenge"]["success"]]
    lost = [f for _r, f in chs if not f["challenge"]["success"]]
    assert won and lost
    for f in won:
        c = f["challenge"]
        assert c["replays"] and c["drew"] == c["target"] and "wins" in f["sentence"] and "must play again" in f["sentence"]
        assert f["played"]["back"].endswith("wild_draw_4") and f["played"]["by"] == c["target"]  # the card went back
    for f in lost:
        c = f["challenge"]
        assert c["drew"] == c["by"] and c["n"] >= 6 and f"draws {c['n']}." in f["sentence"]
    # a successful challenge hands the turn back to the offender, who must play again
    by_seq = {f["seq"]: f for _r, f in ten["frames"]}
    for f in won:
        later = [by_seq[s] for s in sorted(by_seq) if s > f["seq"]]
        turn = next(x for x in later if x["event"] == "next-player")
        assert turn["actor"] == f["challenge"]["target"] and turn["board"]["must_play"] == turn["actor"]
        assert "the challenge succeeded" in turn["sentence"]
    # the hand is shown to the challenger only, the line before the challenge
    for r, f in chs:
        frames_r = ten["rounds"][r]["frames"]
        i = next(i for i, x in enumerate(frames_r) if x["seq"] == f["seq"])
        shown = [x["shown"] for x in frames_r[max(0, i - 2) : i] if x["shown"]]
        assert shown and shown[-1]["to"] == f["challenge"]["by"] and shown[-1]["player"] == f["challenge"]["target"]
        assert shown[-1]["cards"], f["seq"]


@pytest.mark.parametrize("dealer", [d for d, *_ in JUA_MATCHES])
def test_every_round_of_every_jua_match_makes_a_table(app: Any, jua_db: Path, dealer: str) -> None:
    match = match_of(jua_db, dealer)
    n = query(jua_db, "select count(*) from players where match_id = ?", [match])[0][0]
    for r in rounds_of(jua_db, match):
        data = replay(app(jua_db, "round_browser", match=match, round=str(r), lang="ja"))
        assert len(data["seats"]) == n == len(data["players"])
        assert all(set(f["board"]["hands"]) <= set(data["seats"]) for f in data["frames"])


# ----------------------------------------------------------------------------- pages


def test_the_sidebar_names_the_rules_and_players(app: Any, jua_db: Path) -> None:
    at = app(jua_db, "round_browser", match=match_of(jua_db, "jua-10p"))
    label = at.sidebar.selectbox(key="filter.match")
    assert " · JUA 2016 · 10 players · 2 rounds · " in label.format_func(label.value)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_special_logic_says_it_is_algori_only_for_a_jua_match(app: Any, jua_db: Path, lang: str) -> None:
    i18n.MISSING.clear()
    at = app(jua_db, "special_logic", match=match_of(jua_db, "jua-4p"), lang=lang)
    with i18n.using(lang):
        assert [i.value for i in at.info] == [i18n._(
            "Special logic is part of the ALGORI 2023 contest rules only: the JUA competition rules (2016) this match "
            "was played under have none. Pick an ALGORI match in the sidebar to see its special logic.")]  # fmt: skip
    assert not at.metric and not at.dataframe and not i18n.MISSING
    algori = query(jua_db, "select match_id from matches where ruleset like 'algori%' limit 1")[0][0]
    assert not any("ALGORI 2023 contest rules only" in i.value for i in app(jua_db, "special_logic", match=algori).info)


def test_jua_pages_say_what_the_jua_rules_do(app: Any, jua_db: Path) -> None:
    match = match_of(jua_db, "jua-10p")
    caption = " ".join(c.value for c in app(jua_db, "penalties", match=match).caption)
    assert "the rules name no penalty for a refused action" in caption
    caption = " ".join(c.value for c in app(jua_db, "challenges", match=match).caption)
    assert "the draw stack's total plus 2" in caption


def test_matches_page_shows_the_scoreboard_of_a_jua_match(app: Any, jua_db: Path) -> None:
    match = match_of(jua_db, "jua-2p")
    at = app(jua_db, "matches", match=match)
    uno = table(at, "Dealer", "Rules")  # ALGORI UNO's table, then JUA UNO's own (a game of its own)
    rules = dict(zip(uno["Dealer"], uno["Rules"], strict=True))
    assert rules["misbehave-bind2-40"] == "ALGORI 2023" and "jua-2p" not in rules
    jua = next(df.value for df in at.dataframe if "jua-2p" in set(df.value.get("Dealer", [])))
    assert "White wild" not in jua.columns and set(jua["Dealer"]) == {"jua-2p", "jua-4p", "jua-10p"}  # not a JUA thing
    assert [h.value for h in at.header][:2] == ["ALGORI UNO · 7 matches", "JUA UNO · 3 matches"]
    board = table(at, "Round 1", "Round 5", "Total", "Rank")
    finals = dict(query(jua_db, "select player_name, final_score from players where match_id = ?", [match]))
    assert dict(zip(board["Player"], board["Total"], strict=True)) == finals
    assert list(board["Total"]) == sorted(board["Total"], reverse=True) and board["Rank"].iloc[0] == 1
    for r in range(1, 6):  # each round's scores add up to 0 (the winner takes what the others lose)
        assert int(board[f"Round {r}"].sum()) == 0
    assert "Special logic" not in table(at, "Player", "Final score").columns
    assert any("JUA scoring" in c.value for c in at.caption)
    assert any("JUA competition rules (2016) · 2 players · 5 rounds" in c.value for c in at.caption)


def test_standings_rank_a_jua_match_by_its_scoreboard(app: Any, jua_db: Path) -> None:
    match = match_of(jua_db, "jua-10p")
    at = app(jua_db, "standings", match=match)
    assert at.segmented_control(key="st.game").value == "jua"  # JUA UNO: a game of its own, its matches only
    assert at.multiselect(key="st.matches.jua").value == [match]
    jua = {m for (m,) in query(jua_db, "select match_id from matches where ruleset like 'jua-%'")}
    assert len(at.multiselect(key="st.matches.jua").options) == len(jua)  # no ALGORI match among them
    board = table(at, "Round 1", "Round 2", "Total", "Rank")
    assert len(board) == 10 and any("ranked on its own" in c.value for c in at.caption)
    assert not [h.value for h in at.subheader if h.value == "ALGORI contest ranking"]
    at.segmented_control(key="st.game").set_value("algori-uno").run()  # ALGORI UNO: the contest ranking, no JUA match
    assert not at.exception and table(at, "Advances") is not None
    algori = {m for (m,) in query(jua_db, "select match_id from matches where ruleset like 'algori%'")}
    assert set(at.multiselect(key="st.matches").value) <= algori
    assert not any("ranked on its own" in c.value for c in at.caption)


def test_players_compare_one_rule_family_at_a_time(app: Any, jua_db: Path) -> None:
    at = app(jua_db, "players", match=match_of(jua_db, "jua-10p"))
    rules = at.segmented_control(key="pl.game")  # JUA UNO: a game of its own, opened on the sidebar match's
    counts = dict(query(jua_db, """select case when ruleset like 'jua-%' then 'JUA UNO' else 'ALGORI UNO' end, count(*)
                                  from matches where game = 'algori-uno' group by 1"""))  # fmt: skip
    assert rules.value == "jua" and {f"{g} ({n})" for g, n in counts.items()} <= set(rules.options)
    stats = table(at, "Player", "Rounds won")
    bots = query(jua_db, """select count(distinct p.player_name || ' @ ' || m.dealer_name) from players p
                            join matches m using (match_id) where m.ruleset like 'jua-%'""")[0][0]  # fmt: skip
    assert "Think time median (ms)" not in stats.columns and len(stats) == bots  # a bot: its name at its dealer
    assert any("no think time" in c.value for c in at.caption)
    rules.set_value("algori-uno").run()
    stats = table(at, "Player", "Rounds won")
    assert "Think time median (ms)" in stats.columns and "sloppy-1" not in set(stats["Player"])


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("dealer", [d for d, *_ in JUA_MATCHES])
@pytest.mark.parametrize("page", UNO_PAGES)
def test_every_uno_page_on_every_jua_match(app: Any, jua_db: Path, page: str, dealer: str, lang: str) -> None:
    """The page sweep for the JUA matches that are not the default one (tests/app/test_sweep.py sweeps that)."""
    i18n.MISSING.clear()
    at = app(jua_db, None if page == "matches" else page, match=match_of(jua_db, dealer), lang=lang)
    assert not at.exception and not at.error, [e.value for e in at.exception or at.error]
    assert at.query_params["match"] == match_of(jua_db, dealer)
    if lang == "ja":
        assert not i18n.MISSING, sorted(i18n.MISSING)
        left = left_in_english(shown_texts(at))
        assert not left, "\n".join(left)


# ----------------------------------------------------------------------------- untrusted names


HOSTILE = '<img src=x onerror=alert(1)> [link](http://evil.example) **b** $x$'


def test_hostile_names_in_a_jua_match_stay_text(app: Any, tmp_path: Path) -> None:
    log = jua_log(tmp_path / "j.jsonl", "jua <b>dealer</b>", 3, 2, "jua-2016(rounds=1)")
    text = log.read_text(encoding="utf-8").replace('"sloppy-1"', '"' + HOSTILE.replace('"', '\\"') + '"')
    log.write_text(text, encoding="utf-8")
    from tests.conftest import ingest

    db = tmp_path / "kifu.duckdb"
    ingest(db, log)
    for page in ("matches", "standings", "round_browser", "special_logic"):
        at = app(db, None if page == "matches" else page)
        for kind in ("markdown", "caption", "subheader", "info", "title"):
            for e in at.get(kind):
                assert "<img" not in e.value and "](http" not in e.value and "**b**" not in e.value, (page, e.value)
    data = replay(app(db, "round_browser"))
    assert HOSTILE in {p["name"] for p in data["players"]}  # handed to the replayer as data, written as text there


def test_an_algori_round_keeps_the_algori_table(app: Any, jua_db: Path) -> None:
    """The ALGORI sample's round 5: no JUA stack pill, challenges that send no one back to play."""
    algori = query(jua_db, "select match_id from matches where dealer_name = 'misbehave-bind2-40'")[0][0]
    rounds = query(jua_db, "select distinct round_no from challenges where match_id = ? and is_challenge order by 1 "
                   "limit 1", [algori])  # fmt: skip
    data = replay(app(jua_db, "round_browser", match=algori, round=str(rounds[0][0])))
    assert data["rules"] == "algori-2023" and data["stacking"] is False and len(data["seats"]) == 4
    chs = [f["challenge"] for f in data["frames"] if f["challenge"] and f["challenge"]["made"]]
    assert chs and not any(c["replays"] for c in chs)
    assert not any(f["board"]["must_play"] for f in data["frames"])
    assert all(c["n"] == 6 for c in chs if not c["success"])


def test_a_draw_2_turned_first_is_answered_by_the_next_player(tmp_path: Path) -> None:
    """R5: a draw 2 turned as the first card is the start player's play: the next player must answer it."""
    import duckdb

    from queries import dashboard as q
    from tests.conftest import ingest

    log = jua_log(tmp_path / "j.jsonl", "jua-first-draw-2", 4, 3, "jua-2016(rounds=1)")  # it opens on a draw 2
    ingest(tmp_path / "kifu.duckdb", log)
    con = duckdb.connect(str(tmp_path / "kifu.duckdb"), read_only=True)
    try:
        match = q.match_list(con)["match_id"][0]
        starts = {r: frames.round_from(con, match, r, q.player_names(con, match), {})["frames"][:2]
                  for r in rounds_of(tmp_path / "kifu.duckdb", match)}  # fmt: skip
    finally:
        con.close()
    opened = [(first, nxt) for first, nxt in starts.values() if first["board"]["top"].endswith("draw_2")]
    assert opened, "no round of this match opens on a draw 2 (the referee changed): pick another seed"
    for first, nxt in opened:
        assert first["board"]["stack"]["cards"] == [first["board"]["top"]]
        assert first["board"]["stack"]["answer"] == nxt["actor"] != first["actor"]


def test_jua_is_a_game_of_its_own_in_the_sidebar_with_its_own_count(app: Any, jua_db: Path) -> None:
    counts = dict(query(jua_db, """select case when ruleset like 'jua-%' then 'JUA UNO' else 'ALGORI UNO' end, count(*)
                                  from matches where game = 'algori-uno' group by 1"""))  # fmt: skip
    assert counts["JUA UNO"] and counts["ALGORI UNO"]
    at = app(jua_db, "players")
    picker = at.sidebar.selectbox(key="filter.game")
    assert picker.options[:2] == [f"ALGORI UNO ({counts['ALGORI UNO']})", f"JUA UNO ({counts['JUA UNO']})"]
    picker.set_value("jua").run()
    assert not at.exception
    assert len(at.sidebar.selectbox(key=ui.match_key("jua")).options) == counts["JUA UNO"]  # JUA matches only
