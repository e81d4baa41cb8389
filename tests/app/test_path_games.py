"""The contestant's path in every game (AppTest): the home page's "My bot" offers the bots of every game, each
named with its game, and links to its first fault; a bot chosen on a Kakomimasu or CHaser board opens that board
at its first fault and says so; the link's words name the numbers the replayer shows first (UNO: round and turn;
CHaser: the turn as the findings count it); one count of faults; English counts in the singular and plural."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.app.test_pages import App, replay
from tests.app.test_path_bot import captions, links
from tests.conftest import REPO, SAMPLE, ingest, query

GAMES = {"algori-uno": "ALGORI UNO", "kakomimasu": "Kakomimasu", "chaser": "CHaser"}


@pytest.fixture(scope="module")
def three_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("path-games") / "kifu.duckdb"
    ingest(db, SAMPLE, REPO / "tests" / "data" / "kakomimasu", REPO / "tests" / "data" / "chaser")
    return db


FIRST = """
    select p.player_name, m.match_id, f.seq, f.round_no, f.turn_no from players p join matches m using (match_id)
    join (select match_id, player, seq, round_no, turn_no from penalties
          union all select match_id, player, seq, round_no, turn_no from violations
          where severity in ('error', 'warning') and player is not null) f
      on f.match_id = p.match_id and f.player = p.player_code
    where m.game = ? order by f.seq limit 1"""


def first_fault(db: Path, game: str) -> tuple[str, str, int, int, int]:
    """(bot name, match, seq, round, turn) of the first fault of the game's first faulty bot (independent SQL)."""
    name, match, seq, round_no, turn = query(db, FIRST, [game])[0]
    return str(name), str(match), int(seq), int(round_no), int(turn)


def fault_links(at: Any) -> list[tuple[str, str, dict[str, str]]]:
    return [(label, page, q) for label, page, q in links(at) if "first fault" in label]


def test_home_offers_every_games_bots_and_links_each_to_its_first_fault(app: App, three_db: Path) -> None:
    at = app(three_db, None, lang="en")
    picker = at.selectbox(key="path.bot")
    label = {o: picker.format_func(o) for o in picker.options}  # type: ignore[attr-defined]
    games = {g for g in GAMES.values() if any(f" · {g} (" in text for text in label.values())}
    assert games == set(GAMES.values())  # every game's bots, each named with its game
    for game, page, param in (
        ("kakomimasu", "kakomimasu_board", "turn"),
        ("chaser", "chaser_board", "event"),
    ):
        name, match, seq, _round, turn = first_fault(three_db, game)
        at.selectbox(key="path.bot").set_value(name).run()  # the second click: the link is on the page
        assert not at.exception
        assert at.query_params["bot"] == name and at.query_params["match"] == match
        got = fault_links(at)
        assert len(got) == 1 and got[0][1].endswith(page), got
        assert got[0][2][param] == str(seq) and got[0][2]["match"] == match
        assert got[0][0].endswith(f"turn {turn}")  # the turn as the findings and the board count it
        assert "your bot's worst match" in captions(at)


def test_a_bot_chosen_on_a_board_opens_it_at_its_first_fault(app: App, three_db: Path) -> None:
    for game, page, param in (
        ("kakomimasu", "kakomimasu_board", "turn"),
        ("chaser", "chaser_board", "event"),
    ):
        name, match, seq, _round, turn = first_fault(three_db, game)
        at = app(three_db, page, lang="en")
        assert at.query_params.get(param) in (None, "0")
        at.selectbox(key="path.bot").set_value(name).run()
        assert not at.exception
        assert at.query_params["match"] == match and at.query_params[param] == str(seq)
        data = replay(at)
        assert data["jump"]["seq"] == seq  # the board at the fault, not at step 1
        shown = next(f for f in data["frames"] if f["seq"] == seq)
        assert shown["turn"] == turn and shown["findings"]
        assert "your bot's worst match" in captions(at)  # and it says so, with the link to the fault
        assert [q[param] for _l, _p, q in fault_links(at)] == [str(seq)]


def test_chaser_names_one_turn_everywhere(app: App, three_db: Path) -> None:
    name, match, seq, _round, turn = first_fault(three_db, "chaser")
    at = app(three_db, "chaser_board", lang="en", match=match, event=str(seq), bot=name)
    frame = next(f for f in replay(at)["frames"] if f["seq"] == seq)
    assert frame["turn"] == turn and all(x["text"].endswith(f"turn {turn}") for x in frame["findings"])
    heading = at.subheader[0].value.replace("\\", "")
    assert heading.endswith(f"at turn {turn}") and f"at turn {turn}" in frame["sentence"]


