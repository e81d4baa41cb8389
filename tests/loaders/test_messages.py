"""What `kifu ingest` and `kifu serve` say: settings checked in one line, the exact reason a file gave
nothing, empty and skipped files named, and a run that ingested nothing leaves nothing behind."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import duckdb
import pytest

import queries
from common import settings
from kifu.cli import main
from queries.sharing import db_lock
from tests.conftest import REPO, SAMPLE, ingest, query

BASE = REPO / "tests" / "data" / "probe_head.jsonl"
CHASER = REPO / "samples" / "chaser_greedy-vs-greedy.txt"
KAKOMIMASU = REPO / "samples" / "kakomimasu_island-4_hanako-vs-a3.json.gz"
SIZES = "a number and a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB), e.g. 256MB, 1.5GB or 2GiB"
READS = "*.jsonl, *.json, *.log, *.ndjson, *.txt, *.map, optionally .gz"
NOTHING_MADE = ["kifu ingest: nothing could be ingested; no database was made"]
Cap = pytest.CaptureFixture[str]
MP = pytest.MonkeyPatch


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ingest(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    """``kifu ingest ARGS --no-progress --jobs 1``: exit status, stdout lines, stderr lines."""
    code = main(["ingest", *args, "--no-progress", "--jobs", "1"])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err.splitlines()


# ------------------------------------------------------------------------ KIFU_MEMORY_LIMIT


@pytest.mark.parametrize(
    ("value", "literal"),
    [("256MB", "256MB"), ("1.5GB", "1.5GB"), ("2GiB", "2GiB"), ("2 gib", "2GiB"), ("512kib", "512KiB"),
     (" 1TB ", "1TB"), ("0.5Gb", "0.5GB"), (".5GB", ".5GB"), ("3tib", "3TiB"), ("64 mib", "64MiB")],
)  # fmt: skip
def test_memory_limit_accepts_sizes_and_duckdb_takes_them(value: str, literal: str) -> None:
    assert settings.memory_limit(value) == literal
    con = duckdb.connect()
    queries.set_memory_limit(con, literal)
    assert con.execute("select current_setting('memory_limit')").fetchall()[0][0] != ""
    con.close()


@pytest.mark.parametrize(
    ("value", "why"),
    [("banana", "is not a memory size"), ("256", "is not a memory size"), ("256 B", "is not a memory size"),
     ("1e3MB", "is not a memory size"), ("-1GB", "is not a memory size"), ("1.5.2GB", "is not a memory size"),
     ("２５６MB", "is not a memory size"), ("256  MB", "is not a memory size"), ("10XB", "is not a memory size"),
     ("1GB'; select 1; --", "is not a memory size"), ("0MB", "must be more than zero"),
     ("0.0GiB", "must be more than zero")],
)  # fmt: skip
def test_memory_limit_refuses_anything_else(value: str, why: str) -> None:
    with pytest.raises(settings.SettingError) as caught:
        settings.memory_limit(value)
    assert str(caught.value) == f"KIFU_MEMORY_LIMIT='{value}' {why} — give {SIZES}"


def test_memory_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIFU_MEMORY_LIMIT", raising=False)
    assert settings.memory_limit() == "256MB"
    assert settings.memory_limit(default=settings.DASHBOARD_MEMORY) == "512MB"
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "1 gb")
    assert settings.memory_limit() == "1GB"
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "lots\x1b[2J")
    with pytest.raises(settings.SettingError, match=r"KIFU_MEMORY_LIMIT='lots\\x1b\[2J' is not a memory"):
        settings.memory_limit()


def test_no_setting_is_pasted_into_sql() -> None:
    """Every `set memory_limit` of Kifu goes through queries.set_memory_limit (a parameter)."""
    found = []
    for folder in ("app", "loaders", "queries", "kifu", "benchmarks", "scripts", "rules"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "memory_limit = '" in text or "memory_limit='" in text:
                found.append(str(path.relative_to(REPO)))
    assert found == []


def test_a_bad_memory_limit_ends_an_ingest_in_one_line_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    done = subprocess.run([sys.executable, "-m", "kifu.cli", "ingest", str(BASE), "--db", str(db),
                           "--no-progress"], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "KIFU_MEMORY_LIMIT": "banana"})  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"kifu ingest: KIFU_MEMORY_LIMIT='banana' is not a memory size — give {SIZES}\n"
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_memory_limit_is_applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Cap) -> None:
    """The checked value reaches DuckDB: a limit too small for the run ends it with the memory message."""
    from loaders import pipeline

    seen: list[str] = []
    real = queries.set_memory_limit
    monkeypatch.setattr(pipeline.queries, "set_memory_limit",
                        lambda con, v: (seen.append(v), real(con, v))[1])  # fmt: skip
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "1.5 gib")
    code, _, _ = _ingest(capsys, str(BASE), "--db", str(tmp_path / "k.duckdb"))
    assert code == 0 and seen == ["1.5GiB"]
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "10KB")
    before = _digest(tmp_path / "k.duckdb")
    code, out, err = _ingest(capsys, str(SAMPLE), "--db", str(tmp_path / "k.duckdb"))
    assert code == 1 and out == []
    assert err == ["kifu ingest: DuckDB reached its memory limit (10KB) — raise it, e.g. "
                   "KIFU_MEMORY_LIMIT=1GB kifu ingest …; the database is unchanged"]  # fmt: skip
    assert _digest(tmp_path / "k.duckdb") == before


def test_a_memory_limit_on_a_new_path_says_no_database_was_made(tmp_path: Path, monkeypatch: MP,
                                                                 capsys: Cap) -> None:  # fmt: skip
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "10KB")
    code, out, err = _ingest(capsys, str(SAMPLE), "--db", str(tmp_path / "k.duckdb"))
    assert code == 1 and out == []
    assert err == ["kifu ingest: DuckDB reached its memory limit (10KB) — raise it, e.g. "
                   "KIFU_MEMORY_LIMIT=1GB kifu ingest …; no database was made"]  # fmt: skip
    assert list(tmp_path.iterdir()) == []


CHASER_GAMES = REPO / "tests" / "fixtures" / "chaser" / "games"


def test_a_chaser_game_index_alone_is_skipped_not_a_duplicate(tmp_path: Path, capsys: Cap) -> None:
    """A games index is recognised and skipped: counted as skipped (not "already in the database"), and a
    run that stored nothing into a new path makes no database and exits 1."""
    code, out, err = _ingest(capsys, str(CHASER_GAMES / "index.json"), "--db", str(tmp_path / "i.duckdb"))
    assert code == 1 and err == NOTHING_MADE
    assert ("  new events 0 · already in the database 0 · skipped 12 (a CHaser game index: nothing to load) · "
            "quarantined 0 · matches 0") in out, out  # fmt: skip
    assert f"  {CHASER_GAMES / 'index.json'}: nothing ingested — a CHaser game index: nothing to load" in out, out
    assert list(tmp_path.iterdir()) == []
    # with the logs beside it: the index is skipped, none of the games counts as a duplicate
    code, out, err = _ingest(capsys, str(CHASER_GAMES), "--db", str(tmp_path / "g.duckdb"))
    assert code == 0, err
    assert "already in the database 0 · skipped 12 (a CHaser game index: nothing to load)" in out[1], out


# ------------------------------------------------------------------------ --db / KIFU_DB


def test_db_a_folder_or_in_a_missing_folder(tmp_path: Path, monkeypatch: MP, capsys: Cap) -> None:
    monkeypatch.delenv("KIFU_DB", raising=False)
    assert _ingest(capsys, str(BASE), "--db", str(tmp_path)) == (2, [], [
        f"kifu ingest: --db {tmp_path} is a folder — give a database file in it, e.g. "
        f"{tmp_path}/kifu.duckdb"])
    missing = tmp_path / "no such folder" / "k.duckdb"
    assert _ingest(capsys, str(BASE), "--db", str(missing)) == (
        2, [], [f"kifu ingest: --db {missing}: the folder {missing.parent} does not exist — create it "
                f"(mkdir -p '{missing.parent}') or choose another --db"])  # fmt: skip
    (tmp_path / "file").write_text("x")
    inside = tmp_path / "file" / "k.duckdb"
    assert _ingest(capsys, str(BASE), "--db", str(inside)) == (
        2, [], [f"kifu ingest: --db {inside}: {tmp_path / 'file'} is not a folder — choose another --db"])
    monkeypatch.setenv("KIFU_DB", str(missing))
    assert _ingest(capsys, str(BASE)) == (
        2, [], [f"kifu ingest: KIFU_DB={missing}: the folder {missing.parent} does not exist — create it "
                f"(mkdir -p '{missing.parent}') or choose another KIFU_DB"])  # fmt: skip
    monkeypatch.setenv("KIFU_DB", "")
    assert _ingest(capsys, str(BASE)) == (
        2, [], ["kifu ingest: KIFU_DB is empty — give a database file, e.g. kifu.duckdb"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_db_in_a_folder_kifu_cannot_write(capsys: Cap) -> None:
    if not Path("/sys/kernel").is_dir():
        pytest.skip("no /sys here (Linux's sysfs, where no one creates a file)")
    code, out, err = _ingest(capsys, str(BASE), "--db", "/sys/kifu.duckdb")
    assert (code, out) == (1, [])
    assert err == ["kifu ingest: cannot write /sys/kifu.duckdb.lock: permission denied or read-only — "
                   "Kifu writes a copy next to the database and renames it; choose a --db in a folder you "
                   "can write; no database was made"]  # fmt: skip


# ------------------------------------------------------------------------ kifu serve


Started = list[list[str]]


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> Started:
    """Streamlit's main replaced by a recorder (what `kifu serve` would start); the environment restored."""
    from streamlit.web import cli as stcli

    started: Started = []
    monkeypatch.setattr(stcli, "main", lambda: started.append(list(sys.argv)) or 0)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr("kifu.cli._port_busy", lambda host, port: False)  # whatever else runs on this machine
    for name in ("KIFU_DB", "KIFU_UPLOAD", "KIFU_UPLOAD_TOKEN", "KIFU_MEMORY_LIMIT", "KIFU_UPLOAD_JOBS",
                 "KIFU_UPLOAD_BUDGET_MB"):  # fmt: skip
        monkeypatch.setenv(name, "")
    return started


