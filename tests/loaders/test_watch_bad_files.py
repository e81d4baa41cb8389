"""`kifu watch` on a folder holding files it cannot read: a symlink loop, a file it has no permission to open.
Each is told once, in one line, and the other files of the folder are followed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from loaders.core import feeds
from loaders.core.feeds import Folder, Lines
from tests.conftest import REPO, query

BASE = REPO / "tests" / "data" / "probe_head.jsonl"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(BASE.read_bytes())
    (folder / "loop-a.jsonl").symlink_to("loop-b.jsonl")
    (folder / "loop-b.jsonl").symlink_to("loop-a.jsonl")
    (folder / "locked.jsonl").write_bytes(BASE.read_bytes())
    return folder


def test_a_folder_with_a_symlink_loop_and_a_locked_file_follows_the_rest(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    folder = _folder(tmp_path)
    real_open = os.open

    def refusing(path: Any, *args: Any, **kw: Any) -> int:  # no permission (simulated: the tests may run as root)
        if str(path).endswith("locked.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kw)

    monkeypatch.setattr(feeds.os, "open", refusing)
    watched = Folder(folder, settle_s=0)
    got: list[Any] = []
    for _ in range(3):
        got += watched.poll()
    assert sorted(Path(p).name for p in watched.files) == ["good.jsonl"]
    assert sum(len(i.records) for i in got if isinstance(i, Lines)) == len(BASE.read_bytes().splitlines())
    assert watched.take_notes() == [f"{folder}/locked.jsonl: cannot open (Permission denied) — not read",
                                    f"{folder}/loop-a.jsonl: cannot open (Too many levels of symbolic links) — not read",
                                    f"{folder}/loop-b.jsonl: cannot open (Too many levels of symbolic links) — not read"]  # fmt: skip
    assert watched.take_notes() == []  # told once
    assert watched.problem is not None and "not read" in watched.problem
    monkeypatch.setattr(feeds.os, "open", real_open)  # the permission given back: followed from then on
    watched.poll()
    assert "locked.jsonl" in [Path(p).name for p in watched.files]


def test_kifu_watch_goes_on_past_a_symlink_loop_and_says_it_once(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "locked.jsonl").unlink()
    db = tmp_path / "w.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "watch", str(folder), "--db", str(db), "--no-status",
                             "--settle", "0.2", "--poll", "0.1"], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
            try:
                if query(db, "select count(*) from events")[0][0] == len(BASE.read_bytes().splitlines()):
                    break
            except Exception:  # noqa: BLE001 - not made yet, or held by the watcher at this moment
                pass
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        time.sleep(1)  # a few more polls: the note is not told again
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert code == 0 and "Traceback" not in err, err
    notes = [line for line in err.splitlines() if "symbolic links" in line]
    assert notes == [f"kifu watch: {folder}/loop-a.jsonl: cannot open (Too many levels of symbolic links) — not read",
                     f"kifu watch: {folder}/loop-b.jsonl: cannot open (Too many levels of symbolic links) — not read"]  # fmt: skip
    assert f"stopped: {len(BASE.read_bytes().splitlines())} events stored" in err


def test_the_status_counts_games_of_every_kind_and_every_record_quarantined(tmp_path: Path) -> None:
    """A folder of a dealer log with one line that is not JSON, a Kakomimasu game and a CHaser log: the status says
    the dealer's events, the two games and the one record quarantined (``load_issues`` holds it). The Kakomimasu game
    is one line with no newline at its end, as a game server writes it: a whole document, read once settled (it was
    taken for the first line of a JSON-lines log not written whole yet, and never read)."""
    from loaders.live.watch import Watcher
    from tests.loaders.test_watch import watch_until

    folder = tmp_path / "logs"
    folder.mkdir()
    lines = BASE.read_bytes().splitlines(keepends=True)
    (folder / "dealer.jsonl").write_bytes(b"".join(lines[:5]) + b"{not json\n" + b"".join(lines[5:]))
    fixtures = REPO / "tests" / "fixtures"
    kako = fixtures / "kakomimasu" / "v1_games" / "game02_A-2.json"
    chaser = next((fixtures / "chaser" / "games").glob("log*.txt"))
    (folder / kako.name).write_bytes(kako.read_bytes())
    (folder / chaser.name).write_bytes(chaser.read_bytes())
    db = tmp_path / "w.duckdb"
    w = Watcher(db, [Folder(folder, settle_s=0.1)], poll_s=0.01)
    watch_until(w, lambda: w.status.games >= 2 and w.status.events >= len(lines), timeout=120)
    assert w.status.events == len(lines) and w.status.games == 2
    assert w.status.quarantined == 1
    assert query(db, "select count(*) from load_issues")[0][0] == 1
