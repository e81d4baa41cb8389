"""Every command ends in one line for a path the system refuses: too long, a folder where a file is wanted (or
a file where a folder is), a device, a read-only file system, no space left — ``kifu <cmd>: <path>: <reason>``,
exit 2 for a path given wrong, 1 when the system refuses the work.  No traceback, and no work started first.

Permission: these tests run as root, which the kernel lets write anywhere, so EACCES cannot be produced by file
modes here; a read-only mount (EROFS, refused to root too) stands for "cannot write", made in a private mount
namespace (``unshare --mount``).  Where that is not allowed the read-only cases are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kifu import cli

REPO = Path(__file__).resolve().parents[1]
SAMPLE = str(REPO / "samples" / "chaser_greedy-vs-greedy.txt")
LONG = "x" * 300  # one name over any Linux file system's 255 bytes
FILL = ["--fill", "random", "random", "random", "random"]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


PORT = _free_port()

#: Every command with each path argument it takes: (command line with {p} for the path, what {p} must be).
#: "file": a file written or read; "db": a database file; "folder": a folder written; "follow": a watched path.
COMMANDS = [
    ("ingest --db {p} " + SAMPLE + " --no-progress", "db"),
    ("validate --db {p}", "db"),
    ("play --out {p} --no-progress --rounds 1", "file"),
    ("play --out {d}/m.jsonl --ingest --db {p} --no-progress --rounds 1", "db"),
    ("dealer --room r --rounds 1 --port {port} -q --db {d}/d.duckdb --out {p} " + " ".join(FILL), "file"),
    ("dealer --room r --rounds 1 --port {port} -q --out {d}/o.jsonl --db {p} " + " ".join(FILL), "db"),
    ("watch {p} --db {d}/w.duckdb --no-status", "follow"),
    ("watch {d}/in --db {p} --no-status", "db"),
    ("export --db {d}/none.duckdb --to {p} --no-progress", "folder"),
    ("export --db {p} --to {d}/lake --no-progress", "db"),
    ("serve --db {p}", "db"),
    ("replay-log " + SAMPLE + " --to {p} --speed max --no-progress", "file"),
    ("replay-log {p} --to {d}/out.jsonl --speed max --no-progress", "read"),
]
IDS = [c.split()[0] + "-" + c.split("{p}")[0].split()[-1].lstrip("-") + "-" + kind for c, kind in COMMANDS]


def run(line: str, path: str, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    argv = line.format(p=path, d=tmp, port=PORT).split()
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, command: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    assert lines[0].startswith(f"kifu {command}: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(("line", "kind"), COMMANDS, ids=IDS)
def test_a_name_too_long(line: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / (LONG + (".duckdb" if kind == "db" else "")))
    code, _, err = run(line, path, tmp_path, capsys)
    text = one_line(err, line.split()[0])
    assert code == 2
    assert f": {path}: File name too long" in text
    assert not any(tmp_path.iterdir()), "nothing is made for a refused command"


@pytest.mark.parametrize(("line", "kind"), COMMANDS, ids=IDS)
def test_under_a_file(line: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    path = str(tmp_path / "afile" / "x")
    code, _, err = run(line, path, tmp_path, capsys)
    text = one_line(err, line.split()[0])
    assert code == 2
    assert "not a folder" in text or "Not a directory" in text or "no such" in text.lower(), text


@pytest.mark.parametrize(("line", "kind"), [c for c in COMMANDS if c[1] in ("file", "db", "read")],
                         ids=[i for i, c in zip(IDS, COMMANDS) if c[1] in ("file", "db", "read")])  # fmt: skip
def test_a_folder_where_a_file_is_wanted(line: str, kind: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    folder = tmp_path / "folder"
    folder.mkdir()
    code, _, err = run(line, str(folder), tmp_path, capsys)
    text = one_line(err, line.split()[0])
    assert code == 2
    assert "is a folder" in text or "Is a directory" in text or "is a directory" in text, text
    assert list(folder.iterdir()) == []


def test_a_file_where_a_folder_is_wanted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    code, _, err = run("export --db {d}/none.duckdb --to {p} --no-progress", str(tmp_path / "afile"), tmp_path, capsys)
    assert code == 2 and "Not a directory" in one_line(err, "export")
    assert (tmp_path / "afile").read_text() == "x"


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device of our own (a copy of /dev/null or /dev/full), so that a bug cannot replace the real one."""
    node = tmp_path / name
    try:
        os.mknod(node, 0o666 | 0o020000, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc.strerror})")
    return node


@pytest.mark.parametrize(("line", "kind"), [c for c in COMMANDS if c[1] == "db"],
                         ids=[i for i, c in zip(IDS, COMMANDS) if c[1] == "db"])  # fmt: skip
