"""``kifu dealer``: the ALGORI 2023 dealer's socket.io protocol, played by socket.io 2.x clients.

Every test starts ``kifu dealer`` as a process on a free loopback port and plays against it with
python-socketio 4.x clients (the contest's Python client line) — small bots written here, and the
official demo player run unchanged from ../shared.  The log each match writes is read back
through the rules' replay: no consistency or dealer-judgement finding.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from rules.core import PLAYER_RULE
from tests.rules.helpers import replay_lines

#: Players on a clock of a few hundred ms: run after the others, in one process (`make test`).
pytestmark = pytest.mark.alone

socketio = pytest.importorskip("socketio", reason="python-socketio 4.x client not installed (requirements-dev.txt)")

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO.parent / "shared" / "reference" / "algori-demo-player" / "player_v0.py"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _dealer(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], int, Path]:
    port = _port()
    out = tmp_path / "match.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kifu.cli", "dealer", "--port", str(port), "--db", str(tmp_path / "k.duckdb"),
         "--out", str(out), "--join-wait", "60", *args],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port, out
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("kifu dealer did not listen")


def _lines(out: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in out.read_bytes().splitlines() if x.strip()]


def _findings(out: Path, *, short_clock: bool = False) -> list[Any]:
    """The log's findings other than a player's broken rule: consistency and the dealer's judgements (the rules'
    replay, as a loader runs it).  ``short_clock``: a test dealer's clock shorter than the contest's 5 s, whose
    timeouts the validator rightly calls early — those findings, and only those, are left out."""
    r, found = replay_lines(_lines(out))
    assert r.ruleset.id.startswith("algori-2023")
    return [v for v in found if v.family != PLAYER_RULE and not (
        short_clock and (v.code == "timeout-early" or
                         v.code == "penalty-unjustified" and str(v.actual).startswith("timeout after")))]


def _playable(card: dict[str, Any], top: dict[str, Any]) -> bool:
    if card["color"] in ("black", "white"):
        return True
    if card["color"] == top.get("color"):
        return True
    for key in ("number", "special"):
        if key in card and card.get(key) == top.get(key):
            return True
    return False


class Bot:
    """A python-socketio 4.x client playing the simplest honest game (or misbehaving as told)."""

    def __init__(self, port: int, room: str, name: str, *, silent: bool = False, leave_after: int = 0,
                 cheat: bool = False) -> None:  # fmt: skip
        self.sio = socketio.Client(reconnection=False)
        self.port, self.room, self.name = port, room, name
        self.silent, self.leave_after, self.cheat = silent, leave_after, cheat
        self.code = ""
        self.acks: list[tuple[str, Any, Any]] = []  # every answer: (event, err, data)
        self.got: list[tuple[str, Any]] = []
        self.finished = threading.Event()
        self.turns = 0
        for ev in ("first-player", "receiver-card", "update-color", "shuffle-wild", "play-card", "draw-card",
                   "play-draw-card", "challenge", "public-card", "pointed-not-say-uno", "penalty", "finish-turn"):  # fmt: skip
            self.sio.on(ev, self._record(ev))
        self.sio.on("next-player", self.next_player)
        self.sio.on("color-of-wild", lambda data: self.emit("color-of-wild", {"color_of_wild": "red"}))
        self.sio.on("finish-game", lambda data: (self.got.append(("finish-game", data)), self.finished.set()))

    def _record(self, ev: str) -> Any:
        return lambda data: self.got.append((ev, data))

    def emit(self, event: str, data: Any, then: Any = None) -> None:
        def answered(*args: Any) -> None:
            assert len(args) == 2, f"{event} answered with {len(args)} values"
            self.acks.append((event, *args))
            if then is not None and args[0] is None:
                then(args[1])

        self.sio.emit(event, data, callback=answered)

    def start(self) -> Bot:
        self.sio.connect(f"http://127.0.0.1:{self.port}", transports=["websocket"])
        self.emit("join-room", {"room_name": self.room, "player": self.name},
                  then=lambda data: setattr(self, "code", data["your_id"]))  # fmt: skip
        return self

    def joined(self, timeout: float = 10.0) -> Bot:
        """Waits (up to ``timeout`` s) until the dealer answered its join-room: its code known."""
        deadline = time.monotonic() + timeout
        while not self.code and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def next_player(self, data: dict[str, Any]) -> None:
        self.got.append(("next-player", data))
        self.turns += 1
        if self.silent:
            return
        if self.leave_after and self.turns >= self.leave_after:
            self.sio.disconnect()
            return
        hand, top = data["card_of_player"], data["card_before"]
        if self.cheat and not data["must_call_draw_card"]:  # once: a card it does not hold, and an early UNO pointing
            self.cheat = False
            self.emit("pointed-not-say-uno", {"target": data["before_player"]})
            missing = next({"color": c, "number": n} for c in ("red", "blue") for n in range(1, 10)
                           if {"color": c, "number": n} not in hand)  # fmt: skip
            self.emit("play-card", {"card_play": missing, "yell_uno": False})
            return
        if data["must_call_draw_card"]:
            self.emit("draw-card", {})
            return
        for card in hand:
            if _playable(card, top) and card.get("special") != "wild_draw_4":
                play: dict[str, Any] = {"card_play": card, "yell_uno": len(hand) == 2}
                if card.get("special") == "wild":
                    play["color_of_wild"] = "blue"
                self.emit("play-card", play)
                return
        self.emit("draw-card", {}, then=self.drawn)

    def drawn(self, data: dict[str, Any]) -> None:
        if data.get("can_play_draw_card"):
            card = data["draw_card"][0]
            play = {"is_play_card": card.get("special") != "wild_draw_4", "yell_uno": False}
            if card.get("special") == "wild":
                play["color_of_wild"] = "green"
            self.emit("play-draw-card", play)

    def close(self) -> None:
        try:
            self.sio.disconnect()
        except Exception:  # noqa: BLE001 - the dealer closed it already
            pass


class SpecialBot(Bot):
    """Special logic as the dealer counts it: twelve at its first turn (past the tenth written, not carried out),
    one while the dealer waits for its colour or its drawn card (refused: interrupts are restricted), and —
    with ``stretch`` — three spaced over a turn longer than the clock, each restarting it."""

    def __init__(self, *args: Any, stretch: float = 0.0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.stretch, self.burst, self.probed = stretch, False, False
        self.sio.on("color-of-wild", self.colour)

    def next_player(self, data: dict[str, Any]) -> None:
        if self.stretch and not self.burst:
            self.burst = True

            def later() -> None:  # special logic at 0, 1, 2 × stretch, the action at 2.6 × stretch
                for i in range(3):
                    if i:
                        time.sleep(self.stretch)
                    self.emit("special-logic", {"title": f"wait {i}"})
                time.sleep(self.stretch * 0.6)
                super(SpecialBot, self).next_player(data)

            threading.Thread(target=later, daemon=True).start()
            return
        if not self.burst:
            self.burst = True
            for _ in range(12):  # one title (the contest registers at most three)
                self.emit("special-logic", {"title": "burst"})
        super().next_player(data)

    def colour(self, data: Any) -> None:
        if not self.probed:
            self.probed = True
            self.emit("special-logic", {"title": "while choosing"})
        self.emit("color-of-wild", {"color_of_wild": "red"})

    def drawn(self, data: dict[str, Any]) -> None:
        if data.get("can_play_draw_card") and not self.probed:
            self.probed = True
            self.emit("special-logic", {"title": "while drawn"})
        super().drawn(data)


class Hoarder(Bot):
    """Draws at every turn and never plays; with ``foul``, once at 25 cards it plays a card it does not hold, and at
    its next turn challenges when it may not."""

    def __init__(self, *args: Any, foul: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.fouls = ["play-card", "malformed", "challenge"] if foul else []

    def next_player(self, data: dict[str, Any]) -> None:
        self.got.append(("next-player", data))
        hand = data["card_of_player"]
        if self.fouls and len(hand) == 25 and not data["must_call_draw_card"]:
            foul = self.fouls.pop(0)
            if foul == "challenge":
                self.emit("challenge", {"is_challenge": True})
                return
            if foul == "malformed":
                self.emit("play-card", {"card_play": {"color": "red", "number": "seven"}, "yell_uno": False})
                return
            missing = next({"color": c, "number": n} for c in ("red", "blue", "green", "yellow") for n in range(10)
                           if {"color": c, "number": n} not in hand)  # fmt: skip
            self.emit("play-card", {"card_play": missing, "yell_uno": False})
            return
        self.emit("draw-card", {}, then=self.keep)

    def keep(self, data: dict[str, Any]) -> None:
        if data.get("can_play_draw_card"):
            self.emit("play-draw-card", {"is_play_card": False, "yell_uno": False})


class Meddler(Bot):
    """One socket bot among three built-in ones: special logic at its first turn, and right after an accepted play of
    its own (the turn handed on) one more play, out of turn — until one is answered "Next player invalid." (one
    judged while a built-in bot's drawn card is awaited is answered "Interrupts are restricted.")."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.told_special = False

    @property
    def meddled(self) -> bool:
        return any(e == "play-card" and err == {"message": "Next player invalid."} for e, err, _ in self.acks)

    def next_player(self, data: dict[str, Any]) -> None:
        if not self.told_special:
            self.told_special = True
            self.emit("special-logic", {"title": "meddler"})
        hand = data["card_of_player"]
        if self.meddled or data["must_call_draw_card"] or len(hand) < 4:
            super().next_player(data)
            return
        card = next((c for c in hand if _playable(c, data["card_before"]) and c.get("special") is None), None)
        if card is None:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        again = next(c for c in hand if c is not card)
        self.emit("play-card", {"card_play": card, "yell_uno": False},
                  then=lambda _: self.emit("play-card", {"card_play": again, "yell_uno": False}))


class Stringly(Bot):
    """Answers a drawn playable card with booleans as strings: ``is_play_card: "true"`` (the program's check passes
    it), then ``"yes"`` (refused), then ``yell_uno: "false"`` (passes the check, and is JavaScript-true: a yell with
    more than two cards); past those, as ``Bot``."""

    ANSWERS = [("true", False), ("yes", False), (True, "false")]

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.answers = list(self.ANSWERS)
        self.held = 0

    def next_player(self, data: dict[str, Any]) -> None:
        if not self.answers or data["must_call_draw_card"]:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        self.held = len(data["card_of_player"])
        self.emit("draw-card", {}, then=self.drawn)  # always draw, to be asked about the drawn card

    def drawn(self, data: dict[str, Any]) -> None:
        if not (data.get("can_play_draw_card") and self.answers) or self.held + 1 == 2:
            super().drawn(data)
            return
        play, yell = self.answers.pop(0)
        self.emit("play-draw-card", {"is_play_card": play, "yell_uno": yell, "color_of_wild": "green"})


class _AnsweringHub:
    """A hub whose four players answer inside the send itself: every answer is in the table's inbox before the
    table is back to wait for it (the fastest bot there can be)."""

    def __init__(self) -> None:
        from referee.dealer import Inbox

        self.inbox = Inbox()

    def connected(self) -> list[str]:
        return [f"P-{i:08d}" for i in range(1, 5)]

    def drop(self, code: str) -> None:
        raise AssertionError(f"{code} dropped from a full table")

    def broadcast(self, event: str, data: Any) -> None:
        pass

    def send(self, code: str, event: str, data: Any) -> None:
        from referee.dealer import Message

        def put(ev: str, d: Any, then: Any = None) -> None:
            self.inbox.put(Message(code, ev, d, lambda err, res: then(res) if then and err is None else None))

        def drawn(res: dict[str, Any]) -> None:
            if res.get("can_play_draw_card"):
                card = res["draw_card"][0]
                put("play-draw-card", {"is_play_card": card.get("special") != "wild_draw_4", "yell_uno": False,
                                       "color_of_wild": "red"})  # fmt: skip

        if event == "color-of-wild":
            put("color-of-wild", {"color_of_wild": "green"})
        elif event == "next-player":
            hand, top = data["card_of_player"], data["card_before"]
            card = next((c for c in hand if _playable(c, top) and c.get("special") != "wild_draw_4"), None)
            if data["must_call_draw_card"] or card is None:
                put("draw-card", {}, None if data["must_call_draw_card"] else drawn)
            else:
                put("play-card", {"card_play": card, "yell_uno": len(hand) == 2, "color_of_wild": "blue"})


def test_an_answer_that_comes_before_the_table_waits_for_it_is_the_awaited_action() -> None:
    """A fast bot answers next-player (or a draw, or color-of-wild) before the table thread is back to wait:
    its action is the turn's, never an out-of-turn play."""
    from referee.dealer import DealerTable
    from referee.match import Seat
    from rules.uno.profile import get as get_profile

    hub = _AnsweringHub()
    seats = [Seat(code, code, lambda view: {}) for code in hub.connected()]
    table = DealerTable(get_profile("algori-2023/skip_bind_2"), seats, hub, hub.inbox, timeout_s=5.0,
                        remote=set(hub.connected()), seed=4, rounds=20, dealer="Fast", dealer_code="D-00000001")  # fmt: skip
    events: list[dict[str, Any]] = []

    def sink(line: bytes) -> None:  # the first penalty stops the match
        events.append(orjson.loads(line))
        assert events[-1]["event"] != "penalty", events[-1]["contents"]

    table.play(sink)
    assert [x["event"] for x in events].count("finish-turn") == 20
    _, found = replay_lines(events)
    assert [v for v in found if v.family != PLAYER_RULE] == []


def _finish(proc: subprocess.Popen[str], timeout: float = 240) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"kifu dealer did not finish: {err[-2000:]}") from None
    return proc.returncode, err