def test_serve_on_a_busy_port_says_so_before_the_url(tmp_path: Path, no_server: Started, capsys: Cap,
                                                      monkeypatch: MP) -> None:  # fmt: skip
    import socket

    from kifu import cli

    monkeypatch.undo()  # the real port check (and streamlit's main: recorded again below)
    from streamlit.web import cli as stcli

    monkeypatch.setattr(stcli, "main", lambda: no_server.append(list(sys.argv)) or 0)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "")
    monkeypatch.setenv("KIFU_UPLOAD", "")
    db = tmp_path / "k.duckdb"
    ingest(db, BASE)
    capsys.readouterr()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli._port_busy("127.0.0.1", port)
        code = main(["serve", "--db", str(db), "--port", str(port)])
    out = capsys.readouterr()
    assert code == 1 and no_server == [] and out.out == ""
    assert out.err == f"kifu serve: port {port} on 127.0.0.1 is in use — give another with --port\n"
    assert not cli._port_busy("127.0.0.1", port)  # closed: free again


def test_serve_on_a_missing_database_starts_and_says_it_waits(tmp_path: Path, no_server: Started, capsys: Cap) -> None:
    """Whichever of `kifu serve` and `kifu watch` starts first: the dashboard starts and waits for the file."""
    db = tmp_path / "my logs" / "kifu.duckdb"
    db.parent.mkdir()
    assert main(["serve", "--db", str(db), "--port", "8642"]) == 0
    out = capsys.readouterr()
    assert out.err.splitlines() == [
        f"kifu serve: no database at {db} yet — the dashboard starts and shows the matches once "
        f"`kifu watch … --db '{db}'` or `kifu ingest LOGS --db '{db}'` makes it (or `kifu ingest --sample "
        f"--db '{db}'` to try Kifu on the bundled samples)",
        f"Kifu dashboard on http://127.0.0.1:8642  (database {db})"]  # fmt: skip
    assert out.out == "" and len(no_server) == 1 and list(db.parent.iterdir()) == []