def test_a_device_as_the_database(line: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    node = _device(tmp_path, "null", 3)
    code, _, err = run(line, str(node), tmp_path, capsys)
    text = one_line(err, line.split()[0])
    assert code == 2
    assert text == f"kifu {line.split()[0]}: {node}: a device or special file, not a database file (--db)"


def test_play_never_replaces_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kifu play` writes its log under a temporary name and renames it: onto a device that would replace the
    device itself (as root, /dev/full became a regular file) — refused instead."""
    node = _device(tmp_path, "full", 7)
    code, _, err = run("play --out {p} --no-progress --rounds 1", str(node), tmp_path, capsys)
    assert code == 2 and "a device or special file" in one_line(err, "play")
    assert node.is_char_device()


def test_dealer_never_follows_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kifu dealer` reads its log back into the database as it writes it: a device (reading /dev/full never
    ends) is refused before the match."""
    node = _device(tmp_path, "full", 7)
    line = "dealer --room r --rounds 1 --port {port} -q --db {d}/d.duckdb --out {p} " + " ".join(FILL)
    code, _, err = run(line, str(node), tmp_path, capsys)
    assert code == 2 and "a device or special file" in one_line(err, "dealer")
    assert node.is_char_device()


@pytest.mark.parametrize("line", [
    "replay-log " + SAMPLE + " --to {p} --speed max --no-progress",
])  # fmt: skip
def test_no_space_left_on_a_written_file(line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    node = _device(tmp_path, "full", 7)
    code, _, err = run(line, str(node), tmp_path, capsys)
    assert code == 1
    assert one_line(err, line.split()[0]) == f"kifu {line.split()[0]}: {node}: No space left on device"


#: Run inside a private mount namespace: a read-only tmpfs and a tiny full one, each command against them.
CHILD = r"""
import json, subprocess, sys, contextlib, io
ro, small, tmp = sys.argv[1:4]
subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro], check=True)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", small], check=True)
with open(small + "/fill", "wb") as f:
    try:
        f.write(b"x" * 65536)
    except OSError:
        pass
from kifu import cli
out = []
for line in json.loads(sys.argv[4]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(line.format(ro=ro, small=small, d=tmp, port=sys.argv[5]).split())
    out.append([line, code, err.getvalue()])
print(json.dumps(out))
"""

CANNOT_WRITE = [
    "ingest --db {ro}/k.duckdb " + SAMPLE + " --no-progress",
    "play --out {ro}/m.jsonl --no-progress --rounds 1",
    "dealer --room r --rounds 1 --port {port} -q --db {d}/d.duckdb --out {ro}/o.jsonl " + " ".join(FILL),
    "dealer --room r --rounds 1 --port {port} -q --out {d}/o.jsonl --db {ro}/d.duckdb " + " ".join(FILL),
    "watch {d}/in --db {ro}/w.duckdb --no-status",
    "export --db {d}/none.duckdb --to {ro}/lake --no-progress",
    "replay-log " + SAMPLE + " --to {ro}/out.jsonl --speed max --no-progress",
    "ingest --db {small}/k.duckdb " + SAMPLE + " --no-progress",
    "play --out {small}/m.jsonl --rounds 1 --no-progress",
]


def test_read_only_and_full_file_systems(tmp_path: Path) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to make a private mount namespace")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace here: {probe.stderr.decode(errors='replace').strip()}")
    ro, small = tmp_path / "ro", tmp_path / "small"
    ro.mkdir()
    small.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(["unshare", "--mount", sys.executable, "-c", CHILD, str(ro), str(small), str(tmp_path),
                           json.dumps(CANNOT_WRITE), str(PORT)], capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.splitlines()[-1])
    for line, code, err in results:
        command = line.split()[0]
        text = one_line(err, command)
        assert code == 1, (line, err)
        if "{ro}" in line:
            assert "Read-only file system" in text, (line, text)
        else:
            assert "No space left on device" in text and "not a DuckDB" not in text, (line, text)


def test_an_error_about_no_file_is_not_said_about_one(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:  # fmt: skip
    """An OSError that names no path and is not an error of writing (a refused connection) is one line too,
    without a path it is not about."""
    import errno

    from kifu import cli as cli_module

    def refused(args: object) -> int:
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    monkeypatch.setattr(cli_module, "cmd_ingest", refused)
    code = cli.main(["ingest", "--db", str(tmp_path / "k.duckdb"), "x.jsonl"])
    assert code == 1
    assert one_line(capsys.readouterr().err, "ingest") == "kifu ingest: Connection refused"


def _fifo_and_zero(tmp_path: Path) -> tuple[Path, Path]:
    """A FIFO nobody writes into, and /dev/zero under a log's name."""
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    return fifo, zero


def test_watch_never_follows_a_fifo_or_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO nobody writes into would hold `kifu watch` before its first line, /dev/zero never ends: refused in
    one line before anything is followed."""
    for path in _fifo_and_zero(tmp_path):
        code, _, err = run("watch {p} --db {d}/w.duckdb --no-status", str(path), tmp_path, capsys)
        assert code == 2
        assert one_line(err, "watch") == f"kifu watch: {path}: a device or special file: give a log file or a folder"
    assert not (tmp_path / "w.duckdb").exists()


def test_replay_log_never_reads_a_fifo_or_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kifu replay-log` reads its log to the end: a FIFO nobody writes into would wait for ever, /dev/zero
    never ends (one line without a newline, held whole): refused in one line."""
    for path in _fifo_and_zero(tmp_path):
        code, _, err = run("replay-log {p} --to {d}/out.jsonl --speed max --no-progress", str(path), tmp_path, capsys)
        assert code == 2
        assert one_line(err, "replay-log") == f"kifu replay-log: {path}: a device or special file: give a log file"
    assert not (tmp_path / "out.jsonl").exists()
