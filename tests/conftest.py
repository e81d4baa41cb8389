"""Shared test helpers: repository paths, the real dealer fixtures, tiny ingest helpers."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[1]
# The real logs the tests replay live in the repository, under ``tests/fixtures/`` (where each came
# from: tests/fixtures/README.md).  ``KIFU_FIXTURES_HOME`` points the tests at another folder that
# holds a ``fixtures/`` tree; a missing one makes every fixture test skip, saying why.
SHARED = Path(os.environ.get("KIFU_FIXTURES_HOME") or REPO / "tests")
FIXTURES = SHARED / "fixtures" / "algori-2023"
SAMPLE = REPO / "samples" / "misbehave_bind2_40.download.jsonl.gz"

MATCHES = [
    "demo4_skipbind2_300",
    "demo4_bind2_60",
    "misbehave_skipbind2_80",
    "misbehave_bind2_40",
    "noprogress_hoard4_3",
    "deckout_hoard3_aggressor1_12",
    "speciallogic_timeout_probe_2",
]
SMALL_MATCHES = [m for m in MATCHES if m not in ("demo4_skipbind2_300",)]


def mixed_sources() -> list[Path]:
    """Every real log in the repository: all three games, 30-odd matches (the page sweep's "mixed" database)."""
    sources = [SAMPLE, *sorted(FIXTURES.glob("*.download.jsonl.gz")), SHARED / "fixtures" / "kakomimasu",
               SHARED / "fixtures" / "chaser", REPO / "tests" / "data" / "kakomimasu", REPO / "tests" / "data" / "chaser"]
    missing = [p for p in sources if not p.exists()]
    if missing:
        pytest.skip(f"real logs not found at {missing[0]} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    return sources


#: The JUA matches of the page sweep, written by Kifu's referee (`kifu play`): (dealer, players, seed, profile).
#: 2 players over the profile's 5 rounds (the scoreboard), 4 and 10 players over 2 rounds (CI time). The
#: 10-player match holds a pair play, a stack of 3 draw cards, a successful and a failed challenge
#: (tests/app/test_jua_pages.py says so when a change to the referee or its bots loses one). The referee's
#: clock starts in 2026-01, before the real logs: the pages open on those, the JUA tests name the match.
JUA_MATCHES = [("jua-2p", 2, 1, "jua-2016"), ("jua-4p", 4, 1, "jua-2016(rounds=2)"), ("jua-10p", 10, 3, "jua-2016(rounds=2)")]
JUA_BOTS = ["sloppy", "stacker", "greedy", "random"]


def jua_log(path: Path, dealer: str, n: int, seed: int, profile: str) -> Path:
    """A JUA match refereed by Kifu between ``n`` built-in bots, its log written to ``path`` (same seed, same bytes)."""
    from referee.bots import builtin
    from referee.match import Referee, Seat
    from rules.uno.profile import get

    seats = [Seat(f"P-{i + 1:08d}", f"{k}-{i + 1}", builtin(k, seed * 31 + i))
             for i, k in enumerate((JUA_BOTS * 3)[:n])]  # fmt: skip
    code = f"D-{90000000 + n:08d}"
    path.write_bytes(b"\n".join(Referee(get(profile), seats, seed=seed, dealer=dealer, dealer_code=code).lines()) + b"\n")
    return path


def jua_sources(folder: Path) -> list[Path]:
    """The sweep's JUA matches (:data:`JUA_MATCHES`) as log files in ``folder``."""
    return [jua_log(folder / f"{dealer}.jsonl", dealer, n, seed, profile) for dealer, n, seed, profile in JUA_MATCHES]


def fixture_path(match: str, kind: str = "download") -> Path:
    path = FIXTURES / f"{match}.{kind}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"real dealer fixtures not found at {FIXTURES} (tests/fixtures/ is part of the repository: is the checkout complete?)")
    return path


def read_lines(path: Path) -> list[bytes]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return [line for line in f.read().split(b"\n") if line.strip()]


def file_facts(path: Path) -> dict[str, Any]:
    """What a plain json.loads pass over a dealer log says (independent of Kifu's code)."""
    events: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    challenges: Counter[tuple[Any, Any]] = Counter()
    titles: Counter[Any] = Counter()
    for line in read_lines(path):
        d = json.loads(line)
        events[d["event"]] += 1
        c = d.get("contents")
        if d["event"] == "penalty":
            err = c["error"]
            causes[err["message"] if isinstance(err, dict) else err] += 1
        elif d["event"] == "challenge":
            challenges[(c.get("is_challenge"), (c.get("result") or {}).get("is_challenge_success"))] += 1
        elif d["event"] == "special-logic":
            titles[c.get("title")] += 1
    return {"lines": sum(events.values()), "events": events, "causes": causes,
            "challenges": challenges, "titles": titles}  # fmt: skip


def sigint_default() -> None:
    """``preexec_fn`` of every child a test stops with SIGINT: the child starts with SIGINT's default
    disposition, so Python in it raises KeyboardInterrupt on Ctrl-C, however the suite was started. (A
    background job of a non-interactive shell -- ``make test &`` in a script, CI runners, ``nohup`` -- starts
    its children with SIGINT ignored, and a Python started so never raises KeyboardInterrupt.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in this process during the test (the tests that raise SIGINT in
    themselves), however the suite was started (see :func:`sigint_default`); the disposition is put back after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ingest(db: Path, *paths: Any, **kw: Any) -> Any:
    from loaders.pipeline import ingest as run
    from loaders.pipeline import open_sources

    return run(open_sources([str(p) for p in paths]), db, **kw)


def early_timeout_log(source: Path, out: Path) -> tuple[Path, int]:
    """``source`` with its first timeout penalty written 300 ms after the hand-over it follows (the log
    then contradicts the dealer: the bot did not let 5 s pass). Returns the log and that line's seq."""
    docs = [json.loads(x) for x in gzip.open(source, "rt", encoding="utf-8") if x.strip()]
    i = next(i for i, d in enumerate(docs) if d["event"] == "penalty" and d["contents"].get("error") == "timeout"
             and docs[i - 1]["event"] == "next-player")  # fmt: skip
    docs[i]["dateCreated"] = docs[i - 1]["dateCreated"] + 300
    out.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    return out, i + 1


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """A folder ``name`` filled by ``build(folder)`` once per test run, for tests that only read it.

    With pytest-xdist every worker is a process of its own with its own session fixtures: the first
    worker to ask builds the folder in the run's shared temporary directory (the parent of the
    workers' own), under a file lock; the others wait for it and read the same files (DuckDB lets any
    number of processes open a database read-only). Without workers: a fresh folder, as ``mktemp``."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed half way left
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def _built_db(tmp_path_factory: pytest.TempPathFactory, name: str, *sources: Any, **kw: Any) -> Path:
    """``sources`` ingested into ``<name>/kifu.duckdb`` once per test run (:func:`built_once`; read-only)."""
    return built_once(tmp_path_factory, name, lambda d: ingest(d / "kifu.duckdb", *sources, **kw)) / "kifu.duckdb"


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample match in a database (read-only: tests that write make their own)."""
    return _built_db(tmp_path_factory, "sample", SAMPLE)


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What `make demo` ingests: one sample log of every game (read-only)."""
    from kifu.cli import SAMPLES

    return _built_db(tmp_path_factory, "demo", *SAMPLES)


@pytest.fixture(scope="session")
def empty_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Kifu database with its tables and no match (read-only)."""

    def build(folder: Path) -> None:
        from queries import apply_schema, connect

        con = connect(folder / "kifu.duckdb")
        apply_schema(con)
        con.close()

    return built_once(tmp_path_factory, "empty", build) / "kifu.duckdb"


@pytest.fixture(scope="session")
def mixed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every real log of the repository, all three games (:func:`mixed_sources`), in one database (read-only)."""
    return _built_db(tmp_path_factory, "mixed-all", *mixed_sources(), jobs=2)


@pytest.fixture(scope="session")
def jua_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every real log of the repository (:func:`mixed_sources`) and the JUA matches of 2, 4 and 10 players
    (:data:`JUA_MATCHES`) in one database (read-only): the page sweep's "mixed" database."""
    sources = mixed_sources()
    return built_once(tmp_path_factory, "mixed-jua",
                      lambda d: ingest(d / "kifu.duckdb", *sources, *jua_sources(d), jobs=2)) / "kifu.duckdb"  # fmt: skip


#: Tables whose rows are how the data is stored, not what it is: a snapshot shows their content
#: instead — every raw line unpacked (``raw_activities.raw``) and every event's board (``states``).
PHYSICAL = ("raw_blocks", "board_keyframes")


def table_rows(con: Any, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """A table's columns and rows by content: ``raw_activities`` with every line's text, packed or not."""
    from queries.rawlines import texts

    cols = [c for (c,) in con.execute("select column_name from information_schema.columns where table_name = ? "
                                      "order by ordinal_position", [table]).fetchall()]  # fmt: skip
    rows = con.execute(f"select * from {table}").fetchall()
    if table == "raw_activities":
        m, q, r = cols.index("match_id"), cols.index("seq"), cols.index("raw")
        by_match: dict[Any, list[tuple[Any, ...]]] = {}
        for row in rows:
            by_match.setdefault(row[m], []).append(row)
        rows = [row[:r] + (text,) + row[r + 1 :] for mid, group in by_match.items()
                for row, text in zip(group, texts(con, mid, [g[q] for g in group], [g[r] for g in group]), strict=True)]
    return cols, rows


def raw_texts(db: Path) -> list[str]:
    """Every stored raw line's text (unpacked), by match and seq."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols, rows = table_rows(con, "raw_activities")
        m, q, r = cols.index("match_id"), cols.index("seq"), cols.index("raw")
        return [row[r] for row in sorted(rows, key=lambda row: (row[m], row[q]))]
    finally:
        con.close()


def derived_states(con: Any) -> list[tuple[Any, ...]]:
    """``(match_id, *board)`` after every event of every replayed match (derived from the keyframes)."""
    from queries.boards import match_boards

    mids = [mid for (mid,) in con.execute("select distinct match_id from board_keyframes order by 1").fetchall()]
    return [(mid, *row) for mid in mids for row in match_boards(con, mid).itertuples(index=False)]


def table_snapshot(db: Path, exclude: tuple[str, ...] = ("load_runs",)) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every data table, sorted (for 'nothing changed' assertions).

    Storage is compared by content: ``raw_activities`` with each line's text (packed or not) and,
    instead of the keyframes, ``states``: the board after every event of every replayed match
    (derived from the keyframes; excluded with "states")."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()]
        out = {}
        for t in sorted(tables):
            if t in exclude or t in PHYSICAL:
                continue
            out[t] = sorted(table_rows(con, t)[1], key=repr)
        if "states" not in exclude and "board_keyframes" in tables:
            out["states"] = derived_states(con)
        return out
    finally:
        con.close()


def query(db: Path, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def damage(lines: list[bytes], op: str, i: int) -> None:
    """One log gap, in place: line ``i`` (modulo the length) lost (``drop``), written twice
    (``dup``) or swapped with the next (``swap``)."""
    i %= len(lines)
    if op == "drop":
        del lines[i]
    elif op == "dup":
        lines.insert(i, lines[i])
    elif op == "swap" and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]


def write_lines(path: Path, lines: list[bytes], *, gz: bool = False) -> Path:
    data = b"\n".join(lines) + b"\n"
    if gz:
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)
    return path


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With pytest-xdist's ``--dist loadgroup`` (``make test``), the tests that use a module-scoped fixture
    (a database, a `kifu serve`, a timed ingest) run on one worker, module by module, so that fixture is
    made once; every other test goes to whichever worker is free. (Before xdist reads the groups.)"""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope == "module" for fixturedefs in defs for d in fixturedefs[-1:]) and item.module is not None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Close the dashboard's DuckDB connections and drop them (AppTests run in this process), so no
    connection is alive when the interpreter exits (DuckDB's bindings report every live one)."""
    import gc
    import sys

    ui = sys.modules.get("app.ui")
    if ui is not None:
        ui.close_all()
    # Streamlit runs a page as the module ``__main__`` and leaves the last one there, its globals
    # (the page's database handle among them) with it.
    script = sys.modules.get("__main__")
    if script is not None and str(getattr(script, "__file__", "")).startswith(str(REPO / "app")):
        for name in [n for n in vars(script) if not n.startswith("__")]:
            delattr(script, name)
    gc.collect()
    hardening = sys.modules.get("tests.test_hardening")
    if hardening is not None and hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: tell the controller
        session.config.workeroutput["hostile_tried"] = dict(hardening.TRIED)


#: What the property tests of tests/test_hardening.py tried in pytest-xdist's workers (summed as each one ends).
_WORKERS_TRIED = {"files": 0, "records": 0}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: a worker ended; add what its property tests tried."""
    for key, n in getattr(node, "workeroutput", {}).get("hostile_tried", {}).items():
        _WORKERS_TRIED[key] += n


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many hostile files and records the property tests fed to the loaders in this run (in this
    process and in pytest-xdist's workers)."""
    import sys

    hardening = sys.modules.get("tests.test_hardening")
    tried = dict(_WORKERS_TRIED)
    if hardening is not None and not hasattr(terminalreporter.config, "workeroutput"):
        tried = {key: n + hardening.TRIED[key] for key, n in tried.items()}
    if tried["files"]:
        terminalreporter.write_line(f"hostile inputs tried: {tried['files']} files, {tried['records']} records")