def test_the_uno_link_names_the_round_and_turn_the_replayer_shows(app: App, three_db: Path) -> None:
    name, match, seq, round_no, _turn = first_fault(three_db, "algori-uno")
    bot = str(
        query(three_db, "select coalesce(dealer_name, dealer_code) from matches where match_id = ?", [match])[
            0
        ][0]
    )
    at = app(three_db, None, lang="en", bot=f"{name} @ {bot}")
    label, page, q = fault_links(at)[0]
    assert q["event"] == str(seq) and q["round"] == str(round_no)
    at.switch_page(f"app_pages/{page.split('/')[-1].removesuffix('.py')}.py")
    for k, v in q.items():
        at.query_params[k] = v
    at.run()
    data = replay(at)
    frame = next(f for f in data["frames"] if f["seq"] == seq)
    assert data["jump"]["seq"] == seq and data["round"] == round_no
    assert label.endswith(f"round {round_no}, turn {frame['turn']}")  # "Round r · turn t" heads the replayer
    assert f"event {seq}" not in label


def test_the_picker_and_the_line_beside_it_count_faults_alike(app: App, three_db: Path) -> None:
    name, match, _seq, _round, _turn = first_fault(three_db, "kakomimasu")
    per = dict(query(three_db, """
        select p.match_id, count(f.player) from players p join matches m using (match_id) left join (
            select match_id, player from penalties union all select match_id, player from violations
            where severity in ('error', 'warning') and player is not null) f
          on f.match_id = p.match_id and f.player = p.player_code
        where p.player_name = ? and m.game = 'kakomimasu' group by 1""", [name]))  # fmt: skip
    total, worst = sum(per.values()), max(per.values())
    at = app(three_db, "kakomimasu_analysis", lang="en", bot=name)
    picker = at.selectbox(key="path.bot")
    n = len(per)
    assert picker.format_func(name) == f"{name} ({total} faults in {n} match{'es' if n != 1 else ''})"  # type: ignore[attr-defined]
    assert f"{worst} of its {total} faults" in captions(at)


def test_english_counts_one_and_many(app: App, three_db: Path) -> None:
    from app import i18n, ui

    with i18n.using("en"):
        assert [ui.counted("match", n) for n in (0, 1, 2)] == ["0 matches", "1 match", "2 matches"]
        assert [ui.counted("fault", n) for n in (1, 211)] == ["1 fault", "211 faults"]
    with i18n.using("ja"):
        assert ui.counted("match", 1) == ui.counted("match", 2).replace("2", "1")  # one form in Japanese
    at = app(three_db, None, lang="en")
    counts = dict(query(three_db, "select game, count(*) from matches group by 1"))
    assert {h.value for h in at.header} >= {
        f"{GAMES[g]} · {n} match{'es' if n != 1 else ''}" for g, n in counts.items()
    }
    frames_labels = replay(app(three_db, "round_browser", lang="en"))["labels"]
    assert (frames_labels["card"], frames_labels["cards"]) == ("card", "cards")  # uno.js picks by the count


def test_a_bot_chosen_on_the_uno_replayer_opens_it_at_its_first_fault(app: App, three_db: Path) -> None:
    name, match, seq, round_no, _turn = first_fault(three_db, "algori-uno")
    dealer = query(
        three_db, "select coalesce(dealer_name, dealer_code) from matches where match_id = ?", [match]
    )[0][0]
    at = app(three_db, "round_browser", lang="en")
    at.selectbox(key="path.bot").set_value(f"{name} @ {dealer}").run()
    assert not at.exception
    assert at.query_params["event"] == str(seq) and at.query_params["round"] == str(round_no)
    data = replay(at)
    assert data["round"] == round_no and data["jump"]["seq"] == seq
    assert "your bot's worst match" in captions(at)


def test_a_chaser_turn_link_is_never_sent_as_an_action() -> None:
    from app import ui

    # CHaser's old ?seq= named an action: a turn copied into it opened action 9 for turn 9 (two actions a turn);
    # no link writes seq= now, whatever the page
    assert ui.link_params(match="m", turn=9, bot=None) == {
        "match": "m",
        "turn": "9",
    }
    assert ui.link_params(match="m", event=18, bot=None) == {
        "match": "m",
        "event": "18",
    }
