"""The dashboard's heavier page queries give what their definition says, computed here a second way in Python
from the stored rows: the bluffs nobody challenged, each challenge's "was a bluff", every match's players in
the match list.  The SQL reads one match's events once (a window), not all events once per row; these tests hold
it to the plain definition on every match, with and without a match or a player chosen."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

import duckdb
import pytest

from queries import dashboard as q

PLAYS = ("play-card", "play-draw-card")
BIG = 2147483647


def _rows(con: Any, text: str) -> list[dict[str, Any]]:
    cur = con.execute(text)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


class Facts:
    """The stored rows the definitions read, with each match's play and turn-end seqs in order (for a lookup by
    bisection: the definitions stay the plain ones, only faster to compute)."""

    def __init__(self, con: Any) -> None:
        events = _rows(con, "select match_id, seq, event, actor from events order by match_id, seq")
        self.bluffs = _rows(con, "select match_id, seq, round_no, player from violations where code = 'wd4-bluff'")
        self.challenges = _rows(
            con, "select match_id, seq, round_no, challenger, target, is_challenge from challenges"
        )
        self.names = {
            (m, c): n
            for m, c, n in con.execute("select match_id, player_code, player_name from players").fetchall()
        }
        self.stops: dict[Any, list[int]] = {}  # match -> seqs of cards played and turns finished
        self.plays: dict[tuple[Any, Any], list[int]] = {}  # (match, player) -> seqs of its cards played
        for e in events:  # in seq order: the lists are sorted
            if e["event"] in (*PLAYS, "finish-turn"):
                self.stops.setdefault(e["match_id"], []).append(e["seq"])
            if e["event"] in PLAYS:
                self.plays.setdefault((e["match_id"], e["actor"]), []).append(e["seq"])


def unchallenged(facts: Facts, match: str | None, player: str | None) -> list[tuple[str, int]]:
    """(match, seq) of every wd4-bluff finding with no challenge of its player before the next card played or turn
    finished after it."""
    out = []
    for b in facts.bluffs:
        if match is not None and b["match_id"] != match:
            continue
        if player is not None and player not in (b["player"], facts.names.get((b["match_id"], b["player"]))):
            continue
        stops = facts.stops.get(b["match_id"], [])
        i = bisect.bisect_right(stops, b["seq"])  # the first card played or turn finished after the bluff
        until = stops[i] if i < len(stops) else BIG
        if not any(c["match_id"] == b["match_id"] and c["target"] == b["player"] and c["is_challenge"]
                   and b["seq"] < c["seq"] < until for c in facts.challenges):  # fmt: skip
            out.append((b["match_id"], b["seq"]))
    return sorted(out)


def was_bluff(facts: Facts) -> dict[tuple[str, int], bool]:
    """Every challenge line: whether a wd4-bluff finding about its target lies in its round, before it and at or after
    the target's last card played before it."""
    out = {}
    for c in facts.challenges:
        plays = facts.plays.get((c["match_id"], c["target"]), [])
        i = bisect.bisect_left(plays, c["seq"])  # the target's last card played before the challenge
        played = plays[i - 1] if i else None
        out[(c["match_id"], c["seq"])] = played is not None and any(
            b["match_id"] == c["match_id"] and b["player"] == c["target"] and b["round_no"] == c["round_no"]
            and played <= b["seq"] < c["seq"] for b in facts.bluffs)  # fmt: skip
    return out


@pytest.fixture(params=["sample_db", "jua_db", "mixed_db"])
def db(request: pytest.FixtureRequest) -> tuple[str, Path]:
    return request.param, request.getfixturevalue(request.param)


def test_bluffs_nobody_challenged_as_defined(db: tuple[str, Path]) -> None:
    name, path = db
    with duckdb.connect(str(path), read_only=True) as con:
        matches = [
            m for (m,) in con.execute("select match_id from matches where game = 'algori-uno'").fetchall()
        ]
        bluffers = con.execute("select distinct v.match_id, v.player, p.player_name from violations v left join "
                               "players p on p.match_id = v.match_id and p.player_code = v.player "
                               "where v.code = 'wd4-bluff'").fetchall()  # fmt: skip
        cases: list[tuple[str | None, str | None]] = [(None, None), *((m, None) for m in matches)]
        cases += [(m, code) for m, code, _n in bluffers] + [(None, name) for _m, _c, name in bluffers if name]
        seen, facts = 0, Facts(con)
        for match, player in cases:
            got = q.wd4_unchallenged(con, match, player)
            assert sorted(zip(got["match_id"], got["seq"], strict=True)) == unchallenged(
                facts, match, player
            ), (match, player)
            seen += len(got)
        total = con.execute("select count(*) from violations where code = 'wd4-bluff'").fetchall()[0][0]
    if name == "sample_db":
        assert total and seen, "the sample has bluffs: the comparison must not be empty"


def test_a_challenge_was_a_bluff_as_defined(db: tuple[str, Path]) -> None:
    name, path = db
    with duckdb.connect(str(path), read_only=True) as con:
        want = was_bluff(Facts(con))
        got = q.challenges(con)
        assert dict(zip(zip(got["match_id"], got["seq"], strict=True), got["was_bluff"], strict=True)) == want
        for (match,) in con.execute("select distinct match_id from challenges").fetchall():
            one = q.challenges(con, match)
            assert set(one["match_id"]) == {match}
            assert {(match, s): b for s, b in zip(one["seq"], one["was_bluff"], strict=True)} == {
                k: v for k, v in want.items() if k[0] == match
            }
            for player in con.execute(
                "select distinct target from challenges where match_id = ? and target is not null", [match]
            ).fetchall():
                mine = q.challenges(con, match, player[0])
                assert all(b == want[(match, s)] for s, b in zip(mine["seq"], mine["was_bluff"], strict=True))
                mine_sql = (
                    "select count(*) from challenges where match_id = ? and (challenger = ? or target = ?)"
                )
                assert len(mine) == con.execute(mine_sql, [match, player[0], player[0]]).fetchall()[0][0]
    if name == "sample_db":
        assert any(want.values()) and not all(want.values()), "the sample has both kinds of challenge"


def test_match_list_names_every_matchs_players(mixed_db: Path) -> None:
    with duckdb.connect(str(mixed_db), read_only=True) as con:
        players = _rows(
            con, "select p.*, m.game, m.winner as match_winner from players p join matches m using (match_id)"
        )
        for game in (None, "algori-uno", "kakomimasu", "chaser"):
            listed = q.match_list(con, game)
            assert len(listed) == con.execute("select count(*) from matches where ? is null or game = ?",
                                              [game, game]).fetchall()[0][0]  # fmt: skip
            for r in listed.astype(object).where(listed.notna(), None).to_dict("records"):
                mine = [p for p in players if p["match_id"] == r["match_id"]]
                assert r["n_players"] == len(mine)
                by_rank = sorted(mine, key=lambda p: (p["final_rank"] is None, p["final_rank"] or 0, p["join_order"],
                                                      p["player_code"]))  # fmt: skip
                assert r["players"] == (
                    ", ".join(p["player_name"] or p["player_code"] for p in by_rank) or None
                )
                won = [
                    p["player_name"] or p["match_winner"]
                    for p in mine
                    if p["player_code"] == p["match_winner"]
                ]
                assert r["winner"] == (won[0] if won else None)
                if r["game"] == "chaser":
                    joined = sorted(mine, key=lambda p: p["join_order"])
                    assert r["name"] == " vs ".join(p["player_name"] or p["player_code"] for p in joined)
