"""The command line says what is true: ids as printed are ids as accepted, a mistyped option is told by its
subcommand with the nearest option, a watched folder that does not exist yet is said once and waited for,
and the set-up waits for a busy package manager."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kifu.cli import SAMPLES, main
from kifu.matchref import resolve

REPO = Path(__file__).resolve().parents[1]
CHASER = "chaser:20261122045903-e5123133d946a8f1"  # the bundled CHaser sample's id (logged at 20261122045903)
ALGORI = "M-e1ca5f3cc1f5494f"


# ---- a mistyped option -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "near"), [
    (["ingest", "--rulset", "x"], "--ruleset"),
    (["validate", "--fail-one", "error"], "--fail-on"),
    (["export", "--to", "x", "--formt", "csv"], "--format"),
    (["watch", "--pool", "1"], "--poll"),
])  # fmt: skip
def test_a_mistyped_option_gets_the_subcommands_usage_and_the_nearest_option(
        argv: list[str], near: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: kifu {argv[0]} ")  # the subcommand's usage, not `usage: kifu [-h] …`
    last = err.rstrip().splitlines()[-1]
    typo = next(a for a in argv if a.startswith("--") and a != "--to")
    assert last.startswith(f"kifu {argv[0]}: error: unrecognized arguments: {typo}")
    assert f"(did you mean {near}?)" in err.splitlines()[-1]


def test_every_subcommand_is_known_and_the_dealer_builds_no_other_commands_heavy_arguments() -> None:
    """``kifu dealer`` listens sooner: the arguments of the watcher's sources and of the lake's formats are made only
    for their commands (or for ``kifu --help``), so the dealer's process imports neither DuckDB nor the loaders
    before it listens.  Every subcommand is in COMMANDS (else its arguments would be left out for it)."""
    import re

    from kifu import cli

    assert tuple(re.findall(r'sub\.add_parser\("([a-z-]+)"', Path(cli.__file__).read_text())) == cli.COMMANDS
    code = ("import sys; from kifu.cli import main\n"
            "try:\n    main(['dealer', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('duckdb', 'loaders.core.feeds', 'loaders.live.watch', 'kifu.export', 'pandas') "
            "if m in sys.modules))")  # fmt: skip
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout[-500:]


def test_an_option_like_nothing_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["ingest", "--zzzzzz"])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == "kifu ingest: error: unrecognized arguments: --zzzzzz"


# ---- ids as printed are ids as accepted ------------------------------------------------------------------------


def test_resolve_names_a_match_by_id_file_or_start() -> None:
    pairs = [(ALGORI, "/logs/dealer.jsonl"), (CHASER, "/logs/chaser/log[20261122045903].txt"),
             ("kakomimasu:d8242f4e-4a76", None), ("M-e1ca5f3cc1f50000", "/logs/other.jsonl")]  # fmt: skip
    assert resolve(ALGORI, pairs) == [ALGORI]
    assert resolve("d8242f4e-4a76", pairs) == ["kakomimasu:d8242f4e-4a76"]  # without the game's prefix
    assert resolve("M-e1ca5f3cc1f549", pairs) == [ALGORI]  # as `kifu watch` prints it: its first 16 characters
    assert resolve("20261122045903", pairs) == [CHASER]  # the CHaser log's timestamp
    assert resolve("log[20261122045903].txt", pairs) == [CHASER]  # its file name
    assert resolve("/logs/dealer.jsonl", pairs) == [ALGORI]  # its path
    assert resolve("M-e1ca5f3cc1f5", pairs) == ["M-e1ca5f3cc1f50000", ALGORI]  # the start of two: both
    assert resolve("M-e1", pairs) == []  # too short to mean one
    assert resolve("nothing", pairs) == []


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import ingest

    db = tmp_path_factory.mktemp("small") / "kifu.duckdb"
    ingest(db, *SAMPLES, jobs=1)
    return db


@pytest.mark.parametrize("given", [ALGORI[:16], "20261122045903", "chaser_greedy-vs-greedy.txt",
                                   str(REPO / "samples" / "chaser_greedy-vs-greedy.txt"), "d8242f4e"])  # fmt: skip
def test_validate_takes_the_match_as_printed(demo: Path, given: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--db", str(demo), "--match", given]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    want = {"20261122045903": CHASER, "d8242f4e": "kakomimasu:d8242f4e"}.get(given, ALGORI if given.startswith("M-") else CHASER)
    assert want in first
    assert sum(1 for line in out.splitlines() if line and not line.startswith(" ")) == 1  # that match only


def test_validate_names_the_matches_an_ambiguous_start_fits(demo: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    import duckdb

    db = tmp_path / "two.duckdb"
    db.write_bytes(demo.read_bytes())
    con = duckdb.connect(str(db))
    con.execute("insert into matches (match_id, game, status, n_events) values ('M-e1ca5f3cc1f50000', 'algori-uno', "
                "'finished', 0)")  # fmt: skip
    con.close()
    assert main(["validate", "--db", str(db), "--match", "M-e1ca5f3cc1f5"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["kifu validate: --match 'M-e1ca5f3cc1f5' names 2 matches; give one of:",
                                "  M-e1ca5f3cc1f50000", f"  {ALGORI}"]  # fmt: skip


def test_export_takes_the_match_as_printed(demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake = tmp_path / "lake"
    assert main(["export", "--db", str(demo), "--to", str(lake), "--match", "20261122045903", "--no-progress"]) == 0
    assert "1 matches" in capsys.readouterr().out
    assert [p.name for p in (lake / "matches").glob("game=*/match_id=*")] == ["match_id=chaser%3A20261122045903-e5123133d946a8f1"]


# ---- a watched folder that does not exist yet ---------------------------------------------------------------------


def test_watch_says_once_that_a_folder_does_not_exist_yet_then_follows_it(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    assert main(["play", "--out", str(log), "--rounds", "1", "--no-progress"]) == 0
    folder = tmp_path / "later"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "kifu.cli", "watch", f"{folder}/", "--db", str(tmp_path / "w.duckdb"),
                             "--no-status", "--settle", "0.2", "--poll", "0.1"], cwd=tmp_path, env=env,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stderr is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while not any("does not exist yet" in x for x in lines) and time.monotonic() < deadline:
            lines.append(proc.stderr.readline())
        time.sleep(0.5)  # waiting meanwhile, without another word
        folder.mkdir()
        (folder / "m.jsonl").write_bytes(log.read_bytes())
        while not any("appeared" in x for x in lines) and time.monotonic() < deadline:
            lines.append(proc.stderr.readline())
        time.sleep(1.5)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
    lines += rest.splitlines()
    said = [x.strip() for x in lines if x.strip()]
    assert said[1] == f"kifu watch: {folder}/ does not exist yet — waiting for it as a folder"
    assert said[2] == f"kifu watch: {folder}/ appeared — following it"
    assert sum("does not exist yet" in x for x in said) == 1
    assert "75 events stored" in said[-1], said


# ---- the set-up waits for a busy package manager -----------------------------------------------------------------

#: An apt-get stand-in: fails as apt does while another process holds the lists' lock, for the first N runs.
FAKE_APT = """#!/bin/sh
n=$(cat "$COUNT" 2>/dev/null || echo 0); echo $((n + 1)) > "$COUNT"
if [ "$n" -lt "$BUSY_RUNS" ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (unattended-upgr)" >&2
  echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
  exit 100
fi
echo "ran: $*"
"""


def _apt_wait(tmp_path: Path, busy_runs: int, wait: str) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "apt-get"
    fake.write_text(FAKE_APT)
    fake.chmod(0o755)
    env = {**os.environ, "APT_GET": str(fake), "COUNT": str(tmp_path / "count"), "BUSY_RUNS": str(busy_runs),
           "KIFU_APT_WAIT": wait, "KIFU_APT_POLL": "0.1"}  # fmt: skip
    return subprocess.run(["bash", "-c", f". {REPO}/scripts/apt_wait.sh && apt_wait update -qq"], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_setup_waits_for_a_busy_package_manager(tmp_path: Path) -> None:
    done = _apt_wait(tmp_path, busy_runs=3, wait="30")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ran: -o DPkg::Lock::Timeout=30 update -qq")
    assert done.stderr.splitlines() == ["== another package manager is running (held by process 4242 "
                                        "(unattended-upgr)): waiting for it, up to 30s"]  # fmt: skip
    assert (tmp_path / "count").read_text().strip() == "4"


def test_setup_gives_up_on_a_package_manager_busy_too_long(tmp_path: Path) -> None:
    done = _apt_wait(tmp_path, busy_runs=10**6, wait="1")
    assert done.returncode == 75
    assert done.stderr.splitlines()[-1] == ("== the package manager was still busy after 1s (held by process 4242 "
                                            "(unattended-upgr))")  # fmt: skip
    setup = (REPO / "scripts" / "setup.sh").read_text()
    assert "apt_wait update" in setup and "the browser tests will be skipped" in setup


# ---- a file name is untrusted text, in the progress bars too ----------------------------------------------------


@pytest.mark.parametrize("command", ["ingest", "replay-log"])
def test_a_file_name_with_escapes_is_shown_escaped_in_the_progress_bar(command: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    name = "bot\x1b]0;owned\x07\x1b[2J\u202e\nname.jsonl"
    log = tmp_path / name
    log.write_bytes((REPO / "tests" / "data" / "probe_head.jsonl").read_bytes())
    argv = (["ingest", str(log), "--db", str(tmp_path / "k.duckdb"), "--jobs", "1"] if command == "ingest" else
            ["replay-log", str(log), "--to", str(tmp_path / "out.jsonl"), "--speed", "max"])  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "bot\\x1b]0;owned\\x07\\x1b[2J\\u202e\\nname" in err  # the bar was drawn, its name escaped
    assert not any(ch in err for ch in "\x1b\x07\u202e\n".replace("\n", "")), repr(err)
