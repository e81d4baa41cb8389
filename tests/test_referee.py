"""Kifu's referee (`kifu play`): its logs, judged by the validator that does not trust it.

The referee and the profile audit share the profile, so their agreement alone proves little:
the golden scenarios (tests/rules/test_jua_golden.py) are written from the rules text. What is
tested here is what only the referee can show: whole matches of any size and any bots replay
with no consistency and no dealer-judgement finding, every penalty is explained by a finding of
the penalised bot, an honest bot is never blamed, and a seed gives the same bytes.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots import KINDS, builtin
from referee.match import Referee, Seat
from rules.core import PLAYER_RULE
from rules.uno.audit import ERROR_CODE
from rules.uno.profile import get
from tests.rules.helpers import replay_lines

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("KIFU_HYPOTHESIS_EXAMPLES", "40"))


def match(n: int, seed: int, kinds: list[str], *, rounds: int | None = None, ruleset: str = "jua-2016",
          rate: float = 0.2) -> tuple[list[dict[str, Any]], list[Any]]:  # fmt: skip
    """The lines of a refereed match (as dicts) and every finding the validator gives."""
    if rounds is not None and ruleset.startswith("jua-2016"):  # a shorter match: the profile says so
        ruleset = ruleset.rstrip(")") + f",rounds={rounds})" if "(" in ruleset else f"{ruleset}(rounds={rounds})"
    seats = [Seat(f"P-{i + 1:08d}", f"{k}-{i + 1}", builtin(k, seed * 31 + i, sloppy_rate=rate))
             for i, k in enumerate(kinds[:n])]  # fmt: skip
    lines = [orjson.loads(x) for x in Referee(get(ruleset), seats, seed=seed).lines()]
    r, found = replay_lines(lines)
    assert r.ruleset.id == get(ruleset).id
    return lines, found


def referee_faults(found: list[Any]) -> list[Any]:
    return [v for v in found if v.family != PLAYER_RULE]


def unexplained_penalties(lines: list[dict[str, Any]], found: list[Any]) -> list[tuple[int, str, str]]:
    """Penalty lines with no finding of the penalised player naming that rule (at it or at the action before)."""
    by_player = {(v.player, v.code, v.seq) for v in found if v.family == PLAYER_RULE}
    by_code = {(v.player, v.code) for v in found if v.family == PLAYER_RULE}
    out = []
    for seq, d in enumerate(lines, 1):
        if d["event"] != "penalty":
            continue
        who, err = d["contents"]["player"], d["contents"]["error"]
        code = ERROR_CODE[err]
        near = any((who, code, s) in by_player for s in (seq, seq - 1, seq - 2))
        # a missed UNO call is found at the play that left one card, earlier than the pointing
        if not near and not (code == "uno-call-missed" and (who, code) in by_code):
            out.append((seq, who, err))
    return out


@pytest.mark.parametrize("n", [2, 4, 10])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_jua_match_replays_clean(n: int, seed: int) -> None:
    lines, found = match(n, seed, (["random", "greedy", "stacker"] * 4)[:n])
    assert [d["event"] for d in lines].count("finish-turn") == 5
    assert lines[-1]["event"] == "finish-game"
    deals = [d for d in lines if d["event"] == "first-player"]
    assert {d["contents"]["ruleset"] for d in deals} == {"jua-2016"}
    assert all(len(d["contents"]["play_order"]) == n for d in deals)
    assert found == [], [f"{v.seq} {v.code} {v.message}" for v in found[:5]]


@pytest.mark.parametrize("n", [2, 4, 10])
def test_sloppy_bot_alone_is_blamed_and_explains_every_penalty(n: int) -> None:
    kinds = ["sloppy"] + (["random", "greedy", "stacker"] * 4)[: n - 1]
    codes: Counter[str] = Counter()
    for seed in (1, 2, 3):
        lines, found = match(n, seed, kinds, rate=0.3)
        assert referee_faults(found) == []
        assert {v.player for v in found} <= {"P-00000001"}, [(v.player, v.code) for v in found if v.player != "P-00000001"]
        assert unexplained_penalties(lines, found) == []
        assert {d["contents"]["player"] for d in lines if d["event"] == "penalty"} <= {"P-00000001"}
        codes.update(v.code for v in found)
    assert {"card-legal-on-top", "card-owned", "pair-identical"} <= set(codes)


def test_sloppy_bot_breaks_every_rule_it_knows() -> None:
    """Over a few matches the sloppy bot's fouls cover every player-rule check it is built to break."""
    codes: Counter[str] = Counter()
    for seed in range(1, 9):
        lines, found = match(4, seed, ["sloppy", "stacker", "greedy", "random"], rate=0.5 if seed % 2 else 0.1)
        assert referee_faults(found) == []
        codes.update(v.code for v in found)
    assert {"card-legal-on-top", "card-owned", "pair-identical", "uno-call-missed", "wild-colour-given",
            "challenge-eligible", "stack-answer", "wd4-bluff", "turn-owner"} <= set(codes), codes  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 10), seed=st.integers(0, 10**6), kinds=st.lists(st.sampled_from(KINDS), min_size=10, max_size=10),
       rate=st.floats(0, 1))  # fmt: skip