def _played(proc: subprocess.Popen[str], *bots: Any, timeout: float = 240, exit_code: int = 0) -> str:
    """Wait for the dealer to end the match (its bots closed whatever happens); its stderr."""
    try:
        code, err = _finish(proc, timeout)
    finally:
        for b in bots:
            b.close()
    assert code == exit_code, err
    return err


def test_a_short_match_between_socketio_bots(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room A", "--rounds", "3", "--seed", "5")
    bots = [Bot(port, "Room A", f"bot {i}").start() for i in range(1, 5)]
    try:
        code, err = _finish(proc)
        assert code == 0, err
        assert all(b.finished.wait(10) for b in bots)
    finally:
        for b in bots:
            b.close()
    assert sorted(b.code for b in bots) == [f"P-{i:08d}" for i in range(1, 5)]
    lines = _lines(out)
    assert lines[0]["dealer_code"].startswith("D-") and len(lines[0]["dealer_code"]) == 10
    # the terminal names the match by its dealer code (the log's) and, at the end, by its database id (the findings')
    code = lines[0]["dealer_code"]
    assert f"match {code} starts: 3 rounds, " in err and "findings name it by its database id" in err, err
    import duckdb

    con = duckdb.connect(str(tmp_path / "k.duckdb"), read_only=True)
    try:
        (match_id,) = con.execute("select match_id from matches").fetchone()
    finally:
        con.close()
    assert f"match {match_id} (dealer code {code}): {len(lines):,} events stored into " in err, err
    assert [x["event"] for x in lines].count("finish-turn") == 3 and lines[-1]["event"] == "finish-game"
    assert _findings(out) == []
    for b in bots:  # every answer is (err, data); the honest bots were never refused
        assert all(err is None for _, err, _ in b.acks), [a for a in b.acks if a[1] is not None]
        first = next(d for e, d in b.got if e == "first-player")
        assert list(first) == ["first_player", "first_card", "play_order", "total_turn", "white_wild"]  # as the program
        assert first["total_turn"] == 3 and first["white_wild"] == "skip_bind_2"
        nxt = next(d for e, d in b.got if e == "next-player")
        assert list(nxt) == ["next_player", "before_player", "card_before", "card_of_player", "must_call_draw_card",
                             "draw_reason", "turn_right", "number_card_play", "number_turn_play",
                             "number_card_of_player"]  # fmt: skip
        # the card counts in the dealer's order, as its log line has them (the demo player points by this order)
        logged = next(x for x in lines if x["event"] == "next-player" and x["contents"]["next_player"] == b.code)
        assert list(nxt["number_card_of_player"]) == list(logged["contents"]["number_card_of_player"])
        assert any(e == "finish-turn" for e, _ in b.got)


def test_a_refused_play_is_written_penalised_and_answered(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room F", "--rounds", "1", "--fill", "greedy", "greedy", "greedy")
    bot = Bot(port, "Room F", "cheat", cheat=True).start()
    _played(proc, bot)
    lines = _lines(out)
    i = next(i for i, x in enumerate(lines) if x["event"] == "penalty" and x["contents"]["player"] == bot.code
             and x["contents"]["error"] == "Card play not exist of player.")  # fmt: skip
    assert lines[i - 1]["event"] == "play-card" and lines[i - 1]["player"] == bot.code
    assert ("play-card", {"message": "Card play not exist of player."}, None) in bot.acks
    # its pointing at the player before it, judged with three built-in bots at the table (not "fewer than two
    # players"): answered with the specification's error, and penalised when that player held more than one card
    pointing = next((e, err) for e, err, _ in bot.acks if e == "pointed-not-say-uno")
    assert pointing[1] is None or pointing[1]["message"] in ("Can not pointed not say uno.", "Out of target."), pointing
    if pointing[1] is not None and pointing[1]["message"] == "Can not pointed not say uno.":
        j = next(j for j, x in enumerate(lines) if x["event"] == "pointed-not-say-uno" and x["player"] == bot.code)
        assert lines[j + 1]["event"] == "penalty" and lines[j + 1]["contents"]["error"] == "Can not pointed not say uno."
    assert not any(err and "lower two" in err["message"] for _, err, _ in bot.acks), bot.acks
    assert _findings(out) == []


@pytest.mark.parametrize("white_wild", ["bind_2", "skip_bind_2", "none"])
def test_each_white_wild_setting_is_told_as_the_program_tells_it(tmp_path: Path, white_wild: str) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room V", "--rounds", "2", "--seed", "4", "--white-wild", white_wild,
                              "--fill", "greedy", "stacker", "random")  # fmt: skip
    bot = Bot(port, "Room V", "variant").start()
    _played(proc, bot)
    joined = next(d for e, _, d in bot.acks if e == "join-room")
    first = next(d for e, d in bot.got if e == "first-player")
    keys = ["room_name", "player", "game_id", "your_id", "total_turn"]
    if white_wild == "none":  # the program's field is undefined then: absent from the payloads, and the log
        assert list(joined) == keys and "white_wild" not in first
        assert "white_wild" not in _lines(out)[4]["contents"]
    else:
        assert list(joined) == [*keys, "white_wild"] and joined["white_wild"] == first["white_wild"] == white_wild
    r, _ = replay_lines(_lines(out))
    assert r.ruleset.id == {"none": "algori-2023/no-white-wild"}.get(white_wild, f"algori-2023/{white_wild}")
    assert _findings(out) == []


def test_special_logic_is_written_counted_to_ten_and_refused_while_interrupts_are_restricted(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room S", "--rounds", "4", "--seed", "3",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = SpecialBot(port, "Room S", "special").start()
    _played(proc, bot)
    lines = _lines(out)
    titles = [x["contents"]["title"] for x in lines if x["event"] == "special-logic"]
    assert titles[:12] == ["burst"] * 12  # the eleventh and twelfth written too
    answers = [(err, data) for e, err, data in bot.acks if e == "special-logic"]
    assert answers[:12] == [(None, {"title": "burst"})] * 12  # each answered with its data
    assert bot.probed, "the bot never had to choose a colour or play a drawn card in 4 rounds (seed 3)"
    assert answers[12][0] == {"message": "Interrupts are restricted."} and "while" not in " ".join(titles)
    r, found = replay_lines(lines)
    mine = [v for v in found if v.player == bot.code]
    assert [v.code for v in mine] == ["special-logic-limit"] * 2, mine  # the eleventh and the twelfth, only
    assert "#11 " in mine[0].message and "#12 " in mine[1].message, mine
    assert _findings(out) == []


def test_special_logic_restarts_the_clock_of_the_player_waited_for(tmp_path: Path) -> None:
    """The bot answers its first turn 2.6 × 1.5 s after it was told, sending special logic at 0, 1.5 and 3 s: with
    a 2-second clock restarted by each, no timeout."""
    proc, port, out = _dealer(tmp_path, "--room", "Room T", "--rounds", "1", "--timeout-ms", "2000",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = SpecialBot(port, "Room T", "slow", stretch=1.5).start()
    _played(proc, bot)
    lines = _lines(out)
    assert not [x for x in lines if x["event"] == "penalty"], [x["contents"] for x in lines if x["event"] == "penalty"]
    i = next(i for i, x in enumerate(lines) if x["event"] == "next-player" and x["contents"]["next_player"] == bot.code)
    acted = next(x for x in lines[i + 1:] if x["player"] == bot.code and x["event"] != "special-logic")
    assert acted["dateCreated"] - lines[i]["dateCreated"] >= 3500  # longer than the clock, not timed out


def test_a_foul_at_25_cards_is_refused_with_no_penalty_line_and_the_turn_lost(tmp_path: Path) -> None:
    """As the official dealer (``handlePenalty``: no card to give, no line): a card it does not hold, played at 25
    cards, is written and refused without a penalty line; a challenge it may not make is refused without any line;
    each time the turn goes to the next player, and the log replays with no consistency or dealer finding."""
    proc, port, out = _dealer(tmp_path, "--room", "Room H", "--rounds", "1", "--seed", "2")
    bots = [Hoarder(port, "Room H", "fouls", foul=True).start()] + \
        [Hoarder(port, "Room H", f"hoarder {i}").start() for i in range(3)]  # fmt: skip
    _played(proc, *bots, timeout=120)
    foul = bots[0]
    assert not foul.fouls, "never reached 25 cards"
    assert ("play-card", {"message": "Card play not exist of player."}, None) in foul.acks
    assert ("challenge", {"message": "Can not challenge."}, None) in foul.acks
    assert any(e == "play-card" and err and err["message"] != "Card play not exist of player." for e, err, _ in foul.acks)
    lines = _lines(out)  # no penalty line for it at all: none for the fouls, and no timeout (each foul passed the turn)
    assert not [x for x in lines if x["event"] == "penalty" and x["contents"]["player"] == foul.code]
    i = next(i for i, x in enumerate(lines) if x["event"] == "play-card" and x["player"] == foul.code)
    assert lines[i + 1]["event"] == "next-player" and lines[i + 1]["contents"]["next_player"] != foul.code
    # the log is the official dealer's at 25 cards, and the validator says what it says of that dealer's logs: the
    # refusal without a penalty line (info), and the turn handed on with no line saying why (the challenge's)
    found = _findings(out)
    assert [v.code for v in found if v.code != "penalty-cap-silent"] == ["event-sequence"], found
    assert sum(v.code == "penalty-cap-silent" for v in found) in (1, 2), found
    assert found[0].severity == "info" and "25 cards" in found[0].message, found[0]


def test_the_match_is_stored_and_its_findings_told_while_it_is_played(tmp_path: Path) -> None:
    """At the official pace the match lasts seconds: the cheat's finding is printed while it goes on (before the
    log's last line), only that player's findings are told, the database holds the match, --fail-on exits 1."""
    proc, port, out = _dealer(tmp_path, "--room", "Room L", "--rounds", "3", "--pace", "official",
                              "--fill", "greedy", "greedy", "greedy", "--player", "cheat", "--fail-on", "error")  # fmt: skip
    told: list[tuple[str, bool]] = []  # (finding line, the log had ended when it was read)

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            told.append((line, b'"finish-game"' in out.read_bytes()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    bot = Bot(port, "Room L", "cheat", cheat=True).start()
    try:
        code = proc.wait(240)  # stdout is the reader's; stderr holds a few lines
    finally:
        bot.close()
        if proc.poll() is None:
            proc.kill()
    reader.join(10)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert code == 1, err
    assert "--fail-on error" in err and "exit 1" in err
    assert told and all(f"{bot.code} (cheat)" in line for line, _ in told), told  # --player: the cheat's only
    first, ended = told[0]
    assert " error " in first and not ended, told
    import duckdb

    con = duckdb.connect(str(tmp_path / "k.duckdb"), read_only=True)
    try:
        stored = con.execute("select count(*) from events").fetchall()[0][0]
        found = con.execute("select count(*) from violations where player = ?", [bot.code]).fetchall()[0][0]
    finally:
        con.close()
    assert stored == len(_lines(out)) and found >= 1
    # at the end, the findings told counted per player and check: one line, the cheat's (--player), as many as told
    summary = [x for x in err.splitlines() if "findings by check:" in x]
    assert len(summary) == 1 and summary[0].startswith(f"kifu dealer: findings by check: {bot.code} (cheat): "), err
    counts = re.findall(r"([a-z0-9-]+) ×(\d+)", summary[0])
    assert counts and sum(int(n) for _, n in counts) == len(told), (summary, told)
    assert {c for c, _ in counts} == {re.search(r" (?:error|warning|info)  ([a-z0-9-]+):", x)[1] for x, _ in told}


def test_a_database_another_watcher_writes_is_refused_before_the_match(tmp_path: Path) -> None:
    from queries import sharing

    with sharing.watching(tmp_path / "k.duckdb"):
        r = subprocess.run([sys.executable, "-m", "kifu.cli", "dealer", "--port", str(_port()), "--room", "Room W",
                            "--rounds", "1", "--fill", "greedy", "greedy", "greedy", "greedy",
                            "--db", str(tmp_path / "k.duckdb"), "--out", str(tmp_path / "match.jsonl")],
                           cwd=REPO, capture_output=True, text=True, timeout=60)  # fmt: skip
        left = _beside(tmp_path)  # the other watcher's files are its own: left; the dealer's empty log: gone
    assert r.returncode == 1 and "another kifu watch" in r.stderr and "not stored" in r.stderr, r.stderr
    assert "starts" not in r.stderr
    assert left == ["k.duckdb.watch", "k.duckdb.watch.gate", "k.duckdb.watch.want"], left


def test_join_errors_only_answer(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room B", "--rounds", "1", "--fill", "greedy", "greedy", "random")
    wrong = Bot(port, "Other room", "lost")
    wrong.sio.connect(f"http://127.0.0.1:{port}", transports=["websocket"])
    wrong.emit("join-room", {"room_name": "Other room", "player": "lost"})
    long = Bot(port, "Room B", "x" * 21)
    long.sio.connect(f"http://127.0.0.1:{port}", transports=["websocket"])
    long.emit("join-room", {"room_name": "Room B", "player": "x" * 21})
    time.sleep(1)
    assert wrong.acks == [("join-room", {"message": "Dealer not found."}, None)]
    assert long.acks == [("join-room", {"message": "Player name too long."}, None)]
    bot = Bot(port, "Room B", "solo").start()
    err = _played(proc, wrong, long, bot)
    assert _findings(out) == []
    # the dealer's side: one line per refusal, saying which room was asked for and which is this one
    assert err.count("a join was refused") == 2, err
    assert "a join was refused: room 'Other room', player 'lost' (this dealer's room is 'Room B') — Dealer not found." \
        in err, err  # fmt: skip
    assert f"a join was refused: room 'Room B', player '{'x' * 21}' (this dealer's room is 'Room B') — Player name " \
        "too long." in err, err  # fmt: skip


def test_a_bot_that_never_answers_is_penalised_on_the_clock(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room C", "--rounds", "1", "--timeout-ms", "300",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = Bot(port, "Room C", "sleeper", silent=True).start()
    err = _played(proc, bot)
    lines = _lines(out)
    timeouts = [x for x in lines if x["event"] == "penalty" and x["contents"]["error"] == "timeout"]
    assert timeouts and all(x["contents"]["player"] == bot.code for x in timeouts)
    assert any(e == "penalty" and d["error"] == "timeout" for e, d in bot.got)
    assert _findings(out, short_clock=True) == []
    # at the fast pace (the default) the terminal hints at --pace official, once however many timeouts
    hint = f"{bot.code} (sleeper) did not act within 0.3 s; if your bot's handlers rely on the kit's timing, try " \
        "--pace official (docs/dealer.md)"  # fmt: skip
    assert len(timeouts) > 1 and err.count("did not act within") == 1 and hint in err, err
    assert "starts: 1 round, " in err and "complete: 1 round, " in err and "1 rounds" not in err, err


def test_a_bot_that_leaves_mid_match(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room D", "--rounds", "2", "--timeout-ms", "300",
                              "--fill", "greedy", "random")  # fmt: skip
    stays = Bot(port, "Room D", "stays").start()
    leaves = Bot(port, "Room D", "leaves", leave_after=2).start()
    _played(proc, stays, leaves)
    lines = _lines(out)
    gone = [x for x in lines if x["event"] == "disconnect"]
    assert [x["player"] for x in gone] == [leaves.code] and "turn" not in gone[0] and "desk" not in gone[0]
    assert any(x["event"] == "penalty" and x["contents"]["player"] == leaves.code for x in lines)
    assert stays.finished.is_set()
    assert _findings(out, short_clock=True) == []


def test_a_player_that_left_joins_again_under_its_name_and_plays_on(tmp_path: Path) -> None:
    """As at the kit: a seated player whose socket left joins again under its name and gets its seat (a join-room
    line mid-match); a new name mid-match is refused, the table is full; the seated name with its socket there is a
    duplicate."""
    proc, port, out = _dealer(tmp_path, "--room", "Room R", "--rounds", "3", "--timeout-ms", "3000",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    first = Bot(port, "Room R", "comeback", leave_after=2).start()
    deadline = time.monotonic() + 60
    while first.sio.connected and time.monotonic() < deadline:
        time.sleep(0.05)
    again = Bot(port, "Room R", "comeback").start()
    stranger = Bot(port, "Room R", "stranger")
    stranger.sio.connect(f"http://127.0.0.1:{port}", transports=["websocket"])
    stranger.emit("join-room", {"room_name": "Room R", "player": "stranger"})
    twin = Bot(port, "Room R", "comeback")
    twin.sio.connect(f"http://127.0.0.1:{port}", transports=["websocket"])
    twin.emit("join-room", {"room_name": "Room R", "player": "comeback"})
    _played(proc, first, again, stranger, twin)
    assert again.code == first.code and again.finished.is_set() and again.turns > 0
    assert stranger.acks == [("join-room", {"message": "Dealer max player. You can not join room."}, None)]
    assert twin.acks == [("join-room", {"message": "Player name duplicate."}, None)]
    lines = _lines(out)
    rejoined = [i for i, x in enumerate(lines) if x["event"] == "join-room" and x["player"] == first.code]
    assert len(rejoined) == 2 and rejoined[1] > next(i for i, x in enumerate(lines) if x["event"] == "disconnect")
    assert _findings(out, short_clock=True) == []


def test_everyone_leaving_stops_the_dealer_with_a_reason(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room E", "--rounds", "50", "--fill", "greedy", "greedy", "greedy")
    bot = Bot(port, "Room E", "quitter", leave_after=1).start()
    err = _played(proc, bot, timeout=60, exit_code=1)
    assert "every player left" in err and err.strip().count("\n") < 6


def test_the_last_player_at_the_table_is_answered_fewer_than_two_and_let_go(tmp_path: Path) -> None:
    """Three of four socket players leave: the dealer answers the one left as the official dealer does (fewer
    than two players at the table) and closes its socket; the match stops with the reason."""
    proc, port, out = _dealer(tmp_path, "--room", "Room G", "--rounds", "50")
    stays = Bot(port, "Room G", "stays").start()
    quitters = [Bot(port, "Room G", f"quitter {i}", leave_after=1).start() for i in range(3)]
    err = _played(proc, stays, *quitters, timeout=60, exit_code=1)
    assert "every player left" in err, err
    assert any(e != "join-room" and err is not None and err["message"] == "Number of socket client join dealer lower two."
               for e, err, _ in stays.acks), stays.acks  # fmt: skip
    assert [x["player"] for x in _lines(out) if x["event"] == "disconnect"][-1] == stays.code  # let go by the dealer


class UnknownEventBot(Bot):
    """Sends, at each of its first two turns, an event the 2023 dealer does not know (the 2022 protocol's) with a
    two-value callback, as 2022 bots do; then plays its turn."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.called: list[tuple[Any, ...]] = []  # every call of the unknown event's callback

    def next_player(self, data: dict[str, Any]) -> None:
        if self.turns < 2:
            self.sio.emit("say-uno-and-play-card", {"card_play": data["card_of_player"][0]},
                          callback=lambda *a: self.called.append(a))  # fmt: skip
        super().next_player(data)


def test_an_event_the_dealer_does_not_know_is_not_acknowledged_and_told_once(tmp_path: Path) -> None:
    """The official dealer's socket.io server never answers an event it has no handler for (python-socketio 4.x
    would answer it with no values, failing the bot's ``(err, res)`` callback): the callback is never called, the
    match goes on, and the dealer's terminal says so once for that player and event."""
    proc, port, out = _dealer(tmp_path, "--room", "Room U", "--rounds", "2", "--seed", "6",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = UnknownEventBot(port, "Room U", "bot of 2022").start()
    err = _played(proc, bot)
    assert bot.finished.is_set() and bot.turns >= 2 and bot.called == [], bot.called
    assert all(err is None for _, err, _ in bot.acks), bot.acks  # its other messages answered as ever
    note = f"{bot.code} (bot of 2022) sent 'say-uno-and-play-card', which the 2023 dealer does not know (a 2022 " \
        "event?) — ignored, as the official dealer ignores it"  # fmt: skip
    assert err.count("which the 2023 dealer does not know") == 1 and note in err, err
    assert not [x for x in _lines(out) if x["event"] == "say-uno-and-play-card"]
    assert _findings(out) == []


def test_a_newer_socketio_client_and_the_kits_admin_routes_are_told_what_to_do(tmp_path: Path) -> None:
    """A client on a newer Socket.IO protocol (EIO=4: python-socketio 5.x, socket.io-client 3/4) gets a 400 saying
    what to pin (by long-polling; a websocket handshake is refused); any /api/ path (the kit's admin REST routes) a
    JSON 404 saying there is no admin API; the dealer's terminal says each once (per address, per route)."""
    import urllib.error
    import urllib.request

    proc, port, out = _dealer(tmp_path, "--room", "Room N", "--rounds", "1", "--fill", "greedy", "greedy", "greedy")
    base = f"http://127.0.0.1:{port}"
    answers = []
    for method, path, body in [("GET", "/socket.io/?EIO=4&transport=polling&t=1", None),
                               ("GET", "/socket.io/?EIO=4&transport=polling&t=2", None),
                               ("POST", "/api/v1/admin/dealer", b'{"name": "Dealer 1", "totalTurn": 1000}'),
                               ("POST", "/api/v1/admin/dealer", b"{}"),
                               ("GET", "/api/v1/admin/web/log/download/D-00000001", None)]:  # fmt: skip
        req = urllib.request.Request(base + path, data=body, method=method,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        answers.append((e.value.code, e.value.headers["Content-Type"], orjson.loads(e.value.read())))
    websockets = pytest.importorskip("websockets.sync.client")
    with pytest.raises(Exception) as refused:  # the handshake refused, as python-engineio refuses it
        websockets.connect(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", open_timeout=30)
    bot = Bot(port, "Room N", "pinned").start()  # a socket.io 2 client is served as ever
    err = _played(proc, bot)
    newer = answers[0][2]
    assert answers[0][:2] == answers[1][:2] == (400, "application/json") and isinstance(newer, str), answers
    assert "newer Socket.IO protocol (EIO=4)" in newer and "pin python-socketio 4.x / socket.io-client 2.x" in newer
    response = getattr(refused.value, "response", None)
    assert response is not None and response.status_code == 403, refused.value
    for code, kind, doc in answers[2:]:
        assert (code, kind) == (404, "application/json") and "kifu dealer has no admin API" in doc["error"]["message"]
    assert answers[2][2]["error"]["route"] == "POST /api/v1/admin/dealer"
    assert err.count("newer Socket.IO protocol") == 1 and f"{newer} (from 127.0.0.1)" in err, err
    assert err.count("POST /api/v1/admin/dealer: answered 404") == 1, err
    assert "GET /api/v1/admin/web/log/download/D-00000001: answered 404 — kifu dealer has no admin API" in err, err
    assert "unsupported version" not in err and "ERROR" not in err, err  # nor python-engineio's line, nor uvicorn's
    assert bot.finished.is_set()


def test_a_player_that_joined_and_left_before_the_match_is_said_so(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room J", "--rounds", "1", "--join-wait", "10")
    bot = Bot(port, "Room J", "early").start().joined()
    assert bot.code, "the join was not answered"
    bot.close()
    err = _played(proc, timeout=60, exit_code=1)
    assert "only 0 of 4 players joined in 10 s (1 joined and left)" in err, err


@pytest.mark.skipif(not DEMO.exists(), reason=f"the official demo player is not at {DEMO} (../shared is absent)")
def test_twenty_rounds_with_four_unchanged_official_demo_players(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Dealer 1", "--rounds", "20", "--seed", "3")
    players = [subprocess.Popen([sys.executable, str(DEMO), f"http://127.0.0.1:{port}", "Dealer 1", f"Player {i}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for i in range(1, 5)]  # fmt: skip
    try:
        code, err = _finish(proc, 300)
        assert code == 0, err
        for p in players:
            assert p.wait(30) == 0, p.communicate()[1][-2000:]
    finally:
        for p in players:
            if p.poll() is None:
                p.kill()
    lines = _lines(out)
    assert [x["event"] for x in lines].count("finish-turn") == 20
    assert _findings(out) == []
    # and ingested as it was written: `kifu validate` reads it from the database
    text = subprocess.run([sys.executable, "-m", "kifu.cli", "validate", "--db", str(tmp_path / "k.duckdb")],
                          cwd=REPO, capture_output=True, text=True).stdout  # fmt: skip
    assert "Dealer 1" in text and "20 rounds" in text


class _NoSockets:  # a hub for a table of built-in bots only
    def send(self, code: str, event: str, data: Any) -> None: ...
    def broadcast(self, event: str, data: Any) -> None: ...
    def connected(self) -> list[str]:
        return []

    def drop(self, code: str) -> None: ...


@pytest.mark.parametrize("pace", ["fast", "official"])
def test_the_official_pace_waits_10_ms_three_times_per_card_played(pace: str) -> None:
    from referee import bots
    from referee.dealer import PACE_S, DealerTable, Inbox
    from referee.match import Seat
    from rules.uno.profile import get as get_profile

    seats = [Seat(f"P-{i:08d}", f"greedy-{i}", bots.builtin("greedy", i)) for i in range(1, 5)]
    table = DealerTable(get_profile("algori-2023/skip_bind_2"), seats, _NoSockets(), Inbox(), remote=set(),
                        pace_s=PACE_S if pace == "official" else 0.0, seed=7, rounds=1, dealer="Pace",
                        dealer_code="D-00000001")  # fmt: skip
    lines: list[bytes] = []
    t0 = time.monotonic()
    table.play(lines.append)
    took = time.monotonic() - t0
    played = sum(orjson.loads(x)["event"] in ("play-card", "play-draw-card") for x in lines)
    assert played > 5
    if pace == "official":  # the message, the play-card line, the next-player line: three waits at least
        assert took >= 3 * PACE_S * played
    else:
        assert took < 3 * PACE_S * played


def _stored_findings(db: Path) -> list[tuple[str, str, str]]:
    """(player, code, family) of every finding `kifu dealer` stored in ``db`` while it played (what `kifu validate`
    reports from)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return [tuple(r) for r in con.execute("select player, code, family from violations").fetchall()]
    finally:
        con.close()


def test_one_socket_bot_with_three_fill_bots_is_judged_not_told_fewer_than_two(tmp_path: Path) -> None:
    """The setup the docs suggest (one bot, ``--fill`` three): a filled seat is a player at the table, so the
    bot's special logic and its out-of-turn play are judged — written, answered, the play penalised — never
    answered "Number of socket client join dealer lower two.".  The stored findings: none of consistency or of the
    dealer's judgement, and the bot's fault (out of turn) found."""
    proc, port, out = _dealer(tmp_path, "--room", "Room M", "--rounds", "2", "--seed", "6", "--pace", "official",
                              "--fill", "greedy", "random", "stacker")  # fmt: skip
    bot = Meddler(port, "Room M", "meddler").start()
    _played(proc, bot)
    assert bot.meddled, "the bot never had a plain card to play with four cards or more"
    assert not any(err and "lower two" in err.get("message", "") for _, err, _ in bot.acks), bot.acks
    assert ("special-logic", None, {"title": "meddler"}) in bot.acks
    plays = [(err, data) for e, err, data in bot.acks if e == "play-card"]
    assert ({"message": "Next player invalid."}, None) in plays, plays
    lines = _lines(out)
    assert any(x["event"] == "special-logic" and x["player"] == bot.code and x["contents"]["title"] == "meddler"
               for x in lines)  # fmt: skip
    i = next(i for i, x in enumerate(lines) if x["event"] == "penalty" and x["contents"]["player"] == bot.code
             and x["contents"]["error"] == "Next player invalid.")  # fmt: skip
    assert lines[i - 1]["event"] == "play-card" and lines[i - 1]["player"] == bot.code  # written, then penalised
    assert any(e == "penalty" and d["player"] == bot.code for e, d in bot.got)  # and told
    assert _findings(out) == []
    stored = _stored_findings(tmp_path / "k.duckdb")
    assert [f for f in stored if f[2] != PLAYER_RULE] == [], stored
    assert (bot.code, "turn-owner", PLAYER_RULE) in stored, stored
    report = subprocess.run([sys.executable, "-m", "kifu.cli", "validate", "--db", str(tmp_path / "k.duckdb"),
                             "--player", bot.code, "--format", "json"],
                            cwd=REPO, capture_output=True, text=True, timeout=120).stdout  # fmt: skip
    assert "turn-owner" in report and "Next player invalid." in report, report[:2000]


def test_an_action_before_the_match_starts_is_answered_as_the_program_answers_it(tmp_path: Path) -> None:
    """Before the match: alone at the table, "lower two" and the socket closed; with another player there, the
    program's handler fails on the game state it has not made yet and answers that error as JSON — an empty
    object, no data; nothing is written."""
    proc, port, out = _dealer(tmp_path, "--room", "Room P", "--rounds", "1", "--fill", "greedy", "greedy")
    first = Bot(port, "Room P", "first").start().joined()
    deadline = time.monotonic() + 10
    first.emit("play-card", {"card_play": {"color": "red", "number": 1}, "yell_uno": False})
    first.emit("special-logic", {"title": "early"})
    while len(first.acks) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first.acks[1:] == [("play-card", {}, None), ("special-logic", {}, None)], first.acks
    _played(proc, first, Bot(port, "Room P", "second").start())
    assert not any(x["event"] in ("play-card", "special-logic") and x.get("contents", {}).get("title") == "early"
                   for x in _lines(out))  # fmt: skip
    assert _findings(out) == []


def test_an_action_before_the_match_alone_at_the_table_is_told_lower_two_and_let_go(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room Q", "--rounds", "1", "--join-wait", "3")
    alone = Bot(port, "Room Q", "alone").start().joined()
    deadline = time.monotonic() + 10
    alone.emit("draw-card", {})
    while alone.sio.connected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ("draw-card", {"message": "Number of socket client join dealer lower two."}, None) in alone.acks
    assert not alone.sio.connected  # closed by the dealer
    _played(proc, alone, timeout=60, exit_code=1)


def test_boolean_strings_pass_the_program_s_check_and_others_are_penalised(tmp_path: Path) -> None:
    """As the program checks ``is_play_card`` and ``yell_uno`` (``String(v)`` is "true" or "false"): the string
    "true" is accepted, "yes" is penalised "Param is play card invalie.", and the string "false" passes the check
    but is JavaScript-true — a yell with more than two cards, "Can not say uno and play card."; each refusal
    written, then the penalty."""
    proc, port, out = _dealer(tmp_path, "--room", "Room K", "--rounds", "4", "--seed", "8",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = Stringly(port, "Room K", "stringly").start()
    _played(proc, bot)
    assert not bot.answers, "the bot drew no playable card three times in 4 rounds (seed 8)"
    answers = [(err, data) for e, err, data in bot.acks if e == "play-draw-card"][:3]
    assert answers == [(None, {"is_play_card": "true", "yell_uno": False, "color_of_wild": "green"}),
                       ({"message": "Param is play card invalie."}, None),
                       ({"message": "Can not say uno and play card."}, None)], answers  # fmt: skip
    lines = _lines(out)
    mine = [i for i, x in enumerate(lines) if x["event"] == "play-draw-card" and x["player"] == bot.code][:3]
    assert [(lines[i]["contents"]["is_play_card"], lines[i]["contents"]["yell_uno"]) for i in mine] == \
        [("true", False), ("yes", False), (True, "false")]  # written as sent
    assert "card_play" in lines[mine[0]]["contents"] and lines[mine[0] + 1]["event"] != "penalty"
    assert [lines[i + 1]["contents"].get("error") for i in mine[1:]] == \
        ["Param is play card invalie.", "Can not say uno and play card."]  # fmt: skip
    assert _findings(out) == []


class Undecided(Bot):
    """Never answers color-of-wild (its colour times out); plays its wilds with a colour."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.sio.on("color-of-wild", lambda data: self.got.append(("color-of-wild", data)))


def test_update_color_follows_each_colour_written_by_a_play_or_an_answer_never_a_timeout(tmp_path: Path) -> None:
    """The program broadcasts update-color after every wild and wild draw 4 played (play-card, play-draw-card) and
    after an accepted color-of-wild, never after a color-of-wild timeout: one update-color per color-of-wild line,
    each with that line's colour."""
    proc, port, out = _dealer(tmp_path, "--room", "Room U", "--rounds", "6", "--seed", "2", "--timeout-ms", "400",
                              "--fill", "greedy", "random", "stacker")  # fmt: skip
    bot = Undecided(port, "Room U", "undecided").start()
    _played(proc, bot)
    lines = _lines(out)
    colours = [x["contents"]["color_of_wild"] for x in lines if x["event"] == "color-of-wild"]
    told = [d["color"] for e, d in bot.got if e == "update-color"]
    assert told == colours and told, (told, colours)
    timed_out = [x for x in lines if x["event"] == "penalty" and x["contents"]["error"] == "color-of-wild timeout"]
    assert timed_out or not any(e == "color-of-wild" for e, _ in bot.got), "asked a colour, never timed out"
    assert _findings(out, short_clock=True) == []


class Obstinate(Bot):
    """The first time it must draw, it plays a card instead (once)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.refused = False

    def next_player(self, data: dict[str, Any]) -> None:
        if self.refused or not data["must_call_draw_card"]:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        self.refused = True
        self.emit("play-card", {"card_play": data["card_of_player"][0], "yell_uno": False})


def test_a_play_while_a_draw_is_owed_is_penalised_then_the_owed_draw_is_made(tmp_path: Path) -> None:
    """As the program's ``handlePenalty`` → ``skipPlayer`` → ``handleDrawCard``: the play is written, penalised
    "Can not play card.", and the owed cards are then drawn (a draw-card line, the player told with a
    receiver-card that is not a penalty's) before the turn is handed on."""
    proc, port, out = _dealer(tmp_path, "--room", "Room O", "--rounds", "4", "--seed", "5",
                              "--fill", "stacker", "stacker", "stacker")  # fmt: skip
    bot = Obstinate(port, "Room O", "obstinate").start()
    _played(proc, bot)
    assert bot.refused, "never had to draw in 4 rounds (seed 5)"
    assert ("play-card", {"message": "Can not play card."}, None) in bot.acks
    lines = _lines(out)
    i = next(i for i, x in enumerate(lines)
             if x["event"] == "penalty" and x["contents"]["error"] == "Can not play card.")  # fmt: skip
    assert lines[i - 1]["event"] == "play-card" and lines[i - 1]["player"] == bot.code
    drawn = lines[i + 1]
    assert drawn["event"] == "draw-card" and drawn["player"] == bot.code and drawn["contents"]["is_draw"]
    assert drawn["contents"]["draw_reason"] != "nothing" and len(drawn["contents"]["card_draw"]) >= 1
    assert lines[i + 2]["event"] in ("next-player", "finish-turn")
    received = [d for e, d in bot.got if e == "receiver-card"]
    j = next(k for k, d in enumerate(received) if d["is_penalty"])
    assert received[j + 1] == {"cards_receive": drawn["contents"]["card_draw"], "is_penalty": False}
    assert _findings(out) == []


def test_a_drawn_wild_s_colour_line_comes_after_the_next_player_as_the_program_writes_it() -> None:
    """The program's play-draw-card handler hands the turn over before it writes a drawn wild's colour (and
    broadcasts update-color); play-card writes the colour first.  The validator reads both orders."""
    from referee import bots
    from referee.dealer import DealerTable, Inbox
    from referee.match import Seat
    from rules.uno.profile import get as get_profile

    seats = [Seat(f"P-{i:08d}", f"{k}-{i}", bots.builtin(k, i))
             for i, k in zip(range(1, 5), ["greedy", "random", "stacker", "greedy"])]  # fmt: skip
    table = DealerTable(get_profile("algori-2023/skip_bind_2"), seats, _NoSockets(), Inbox(), remote=set(), seed=1,
                        rounds=10, dealer="Order", dealer_code="D-00000001")  # fmt: skip
    lines: list[bytes] = []
    table.play(lines.append)
    ev = [orjson.loads(x) for x in lines]
    wild = ("wild", "wild_draw_4")
    drawn = [i for i, x in enumerate(ev) if x["event"] == "play-draw-card" and x["contents"].get("is_play_card")
             and (x["contents"].get("card_play") or {}).get("special") in wild]  # fmt: skip
    played = [i for i, x in enumerate(ev) if x["event"] == "play-card"
              and (x["contents"].get("card_play") or {}).get("special") in wild]  # fmt: skip
    assert drawn and played
    for i in drawn:
        assert [ev[i + 1]["event"], ev[i + 2]["event"]] == ["next-player", "color-of-wild"], ev[i:i + 3]
        assert ev[i + 2]["contents"]["number_turn_play"] == ev[i]["contents"]["number_turn_play"]
    for i in played:
        assert ev[i + 1]["event"] == "color-of-wild"
    _, found = replay_lines(ev)
    assert [v for v in found if v.family != PLAYER_RULE] == []


class Forgetful(Bot):
    """Once, at two cards, plays without yelling UNO and at once points at itself (the program does not forbid a
    self-pointing)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.forgot = False

    def next_player(self, data: dict[str, Any]) -> None:
        hand, top = data["card_of_player"], data["card_before"]
        card = next((c for c in hand if _playable(c, top) and c.get("special") is None), None)
        if self.forgot or data["must_call_draw_card"] or len(hand) != 2 or card is None:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        self.forgot = True
        self.emit("play-card", {"card_play": card, "yell_uno": False})
        self.emit("pointed-not-say-uno", {"target": self.code})


def test_a_missed_uno_is_told_as_the_program_tells_it(tmp_path: Path) -> None:
    """The program's pointed-not-say-uno handler: the pointing written, then the target's two cards sent as a
    receiver-card with ``is_penalty: false``, the penalty line and its broadcast, and only then the pointing's
    broadcast; the answer echoes the message."""
    proc, port, out = _dealer(tmp_path, "--room", "Room N", "--rounds", "6", "--seed", "4", "--pace", "official",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = Forgetful(port, "Room N", "forgetful").start()
    _played(proc, bot, timeout=300)
    assert bot.forgot, "never held two cards with a plain card to play in 6 rounds (seed 4)"
    assert ("pointed-not-say-uno", None, {"target": bot.code}) in bot.acks, bot.acks
    lines = _lines(out)
    i = next(i for i, x in enumerate(lines) if x["event"] == "pointed-not-say-uno")
    assert lines[i]["player"] == lines[i]["contents"]["target"] == bot.code
    assert lines[i]["contents"]["have_say_uno"] is False and len(lines[i]["contents"]["card_of_player"]) == 1
    assert lines[i + 1]["event"] == "penalty" and lines[i + 1]["contents"]["error"] == "Did not say uno."
    cards = lines[i + 1]["contents"]["cards_receive"]
    told = [(e, d) for e, d in bot.got if e in ("receiver-card", "penalty", "pointed-not-say-uno")]
    k = told.index(("receiver-card", {"cards_receive": cards, "is_penalty": False}))
    assert [e for e, _ in told[k:k + 3]] == ["receiver-card", "penalty", "pointed-not-say-uno"], told[k:k + 3]
    assert told[k + 2][1] == {"pointer": bot.code, "target": bot.code, "have_say_uno": False}
    assert _findings(out) == []


class Shapes(Bot):
    """Plays one malformed card a turn (while it need not draw), in the order of ``SHAPES``; then as ``Bot``."""

    SHAPES = [({"color": "red", "number": ""}, "Param card play invalid."),  # "" is no number (JavaScript falsy)
              ({"color": "red", "special": False}, "Param card play invalid."),
              ({"color": "", "number": 3}, "Card play invalid."),  # no colour: checked as a whole, no such card
              ({"color": "red", "number": "3"}, "Number card play invalid."),
              ({"color": "red", "number": 3, "special": None}, "Card play invalid.")]  # fmt: skip

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.shapes = [s for s, _ in self.SHAPES]

    def next_player(self, data: dict[str, Any]) -> None:
        if not self.shapes or data["must_call_draw_card"] or len(data["card_of_player"]) >= 22:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        self.emit("play-card", {"card_play": self.shapes.pop(0), "yell_uno": False})


def test_card_shapes_are_checked_with_the_program_s_javascript_tests(tmp_path: Path) -> None:
    """``hasValidateError``: a falsy field counts as absent (0 excepted), a number must be one of 0–9 (a string is
    not), and the object must be one of the deck's cards exactly (an extra ``special: null`` is not).  Each
    refusal written, penalised and answered with the program's text."""
    proc, port, out = _dealer(tmp_path, "--room", "Room Z", "--rounds", "3", "--seed", "9",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = Shapes(port, "Room Z", "shapes").start()
    _played(proc, bot)
    assert not bot.shapes, "fewer turns than shapes"
    answers = [err for e, err, _ in bot.acks if e == "play-card" and err is not None][:len(Shapes.SHAPES)]
    assert answers == [{"message": m} for _, m in Shapes.SHAPES], answers
    lines = _lines(out)
    errors = [x["contents"]["error"] for x in lines if x["event"] == "penalty" and x["contents"]["player"] == bot.code]
    assert errors[:len(Shapes.SHAPES)] == [m for _, m in Shapes.SHAPES], errors
    assert _findings(out) == []


class Typed(Bot):
    """At its first turn: special logic titled with a list of one long string (its ``length`` is 1), with a long
    number (no ``length``: never too long) and with ``false`` (no title); a pointing at target ``0`` (no target);
    then its play with ``color_of_wild: ""`` on a card that is not a wild (a falsy colour is no colour)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.done = False

    def next_player(self, data: dict[str, Any]) -> None:
        hand, top = data["card_of_player"], data["card_before"]
        card = next((c for c in hand if _playable(c, top) and c.get("color") not in ("black", "white")), None)
        if self.done or data["must_call_draw_card"] or card is None or len(hand) < 3:
            super().next_player(data)
            return
        self.got.append(("next-player", data))
        self.done = True
        for title in (["x" * 40], 10**40, False):
            self.emit("special-logic", {"title": title})
        self.emit("pointed-not-say-uno", {"target": 0})
        self.emit("play-card", {"card_play": card, "yell_uno": False, "color_of_wild": ""})


def test_typed_fields_are_checked_as_the_program_checks_them(tmp_path: Path) -> None:
    proc, port, out = _dealer(tmp_path, "--room", "Room Y", "--rounds", "2", "--seed", "3",
                              "--fill", "greedy", "greedy", "greedy")  # fmt: skip
    bot = Typed(port, "Room Y", "typed").start()
    _played(proc, bot)
    assert bot.done
    special = [err for e, err, _ in bot.acks if e == "special-logic"]
    assert special == [None, None, {"message": "Param title invalid."}], special
    assert ("pointed-not-say-uno", {"message": "Player name is required."}, None) in bot.acks
    play = next((err, data) for e, err, data in bot.acks if e == "play-card")
    assert play[0] is None and play[1]["color_of_wild"] == "", play
    lines = _lines(out)
    errors = [x["contents"]["error"] for x in lines if x["event"] == "penalty" and x["contents"]["player"] == bot.code]
    assert errors[:2] == ["Param title invalid.", "Player name is required."], errors
    assert _findings(out) == []


def _beside(tmp_path: Path) -> list[str]:
    """The files in the test's folder: the database, the log and whatever the dealer left beside them."""
    return sorted(p.name for p in tmp_path.iterdir())


def test_joins_are_told_by_name_made_terminal_safe_and_a_match_leaves_no_lock_file(tmp_path: Path) -> None:
    """The listening line says where to point the bots; each join names the player (its escape sequences written
    as escapes), its code and its seat; each join-room line carries when its player joined (written as the match
    starts); after the match only the database and the log are left (no <db>.lock, no <db>.watch* file)."""
    proc, port, out = _dealer(tmp_path, "--room", "Room J", "--rounds", "1", "--fill", "greedy", "greedy")
    first = Bot(port, "Room J", "evil\x1b[2J\u202ename").start().joined(30)
    time.sleep(0.5)
    second = Bot(port, "Room J", "bot 2").start()
    err = _played(proc, first, second)
    lines = _lines(out)
    joins = {x["player"]: x["dateCreated"] for x in lines if x["event"] == "join-room"}
    begun = next(x["dateCreated"] for x in lines if x["event"] == "first-player")
    assert joins["P-00000002"] - joins["P-00000001"] >= 500, joins  # not written 1 ms apart at the start
    assert joins["P-00000001"] < joins["P-00000002"] <= joins["P-00000003"] <= begun, (joins, begun)
    assert f"kifu dealer: listening on http://127.0.0.1:{port}, room Room J — start your bots (2 seats)\n" in err, err
    assert "kifu dealer: joined: evil\\x1b[2J\\u202ename (P-00000001), seat 1/4\n" in err, err
    assert "kifu dealer: joined: bot 2 (P-00000002), seat 2/4\n" in err, err
    assert "\x1b" not in err and "\u202e" not in err
    assert _beside(tmp_path) == ["k.duckdb", "match.jsonl"]


def test_too_few_players_in_join_wait_says_who_joined_and_who_is_awaited(tmp_path: Path) -> None:
    """--join-wait bounds the wait: the one-line reason names who joined and how many are still awaited; nothing
    was played, so nothing is left (no empty log, no database, no lock file)."""
    proc, port, out = _dealer(tmp_path, "--room", "Room K", "--rounds", "1", "--fill", "greedy", "--join-wait", "2")
    bot = Bot(port, "Room K", "early bird").start()
    err = _played(proc, bot, timeout=60, exit_code=1)
    assert "only 1 of 3 players joined in 2 s (--join-wait): still waiting for 2 more players (1 joined: early bird)" \
        in err, err  # fmt: skip
    assert _beside(tmp_path) == []


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_while_waiting_ends_with_one_line_and_leaves_nothing(tmp_path: Path, how: str) -> None:
    import signal

    proc, port, out = _dealer(tmp_path, "--room", "Room S", "--rounds", "1")
    time.sleep(0.5)  # the watcher started after listening: stopped while it starts, or once it follows the log
    proc.send_signal(getattr(signal, how))
    code, err = _finish(proc, 60)
    name, status = ("Ctrl-C", 130) if how == "SIGINT" else ("SIGTERM", 143)
    assert code == status, err
    assert err.strip().splitlines()[-1] == f"kifu dealer: stopped by {name} (no match was played)", err
    assert _beside(tmp_path) == []


def test_sigterm_during_the_match_stores_what_was_played_and_leaves_no_lock_file(tmp_path: Path) -> None:
    import signal

    import duckdb

    proc, port, out = _dealer(tmp_path, "--room", "Room T", "--rounds", "500", "--fill", "greedy", "greedy", "greedy")
    bot = Bot(port, "Room T", "player").start()
    try:
        deadline = time.monotonic() + 60
        while len(out.read_bytes().splitlines()) < 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        code, err = _finish(proc, 120)
    finally:
        bot.close()
    assert code == 143, err
    assert f"kifu dealer: stopped by SIGTERM (log so far: {out})" in err, err
    assert _beside(tmp_path) == ["k.duckdb", "match.jsonl"]
    con = duckdb.connect(str(tmp_path / "k.duckdb"), read_only=True)
    try:
        stored = con.execute("select count(*) from events").fetchall()[0][0]
    finally:
        con.close()
    assert stored == len(_lines(out)) >= 200