def test_serve_on_an_empty_duckdb_file_starts(tmp_path: Path, no_server: Started, capsys: Cap) -> None:
    db = tmp_path / "kifu.duckdb"
    duckdb.connect(str(db)).close()
    assert main(["serve", "--db", str(db), "--port", "8642"]) == 0
    assert capsys.readouterr().err == f"Kifu dashboard on http://127.0.0.1:8642  (database {db})\n"
    assert len(no_server) == 1 and "--server.port=8642" in no_server[0]


@pytest.mark.parametrize(
    ("env", "says"),
    [({"KIFU_MEMORY_LIMIT": "banana"}, f"KIFU_MEMORY_LIMIT='banana' is not a memory size — give {SIZES}"),
     ({"KIFU_UPLOAD": "maybe"},
      "KIFU_UPLOAD='maybe' is neither on nor off — give KIFU_UPLOAD=on or KIFU_UPLOAD=off"),
     ({"KIFU_UPLOAD_JOBS": "many"},
      "KIFU_UPLOAD_JOBS='many' is not a whole number — give a number of processes, e.g. 2, more than zero"),
     ({"KIFU_UPLOAD_BUDGET_MB": "0"},
      "KIFU_UPLOAD_BUDGET_MB='0' must be more than zero — give a size in MB, e.g. 1024")],
    ids=["memory", "upload", "upload-jobs", "upload-budget"],
)  # fmt: skip
def test_serve_refuses_bad_settings_from_the_environment(
    tmp_path: Path, no_server: Started, monkeypatch: pytest.MonkeyPatch, capsys: Cap, env: dict[str, str],
    says: str,
) -> None:  # fmt: skip
    db = tmp_path / "kifu.duckdb"
    ingest(db, BASE)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert main(["serve", "--db", str(db)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"kifu serve: {says}"]
    assert no_server == []


def test_serve_refuses_a_folder_as_database(tmp_path: Path, no_server: Started, capsys: Cap) -> None:
    assert main(["serve", "--db", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"kifu serve: --db {tmp_path} is a folder — give a database file in it, e.g. {tmp_path}/kifu.duckdb"]
    assert no_server == []


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--port", "0"], "argument --port: port 0 is out of range (1–65535)"),
     (["--port", "65536"], "argument --port: port 65536 is out of range (1–65535)"),
     (["--port", "http"], "argument --port: not a port number: 'http' (1–65535)"),
     (["--max-upload-mb", "0"],
      "argument --max-upload-mb: '0' must be more than zero — give a size in MB, e.g. 200"),
     (["--max-upload-mb", "-5"],
      "argument --max-upload-mb: '-5' must be more than zero — give a size in MB, e.g. 200"),
     (["--max-upload-mb", "lots"],
      "argument --max-upload-mb: 'lots' is not a whole number — give a size in MB, e.g. 200, more than "
      "zero")],
)  # fmt: skip
def test_serve_flags_are_checked(tmp_path: Path, no_server: Started, capsys: Cap, args: list[str],
                                 says: str) -> None:  # fmt: skip
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--db", str(tmp_path / "k.duckdb"), *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"kifu serve: error: {says}" and "Traceback" not in err
    assert no_server == []