def test_any_match_has_no_referee_fault_and_every_penalty_explained(n: int, seed: int, kinds: list[str],
                                                                     rate: float) -> None:  # fmt: skip
    lines, found = match(n, seed, kinds, rounds=1, rate=rate)
    assert referee_faults(found) == [], [f"{v.seq} {v.code} {v.message}" for v in referee_faults(found)[:3]]
    assert unexplained_penalties(lines, found) == []
    honest = {f"P-{i + 1:08d}" for i, k in enumerate(kinds[:n]) if k != "sloppy"}
    assert not [v for v in found if v.player in honest]


def test_first_wild_colour_option() -> None:
    """jua-2016(first_wild_color=left): the player after the start player colours a first-card wild."""
    for seed in range(1, 300):
        lines, found = match(3, seed, ["random"] * 3, rounds=1, ruleset="jua-2016(first_wild_color=left)")
        deal = lines[3]
        if deal["contents"]["first_card"].get("special") != "wild":
            continue
        assert lines[4]["event"] == "color-change-request"
        assert lines[4]["contents"]["player"] == deal["contents"]["play_order"][1]
        assert found == []
        return
    pytest.fail("no first-card wild in 300 seeds")


def test_same_seed_same_bytes() -> None:
    def lines(seed: int) -> list[bytes]:
        seats = [Seat(f"P-{i}", k, builtin(k, i)) for i, k in enumerate(["sloppy", "greedy", "stacker"])]
        return list(Referee(get("jua-2016"), seats, seed=seed, rounds=2).lines())

    assert lines(5) == lines(5)
    assert lines(5) != lines(6)


def _kifu(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kifu.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)  # fmt: skip


