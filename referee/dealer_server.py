"""``kifu dealer``'s socket.io server: the ALGORI 2023 dealer's address for players in any language.

Contest clients speak socket.io 2.x (Engine.IO 3), so the server is python-socketio 4.x (the last
line speaking that protocol) as an ASGI app under uvicorn, on one asyncio loop.  The loop only
carries messages: joins are seated here; every later player message goes into the table's
inbox (:mod:`referee.dealer`), whose thread judges it and answers it.  Everything the table
sends — events and answers alike — goes out through one queue, in the order the table made it,
so a player hears of a draw before the draw's answer comes back, as from the real dealer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import signal
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import socketio
import uvicorn

from common.words import count
from referee.dealer import DealerStop, DealerTable, Inbox, Message, NAME_MAX
from referee.match import BotError, Seat
from rules.uno.profile import Profile

SEATS = 4
#: Of each kind of note said once per key (an unknown event, a refused join, an admin route, a newer client), at
#: most this many: a client that loops is told about, not a flood.
NOTES_MAX = 20
#: A client on a newer Socket.IO protocol: its 400's body (a JSON string, as newer servers send their errors: a
#: python-socketio 5.x client hands it to its ``connect_error`` handler) and the terminal's line.
NEWER = ("a client speaking a newer Socket.IO protocol (EIO={eio}) was refused: the 2023 dealer speaks Socket.IO 2 — "
         "pin python-socketio 4.x / socket.io-client 2.x in your bot (docs/dealer.md)")  # fmt: skip
NO_ADMIN = "kifu dealer has no admin API: the match starts when the seats are full; see docs/dealer.md (admin routes)"
#: Events of the 2022 contest's protocol the 2023 dealer dropped (a 2022 bot sends them).
EVENTS_2022 = ("say-uno-and-play-card", "say-uno-and-play-draw-card")


class _Server(socketio.AsyncServer):
    """python-socketio 4.x acknowledges an event it has no handler for, with no values — a bot's ``(err, res)``
    callback then fails on the missing arguments.  The official dealer's socket.io server never acknowledges such an
    event: nor does this one; ``unknown(sid, event)`` is told of it instead."""

    def __init__(self, unknown: Callable[[str, Any], None], **kw: Any) -> None:
        super().__init__(**kw)
        self._unknown = unknown

    async def _handle_event_internal(self, server: Any, sid: str, data: Any, namespace: str, id: Any) -> None:
        event = data[0] if data else None
        if not isinstance(event, str) or event not in self.handlers.get(namespace, {}):
            self._unknown(sid, event)
            return
        await super()._handle_event_internal(server, sid, data, namespace, id)


class _Front:
    """The ASGI app before the socket.io one, for what python-engineio would answer tersely: a client on a newer
    Socket.IO protocol (python-socketio 5.x, socket.io-client 3/4: ``EIO=4``) gets a 400 saying what to pin, any
    ``/api/`` path (the kit's admin REST routes) a JSON 404 saying there is no admin API; the dealer's terminal is
    told once per address, once per route."""

    def __init__(self, app: Any, server: DealerServer) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] in ("http", "websocket") and path.startswith("/socket.io/"):
            query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"))
            eio = query.get("EIO", [""])[0]
            if "sid" not in query and eio.isdigit() and int(eio) > 3:
                host = (scope.get("client") or ("?",))[0]
                self.server._once("newer clients", host, f"{NEWER.format(eio=int(eio))} (from {host})")
                body = orjson.dumps(NEWER.format(eio=int(eio)))
                return await self._answer(scope, send, 400, body)
        elif scope["type"] == "http" and (path == "/api" or path.startswith("/api/")):
            route = f"{scope.get('method', 'GET')} {path[:200]}"
            self.server._once("admin routes", route, f"{route}: answered 404 — {NO_ADMIN}")
            body = orjson.dumps({"error": {"status": 404, "route": route, "message": NO_ADMIN}})
            return await self._answer(scope, send, 404, body)
        await self.app(scope, receive, send)

    @staticmethod
    async def _answer(scope: dict[str, Any], send: Any, status: int, body: bytes) -> None:
        head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": status, "headers": head})
            await send({"type": "http.response.body", "body": body})
        else:  # a websocket handshake: refused (403) as python-engineio refuses it; a body (uvicorn's extension)
            await send({"type": "websocket.close", "code": 1008})  # is logged as an error there, and clients hide it
#: ``--join-wait``'s default (seconds): the bots of a contestant are started within a minute or two of the
#: dealer; a bot that gave up is not waited for ten minutes.
JOIN_WAIT_S = 120.0
#: While seats are free, how often the dealer says who it still waits for (seconds).
TELL_EVERY_S = 15.0
#: How the signals that stop the dealer are named, and the exit status each gives.
STOPS = {signal.SIGINT: ("Ctrl-C", 130), signal.SIGTERM: ("SIGTERM", 143)}


class _InOrder(socketio.AsyncManager):
    """python-socketio 4.x's manager hands bare coroutines to ``asyncio.wait``, which Python 3.11 refuses:
    this one sends to a room's members one after the other (and keeps the order).  The packet is encoded
    once for the whole room, as text: the dealer never sends binary data (python-socketio would otherwise
    encode it per member, after walking the payload for bytes each time)."""

    async def emit(self, event: str, data: Any, namespace: str, room: Any = None, skip_sid: Any = None,
                   callback: Any = None, **kwargs: Any) -> None:  # fmt: skip
        if namespace not in self.rooms or room not in self.rooms[namespace]:
            return
        args = list(data) if isinstance(data, tuple) else [] if data is None else [data]
        encoded = socketio.packet.Packet(socketio.packet.EVENT, namespace=namespace, data=[event, *args],
                                         binary=False).encode()  # fmt: skip
        for sid in list(self.get_participants(namespace, room)):
            if sid != skip_sid:
                await self.server.eio.send(sid, encoded, binary=False)


class _Json:
    """The packets' JSON: written by orjson (the payloads' key order kept, as the stdlib module keeps it), read
    by the stdlib module (which takes whatever a client's JSON library may write, NaN included).  An integer past
    2**53 is read as JavaScript reads it, a float: the log (orjson) holds no integer past 64 bits."""

    @staticmethod
    def dumps(obj: Any, **_: Any) -> str:
        return orjson.dumps(obj).decode()

    @staticmethod
    def loads(text: str | bytes, **kw: Any) -> Any:
        return json.loads(text, parse_int=_js_int, **kw)


def _js_int(digits: str) -> int | float:
    n = int(digits)
    if -(2**53) <= n <= 2**53:
        return n
    return float(n) if len(digits) < 300 else float("-inf" if n < 0 else "inf")  # past 1e308: JavaScript's Infinity


@dataclass
class Options:
    room: str
    rounds: int
    profile: Profile
    host: str = "127.0.0.1"
    port: int = 8080
    seed: int = 0
    timeout_s: float = 5.0
    join_wait_s: float = JOIN_WAIT_S
    pace_s: float = 0.0  # referee.dealer.PACE_S: the official dealer's waits (--pace official)
    fill: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = field(default_factory=list)


class DealerServer:
    """One match: seats the players who join, plays it, tells them the end and closes every socket."""

    def __init__(self, opts: Options, sink: Callable[[bytes], Any], say: Callable[[str], None] = lambda _: None,
                 on_listening: Callable[[], None] = lambda: None) -> None:  # fmt: skip
        self.opts, self.sink, self.say = opts, sink, say
        self.on_listening = on_listening  # called once the port accepts connections (the watcher starts then)
        self.stopped: signal.Signals | None = None  # the signal (Ctrl-C, SIGTERM) that stopped the dealer, if any
        self.sio = _Server(self._unknown, async_mode="asgi", cors_allowed_origins="*", client_manager=_InOrder(),
                                        json=_Json, logger=False, engineio_logger=False)  # fmt: skip
        self.app = _Front(socketio.ASGIApp(self.sio), self)
        self.told: dict[str, set[Any]] = {}  # what the terminal was told once, by kind (:meth:`_once`); who left
        self.inbox = Inbox()
        self.code_of: dict[str, str] = {}  # sid -> player code
        self.sid_of: dict[str, str] = {}  # player code -> sid
        self.names: dict[str, str] = {}  # player code -> name
        self.joined_ms: dict[str, int] = {}  # player code -> when it joined (epoch ms)
        self.started = False
        self.ready = threading.Event()  # set when the match may start (its log is followed into the database)
        self.aborted: str | None = None  # why the match may not start at all
        self.result: str | None = None  # why the match did not complete (None: it did)
        self.table: DealerTable | None = None
        self._task: asyncio.Task[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.out: asyncio.Queue[tuple[str, Any, Any, Any]] | None = None
        self._register()

    # ------------------------------------------------------------------ the Hub the table talks to

    def send(self, code: str, event: str, data: Any) -> None:
        self._post("send", code, event, data)

    def broadcast(self, event: str, data: Any) -> None:
        self._post("broadcast", None, event, data)

    def connected(self) -> list[str]:
        return list(self.sid_of)

    def drop(self, code: str) -> None:
        self._post("drop", code, None, None)

    def _post(self, kind: str, a: Any, b: Any, c: Any) -> None:
        assert self.loop is not None and self.out is not None
        self.loop.call_soon_threadsafe(self.out.put_nowait, (kind, a, b, c))

    async def _sender(self) -> None:
        """Sends what the table posts, one message after the other."""
        assert self.out is not None
        while True:
            kind, a, b, c = await self.out.get()
            try:
                if kind == "send" and a in self.sid_of:
                    await self.sio.emit(b, c, room=self.sid_of[a])
                elif kind == "broadcast":
                    await self.sio.emit(b, c, room=self.opts.room)
                elif kind == "drop" and a in self.sid_of:  # once its answer is out (the handler sends it when it resumes)
                    sid = self.sid_of[a]
                    self.loop.call_later(0.2, lambda: asyncio.ensure_future(self.sio.disconnect(sid)))
                elif kind == "answer" and not a.done():
                    a.set_result((b, c))
            except Exception:  # noqa: BLE001 - a socket closing under us: the next message goes on
                pass
            self.out.task_done()

    # ------------------------------------------------------------------ socket events

    def _register(self) -> None:
        sio = self.sio

        @sio.on("connect")
        async def connect(sid: str, environ: Any) -> None:
            return None

        @sio.on("disconnect")
        async def disconnect(sid: str) -> None:
            code = self.code_of.pop(sid, None)
            if code is not None and self.sid_of.get(code) == sid:
                del self.sid_of[code]
                if self.started:
                    self.inbox.put(Message(code, "disconnect", None, sid=sid))
                else:  # left before the match: the seat is free again
                    name = self.names.pop(code, None)
                    self.told.setdefault("left before the match", set()).add(name)
                    self.say(f"left: {name} ({code}) before the match; waiting for {self.waiting_for()}")

        @sio.on("join-room")
        async def join_room(sid: str, data: Any = None) -> tuple[Any, Any]:
            err = self._join_error(sid, data)
            if err is not None:
                self._refused(data, err)
                assert self.loop is not None
                self.loop.call_later(0.2, lambda: asyncio.ensure_future(self.sio.disconnect(sid)))
                return {"message": err}, None
            name = data["player"]
            code = self._seat_of(name)
            back = code is not None  # a player whose socket left, joining again under its name: its seat again
            if code is None:
                code = f"P-{len(self.names) + 1:08d}"
                while code in self.names:
                    code = f"P-{int(code[2:]) + 1:08d}"
                self.names[code] = name
                self.joined_ms[code] = int(time.time() * 1000)  # its join-room line carries it
            self.code_of[sid], self.sid_of[code] = code, sid
            self.sio.enter_room(sid, self.opts.room)
            await self.sio.emit("join-room", {"room_name": data["room_name"], "player": name}, room=self.opts.room)
            if back:
                self.inbox.put(Message(code, "rejoin", name, sid=sid))  # the table writes its join-room line
                self.say(f"back: {name} ({code}) at its seat")
            else:
                self.say(f"joined: {name} ({code}), seat {len(self.names)}/{SEATS}")
                self._maybe_start()
            answer = {**data, "game_id": self.dealer_code(), "your_id": code, "total_turn": self.opts.rounds}
            if self.opts.profile.white_wild is not None:  # without white wilds the program's field is undefined: absent
                answer["white_wild"] = self.opts.profile.white_wild
            return None, answer

        for event in ("color-of-wild", "play-card", "draw-card", "play-draw-card", "challenge",
                      "pointed-not-say-uno", "special-logic"):  # fmt: skip
            sio.on(event, self._handler(event))

    def _handler(self, event: str) -> Callable[..., Any]:
        async def handle(sid: str, data: Any = None) -> tuple[Any, Any]:
            code = self.code_of.get(sid)
            if code is None:
                return {"message": "Dealer not found."}, None
            if not self.started:
                return self._before_start(code)
            assert self.loop is not None
            fut: asyncio.Future[tuple[Any, Any]] = self.loop.create_future()
            self.inbox.put(Message(code, event, data, lambda e, d: self._post("answer", fut, e, d), sid))
            try:  # bounded: the table answers every message it takes; a match that ended takes no more
                return await asyncio.wait_for(fut, self.opts.timeout_s * 4 + 5)
            except asyncio.TimeoutError:
                return {"message": "The match is over."}, None

        return handle

    def _before_start(self, code: str) -> tuple[Any, Any]:
        """An action before the match starts, answered as the program answers it: with fewer than two players at
        the table (sockets joined, and the seats ``--fill`` takes) the socket-count error, and the socket closed;
        else the program's handler reads a game state it has not made yet and fails (a ``TypeError``), whose
        answer is that error as JSON: an empty object, no data.  Nothing is written."""
        if len(self.sid_of) + len(self.opts.fill) < 2:
            self.drop(code)
            return {"message": "Number of socket client join dealer lower two."}, None
        return {}, None

    def _join_error(self, sid: str, data: Any) -> str | None:
        if not isinstance(data, dict) or not isinstance(data.get("room_name"), str) or not data["room_name"]:
            return "Room name is required."
        name = data.get("player")
        if not isinstance(name, str) or not name:
            return "Player name is required."
        if len(name.encode("utf-16-le")) // 2 > NAME_MAX:
            return "Player name too long."
        if data["room_name"] != self.opts.room:
            return "Dealer not found."
        if sid in self.code_of:
            return "Player name duplicate."
        seat = self._seat_of(name)
        if seat is not None:  # the name of a seated player: a duplicate while its socket is there, else it is back
            return "Player name duplicate." if seat in self.sid_of else None
        if self.started or len(self.names) + len(self.opts.fill) >= SEATS:
            return "Dealer max player. You can not join room."
        return None

    def _seat_of(self, name: str) -> str | None:
        """The code of the socket player seated under ``name``, if any."""
        return next((code for code, n in self.names.items() if n == name), None)

    def _once(self, kind: str, key: Any, text: str) -> None:
        """Says ``text`` the first time ``key`` of this kind comes; past :data:`NOTES_MAX` keys of a kind, one line
        says no more are printed."""
        seen = self.told.setdefault(kind, set())
        if key in seen or len(seen) > NOTES_MAX:
            return
        seen.add(key)
        self.say(text if len(seen) <= NOTES_MAX else f"more than {NOTES_MAX} {kind}: no more are printed")

    def _who(self, sid: str) -> str:
        code = self.code_of.get(sid)
        return f"{code} ({self.names.get(code, '?')})" if code is not None else "a client that has not joined"

    def _unknown(self, sid: str, event: Any) -> None:
        """An event the 2023 dealer has no handler for: not acknowledged (:class:`_Server`), said once per player
        and event name."""
        name = str(event)[:60]
        guess = " (a 2022 event?)" if event in EVENTS_2022 else ""
        self._once("unknown events", (self.code_of.get(sid, sid), name),
                   f"{self._who(sid)} sent '{name}', which the 2023 dealer does not know{guess} — ignored, as the "
                   "official dealer ignores it")  # fmt: skip

    def _refused(self, data: Any, err: str) -> None:
        """A join refused: one line on the terminal (the player only hears the error)."""
        room = data.get("room_name") if isinstance(data, dict) else None
        name = data.get("player") if isinstance(data, dict) else None
        what = [f"room '{str(room)[:40]}'" if isinstance(room, str) else "no room name",
                f"player '{str(name)[:40]}'" if isinstance(name, str) else "no player name"]  # fmt: skip
        self._once("refused joins", len(self.told.get("refused joins", ())),
                   f"a join was refused: {', '.join(what)} (this dealer's room is '{self.opts.room}') — {err}")

    def _too_few(self) -> str:
        """Why the match did not start: who joined, and who joined and left."""
        left = len(self.told.get("left before the match", set()) - set(self.names.values()))
        return (f"only {len(self.names)} of {SEATS - len(self.opts.fill)} players joined in {self.opts.join_wait_s:g} s"
                + (f" ({left} joined and left)" if left else "")
                + f" (--join-wait): still waiting for {self.waiting_for()}")  # fmt: skip

    def _hinting(self, sink: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
        """The table's sink, which at the fast pace looks for a socket player's first timeout: a hint, said once."""
        if self.opts.pace_s:
            return sink
        hinted = False

        def write(line: bytes) -> None:
            nonlocal hinted
            sink(line)
            if hinted or b"timeout" not in line:
                return
            doc = orjson.loads(line)
            c = doc.get("contents")
            if doc.get("event") == "penalty" and isinstance(c, dict) and c.get("player") in self.names \
                    and str(c.get("error", "")).endswith("timeout"):  # fmt: skip
                hinted = True
                self.say(f"{c['player']} ({self.names[c['player']]}) did not act within {self.opts.timeout_s:g} s; "
                         "if your bot's handlers rely on the kit's timing, try --pace official (docs/dealer.md)")

        return write

    def dealer_code(self) -> str:
        digest = hashlib.sha256(f"{self.opts.room}|{self.opts.seed}|{self.t0}".encode()).hexdigest()
        return f"D-{int(digest[:8], 16) % 10**8:08d}"

    # ------------------------------------------------------------------ the match

    def _maybe_start(self) -> None:
        """The match starts once every seat is taken and the log has a reader storing it (:attr:`ready`)."""
        if not self.started and self.ready.is_set() and len(self.names) + len(self.opts.fill) >= SEATS:
            self._start()

    def abort(self, why: str) -> None:
        """Stops serving before the match (from any thread): the dealer cannot store it, say."""
        self.aborted = why

    def _start(self) -> None:
        self.started = True
        seats = [Seat(code, name, _remote) for code, name in self.names.items()]
        for i, (kind, bot) in enumerate(self.opts.fill):
            code = f"P-{len(seats) + 1:08d}"
            seats.append(Seat(code, f"{kind}-{len(seats) + 1}", bot))
        self.table = DealerTable(self.opts.profile, seats, self, self.inbox, timeout_s=self.opts.timeout_s,
                                 remote=set(self.names), joined_ms=self.joined_ms, pace_s=self.opts.pace_s,
                                 seed=self.opts.seed, rounds=self.opts.rounds, dealer=self.opts.room, dealer_code=self.dealer_code())  # fmt: skip
        self.say(f"match {self.table.dealer_code} starts: {count(self.opts.rounds, 'round')}, {self.opts.profile.id} "
                 f"({self.table.dealer_code}: its dealer code; the findings name it by its database id, M-…)")
        threading.Thread(target=self._play, name="kifu-dealer-table", daemon=True).start()

    def _play(self) -> None:
        assert self.table is not None
        try:
            self.table.play(self._hinting(self.sink))
        except (DealerStop, BotError) as exc:
            self.result = str(exc)
        except Exception as exc:  # noqa: BLE001 - said in one line, the match stops
            self.result = f"the dealer failed: {type(exc).__name__}: {exc}"
        finally:
            assert self.loop is not None
            if not self.loop.is_closed():  # closed: the server was interrupted (Ctrl-C)
                self.loop.call_soon_threadsafe(self.ended.set)

    def waiting_for(self) -> str:
        """Who the dealer still waits for: ``3 more players (1 joined: NAME)``."""
        free = SEATS - len(self.opts.fill) - len(self.names)
        joined = ", ".join(self.names.values())
        told = f" ({len(self.names)} joined: {joined})" if joined else ""
        return f"{count(free, 'more player')}{told}"

    def stop(self, sig: signal.Signals) -> None:
        """Ctrl-C or SIGTERM (on the loop): the dealer stops serving, closes the sockets and ends; a second one
        ends it at once."""
        if self.stopped is not None and self._task is not None:
            self._task.cancel()
            return
        self.stopped = sig
        self._halt.set()

    async def serve(self) -> str | None:
        """Serves until the match has ended (or no match could start in time, or Ctrl-C or SIGTERM came); why it
        did not complete, or None."""
        self.loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self.out = asyncio.Queue()
        self.ended = asyncio.Event()
        self._halt = asyncio.Event()  # set by stop(): Ctrl-C or SIGTERM
        for sig in STOPS:
            try:
                self.loop.add_signal_handler(sig, self.stop, sig)
            except NotImplementedError:  # Windows' event loop: Ctrl-C interrupts asyncio.run instead
                pass
        self.t0 = time.time_ns()
        config = uvicorn.Config(self.app, host=self.opts.host, port=self.opts.port, log_level="warning",
                                lifespan="off", ws="auto", ws_per_message_deflate=False)  # fmt: skip
        server = uvicorn.Server(config)
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        serving = asyncio.ensure_future(server.serve())
        sender = asyncio.ensure_future(self._sender())
        while not server.started and not serving.done() and self.stopped is None:  # bound, or it could not be
            await asyncio.sleep(0.005)
        if serving.done():  # the port could not be bound
            sender.cancel()
            exc = serving.exception() if not serving.cancelled() else None
            return f"cannot serve on {self.opts.host}:{self.opts.port}" + (f": {exc}" if exc else "")
        if server.started:
            free = SEATS - len(self.opts.fill)
            self.say(f"listening on http://{self.opts.host}:{self.opts.port}, room {self.opts.room}"
                     + (f" — start your bots ({count(free, 'seat')})" if free else ""))  # fmt: skip
            self.on_listening()
        start = self.loop.time()
        deadline, told = start + self.opts.join_wait_s, start
        while not self.started and self.loop.time() < deadline and not serving.done() and self.aborted is None \
                and self.stopped is None:  # fmt: skip
            self._maybe_start()
            now = self.loop.time()
            if now - told >= TELL_EVERY_S and not self.started:
                told = now
                self.say(f"waiting for {self.waiting_for()}; {deadline - now:.0f} s left (--join-wait), Ctrl-C stops")
            await asyncio.sleep(0.05)
        if self.stopped is not None:
            self.result = f"stopped by {STOPS[self.stopped][0]}"
        elif serving.done():
            self.result = f"the server stopped serving on {self.opts.host}:{self.opts.port}"
        elif self.aborted is not None:
            self.result = self.aborted
        elif not self.started:
            self.result = self._too_few()
        else:
            ended = asyncio.ensure_future(self.ended.wait())
            halted = asyncio.ensure_future(self._halt.wait())
            await asyncio.wait([ended, halted], return_when=asyncio.FIRST_COMPLETED)
            for t in (ended, halted):
                t.cancel()
            if self.stopped is not None and not self.ended.is_set():
                self.result = f"stopped by {STOPS[self.stopped][0]}"
        try:  # the last messages out (finish-game) before closing
            await asyncio.wait_for(self.out.join(), 10)
        except asyncio.TimeoutError:
            pass
        for sid in list(self.code_of):
            try:
                await self.sio.disconnect(sid)
            except Exception:  # noqa: BLE001 - already gone
                pass
        await asyncio.sleep(0.2 if self.stopped is None else 0.05)
        server.should_exit = True
        try:
            await asyncio.wait_for(serving, 10)
        except asyncio.TimeoutError:
            pass
        sender.cancel()
        return self.result


def _remote(view: dict[str, Any]) -> dict[str, Any]:  # a socket player's seat: never asked (the table awaits its messages)
    raise BotError("a remote seat was asked like a bot")