def test_serve_port_and_upload_limit_reach_the_server(tmp_path: Path, no_server: Started) -> None:
    db = tmp_path / "kifu.duckdb"
    ingest(db, BASE)
    assert main(["serve", "--db", str(db), "--port", "65535", "--max-upload-mb", "1"]) == 0
    assert "--server.port=65535" in no_server[0] and "--server.maxUploadSize=1" in no_server[0]


# ------------------------------------------------------------------------ why a file gave nothing


def _issue_stored(tmp_path: Path, path: Path) -> tuple[int, str]:
    """The line and reason load_issues holds for ``path`` (what the terminal must print)."""
    db = tmp_path / "reasons.duckdb"
    ingest(db, path)
    rows = query(db, "select distinct line, reason from load_issues where source = ?", [str(path)])
    db.unlink()
    assert len(rows) == 1, rows
    return int(rows[0][0]), str(rows[0][1])


def test_a_rejected_chaser_log_says_why(tmp_path: Path, capsys: Cap) -> None:
    lines = CHASER.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"greedy_c", b"gr\xe9\xe9dy_c")  # Latin-1 in a player's name
    log = tmp_path / "latin1.txt"
    log.write_bytes(b"\n".join(lines))
    line, reason = _issue_stored(tmp_path, log)
    assert reason.startswith("CHaser log: ")
    db = tmp_path / "k.duckdb"
    code, out, err = _ingest(capsys, str(log), "--db", str(db))
    assert code == 1
    assert out[1:] == [
        "  new events 0 · already in the database 0 · quarantined 1 · matches 0",
        "  quarantined records (not stored: nothing was ingested):",
        f"    {log}:{line}: {reason}",
        f"  {log}: nothing ingested — {reason}",
        f"  database: none made at {db} (nothing was ingested)",
    ]
    assert err == NOTHING_MADE
    assert "unknown game format" not in "\n".join(out)


