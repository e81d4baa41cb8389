"""kifu.replay_log: recorded logs re-played at their pace — into a file, into MongoDB, and Kakomimasu games
served turn by turn over HTTP.  Real fixtures throughout; the pace is checked with a fake clock (no real
waiting but a few tenths of a second in the live-follower test)."""

from __future__ import annotations

import datetime as dt
import gzip
import itertools
import json
import math
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import orjson
import pytest

from kifu import replay_log
from kifu.replay_log import (
    KakomimasuReplayServer,
    ReplayInterrupted,
    iter_lines,
    line_time_ms,
    main,
    mongo_document,
    replay_to_file,
    replay_to_mongo,
    schedule,
)
from tests.conftest import REPO, fixture_path

KAKOMIMASU = REPO / "tests" / "fixtures" / "kakomimasu" / "v1_games"
UTC = dt.UTC


class FakeTime:
    """A clock that only moves when slept on."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.sleeps.append(seconds)
        self.now += seconds


def synthetic_log(path: Path, times: list[int | None], *, gz: bool = False) -> list[bytes]:
    """Dealer-like lines with the given dateCreated values (None: no dateCreated)."""
    lines = []
    for i, t in enumerate(times):
        doc: dict[str, Any] = {"dealer_code": "D-00000001", "event": "next-player", "seq": i}
        if t is not None:
            doc["dateCreated"] = t
        lines.append(orjson.dumps(doc))
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(gzip.compress(data) if gz else data)
    return lines


def decompressed(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


# ---- reading ----------------------------------------------------------------------------------


def test_round_trip_of_a_real_gzip_log_at_speed_max(tmp_path: Path) -> None:
    src = fixture_path("misbehave_bind2_40")
    out = tmp_path / "live.log"
    seen: list[int] = []
    n = replay_to_file(src, out, speed=math.inf, on_line=lambda i, line, at: seen.append(i))
    original = decompressed(src)
    assert n == original.count(b"\n") == 5887
    assert out.read_bytes() == original  # byte for byte
    assert seen == list(range(n))
    # "max" in every spelling: inf, 0, negative — never a sleep
    fake = FakeTime()
    assert replay_to_file(src, out, speed=0, clock=fake.clock, sleep=fake.sleep) == n
    assert fake.sleeps == [] and out.read_bytes() == original


def test_lines_come_back_exactly(tmp_path: Path) -> None:
    data = b'{"a":1}\r\n\n  \n{"b":2}\n{"c":3}'  # CRLF, blank lines, no final newline
    plain = tmp_path / "plain.log"
    plain.write_bytes(data)
    zipped = tmp_path / "zipped.log"  # gzip told by its magic bytes, not by the name
    zipped.write_bytes(gzip.compress(data))
    expected = [b'{"a":1}\r', b"", b"  ", b'{"b":2}', b'{"c":3}']
    assert list(iter_lines(plain)) == expected
    assert list(iter_lines(zipped)) == expected
    out = tmp_path / "out.log"
    assert replay_to_file(zipped, out, speed=math.inf) == 5
    assert out.read_bytes() == data + b"\n"  # only the missing final newline is added
    with pytest.raises(FileNotFoundError):
        iter_lines(tmp_path / "missing.log")  # at once, not at the first line


# ---- times and the schedule -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1694668262123, 1694668262123),
        ("2023-09-14T05:11:02.123Z", 1694668262123),
        ("2023-09-14T14:11:02.123+09:00", 1694668262123),
        ("2023-09-14T05:11:02.123", 1694668262123),  # no zone: UTC
        ({"$date": "2023-09-14T05:11:02.123Z"}, 1694668262123),
        ({"$date": 1694668262123}, 1694668262123),
        ({"$date": {"$numberLong": "1694668262123"}}, 1694668262123),
        ("yesterday", None),
        ({"$date": "soon"}, None),
        ({"$oid": "6b0270858f018608bdf55c75"}, None),
        (True, None),
        (None, None),
    ],
)
def test_line_time_ms_forms(value: Any, expected: int | None) -> None:
    assert line_time_ms(json.dumps({"event": "play-card", "dateCreated": value}).encode()) == expected


def test_line_time_ms_on_lines_without_a_readable_time() -> None:
    assert line_time_ms(b'{"event":"join-room"}') is None
    assert line_time_ms(b'{"dateCreated": 17') is None  # broken JSON: None, not an exception
    assert line_time_ms(b'["dateCreated", 1]') is None
    assert line_time_ms(b"") is None


def test_download_and_stored_times_agree_on_a_real_match() -> None:
    """The download shape (epoch ms) and the stored shape ($date ISO) of the same lines: 0–15 ms apart."""
    download = list(itertools.islice(iter_lines(fixture_path("speciallogic_timeout_probe_2")), 200))
    stored = list(itertools.islice(iter_lines(fixture_path("speciallogic_timeout_probe_2", "stored")), 200))
    pairs = [(line_time_ms(a), line_time_ms(b)) for a, b in zip(download, stored, strict=True)]
    assert all(a is not None and b is not None and 0 <= b - a <= 15 for a, b in pairs)


def test_schedule_divides_gaps_by_the_speed_and_caps_them() -> None:
    times = [1000, 1500, None, 1400, 3500, 30000, 30100]
    # gaps: 500, 0 (no time), 0 (backwards), 2000 from the latest seen (1500), 26500 capped to 5000, 100
    assert schedule(times, 2.0) == pytest.approx([0, 0.25, 0.25, 0.25, 1.25, 3.75, 3.8])
    assert schedule(times, 1.0, max_gap_s=1.0) == pytest.approx([0, 0.5, 0.5, 0.5, 1.5, 2.5, 2.6])
    assert schedule(times, 1.0, max_gap_s=None) == pytest.approx([0, 0.5, 0.5, 0.5, 2.5, 29.0, 29.1])
    for fast in (math.inf, 0, -3):
        assert schedule(times, fast) == [0.0] * len(times)
    assert schedule([None, None, 5000, 5200], 0.5) == pytest.approx([0, 0, 0, 0.4])  # leading lines without time
    with pytest.raises(ValueError):
        schedule(times, math.nan)
    with pytest.raises(ValueError):
        schedule(times, 1.0, max_gap_s=-1)


def test_a_real_match_is_written_at_its_recorded_pace(tmp_path: Path) -> None:
    src = fixture_path("misbehave_bind2_40")
    due = schedule([line_time_ms(line) for line in iter_lines(src)], 10.0)
    fake = FakeTime()
    start = fake.now
    at: list[float] = []
    out = tmp_path / "out.log"
    n = replay_to_file(src, out, speed=10.0, clock=fake.clock, sleep=fake.sleep,
                       on_line=lambda i, line, when: at.append(fake.now - start))  # fmt: skip
    assert n == len(due) == 5887
    assert at == pytest.approx(due, abs=1e-9)
    assert fake.now - start == pytest.approx(due[-1]) and due[-1] > 10  # the match took minutes: at ×10, seconds
    assert max(fake.sleeps) <= 0.5 + 1e-9  # no wait longer than the 5 s cap ÷ 10
    assert out.read_bytes() == decompressed(src)


def test_replay_truncates_or_appends(tmp_path: Path) -> None:
    src = tmp_path / "src.log"
    lines = synthetic_log(src, [1, 2, 3])
    out = tmp_path / "out.log"
    out.write_bytes(b"old line\n")
    assert replay_to_file(src, out, speed=math.inf, append=True) == 3
    assert out.read_bytes() == b"old line\n" + b"".join(line + b"\n" for line in lines)
    assert replay_to_file(src, out, speed=math.inf) == 3
    assert out.read_bytes() == b"".join(line + b"\n" for line in lines)
    fresh = tmp_path / "new" / "out.log"
    fresh.parent.mkdir()
    assert replay_to_file(src, fresh, speed=math.inf) == 3 and fresh.exists()


# ---- followers and Ctrl-C ---------------------------------------------------------------------


def test_a_reader_catching_half_lines_sees_every_line_once(tmp_path: Path) -> None:
    """split_lines: the writer stops between the two halves of every line until the reader has read the
    file; the reader must find exactly the first half there, and keep only complete lines."""
    src = tmp_path / "src.log"
    lines = list(itertools.islice(iter_lines(fixture_path("misbehave_bind2_40")), 300))
    src.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out.log"
    out.touch()
    half_written, looked = threading.Event(), threading.Event()
    got: list[bytes] = []
    partials: list[bytes] = []
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            buf = b""
            deadline = time.monotonic() + 10
            with open(out, "rb") as f:
                while len(got) < len(lines) and time.monotonic() < deadline:
                    flagged = half_written.wait(0.005)  # before the read: the first half is in the file
                    buf += f.read()
                    *complete, buf = buf.split(b"\n")
                    got.extend(complete)
                    if flagged:
                        partials.append(buf)
                        half_written.clear()
                        looked.set()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
            looked.set()

    def pause(seconds: float) -> None:  # called only between the halves: speed max has no waits
        half_written.set()
        assert looked.wait(5), "the reader never looked"
        looked.clear()

    t = threading.Thread(target=reader)
    t.start()
    n = replay_to_file(src, out, speed=math.inf, sleep=pause, split_lines=True)
    t.join(10)
    assert not errors and not t.is_alive()
    assert n == len(lines) == 300
    assert got == lines  # every line once, whole, in order
    assert partials == [(line + b"\n")[: (len(line) + 1) // 2] for line in lines]  # a half line, every time


def test_a_live_follower_at_real_pace(tmp_path: Path) -> None:
    """Real clock: 25 lines 8 ms apart at speed 1, written in halves; a polling reader gets them all."""
    src = tmp_path / "src.log"
    base = 1795321989983
    lines = synthetic_log(src, [base + 8 * i for i in range(25)])
    out = tmp_path / "out.log"
    out.touch()
    got: list[bytes] = []
    done = threading.Event()

    def reader() -> None:
        buf = b""
        with open(out, "rb") as f:
            while not done.is_set() or buf or len(got) < len(lines):
                chunk = f.read()
                if not chunk and done.is_set():
                    break
                buf += chunk
                *complete, buf = buf.split(b"\n")
                got.extend(complete)
                time.sleep(0.001)

    t = threading.Thread(target=reader)
    t.start()
    written: list[float] = []
    started = time.monotonic()
    n = replay_to_file(src, out, speed=1.0, split_lines=True, split_pause_s=0.002,
                       on_line=lambda i, line, at: written.append(at))  # fmt: skip
    took = time.monotonic() - started
    done.set()
    t.join(5)
    assert n == 25 and got == lines
    assert took >= 24 * 0.008 * 0.9  # the recorded pace was kept
    assert written == sorted(written) and abs(written[-1] - time.time()) < 5  # wall-clock times


def test_ctrl_c_between_the_halves_of_a_line_leaves_whole_lines(tmp_path: Path) -> None:
    src = tmp_path / "src.log"
    lines = synthetic_log(src, list(range(10)))
    out = tmp_path / "out.log"
    calls = 0

    def pause(seconds: float) -> None:
        nonlocal calls
        calls += 1
        if calls == 4:  # while line 4 (index 3) is half written
            raise KeyboardInterrupt

    with pytest.raises(ReplayInterrupted) as stop:
        replay_to_file(src, out, speed=math.inf, sleep=pause, split_lines=True)
    assert isinstance(stop.value, KeyboardInterrupt)
    assert stop.value.lines == 4  # the half-written line was finished, and counts
    assert out.read_bytes() == b"".join(line + b"\n" for line in lines[:4])


def test_ctrl_c_while_waiting_for_the_next_line(tmp_path: Path) -> None:
    src = tmp_path / "src.log"
    lines = synthetic_log(src, [0, 1000, 2000, 3000])
    out = tmp_path / "out.log"
    fake = FakeTime()

    def sleep(seconds: float) -> None:
        if len(fake.sleeps) == 2:
            raise KeyboardInterrupt
        fake.sleep(seconds)

    with pytest.raises(ReplayInterrupted) as stop:
        replay_to_file(src, out, speed=1.0, clock=fake.clock, sleep=sleep)
    assert stop.value.lines == 3 and stop.value.seconds == pytest.approx(2.0)
    assert out.read_bytes() == b"".join(line + b"\n" for line in lines[:3])


# ---- MongoDB ----------------------------------------------------------------------------------


@pytest.mark.mongo
def test_replay_into_mongomock_keeps_order_dates_and_ids() -> None:
    import mongomock
    from bson import ObjectId

    src = fixture_path("speciallogic_timeout_probe_2", "stored")
    raw = list(iter_lines(src))
    col = mongomock.MongoClient().db.activities
    fake = FakeTime()
    assert replay_to_mongo(src, col, speed=math.inf, clock=fake.clock, sleep=fake.sleep) == len(raw) == 341
    docs = list(col.find())
    assert [d["_id"] for d in docs] == [ObjectId(orjson.loads(line)["_id"]["$oid"]) for line in raw]
    assert [d["event"] for d in docs] == [orjson.loads(line)["event"] for line in raw]
    assert all(isinstance(d["dateCreated"], dt.datetime) and isinstance(d["dateUpdated"], dt.datetime) for d in docs)
    first_ms = line_time_ms(raw[0])
    assert docs[0]["dateCreated"].replace(tzinfo=UTC) == dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=first_ms)
    # the download shape (epoch-ms numbers, no _id): same count and order, numbers become dates
    down = fixture_path("speciallogic_timeout_probe_2")
    col2 = mongomock.MongoClient().db.activities
    assert replay_to_mongo(down, col2, speed=math.inf, clock=fake.clock, sleep=fake.sleep) == 341
    docs2 = list(col2.find())
    assert [d["event"] for d in docs2] == [d["event"] for d in docs]
    assert all(isinstance(d["dateCreated"], dt.datetime) for d in docs2)
    # the stored log again, into the same collection: only with new ids
    assert replay_to_mongo(src, col, speed=math.inf, keep_ids=False) == 341 and col.count_documents({}) == 682


def test_mongo_documents_are_inserted_one_by_one_at_the_pace(tmp_path: Path) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.docs: list[tuple[float, dict[str, Any]]] = []

        def insert_one(self, doc: dict[str, Any]) -> None:
            self.docs.append((fake.now, doc))

    src = tmp_path / "src.log"
    src.write_bytes(
        b'{"_id":{"$oid":"6b0270858f018608bdf55c75"},"event":"a","dateCreated":{"$date":"2026-11-22T04:33:09.984Z"}}\n'
        b"\n"
        b'{"event":"b","dateCreated":1795321991984}\n'
        b"not json\n"
        b'{"event":"c","dateCreated":"2026-11-22T04:33:12.484Z"}\n'
    )
    fake = FakeTime()
    col = Recorder()
    skipped: list[tuple[int, str]] = []
    n = replay_to_mongo(src, col, speed=2.0, clock=fake.clock, sleep=fake.sleep,
                        on_skip=lambda i, line, why: skipped.append((i, why)))  # fmt: skip
    assert n == 3 and [i for i, _ in skipped] == [1, 3]
    times = [t - 1000.0 for t, _ in col.docs]
    assert times == pytest.approx([0.0, 1.0, 1.25])  # 2 s then 0.5 s recorded, at ×2
    dates = [d["dateCreated"] for _, d in col.docs]
    assert all(d.tzinfo is not None and d.utcoffset() == dt.timedelta(0) for d in dates)
    assert dates[1] == dt.datetime(2026, 11, 22, 4, 33, 11, 984000, tzinfo=UTC)
    assert str(col.docs[0][1]["_id"]) == "6b0270858f018608bdf55c75"
    assert "_id" not in mongo_document(b'{"_id":{"$oid":"6b0270858f018608bdf55c75"}}', keep_ids=False)
    with pytest.raises(ValueError):
        mongo_document(b"[1, 2]")


# ---- Kakomimasu -------------------------------------------------------------------------------


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


def test_kakomimasu_server_plays_a_real_game_turn_by_turn() -> None:
    from rules.kakomimasu.game import from_v1
    from rules.kakomimasu.replay import judge_all

    path = KAKOMIMASU / "game22_A-2.json"
    original = path.read_bytes()
    final = json.loads(original)
    total = len(final["log"])
    assert total == 10
    full_frames, full_summary = judge_all(from_v1(final))
    assert full_summary.end_violations == []
    with KakomimasuReplayServer(path, speed=math.inf) as server:  # one turn more per GET
        assert server.url.startswith("http://127.0.0.1:")
        bodies = []
        for _ in range(total + 2):
            status, ctype, body = get(server.match_url(final["id"]))
            assert status == 200 and ctype == "application/json"
            bodies.append(body)
        assert bodies[total] == bodies[total + 1] == original  # the end: the file byte for byte
        for k, body in enumerate(bodies[:total]):
            doc = json.loads(body)
            assert doc["status"] == "gaming" and doc["turn"] == k + 1
            assert doc["log"] == final["log"][:k]
            assert list(doc) == list(final)  # same keys, same order
            unchanged = {key: v for key, v in final.items() if key not in ("status", "turn", "log", "field", "players")}
            assert {key: doc[key] for key in unchanged} == unchanged
            assert doc["field"]["points"] == final["field"]["points"]
            for p, player in enumerate(doc["players"]):
                want = final["log"][k - 1]["players"][p]["point"] if k else {"areaPoint": 0, "wallPoint": 0}
                assert player["point"] == want
                assert player["id"] == final["players"][p]["id"]
            if k == 0:
                assert all(t == {"type": 0, "player": None} for t in doc["field"]["tiles"])
                assert all(a == {"x": -1, "y": -1} for p in doc["players"] for a in p["agents"])
            # what Kifu reads of it: a game in progress whose tiles, agents and points fit its turns
            game = from_v1(doc)
            frames, summary = judge_all(game)
            assert not game.finished and len(frames) == k
            assert summary.end_violations == []  # tiles, agents, points fit the replay after k turns
            assert [f.violations for f in frames] == [f.violations for f in full_frames[:k]]  # nothing new
        last = json.loads(bodies[total - 1])  # one turn before the end: the board of turn 9, not the final one
        assert last["field"]["tiles"] != final["field"]["tiles"]
        assert [p["point"] for p in last["players"]] != [p["point"] for p in final["players"]]
        # unknown ids and paths: 404, JSON
        status, ctype, body = get(f"{server.url}/v1/matches/no-such-game")
        assert status == 404 and ctype == "application/json" and json.loads(body)["error"] == "not found"
        status, _, _ = get(f"{server.url}/v1/elsewhere")
        assert status == 404
        assert [r.turns for r in server.requests[: total + 2]] == list(range(total + 1)) + [total]
        assert [r.status for r in server.requests[-2:]] == [404, 404]
        assert all(r.path.startswith("/v1/") for r in server.requests)
        assert [r.at for r in server.requests] == sorted(r.at for r in server.requests)


def test_kakomimasu_server_follows_the_clock_and_steps() -> None:
    a = KAKOMIMASU / "game22_A-2.json"  # operationSec 1 + transitionSec 1: a turn every 2 s
    b = KAKOMIMASU / "game02_A-2.json"
    ida, idb = json.loads(a.read_bytes())["id"], json.loads(b.read_bytes())["id"]
    fake = FakeTime()
    with KakomimasuReplayServer([a, b], speed=4.0, clock=fake.clock) as server:
        assert json.loads(get(server.match_url(ida))[2])["log"] == []
        fake.now += 1.6  # 1.6 s × 4 / 2 s = 3.2 turns
        assert len(json.loads(get(server.match_url(ida))[2])["log"]) == 3
        assert len(json.loads(get(server.match_url(idb) + "?x=1")[2])["log"]) == 3
        server.step(2)
        assert len(json.loads(get(server.match_url(idb))[2])["log"]) == 5
        fake.now += 100
        assert get(server.match_url(ida))[2] == a.read_bytes()
        assert get(server.match_url(idb))[2] == b.read_bytes()
    fake = FakeTime()
    with KakomimasuReplayServer(a.read_bytes(), auto=False, clock=fake.clock) as server:
        fake.now += 1000
        assert [len(json.loads(get(server.match_url(ida))[2])["log"]) for _ in range(3)] == [0, 0, 0]
        server.step()
        assert server.turns(ida) == 1 and len(json.loads(get(server.match_url(ida))[2])["log"]) == 1
        server.finish()
        assert get(server.match_url(ida))[2] == a.read_bytes()
    with pytest.raises(ValueError):
        KakomimasuReplayServer([{"not": "a game"}])


# ---- command line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["{missing}", "--to", "{out}"], "no such file"),
        (["{src}", "--to", "{out}", "--mongo-uri", "mongodb://localhost"], "not both"),
        (["{src}"], "--to OUT"),
        (["{src}", "--to", "{out}", "--speed", "-1"], "must be positive"),
        (["{src}", "--to", "{out}", "--speed", "fast"], "--speed"),
        (["{src}", "--to", "{out}", "--max-gap", "-2"], "--max-gap"),
        (["{src}", "--to", "{src}"], "FILE itself"),
        (["{src}", "--to", "{tmp}/nowhere/out.log"], "does not exist"),
        (["{src}", "--to", "{out}", "--collection", "x"], "--mongo-uri"),
        (["{src}", "--mongo-uri", "localhost:27017"], "mongodb://"),
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                args: list[str], says: str) -> None:  # fmt: skip
    src = tmp_path / "src.log"
    synthetic_log(src, [1, 2])
    names = {"missing": tmp_path / "missing.log", "out": tmp_path / "out.log", "src": src, "tmp": tmp_path}
    assert main([a.format(**names) for a in args] + ["--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("kifu replay-log: error:") and says in err
    assert src.read_bytes().count(b"\n") == 2  # never touched


def test_cli_replays_a_real_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = fixture_path("speciallogic_timeout_probe_2")
    out = tmp_path / "live.log"
    assert main([str(src), "--to", str(out), "--speed", "max", "--no-progress"]) == 0
    assert out.read_bytes() == decompressed(src)
    text = capsys.readouterr().out.strip()
    assert text.startswith(f"wrote 341 lines to {out} in ") and text.endswith("s (speed ×max)")


@pytest.mark.mongo
def test_cli_into_mongodb(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import mongomock
    import pymongo

    client = mongomock.MongoClient()
    monkeypatch.setattr(pymongo, "MongoClient", lambda uri, **kw: client)
    src = fixture_path("speciallogic_timeout_probe_2", "stored")
    assert main([str(src), "--mongo-uri", "mongodb://uno:secret@db:27017", "--speed", "max", "--no-progress"]) == 0
    assert client["uno-local"]["activities"].count_documents({}) == 341
    text = capsys.readouterr().out
    assert "inserted 341 documents into uno-local.activities" in text and "secret" not in text
    # the same ids again: a clear error, exit 1; --new-ids inserts them anew
    assert main([str(src), "--mongo-uri", "mongodb://db", "--speed", "max", "--no-progress"]) == 1
    assert "--new-ids" in capsys.readouterr().err
    assert main([str(src), "--mongo-uri", "mongodb://db", "--speed", "max", "--no-progress", "--new-ids"]) == 0


def test_cli_ctrl_c_exits_130_saying_how_many_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    src = tmp_path / "src.log"
    lines = synthetic_log(src, [0, 1000, 2000, 3000, 4000])
    out = tmp_path / "out.log"
    real = replay_log.replay_to_file
    fake = FakeTime()

    def interrupted(*args: Any, **kw: Any) -> int:
        def sleep(seconds: float) -> None:
            if len(fake.sleeps) == 2:
                raise KeyboardInterrupt
            fake.sleep(seconds)

        return real(*args, **kw, clock=fake.clock, sleep=sleep)

    monkeypatch.setattr(replay_log, "replay_to_file", interrupted)
    assert main([str(src), "--to", str(out), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 3 complete lines written" in err and len(err.strip().splitlines()) == 1
    assert out.read_bytes() == b"".join(line + b"\n" for line in lines[:3])


def test_cli_real_ctrl_c_in_another_process(tmp_path: Path) -> None:
    """A real SIGINT to a running `replay-log`: exit 130, and the file holds exactly the lines it reports."""
    import os
    import re
    import signal
    import subprocess
    import sys

    from tests.conftest import sigint_default

    src = tmp_path / "src.log"
    lines = synthetic_log(src, [1795321989983 + 20 * i for i in range(200)])  # 4 s at speed 1
    out = tmp_path / "out.log"
    code = "import sys; from kifu.replay_log import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, str(src), "--to", str(out), "--split-lines", "--no-progress"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO)},
                            preexec_fn=sigint_default)  # fmt: skip
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 3):
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    found = re.search(rb"interrupted: (\d+) complete lines written", err)
    assert found and len(err.strip().splitlines()) == 1
    n = int(found.group(1))
    assert 3 <= n < 200
    assert out.read_bytes() == b"".join(line + b"\n" for line in lines[:n])
