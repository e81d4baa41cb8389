"""Plug-in bots of `kifu play` as separate parties with a clock (docs/referee.md, *Your own bot*).

A contestant's bot runs in its own process: one that hangs gets the ALGORI dealer's timeout penalty
(or stops a JUA match, whose rules have no clock); one that exits, crashes or raises stops the match
with one line naming the bot, the round and the turn, exit status 1 and the log so far kept; its prints
never reach the log. The clock is short here (--bot-timeout-ms) so the tests stay fast.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from referee.algori import AlgoriTable
from referee.bots import builtin
from referee.match import BotTimeout, Seat
from rules.uno.profile import get
from tests.rules.helpers import replay_lines

REPO = Path(__file__).resolve().parents[1]
ALGORI = "algori-2023/skip_bind_2"

#: A well-behaved bot: the first legal action, completed with the UNO call and a wild's colour.
GOOD = """
def act(view):
    if view["phase"] in ("point", "idle"):
        return {"action": "pass"}
    if view["phase"] == "color":
        return {"action": "color", "color": "red"}
    action = dict(view["legal"][0])
    if action["action"] == "play":
        card, left = action["card"], len(view["hand"]) - (2 if action.get("pair") else 1)
    elif action["action"] == "play_drawn" and action["play"]:
        card, left = view["drawn"], len(view["hand"]) - 1
    else:
        return action
    action["yell_uno"] = left == 1 or (left == 0 and "pair" in action)
    if card["color"] == "black":
        action["color"] = "blue"
    return action
"""


def _bot(tmp_path: Path, body: str, name: str = "mybot") -> str:
    """A bot file: ``body`` (run on the bot's turn, before it plays) added to the well-behaved bot."""
    code = GOOD.replace('    action = dict(view["legal"][0])', body + '    action = dict(view["legal"][0])')
    (tmp_path / f"{name}.py").write_text("import os, sys, time\n" + code, encoding="utf-8")
    return f"{tmp_path / name}.py:act"


def _kifu(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "kifu.cli", "play", *args, "--no-progress"], capture_output=True,
                          check=False, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)  # fmt: skip


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in data.splitlines()]


def _reason(r: subprocess.CompletedProcess[bytes]) -> str:
    """The one line `kifu play` says about the run (the bot's own output comes before it, prefixed)."""
    said = [x for x in r.stderr.decode().splitlines() if x.startswith("kifu play:")]
    assert len(said) == 1, r.stderr.decode()
    return said[0]


# ----------------------------------------------------------------------------- out of time