def test_a_kakomimasu_game_too_large_says_why(tmp_path: Path, capsys: Cap) -> None:
    game = json.loads(gzip.open(KAKOMIMASU).read())
    game["field"]["width"] = game["field"]["height"] = 500
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(game))
    reason = (f"Kakomimasu game {game['id']}: field size 500×500 is larger than Kifu replays (at most 64×64)")
    assert _issue_stored(tmp_path, path) == (1, reason)
    db = tmp_path / "k.duckdb"
    code, out, err = _ingest(capsys, str(path), "--db", str(db))
    assert code == 1 and f"  {path}: nothing ingested — {reason}" in out
    assert err == NOTHING_MADE


def test_a_binary_file_says_why(tmp_path: Path, capsys: Cap) -> None:
    """A binary file is reported once, not as one bad JSON "line" per newline byte in it."""
    path = tmp_path / "photo.jpg.log"
    path.write_bytes(bytes(range(256)) * 10)
    png = tmp_path / "board.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\nabc\nxyz\n{}")
    for binary in (path, png):
        assert _issue_stored(tmp_path, binary) == (1, "binary data, not a log")
        code, out, err = _ingest(capsys, str(binary), "--db", str(tmp_path / "k.duckdb"))
        assert code == 1
        assert out[-2:] == [f"  {binary}: binary data, not a log",
                            f"  database: none made at {tmp_path / 'k.duckdb'} (nothing was ingested)"]  # fmt: skip
        assert err == NOTHING_MADE


def test_quarantine_reasons_are_whole_and_truncation_is_said_only_where_it_can_be(tmp_path: Path) -> None:
    """orjson's reason is not cut at its own colon; "(truncated line?)" only on a last line without newline."""
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b'hello world\n{"a" 1}\n\x00\x01x\n{"event":"x"')
    db = tmp_path / "k.duckdb"
    ingest(db, notes)
    assert query(db, "select line, reason from load_issues order by line") == [
        (1, "invalid JSON: unexpected character, expected a JSON value"),
        (2, "invalid JSON: unexpected character, expected ':' after key"),
        (3, "invalid JSON: unexpected character, expected a JSON value"),
        (4, "invalid JSON: unexpected end of data (truncated line?)"),
    ]
    ended = tmp_path / "ended.jsonl"
    ended.write_bytes(b'{"event":"x"\n')  # the same last line with its newline: not a cut file
    assert _issue_stored(tmp_path, ended) == (1, "invalid JSON: unexpected end of data")


def test_a_gzip_cut_short_is_reported_at_the_first_line_not_read(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(BASE.read_bytes().splitlines(keepends=True)[:40]))
    path = tmp_path / "a_gztrunc.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    db = tmp_path / "k.duckdb"
    ingest(db, path)
    rows = query(db, "select line, reason from load_issues")
    readable = zlib.decompressobj(31).decompress(path.read_bytes())  # what a reader gets before the cut
    assert rows == [(readable.count(b"\n") + 1, "the gzip stream ends early (truncated file?)")]


def test_empty_files_are_called_empty(tmp_path: Path, capsys: Cap) -> None:
    empty = tmp_path / "x.json"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n  \n\r\n")
    db = tmp_path / "k.duckdb"
    code, out, err = _ingest(capsys, str(empty), str(blank), "--db", str(db))
    assert code == 1
    assert out[1:] == [
        "  new events 0 · already in the database 0 · quarantined 0 · matches 0",
        f"  {empty}: the file is empty",
        f"  {blank}: no record in it (only blank lines)",
        f"  database: none made at {db} (nothing was ingested)",
    ]
    assert err == NOTHING_MADE
    # beside a good log: the run succeeds and still names the empty file
    code, out, err = _ingest(capsys, str(empty), str(BASE), "--db", str(db))
    assert code == 0 and err == []
    assert f"  {empty}: the file is empty" in out and out[-1] == f"  database: {db}"