def test_kifu_play_writes_and_ingests(tmp_path: Path) -> None:
    import duckdb

    out, db = tmp_path / "m.jsonl.gz", tmp_path / "k.duckdb"
    r = _kifu("play", "--ruleset", "jua-2016", "--players", "4", "--seed", "7", "--bots", "random,greedy,stacker,sloppy",
              "--out", str(out), "--ingest", "--db", str(db), "--no-progress", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "lines written" in r.stderr
    again = tmp_path / "again.jsonl.gz"
    assert _kifu("play", "--seed", "7", "--bots", "random,greedy,stacker,sloppy", "--out", str(again), "--no-progress",
                 cwd=tmp_path).returncode == 0  # fmt: skip
    assert out.read_bytes() == again.read_bytes()  # same seed, same log, byte for byte (gzip included)
    con = duckdb.connect(str(db), read_only=True)
    assert con.sql("select ruleset, rounds_played, status from matches").fetchall() == [("jua-2016", 5, "finished")]
    names = [n for (n,) in con.sql("select player_name from players order by join_order").fetchall()]
    assert names == ["random-1", "greedy-2", "stacker-3", "sloppy-4"]
    families = {f for (f,) in con.sql("select distinct family from violations").fetchall()}
    assert families <= {PLAYER_RULE}
    assert len(gzip.open(out).read().splitlines()) == con.sql("select count(*) from events").fetchall()[0][0]


def test_kifu_ingest_ruleset_overrides_a_log_that_does_not_say(tmp_path: Path) -> None:
    import duckdb

    log = tmp_path / "m.jsonl"
    assert _kifu("play", "--seed", "3", "--players", "3", "--rounds", "2", "--out", str(log), "--no-progress",
                 cwd=tmp_path).returncode == 0  # fmt: skip
    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(log.read_bytes().replace(b'"ruleset":"jua-2016",', b""))
    r = _kifu("ingest", "--ruleset", "jua-2016(rounds=2)", "--db", str(tmp_path / "k.duckdb"), str(bare), "--no-progress",
              cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    con = duckdb.connect(str(tmp_path / "k.duckdb"), read_only=True)
    assert con.sql("select ruleset from matches").fetchall() == [("jua-2016(rounds=2)",)]
    assert con.sql("select count(*) from violations").fetchall() == [(0,)]
    bad = _kifu("ingest", "--ruleset", "uno-1999", "--db", str(tmp_path / "x.duckdb"), str(bare), cwd=tmp_path)
    assert bad.returncode == 2 and "unknown ruleset 'uno-1999'" in bad.stderr and "jua-2016" in bad.stderr


def test_kifu_play_with_a_contestants_bot(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text(
        "def act(view):\n"
        "    if view['phase'] in ('point', 'idle'):\n"
        "        return {'action': 'pass'}\n"
        "    if view['phase'] == 'color':\n"
        "        return {'action': 'color', 'color': 'red'}\n"
        "    a = dict(view['legal'][0])\n"
        "    a['yell_uno'] = a.get('action') == 'play' and len(view['hand']) - (2 if a.get('pair') else 1) <= 1\n"
        "    if a.get('card', {}).get('color') == 'black' or (view['drawn'] or {}).get('color') == 'black':\n"
        "        a['color'] = 'red'\n"
        "    return a\n", encoding="utf-8")  # fmt: skip
    out = tmp_path / "m.jsonl"
    r = _kifu("play", "--bot", f"{bot}:act", "--bots", "greedy", "--players", "3", "--rounds", "1", "--out", str(out),
              "--no-progress", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    joins = [orjson.loads(x) for x in out.read_bytes().splitlines()[:3]]
    assert [j["contents"]["player_name"] for j in joins] == ["act-1", "greedy-2", "greedy-3"]


@pytest.mark.parametrize(("args", "status", "says"), [
    (["--ruleset", "jua-1999"], 2, "unknown ruleset 'jua-1999'"),
    (["--ruleset", "jua-2016(decks=2)"], 2, "unknown option 'decks'"),
    (["--players", "11"], 2, "2 to 10 players"),
    (["--bots", "clever"], 2, "unknown bot 'clever'"),
    (["--bot", "nowhere.py:act"], 2, "no file nowhere.py"),
    (["--sloppy-rate", "2"], 2, "from 0 to 1"),
    (["--out", "nowhere/m.jsonl"], 2, "there is no folder nowhere"),
])  # fmt: skip
def test_kifu_play_bad_arguments(tmp_path: Path, args: list[str], status: int, says: str) -> None:
    out = [] if "--out" in args else ["--out", str(tmp_path / "m.jsonl")]
    r = _kifu("play", *args, *out, "--no-progress", cwd=tmp_path)
    assert r.returncode == status and says in r.stderr, r.stderr
    assert not (tmp_path / "m.jsonl").exists()


def test_kifu_play_to_standard_output_into_a_reader_that_stops(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run(f"{sys.executable} -m kifu.cli play --players 2 --seed 2 --out - | head -n 3", shell=True,
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)  # fmt: skip
    assert len(r.stdout.splitlines()) == 3 and '"event":"join-room"' in r.stdout
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr


def test_kifu_play_names_the_bot_that_fails(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("def act(view):\n    raise RuntimeError('no idea')\n", encoding="utf-8")
    r = _kifu("play", "--bot", f"{bot}:act", "--players", "2", "--out", str(tmp_path / "m.jsonl"), "--no-progress",
              cwd=tmp_path)  # fmt: skip
    assert r.returncode == 1
    assert "act-1" in r.stderr and "RuntimeError: no idea" in r.stderr
    assert not (tmp_path / "m.jsonl").exists() and not (tmp_path / "m.jsonl.tmp").exists()


ALGORI = ["algori-2023/skip_bind_2", "algori-2023/bind_2", "algori-2023/no-white-wild"]


def algori_match(ruleset: str, seed: int, rounds: int, kinds: list[str]) -> tuple[list[dict[str, Any]], list[Any]]:
    from referee.algori import AlgoriTable

    seats = [Seat(f"P-{i + 1:08d}", f"{k}-{i + 1}", builtin(k, seed * 31 + i)) for i, k in enumerate(kinds)]
    lines = [orjson.loads(x) for x in AlgoriTable(get(ruleset), seats, seed=seed, rounds=rounds).lines()]
    r, found = replay_lines(lines)
    assert r.ruleset.id == ruleset
    return lines, found


@pytest.mark.parametrize("ruleset", ALGORI)
def test_algori_profile_match_is_judged_clean_by_the_dealer_audit(ruleset: str) -> None:
    """Under an ALGORI profile the referee writes the 2023 dealer's log: the ALGORI audit (built on real dealer
    logs) finds nothing at all in it — no consistency, dealer or player finding."""
    lines, found = algori_match(ruleset, 3, 20, ["random", "greedy", "stacker", "random"])
    events = Counter(d["event"] for d in lines)
    assert events["finish-turn"] == 20 and events["finish-game"] == 1
    assert events["color-of-wild"] and events["draw-card"] and events["play-draw-card"]
    if ruleset != "algori-2023/no-white-wild":
        assert any(d["event"] == "play-card" and d["contents"]["card_play"].get("special") == "white_wild" for d in lines)
    assert found == [], [f"{v.seq} {v.code} {v.message}" for v in found[:5]]


@settings(max_examples=max(5, EXAMPLES // 4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=st.sampled_from(ALGORI), seed=st.integers(0, 10**6),
       kinds=st.lists(st.sampled_from(["random", "greedy", "stacker"]), min_size=4, max_size=4))  # fmt: skip
def test_any_algori_profile_match_is_clean(ruleset: str, seed: int, kinds: list[str]) -> None:
    lines, found = algori_match(ruleset, seed, 6, kinds)
    assert found == [], [f"{v.seq} {v.code} {v.message}" for v in found[:5]]


def test_algori_profile_has_wild_shuffles_challenges_and_first_card_effects() -> None:
    """Over a longer match every dealer path the referee writes occurs (and is still judged clean)."""
    lines, found = algori_match("algori-2023/skip_bind_2", 11, 150, ["stacker", "greedy", "random", "stacker"])
    assert found == []
    events = Counter(d["event"] for d in lines)
    assert events["shuffle-wild"] and events["challenge"] and events["public-card"] and events["color-change-request"]
    firsts = {(d["contents"]["first_card"].get("special") or "number") for d in lines if d["event"] == "first-player"}
    assert {"number", "skip", "reverse", "draw_2", "wild"} <= firsts
    outcomes = {d["contents"]["result"]["is_challenge_success"] for d in lines if d["event"] == "challenge"}
    assert False in outcomes


def test_kifu_play_algori_profile_and_the_sloppy_bot(tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    r = _kifu("play", "--ruleset", "algori-2023/skip_bind_2", "--rounds", "3", "--bots", "random,greedy,stacker,random",
              "--out", str(out), "--no-progress", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    first = orjson.loads(out.read_bytes().splitlines()[4])
    assert first["event"] == "first-player" and first["contents"]["white_wild"] == "skip_bind_2"
    r = _kifu("play", "--ruleset", "algori-2023/skip_bind_2", "--bots", "sloppy,random", "--out", str(out),
              "--no-progress", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 2 and "JUA profile only" in r.stderr


def test_the_example_bot_of_the_referee_doc_plays_a_clean_match(tmp_path: Path) -> None:
    """The bot in docs/referee.md, copied verbatim, plays `kifu play` matches without a penalty or a finding (it
    used to leave the colour of a drawn wild and the UNO call of a drawn card out)."""
    import re

    from kifu.cli import main

    doc = (REPO / "docs" / "referee.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "def act(view" in b)
    (tmp_path / "mybot.py").write_text(code, encoding="utf-8")
    drawn_played = 0
    for seed in (1, 2, 3):
        out = tmp_path / f"m{seed}.jsonl"
        rc = main(["play", "--ruleset", "jua-2016", "--rounds", "5", "--players", "3", "--seed", str(seed),
                   "--bot", f"{tmp_path / 'mybot.py'}:act", "--bots", "greedy,random", "--out", str(out),
                   "--no-progress"])  # fmt: skip
        assert rc in (0, None)
        lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
        assert [d["event"] for d in lines].count("finish-turn") == 5
        assert lines[-1]["event"] == "finish-game"
        drawn_played += sum(1 for d in lines if d["event"] == "play-draw-card" and d["player"] == "P-00000001"
                            and d["contents"]["is_play_card"])  # fmt: skip
        penalties = [d["contents"]["error"] for d in lines if d["event"] == "penalty"]
        assert penalties == [], penalties
        _, found = replay_lines(lines)
        assert found == [], [f"{v.seq} {v.code} {v.message}" for v in found[:5]]
    assert drawn_played > 0  # the drawn-card branch the example used to get wrong was played
