"""The Node bot of ``bot.js`` — a contestant's JavaScript bot, socket.io-client 2.x as in the ALGORI kit —
and its install, shared by ``tests/test_dealer_node.py`` and ``benchmarks/dealer.py``.

``npm ci`` installs the exact versions of ``package-lock.json`` once into ``.cache/node-bot-HASH/`` at the
top of the repository (ignored by git; HASH of the two package files, so a new lock installs afresh);
the bot then runs from here with ``NODE_PATH`` pointing at that ``node_modules``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = REPO / ".cache"
BOT = HERE / "bot.js"
PACKAGE = ("package.json", "package-lock.json")


class Unavailable(Exception):
    """The Node bot cannot run here: the message says why (no node or npm, the install failed)."""


def install(cache: Path = CACHE) -> Path:
    """The bot's ``node_modules``, installed by ``npm ci`` the first time (a few seconds, from the npm
    registry or npm's own cache)."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        raise Unavailable("node and npm are not installed (Debian: apt-get install nodejs npm)")
    key = hashlib.sha256(b"".join((HERE / f).read_bytes() for f in PACKAGE)).hexdigest()[:16]
    target = cache / f"node-bot-{key}"
    if (target / "node_modules" / "socket.io-client" / "package.json").is_file():
        return target / "node_modules"
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="node-bot-install-", dir=cache))  # renamed into place when complete
    try:
        for f in PACKAGE:
            shutil.copy(HERE / f, work / f)
        try:
            r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"],
                               cwd=work, check=False, capture_output=True, text=True, timeout=300)  # fmt: skip
        except subprocess.TimeoutExpired:
            raise Unavailable("npm ci of tests/node took over 5 minutes (no npm registry?)") from None
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise Unavailable(f"npm ci of tests/node failed (offline, or no npm registry?): {last}")
        try:
            work.rename(target)
        except OSError:  # another process installed it meanwhile
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target / "node_modules"


def command(url: str, room: str, name: str, transport: str = "websocket") -> list[str]:
    """``transport``: ``websocket`` (websocket only) or ``polling`` (long-polling, then the upgrade)."""
    return ["node", str(BOT), url, room, name, transport]


def env(modules: Path) -> dict[str, str]:
    return {**os.environ, "NODE_PATH": str(modules)}