def test_skipped_files_of_a_folder_are_counted(tmp_path: Path, capsys: Cap) -> None:
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "probe.jsonl").write_bytes(BASE.read_bytes())
    (logs / "README.md").write_text("notes")
    (logs / "sub" / "board.png").write_bytes(b"\x89PNG")
    (logs / "READ\x1bME.txt.bak").write_text("x")
    db = tmp_path / "k.duckdb"
    code, out, err = _ingest(capsys, str(logs), "--db", str(db))
    assert code == 0 and err == []
    assert out[-2:] == [
        f"  skipped 3 file(s) Kifu does not read: {logs}/READ\\x1bME.txt.bak, {logs}/README.md, "
        f"{logs}/sub/board.png (Kifu reads {READS})",
        f"  database: {db}",
    ]  # fmt: skip
    # the same folder twice: its files read once, skipped once
    code, out, _ = _ingest(capsys, str(logs), str(logs), "--db", str(db))
    assert code == 0 and any(line.startswith("  skipped 3 file(s)") for line in out)


def test_a_folder_without_logs_names_what_it_holds(tmp_path: Path, capsys: Cap) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("README.md", "a.png", "b.png", "c.png", "d.png", "e.png"):
        (docs / name).write_text("x")
    code, out, err = _ingest(capsys, str(docs), "--db", str(tmp_path / "k.duckdb"))
    assert (code, out) == (1, [])
    assert err == [f"kifu ingest: {docs}: directory holds no log files ({READS}); it holds 6 other file(s): "
                   "README.md, a.png, b.png, c.png, d.png …"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


# ------------------------------------------------------------------------ a run that ingested nothing


def test_nothing_ingested_into_a_new_database_leaves_nothing(tmp_path: Path, capsys: Cap) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    db = tmp_path / "new" / "kifu.duckdb"
    db.parent.mkdir()
    code, _, err = _ingest(capsys, str(bad), "--db", str(db))
    assert code == 1 and err == NOTHING_MADE
    assert list(db.parent.iterdir()) == []


def test_nothing_ingested_leaves_an_existing_database_byte_for_byte(tmp_path: Path, capsys: Cap) -> None:
    db = tmp_path / "kifu.duckdb"
    assert _ingest(capsys, str(BASE), "--db", str(db))[0] == 0
    before, files = _digest(db), sorted(p.name for p in tmp_path.iterdir())
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    code, out, err = _ingest(capsys, str(bad), "--db", str(db))
    assert code == 1 and err == ["kifu ingest: nothing could be ingested; the database is unchanged"]
    assert out[-1] == f"  database: {db} (unchanged: nothing was ingested)"
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*files, "bad.jsonl"])
    assert query(db, "select count(*) from load_runs") == [(1,)]


def test_already_present_is_not_nothing(tmp_path: Path, capsys: Cap) -> None:
    db = tmp_path / "kifu.duckdb"
    assert _ingest(capsys, str(BASE), "--db", str(db))[0] == 0
    code, out, err = _ingest(capsys, str(BASE), "--db", str(db))
    assert code == 0 and err == []
    assert out[1] == "  new events 0 · already in the database 24 · quarantined 0 · matches 1"
    assert out[-1] == f"  database: {db}"


def test_an_upload_that_read_nothing_says_why_and_changes_nothing(tmp_path: Path) -> None:
    from loaders.live.upload_job import run

    db = tmp_path / "kifu.duckdb"
    ingest(db, BASE)
    before = _digest(db)
    status = tmp_path / "s.json"
    empty = tmp_path / "up.json"
    empty.write_bytes(b"")
    assert run(empty, db, status) == 0
    done = json.loads(status.read_text())
    assert (done["state"], done["accepted"], done["problem"]) == ("done", 0, "the file is empty")
    assert _digest(db) == before and not empty.exists()
    fresh = tmp_path / "fresh.duckdb"
    bad = tmp_path / "up.jsonl"
    bad.write_text("{broken\n")
    assert run(bad, fresh, status) == 0
    done = json.loads(status.read_text())
    assert done["problem"].startswith("invalid JSON: ") and "unknown game format?" in done["problem"]
    assert not fresh.exists() and not (tmp_path / "fresh.duckdb.lock").exists()


def test_an_upload_with_a_bad_memory_limit_fails_in_one_line(tmp_path: Path, monkeypatch: MP) -> None:
    from loaders.live.upload_job import run

    monkeypatch.setenv("KIFU_MEMORY_LIMIT", "plenty")
    up = tmp_path / "up.jsonl"
    up.write_bytes(BASE.read_bytes())
    assert run(up, tmp_path / "kifu.duckdb", tmp_path / "s.json") == 1
    done = json.loads((tmp_path / "s.json").read_text())
    said = f"KIFU_MEMORY_LIMIT='plenty' is not a memory size — give {SIZES}"
    assert done == {"state": "failed", "error": said}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


