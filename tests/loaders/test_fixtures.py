"""Every real dealer log ingests completely, and the tables say what the files say.

Expected values come from an independent ``json.loads`` pass over the same file
(``conftest.file_facts``) plus a few figures from the fixtures' README.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import MATCHES, SMALL_MATCHES, file_facts, fixture_path, ingest, query, table_snapshot


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for match in MATCHES:
        db = tmp_path_factory.mktemp(match) / "kifu.duckdb"
        report = ingest(db, fixture_path(match))
        assert report.quarantined == 0
        out[match] = db
    return out


@pytest.mark.parametrize("match", MATCHES)
def test_fixture_ingests_without_issues_and_counts_match(dbs: dict[str, Path], match: str) -> None:
    db = dbs[match]
    facts = file_facts(fixture_path(match))
    assert query(db, "select count(*) from load_issues") == [(0,)]
    assert query(db, "select count(*) from events") == [(facts["lines"],)]
    assert query(db, "select count(*) from raw_activities") == [(facts["lines"],)]
    by_event = dict(query(db, "select event, count(*) from events group by event"))
    assert by_event == dict(facts["events"])
    causes = Counter(dict(query(db, "select cause, count(*) from penalties group by cause")))
    assert causes == facts["causes"]
    challenges = Counter(
        {(a, b): n for a, b, n in query(db, "select is_challenge, success, count(*) from challenges group by all")}
    )
    assert challenges == facts["challenges"]
    titles = Counter(dict(query(db, "select title, count(*) from special_logic group by title")))
    assert titles == facts["titles"]
    # seq is a gap-free 1..N numbering of the match log
    assert query(db, "select min(seq), max(seq), count(distinct seq) from events") == [
        (1, facts["lines"], facts["lines"])
    ]


def test_round_and_match_summaries(dbs: dict[str, Path]) -> None:
    ends = dict(
        query(dbs["deckout_hoard3_aggressor1_12"], "select round_no, end_kind from rounds")
    )
    assert ends[5] == "deck-exhausted"
    assert Counter(ends.values()) == {"no-progress": 11, "deck-exhausted": 1}
    assert set(dict(query(dbs["noprogress_hoard4_3"], "select round_no, end_kind from rounds")).values()) == {
        "no-progress"
    }
    # misbehave_bind2_40: README figures
    db = dbs["misbehave_bind2_40"]
    (match,) = query(db, "select dealer_code, dealer_name, white_wild, rounds_played, winner, status from matches")
    assert match == ("D-00000003", "misbehave-bind2-40", "bind_2", 40, "P-00000004", "finished")
    players = {
        code: (name, wins, score, rank)
        for code, name, wins, score, rank in query(
            db, "select player_code, player_name, rounds_won, final_score, final_rank from players"
        )
    }
    assert players == {
        "P-00000004": ("Alternative 4", 18, 3088, 1),
        "P-00000003": ("Alternative 3", 11, 1595, 2),
        "P-00000005": ("JS Demo", 11, 724, 3),
        "P-00000006": ("Misbehaver", 0, -5407, 4),
    }
    won = dict(query(db, "select winner, count(*) from rounds group by winner"))
    assert won == {"P-00000004": 18, "P-00000003": 11, "P-00000005": 11}
    # running totals in round_scores end at the final scores
    last = dict(query(db, "select player_code, total_score from round_scores where round_no = 40"))
    assert last == {"P-00000004": 3088, "P-00000003": 1595, "P-00000005": 724, "P-00000006": -5407}
    assert query(db, "select sum(score) from round_scores where player_code = 'P-00000006'") == [(-5407,)]


def test_object_error_and_empty_card_play_keep_their_meaning(dbs: dict[str, Path]) -> None:
    db = dbs["misbehave_skipbind2_80"]
    assert query(db, "select cause from penalties where seq = 10260") == [("Did not say uno.",)]
    rows = query(db, "select card_color, contents->>'card_play' from events where seq in (6603, 12752)")
    assert rows == [(None, "{}"), (None, "{}")]


def test_typed_event_columns(dbs: dict[str, Path]) -> None:
    db = dbs["speciallogic_timeout_probe_2"]
    # line 5 is round 1's first-player, line 7 the first play (blue 0), line 8 a wild chosen blue
    assert query(db, "select event, round_no, target, card_color, card_number from events where seq = 5") == [
        ("first-player", 1, "P-00000003", "red", 0)
    ]
    assert query(db, "select event, actor, card_color, card_number, yell_uno, turn_no from events where seq = 7") == [
        ("play-card", "P-00000003", "blue", 0, False, 1)
    ]
    assert query(db, "select card_special, chosen_color from events where seq = 9") == [("wild", "blue")]
    # special-logic then the over-long-title penalty and the timeout (README lines 19-21)
    assert query(db, "select seq, player, cause, cards_received from penalties order by seq") == [
        (20, "P-00000013", "Special logic title too long.", 2),
        (21, "P-00000013", "timeout", 2),
    ]
    assert query(db, "select title, title_length from special_logic order by seq") == [
        ("probe", 5), ("T" * 40, 40)
    ]


@pytest.mark.parametrize("match", SMALL_MATCHES)
def test_download_and_stored_copies_are_one_match(tmp_path: Path, match: str) -> None:
    db = tmp_path / "k.duckdb"
    first = ingest(db, fixture_path(match, "download"))
    before = table_snapshot(db, exclude=("load_runs", "raw_activities"))
    second = ingest(db, fixture_path(match, "stored"))
    assert second.ingested == 0
    assert second.duplicates == first.ingested
    assert second.matches == first.matches
    assert table_snapshot(db, exclude=("load_runs", "raw_activities")) == before


def test_stored_copy_alone_gives_the_same_tables(tmp_path: Path) -> None:
    match = "misbehave_skipbind2_80"
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    ingest(a, fixture_path(match, "download"))
    ingest(b, fixture_path(match, "stored"))
    skip = ("load_runs", "raw_activities", "events", "matches", "rounds", "think_times")
    assert table_snapshot(a, exclude=skip) == table_snapshot(b, exclude=skip)
    # think times come from dateCreated, which the stored copy has a few ms later per line:
    # the same actions, the same clocks, times within a few ms
    times = "select seq, player, action, think_ms from think_times order by seq"
    ta, tb = query(a, times), query(b, times)
    assert [r[:3] for r in ta] == [r[:3] for r in tb] and len(ta) > 5_000
    assert max(abs(x[3] - y[3]) for x, y in zip(ta, tb)) < 50
    # events differ only in timestamps (the stored copy is saved a few ms later) and in the
    # two `card_play: {}` the stored copy drops (mongoose minimize)
    cols = "match_id, seq, round_no, turn_no, event, actor, target, card_color, card_number, card_special, n_cards, chosen_color, yell_uno, draw_reason"
    assert query(a, f"select {cols} from events order by seq") == query(b, f"select {cols} from events order by seq")
    no_card = "select seq from events where (contents->'card_play') is null and event = 'play-card'"
    assert set(query(b, no_card)) - set(query(a, no_card)) == {(6603,), (12752,)}
