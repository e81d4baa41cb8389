"""``kifu dealer`` played by JavaScript bots: socket.io-client 2.x in Node, as contestants' JS bots are written.

Two Node bots (``tests/node/bot.js``) and two python-socketio 4.x bots (``tests/test_dealer.py``'s) play one
match, once with the Node bots on a websocket from the start and once connecting by long-polling and
upgrading to a websocket.  ``npm ci`` installs the bot's pinned socket.io-client once into ``.cache/``
(``tests/node``); without node and npm, or when the install fails (offline), the tests skip, saying why.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from tests import node as node_bot

#: Players on a clock: run after the others, in one process (`make test`).
pytestmark = pytest.mark.alone

pytest.importorskip("socketio", reason="python-socketio 4.x client not installed (requirements-dev.txt)")

from tests.test_dealer import Bot, _dealer, _findings, _finish, _lines


@pytest.fixture(scope="module")
def node_modules() -> Path:
    try:
        return node_bot.install()
    except node_bot.Unavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("transport", ["websocket", "polling"])
def test_two_node_bots_and_two_python_bots_play_a_match(tmp_path: Path, node_modules: Path,
                                                        transport: str) -> None:  # fmt: skip
    room = "Node room"
    proc, port, out = _dealer(tmp_path, "--room", room, "--rounds", "10", "--seed", "11")
    url = f"http://127.0.0.1:{port}"
    nodes = [subprocess.Popen(node_bot.command(url, room, f"node {i}", transport), env=node_bot.env(node_modules),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in (1, 2)]  # fmt: skip
    pythons = [Bot(port, room, f"python {i}").start() for i in (1, 2)]
    try:
        code, err = _finish(proc)
        assert code == 0, err
        said = [p.communicate(timeout=30) for p in nodes]
        assert all(b.finished.wait(10) for b in pythons)
    finally:
        for p in nodes:
            if p.poll() is None:
                p.kill()
        for b in pythons:
            b.close()
    reports = []
    for p, (stdout, stderr) in zip(nodes, said):
        assert p.returncode == 0, (stdout[-2000:], stderr[-2000:])
        reports.append(orjson.loads(stdout.splitlines()[-1]))
    for r in reports:  # the match finished for them, every answer was (null, data), they played
        assert r["finished"] and r["errors"] == [] and r["actions"] > 10, r["errors"]
        assert r["transports"] == (["websocket"] if transport == "websocket" else ["polling", "websocket"])
    for b in pythons:
        assert all(err is None for _, err, _ in b.acks), [a for a in b.acks if a[1] is not None]
    codes = [r["code"] for r in reports] + [b.code for b in pythons]
    assert sorted(codes) == [f"P-{i:08d}" for i in range(1, 5)]
    lines = _lines(out)
    assert [x["event"] for x in lines].count("finish-turn") == 10 and lines[-1]["event"] == "finish-game"
    node_codes = {r["code"] for r in reports}
    assert any(x["event"] in ("play-card", "play-draw-card") and x["player"] in node_codes for x in lines)
    assert _findings(out) == []