# ------------------------------------------------------------------------ the lock file, removed


def test_a_lock_file_removed_by_its_holder_still_serialises(tmp_path: Path) -> None:
    """A holds the lock, B waits on its file; A deletes the file (a run that made nothing, as its last
    step) and C, started then, locks a new file at the path; when A lets go, B must wait for C, not run
    beside it."""
    db = tmp_path / "kifu.duckdb"
    active: set[str] = set()
    seen: list[set[str]] = []
    guard = threading.Lock()
    waiting = {"B": threading.Event(), "C": threading.Event()}
    release = {"B": threading.Event(), "C": threading.Event()}

    def enter(name: str) -> None:
        with guard:
            active.add(name)
            seen.append(set(active))

    def holder(name: str) -> None:
        with db_lock(db, waiting=lambda msg: waiting[name].set()):
            enter(name)
            release[name].wait(30)
            with guard:
                active.discard(name)

    b = threading.Thread(target=holder, args=("B",))
    c = threading.Thread(target=holder, args=("C",))
    with db_lock(db) as lock:
        enter("A")
        b.start()
        assert waiting["B"].wait(10)
        time.sleep(0.2)  # B blocks on the file A holds
        with guard:
            active.discard("A")  # A's work is done: deleting the file is its last step before letting go
        lock.unlink()
        c.start()
        deadline = time.time() + 10
        while "C" not in active and time.time() < deadline:
            time.sleep(0.01)
        assert "C" in active and not waiting["C"].is_set()  # a new file: C did not wait
    time.sleep(0.5)  # A let go: B holds a deleted file, sees it, and waits for C's
    assert "B" not in active
    release["C"].set()
    c.join(10)
    deadline = time.time() + 10
    while "B" not in active and time.time() < deadline:
        time.sleep(0.01)
    assert "B" in active
    release["B"].set()
    b.join(10)
    assert all(len(s) == 1 for s in seen), seen
    assert [next(iter(s)) for s in seen] == ["A", "C", "B"]


def _ingest_cli(*args: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "kifu.cli", "ingest", *args, "--no-progress", "--jobs", "1"]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_ingests_at_once_into_a_new_database_one_with_nothing(tmp_path: Path) -> None:
    """Runs started together on a database that does not exist: those that read nothing leave nothing, the one
    that reads something makes the database, and no run loses another's data."""
    db = tmp_path / "kifu.duckdb"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    runs = [_ingest_cli(str(bad), "--db", str(db)), _ingest_cli(str(SAMPLE), "--db", str(db)),
            _ingest_cli(str(bad), "--db", str(db)), _ingest_cli(str(BASE), "--db", str(db))]  # fmt: skip
    results: list[Any] = [(*p.communicate(timeout=300), p.returncode)[::-1] for p in runs]
    assert [r[0] for r in results] == [1, 0, 1, 0], results
    for code, _, err in results:
        assert "Traceback" not in err
    assert query(db, "select count(*) from matches") == [(2,)]
    assert query(db, "select count(*) from load_runs") == [(2,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "kifu.duckdb", "kifu.duckdb.lock"]
    # only runs that read nothing, together: nothing at all is left
    other = tmp_path / "other.duckdb"
    runs = [_ingest_cli(str(bad), "--db", str(other)) for _ in range(3)]
    for p in runs:
        p.communicate(timeout=300)
    assert [p.returncode for p in runs] == [1, 1, 1]
    assert not list(tmp_path.glob("other.duckdb*"))


# ------------------------------------------------------------------------ every game named


@pytest.mark.parametrize("argv", [["--help"], ["ingest", "--help"], ["serve", "--help"]])
def test_help_names_every_game(argv: list[str], capsys: Cap) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert all(game in text for game in ("ALGORI UNO", "Kakomimasu", "CHaser")), text
    if argv[0] == "ingest":
        assert "several large log files (a season) are ingested whole side by side" in text
        assert "ALGORI rounds and Kakomimasu and CHaser games are replayed in them" in text
        assert "1 when nothing could be ingested (the database is left as it was, or none is made)" in text
        assert "e.g. 256MB, 1.5GB, 2GiB; default 256MB" in text