def test_a_bot_out_of_time_gets_the_dealers_timeout_penalty_and_the_match_goes_on(tmp_path: Path) -> None:
    """Too slow once: the ALGORI timeout penalty (2 cards, the turn lost); its late answer is thrown away, and
    it plays on. The log is judged as a dealer's: the only findings say the clock was shorter than 5 s."""
    bot = _bot(tmp_path, "    global slow\n    if globals().setdefault('slow', True) and view['phase'] == 'turn':\n"
                         "        slow = False\n        time.sleep(0.5)\n")  # fmt: skip
    out = tmp_path / "m.jsonl"
    t0 = time.monotonic()
    r = _kifu("--ruleset", ALGORI, "--rounds", "2", "--players", "4", "--bot", bot, "--bots", "greedy",
              "--bot-timeout-ms", "300", "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    assert time.monotonic() - t0 < 30
    lines = _lines(out.read_bytes())
    assert lines[-1]["event"] == "finish-game"
    timeouts = [i for i, d in enumerate(lines, 1) if d["event"] == "penalty" and d["contents"]["error"] == "timeout"]
    assert timeouts and {lines[i - 1]["contents"]["player"] for i in timeouts} == {"P-00000001"}
    assert all(len(lines[i - 1]["contents"]["cards_receive"]) == 2 for i in timeouts)
    assert any(d["event"] == "play-card" and d["player"] == "P-00000001" for d in lines[timeouts[-1]:])  # it plays on
    _, found = replay_lines(lines)
    assert {v.seq for v in found} == set(timeouts)  # nothing but the timeouts themselves …
    assert {v.code for v in found} == {"timeout-early", "penalty-unjustified"}  # … 311 ms < the contest's 5 s


def test_a_bot_that_never_answers_again_is_timed_out_every_turn_and_stopped_at_the_end(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    bot = _bot(tmp_path, f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n    time.sleep(3600)\n")
    out = tmp_path / "m.jsonl"
    t0 = time.monotonic()
    r = _kifu("--ruleset", ALGORI, "--rounds", "1", "--players", "4", "--bot", bot, "--bots", "greedy",
              "--bot-timeout-ms", "100", "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    assert time.monotonic() - t0 < 30
    lines = _lines(out.read_bytes())
    assert lines[-1]["event"] == "finish-game"
    acts = Counter(d["event"] for d in lines if d["player"] == "P-00000001")
    assert set(acts) <= {"join-room", "draw-card"}  # never played: timed out, or drawing what it was made to
    assert sum(1 for d in lines if d["event"] == "penalty" and d["contents"]["error"] == "timeout") >= 2
    with pytest.raises(ProcessLookupError):  # the hung process is ended with the match
        os.kill(int(pid_file.read_text()), 0)


def test_a_silent_bot_under_rules_with_no_clock_stops_the_match(tmp_path: Path) -> None:
    """jua-2016 has no timeout rule: the referee does not make one up, it stops and says so."""
    bot = _bot(tmp_path, "    time.sleep(3600)\n")
    r = _kifu("--ruleset", "jua-2016", "--rounds", "2", "--bot", bot, "--bots", "greedy", "--bot-timeout-ms", "300",
              "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)  # fmt: skip
    assert r.returncode == 1
    reason = _reason(r)
    assert re.fullmatch(r"kifu play: bot of act-1 \(P-00000001\) did not answer within 300 ms \(jua-2016\(rounds=2\) "
                        r"has no timeout rule\) at round 1, turn \d+; the log so far \(\d+ lines\) is in "
                        r".*m\.jsonl\.partial", reason), reason  # fmt: skip
    partial = _lines((tmp_path / "m.jsonl.partial").read_bytes())
    assert partial[0]["event"] == "join-room" and partial[-1]["event"] != "finish-game"
    assert not (tmp_path / "m.jsonl").exists()


def test_the_dealers_timeout_penalty_at_every_question_is_judged_right() -> None:
    """A bot timed out (at the contest's 5 s) on its turns, its drawn cards, its wild-draw-4 challenges and its
    colours: the ALGORI audit finds each timeout the bot's (response-time) and nothing else at all."""

    def silent(seed: int) -> Any:
        rng, honest = random.Random(seed), builtin("stacker", seed)

        def act(view: dict[str, Any]) -> Any:
            if view["phase"] != "turn" or {"action": "challenge"} in view["legal"] or rng.random() < 0.15:
                raise BotTimeout(5000)
            return honest(view)

        return act

    before: Counter[str] = Counter()
    for seed in (1, 2, 3):
        seats = [Seat(f"P-{i + 1:08d}", f"b-{i + 1}", silent(seed) if i == 0 else builtin("stacker", seed * 7 + i))
                 for i in range(4)]  # fmt: skip
        lines = [orjson.loads(x) for x in AlgoriTable(get(ALGORI), seats, seed=seed, rounds=15).lines()]
        _, found = replay_lines(lines)
        timeouts = [i for i, d in enumerate(lines) if d["event"] == "penalty"]
        assert {lines[i]["contents"]["player"] for i in timeouts} == {"P-00000001"}
        before.update(lines[i - 1]["event"] + " / " + lines[i]["contents"]["error"] for i in timeouts)
        assert [(v.code, v.player) for v in found] == [("response-time", "P-00000001")] * len(timeouts), \
            [f"{v.seq} {v.code} {v.message}" for v in found if v.code != "response-time"][:5]  # fmt: skip
        assert lines[-1]["event"] == "finish-game"
    # a turn, a playable drawn card, a colour after a wild shuffle or a first-card wild
    assert {"next-player / timeout", "draw-card / timeout", "color-change-request / color-of-wild timeout"} \
        <= set(before)  # fmt: skip


# ----------------------------------------------------------------------------- exits, crashes, exceptions


@pytest.mark.parametrize(("body", "what"), [
    ("    sys.exit(3)\n", "exited with status 3"),
    ("    os._exit(0)\n", "exited with status 0"),
    ("    os.kill(os.getpid(), 9)\n", r"was killed by signal 9 \(SIGKILL\)"),
])  # fmt: skip
def test_a_bot_that_exits_stops_the_match_named_with_the_log_so_far(tmp_path: Path, body: str, what: str) -> None:
    bot = _bot(tmp_path, "    if view['phase'] == 'turn' and view['turn'] >= 4:\n    " + body)
    out = tmp_path / "m.jsonl.gz"
    r = _kifu("--bot", bot, "--bots", "greedy", "--players", "3", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 1
    reason = _reason(r)
    m = re.fullmatch(rf"kifu play: bot of act-1 \(P-00000001\) {what} at round 1, turn (\d+); the log so far "
                     r"\((\d+) lines\) is in .*m\.jsonl\.gz\.partial", reason)  # fmt: skip
    assert m, reason
    partial = _lines(gzip.decompress((tmp_path / "m.jsonl.gz.partial").read_bytes()))  # a whole gzip stream
    assert len(partial) == int(m.group(2)) and partial[-1]["event"] == "next-player"
    assert partial[-1]["contents"]["next_player"] == "P-00000001"  # up to the question it never answered
    assert not out.exists() and not (tmp_path / "m.jsonl.gz.tmp").exists()


def test_a_bot_that_exits_zero_on_standard_output_is_no_success(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    if view['phase'] == 'turn' and view['turn'] >= 4:\n        os._exit(0)\n")
    r = _kifu("--bot", bot, "--bots", "greedy", "--players", "3", "--out", "-", cwd=tmp_path)
    assert r.returncode == 1
    lines = _lines(r.stdout)  # every line written so far, whole
    assert f"the log so far ({len(lines)} lines) is on standard output" in _reason(r)
    assert lines[-1]["event"] == "next-player"


def test_a_bot_that_raises_shows_its_traceback_and_is_named(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("def think(view):\n    raise ValueError('no idea at ' + view['phase'])\n",
                                        encoding="utf-8")  # fmt: skip
    bot = _bot(tmp_path, "    import helper\n    helper.think(view)\n")  # its own module, next to it
    r = _kifu("--bot", bot, "--bots", "greedy", "--players", "2", "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "[act-1] Traceback (most recent call last):" in err
    assert re.search(r'\[act-1\]   File ".*helper\.py", line 2, in think', err), err
    assert "[act-1] ValueError: no idea at turn" in err
    assert "bot_host" not in err  # the bot's frames, not the referee's
    assert re.fullmatch(r"kifu play: bot of act-1 \(P-00000001\) raised ValueError: no idea at turn at round 1, "
                        r"turn \d+; the log so far \(\d+ lines\) is in .*m\.jsonl\.partial", _reason(r))  # fmt: skip


def test_a_bot_that_raises_after_its_time_was_up_stops_the_match_at_its_next_question(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    time.sleep(0.5)\n    raise RuntimeError('too late anyway')\n")
    out = tmp_path / "m.jsonl"
    r = _kifu("--ruleset", ALGORI, "--rounds", "1", "--players", "4", "--bot", bot, "--bots", "greedy",
              "--bot-timeout-ms", "300", "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert r.returncode == 1
    assert "raised RuntimeError: too late anyway (on the question before, after its time was up)" in _reason(r)
    assert "[act-1] RuntimeError: too late anyway" in r.stderr.decode()
    partial = _lines((tmp_path / "m.jsonl.partial").read_bytes())
    assert {d["contents"]["error"] for d in partial if d["event"] == "penalty"} == {"timeout"}
    r = _kifu("--ruleset", ALGORI, "--rounds", "1", "--players", "4", "--bot", _bot(tmp_path, ""), "--bots", "greedy",
              "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0 and out.exists() and not (tmp_path / "m.jsonl.partial").exists()


@pytest.mark.parametrize(("code", "status", "says"), [
    ("def other(view):\n    return {}\n", 2, "bot '{bot}': {path} has no function 'act'"),
    ("import no_such_module\n", 1,
     "bot '{bot}' cannot be loaded: ModuleNotFoundError: No module named 'no_such_module'"),
    ("import sys\nsys.exit(4)\n", 1, "bot '{bot}' exited with status 4 while loading"),
])  # fmt: skip
def test_a_bot_that_cannot_be_loaded(tmp_path: Path, code: str, status: int, says: str) -> None:
    path = tmp_path / "bad.py"
    path.write_text(code, encoding="utf-8")
    bot = f"{path}:act"
    r = _kifu("--bot", bot, "--players", "2", "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert r.returncode == status
    assert _reason(r) == "kifu play: " + says.format(bot=bot, path=path)
    assert not list(tmp_path.glob("m.jsonl*"))


def test_bot_timeout_must_be_positive(tmp_path: Path) -> None:
    r = _kifu("--bots", "greedy", "--bot-timeout-ms", "0", "--out", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    assert r.returncode == 2 and "--bot-timeout-ms 0" in _reason(r)


# ----------------------------------------------------------------------------- prints, a clean match


def test_a_bot_that_prints_never_reaches_the_log(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "    print('thinking about', view['top'])\n    sys.stdout.write('no newline')\n"
                         "    os.write(1, b'raw bytes on fd 1\\n')\n")  # fmt: skip
    r = _kifu("--bot", bot, "--bots", "greedy", "--players", "3", "--rounds", "1", "--out", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    lines = _lines(r.stdout)  # every line JSON: nothing of the bot's in between
    assert lines[-1]["event"] == "finish-game"
    err = r.stderr.decode()
    assert "[act-1] thinking about {'color'" in err and "[act-1] no newlineraw bytes on fd 1" in err


@pytest.mark.parametrize("ruleset", ["jua-2016", ALGORI])
def test_a_well_behaved_plug_in_bot_plays_a_clean_match(tmp_path: Path, ruleset: str) -> None:
    bot = _bot(tmp_path, "")
    out = tmp_path / "m.jsonl"
    r = _kifu("--ruleset", ruleset, "--rounds", "3", "--players", "4", "--bot", bot, "--bots", "greedy,random,stacker",
              "--out", str(out), cwd=tmp_path)  # fmt: skip  # the profile's clock (5 s): no timeout on a busy machine
    assert r.returncode == 0, r.stderr.decode()
    lines = _lines(out.read_bytes())
    assert [d["event"] for d in lines].count("finish-turn") == 3 and lines[-1]["event"] == "finish-game"
    assert sum(1 for d in lines if d["player"] == "P-00000001" and d["event"] == "play-card") > 5
    assert [d["contents"]["error"] for d in lines if d["event"] == "penalty"] == []
    _, found = replay_lines(lines)
    assert found == [], [f"{v.seq} {v.code} {v.message}" for v in found[:5]]
