"""A whole season, every figure in one run: ingest, memory, database and lake size, pages, one analysis query.

    .venv/bin/python benchmarks/bench_season.py        (20 matches × 1,000 rounds: the real figures)
    .venv/bin/python benchmarks/bench_season.py --matches 2 --rounds 60 --skip-browser        (a quick try)

1. Data: ``--matches`` distinct ``--rounds``-round ALGORI matches, each written by
   :func:`benchmarks.synth.long_match` from real rounds re-dealt: its own dealer code and name, and the real
   rounds of a fixture in an order of its own (shuffled cycles of all of them, seeded by ``--seed`` and the
   match's number; every round's times moved after the round before, so the lines stay in time order as a
   dealer writes them). The rounds are those of the largest fixture (built-in demo players, who never break a
   rule), and for the 2nd match and every ``--misbehaving-every``-th after it those of the misbehaving bot's
   log (285 penalties in 80 rounds): the season has penalties to count. One ``.jsonl.gz`` (gzip -6) per match
   in a season folder; and the ``--rounds``-round match ``long_match(rounds)`` as it is (``.jsonl``,
   uncompressed). Both stay in the work folder under a name made of the arguments, reused by a later run
   given the same ``--work``.
2. The orjson floor: ``orjson.loads`` of every line of the one match (best of 3) and of the season (once,
   gunzip included).
3. ``kifu ingest`` (the console script, a fresh process and a fresh database each time) of the one match
   and of the season folder, ``--jobs 1`` and ``--jobs 2``: wall time (the process's start included), × the
   floor, matches/s, the 2-vs-1 throughput ratio, and the peak RSS of the whole process tree (the ingest,
   the forkserver, its workers, the resource tracker: their RSS summed at each sample, every 0.1 s,
   :mod:`benchmarks.proctree`). Peak at 5, 10 and 20 matches: the running peak of that same tree during
   the one season run, taken when the ingest turns to the 6th, 11th… match file (the first 5, 10… done:
   read, or their parts merged; seen in its progress output, on for the season runs; the last figure is
   the run's peak) — no extra runs.
4. Database size: the season's and the one match's, × their logs gzipped (gzip -6), and per table — the
   distinct 256 KiB blocks each table's persistent segments use (``pragma_storage_info``: block and
   additional blocks; a block two tables share counts for both).
5. ``kifu export --db SEASON --to LAKE``: wall time and the lake's size ("skipped: kifu export not
   available" when this Kifu has none).
6. Pages on the season database: the first render of every dashboard page (navigation → script done and
   heading shown, in Debian's chromium against ``kifu serve``, as ``bench_browser.py`` does), p50/p95 of
   ``--loads`` loads each; opening a round in the replayer (the "next round ▶" button → the new round's
   board, a server round trip, as ``bench_browser.py``'s baseline) p50/p95; and the queries that open a
   round (round info + its events, as ``bench_pages.py``) on rounds of every match. ``--skip-browser``: the
   same pages and round openings run server side by Streamlit's AppTest, as ``bench_pages.py`` does.
7. One analysis query, penalties per bot across the season (the Penalties page's query over every match,
   grouped by bot): p50 of 5 runs on the database and on the lake (``queries.lake.connect_lake`` when this
   Kifu has it, else read_parquet views over the lake's folders).
8. Every figure again as a Markdown table (figure, measured, target, met?) ready for benchmarks/README.md.

``--pages-only --db PATH``: step 6 alone on a season database built before (nothing is built or ingested; the
file is opened read-only): the first render of every page in chromium (unless ``--skip-browser``), then the same
pages server side (AppTest: the script run alone, less sensitive to the machine's load), each with the load
average before it; ``--match`` (default: the match with the most findings, the heaviest default view).

Wall times are ``time.perf_counter``. This machine has 2 cores shared with other work: compare figures
within one run.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_pages import pct  # noqa: E402
from benchmarks.memory import _kib  # noqa: E402
from benchmarks.proctree import Descendants  # noqa: E402
from benchmarks.run import db_bytes  # noqa: E402
from benchmarks.run import floor as orjson_pass  # noqa: E402
from benchmarks.synth import FIXTURES, LARGEST, long_match, write  # noqa: E402

#: Bump when the way the matches are built changes: the cached data of older runs is then not reused.
DATA_VERSION = 2
#: The real log of a deliberately misbehaving bot (285 penalties in 80 rounds), the source of every
#: ``--misbehaving-every``-th match: the largest fixture's built-in demo players never break a rule.
MISBEHAVING = FIXTURES / "misbehave_skipbind2_80.download.jsonl.gz"
GB = 1024**3
MIB = 1024**2
T0 = time.perf_counter()


def step(text: str) -> None:
    elapsed = time.perf_counter() - T0
    print(f"\n[{int(elapsed // 60):02d}:{elapsed % 60:04.1f}] {text}", flush=True)


def kifu_cmd() -> list[str]:
    """The ``kifu`` console script of this interpreter's venv (``python -m kifu.cli`` when there is none)."""
    script = Path(sys.executable).with_name("kifu")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kifu.cli"]


# ---------------------------------------------------------------------------------------------- 1. data


def _turn(a: dict[str, Any]) -> bool:
    """Whether ``long_match`` groups this record into a round (its own test)."""
    return a.get("turn") is not None and a["event"] not in ("finish-game", "disconnect")


def season_match(i: int, rounds: int, seed: int, dest: Path, scratch: Path, source: Path = LARGEST) -> Path:
    """Match ``i`` of the season, written to ``dest`` (gzip -6) by ``long_match`` under a dealer of its own,
    from a source of exactly ``rounds`` rounds: the real rounds of ``source`` dealt in shuffled cycles (each
    cycle a new shuffle of all of them, seeded by ``seed`` and ``i``), every round's times moved to follow the
    round before it by the real log's median gap — so the lines stay in time order, as a dealer writes them,
    and the validator judges the rounds as the real ones (``long_match`` alone repeats the rounds with their
    own times: its lines go back in time where the rounds start again)."""
    with gzip.open(source, "rb") as f:
        acts = [orjson.loads(line) for line in f if line.strip()]
    by_round: dict[int, list[dict[str, Any]]] = {}
    for a in acts:
        if _turn(a):
            by_round.setdefault(a["turn"], []).append(a)
    real = sorted(by_round)
    span = {r: (min(a["dateCreated"] for a in lines), max(a["dateCreated"] for a in lines))
            for r, lines in by_round.items()}  # fmt: skip
    gaps = [span[b][0] - span[a][1] for a, b in zip(real, real[1:])]
    gap = int(statistics.median(gaps)) if gaps else 150
    rng = random.Random(seed * 1_000_003 + i)
    order: list[int] = []
    while len(order) < rounds:
        cycle = real[:]
        rng.shuffle(cycle)
        order += cycle
    src = scratch / f"source-{i:03d}.jsonl.gz"
    clock = max((a["dateCreated"] for a in acts if a["event"] == "join-room"), default=span[real[0]][0] - gap)
    with gzip.open(src, "wb", compresslevel=1) as f:
        for a in acts:
            if a["event"] == "join-room":
                f.write(orjson.dumps(a) + b"\n")
        for n, r in enumerate(order[:rounds], start=1):
            shift = clock + gap - span[r][0]
            for a in by_round[r]:
                f.write(orjson.dumps({**a, "turn": n, "dateCreated": a["dateCreated"] + shift}) + b"\n")
            clock = span[r][1] + shift
        end = max(a["dateCreated"] for a in acts if _turn(a))
        for a in acts:
            if a["event"] == "disconnect":
                f.write(orjson.dumps({**a, "dateCreated": a["dateCreated"] - end + clock}) + b"\n")
    part = scratch / f"{dest.name}.part"
    with gzip.open(part, "wt", encoding="utf-8", compresslevel=6) as f:
        dealer, code = f"season-{seed}-{i + 1:02d}", f"D-7{seed % 100:02d}{i:05d}"
        for line in long_match(rounds, source=src, dealer=dealer, code=code):
            f.write(line + "\n")
    src.unlink()
    part.replace(dest)
    return dest


def gzip6_size(path: Path) -> int:
    """Bytes of ``path`` compressed as ``gzip -6`` does."""
    z, n = zlib.compressobj(6, zlib.DEFLATED, 31), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            n += len(z.compress(chunk))
    return n + len(z.flush())


@dataclass
class Data:
    one: Path  # the --rounds-round match, .jsonl
    one_gz6: int  # its size as gzip -6
    season: list[Path]  # the season's .jsonl.gz, in the order the ingest reads them
    season_arg: list[str]  # what `kifu ingest` is given: the season folder (or its files)


def misbehaving(i: int, every: int) -> bool:
    """Whether match ``i`` (from 0) is made of the misbehaving bot's rounds: the 2nd, then every ``every``."""
    return every > 0 and i % every == min(1, every - 1)


def build(work: Path, matches: int, rounds: int, seed: int, every: int) -> Data:
    data = work / f"data-v{DATA_VERSION}-r{rounds}-s{seed}-m{every}"
    season_dir, scratch = data / "season", data / "scratch"
    season_dir.mkdir(parents=True, exist_ok=True)
    scratch.mkdir(exist_ok=True)
    want = [season_dir / f"match-{i + 1:03d}.jsonl.gz" for i in range(matches)]
    todo = [i for i, p in enumerate(want) if not p.exists()]
    t = time.perf_counter()
    if todo:
        with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
            sources = [MISBEHAVING if misbehaving(i, every) else LARGEST for i in todo]
            k = len(todo)
            made = pool.map(season_match, todo, [rounds] * k, [seed] * k, [want[i] for i in todo],
                            [scratch] * k, sources)  # fmt: skip
            for p, src in zip(made, sources):
                print(f"  wrote {p.name} ({p.stat().st_size / 1e6:.1f} MB, rounds of {src.name})", flush=True)
    one = data / f"long-{rounds}.jsonl"
    meta = data / f"long-{rounds}.gz6"
    if not one.exists() or not meta.exists():
        part = write(scratch / f"{one.name}.part", long_match(rounds))
        part.replace(one)
        meta.write_text(str(gzip6_size(one)))
    print(f"  {'built' if todo else 'reused'} in {data} ({time.perf_counter() - t:.1f} s): {matches} season "
          f"matches ({len(todo)} new), the {rounds}-round match "
          f"{one.stat().st_size / 1e6:.1f} MB")  # fmt: skip
    present = sorted(season_dir.glob("*.jsonl.gz"))
    arg = [str(season_dir)] if present == want else [str(p) for p in want]
    return Data(one, int(meta.read_text()), want, arg)


# -------------------------------------------------------------------------------------- 3. ingest + tree


class Tree(Descendants):
    """The RSS (and PSS) of a process and all its descendants, summed at each sample; the running peak of that
    sum when the process turned to each of the season's files (:meth:`turned_to`)."""

    def __init__(self, root: int, interval: float = 0.1) -> None:
        super().__init__(root, interval)
        self.peak_kib = self.peak_pss_kib = 0
        self.reached = -1  # the highest file index the ingest has turned to
        self.peak_before: dict[int, int] = {}  # k -> peak KiB before it turned to file k (from 0)
        self._lock = threading.Lock()  # the sampling thread and the thread reading the progress both sample

    def sample(self) -> None:
        with self._lock:
            super().sample()
            pids = [self.root, *self.cpu]
            rss = sum(_kib(pid, "status", "VmRSS:") for pid in pids)
            pss = sum(_kib(pid, "smaps_rollup", "Pss:") for pid in pids)
            self.peak_kib, self.peak_pss_kib = max(self.peak_kib, rss), max(self.peak_pss_kib, pss)

    def turned_to(self, i: int) -> None:
        self.sample()
        while self.reached < i:
            self.reached += 1
            self.peak_before[self.reached] = self.peak_kib


@dataclass
class Ingest:
    wall: float
    peak_rss: float  # bytes, the whole tree
    peak_pss: float
    processes: int
    matches: int
    events: int
    at: dict[int, float] = field(default_factory=dict)  # k matches done -> the tree's peak RSS until then


#: How ``kifu ingest``'s progress names a season file (its bar's title).
SEASON_FILE = re.compile(rb"match-(\d{3})\.jsonl\.gz")


def ingest(paths: list[str], db: Path, jobs: int, files: list[Path] | None = None) -> Ingest:
    """``kifu ingest --jobs JOBS --db DB PATHS`` in a fresh process into a fresh database, its tree sampled.

    With ``files`` (the season's, in the ingest's order) the progress bars stay on: the ingest opens a file's
    bar when it turns to that file (reads it, or waits for and merges the part a worker made of it, in the
    files' order), so the tree's peak until the bar of file k+1 is its peak for the first k matches."""
    for p in (db, db.with_name(db.name + ".wal")):
        p.unlink(missing_ok=True)
    progress = [] if files else ["--no-progress"]
    t = time.perf_counter()
    proc = subprocess.Popen([*kifu_cmd(), "ingest", *progress, "--jobs", str(jobs), "--db", str(db), *paths],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    tail = bytearray()
    with Tree(proc.pid) as tree:

        def watch() -> None:
            assert proc.stderr is not None
            while chunk := proc.stderr.read1(1 << 16):
                seen = bytes(tail[-64:]) + chunk
                tail.extend(chunk)
                del tail[:-4096]
                for m in SEASON_FILE.finditer(seen):
                    tree.turned_to(int(m.group(1)) - 1)

        reader = threading.Thread(target=watch, daemon=True)
        reader.start()
        assert proc.stdout is not None
        out = proc.stdout.read().decode(errors="replace")
        proc.wait()
        reader.join()
        wall = time.perf_counter() - t
    if proc.returncode != 0:
        err = bytes(tail).decode(errors="replace").replace("\r", "\n")
        sys.exit(f"kifu ingest failed ({proc.returncode}):\n{out}\n{err}")
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        n_matches = con.execute("select count(*) from matches").fetchone()[0]
        n_events = con.execute("select count(*) from events").fetchone()[0]
    if "quarantined 0 " not in out:
        print(f"  note: {out.strip()}")
    at = {k: kib * 1024.0 for k, kib in tree.peak_before.items() if k > 0}
    if files:
        at[len(files)] = tree.peak_kib * 1024.0
    return Ingest(wall, tree.peak_kib * 1024.0, tree.peak_pss_kib * 1024.0, 1 + len(tree.cpu), n_matches,
                  n_events, at)  # fmt: skip


# ------------------------------------------------------------------------------------------ 4. DB size


def table_sizes(db: Path) -> dict[str, int]:
    """Bytes of each table: the distinct blocks of its persistent segments (block, additional blocks)."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        block = con.execute("select block_size from pragma_database_size()").fetchone()[0]
        tables = [t for (t,) in con.execute("select table_name from duckdb_tables() "
                                            "where schema_name = 'main' order by 1").fetchall()]  # fmt: skip
        out = {}
        for t in tables:
            n = con.execute(f"""
                select count(distinct b) from (
                  select block_id as b from pragma_storage_info('{t}')
                  where persistent and block_id is not null
                  union all
                  select unnest(additional_block_ids) from pragma_storage_info('{t}')
                  where persistent and additional_block_ids is not null)""").fetchone()[0]  # fmt: skip
            out[t] = n * block
    return out


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ------------------------------------------------------------------------------------------- 5. export


def export(db: Path, lake: Path) -> tuple[float, int] | str:
    """(wall s, lake bytes) of ``kifu export --db DB --to LAKE``, or why it did not run."""
    probe = subprocess.run([*kifu_cmd(), "export", "--help"], cwd=REPO, capture_output=True, text=True)
    if probe.returncode != 0:
        return "skipped: kifu export not available"
    shutil.rmtree(lake, ignore_errors=True)
    t = time.perf_counter()
    r = subprocess.run([*kifu_cmd(), "export", "--db", str(db), "--to", str(lake)], cwd=REPO,
                       capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t
    if r.returncode != 0:
        return f"failed: kifu export exited {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}"
    return wall, dir_bytes(lake)


# -------------------------------------------------------------------------------------------- 6. pages


#: The replayer's title (in the page or its component's shadow root) no longer the one it was (``old``): the
#: next round is shown. As ``bench_browser.py`` waits for its "server rerun" baseline.
NEW_TITLE_JS = ("(old) => { const h = document.querySelector('.kr-title') ||"
                " [...document.querySelectorAll('*')].map(e => e.shadowRoot)"
                ".filter(Boolean).map(s => s.querySelector('.kr-title')).find(Boolean);"
                " return h && h.textContent !== old; }")  # fmt: skip


def show(path: str, times: list[float]) -> None:
    print(f"  /{path:<20} p50 {statistics.median(times):>6.0f} ms   p95 {pct(times, 95):>6.0f} ms",
          flush=True)  # fmt: skip


@dataclass
class Pages:
    how: str
    first: dict[str, list[float]]  # page -> ms of each load
    open_round: list[float]  # ms
    cpu: dict[str, list[float]] = field(default_factory=dict)  # page -> CPU ms of this process per load (AppTest)


#: The baseline row of the chromium pages: a Streamlit app of one heading, served by ``streamlit run`` alone.
BARE = "(a bare Streamlit page: one st.title)"


@contextmanager
def _bare_streamlit() -> Iterator[str]:
    """A one-heading Streamlit app on a free port (the same Streamlit, the same browser): its URL."""
    from tests.e2e.conftest import free_port, streamlit_server

    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "bare.py"
        app.write_text('import streamlit as st\n\nst.title("Baseline")\n')
        port = free_port()
        with streamlit_server([sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
                               "--server.port", str(port), "--browser.gatherUsageStats", "false",
                               "--server.fileWatcherType", "none"], port) as url:  # fmt: skip
            yield url


def browser_pages(db: Path, match: str, rounds: int, loads: int, opens: int) -> Pages:
    """In Debian's chromium against ``kifu serve``, as ``bench_browser.py`` measures them: the first render of
    every page (navigation → script done, heading shown), and "next round ▶" → the next round's board."""
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_browser import CHROMIUM_ARGS, PAGES
    from tests.e2e.conftest import CHROMIUM, serve

    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} not installed (apt-get install -y chromium), or give --skip-browser")
    start = max(1, min(rounds // 4, rounds - opens - 1))
    opens = min(opens, rounds - start)
    first: dict[str, list[float]] = {}
    with serve(db) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})

        def ready() -> None:
            page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']",
                                   timeout=120_000)  # fmt: skip

        with _bare_streamlit() as bare:  # the floor: Streamlit's own page load, served and drawn, nothing of Kifu's
            page.goto(bare)
            ready()
            for _ in range(loads):
                page.goto("about:blank")
                t = time.perf_counter()
                page.goto(bare)
                ready()
                page.get_by_test_id("stHeading").first.wait_for()
                first.setdefault(BARE, []).append((time.perf_counter() - t) * 1000)
            show(BARE, first[BARE])
        t = time.perf_counter()
        page.goto(f"{url}/?match={match}")
        ready()
        page.get_by_test_id("stHeading").first.wait_for()
        cold = (time.perf_counter() - t) * 1000
        print(f"  the server's first page (cold, not counted): {cold:,.0f} ms", flush=True)
        for path in PAGES:
            times = first.setdefault(f"/{path}", [])
            for _ in range(loads):
                page.goto("about:blank")
                t = time.perf_counter()
                extra = f"&round={start}" if path == "round_browser" else ""
                page.goto(f"{url}/{path}?match={match}{extra}")
                ready()
                page.get_by_test_id("stHeading").first.wait_for()
                if path == "round_browser":
                    page.wait_for_selector(".kr-board .ut")
                times.append((time.perf_counter() - t) * 1000)
            show(path, times)
        page.goto(f"{url}/round_browser?match={match}&round={start}")
        ready()
        page.wait_for_selector(".kr-board .ut")
        opened = []
        for _ in range(opens):
            title = page.locator(".kr-title").last.inner_text()  # the new round's title (the old one may linger while it leaves)
            t = time.perf_counter()
            page.get_by_test_id("stButton").filter(has_text="▶").first.click()
            page.wait_for_function(NEW_TITLE_JS, arg=title, timeout=60_000)
            opened.append((time.perf_counter() - t) * 1000)
            ready()
        browser.close()
    return Pages("chromium", first, opened)


def apptest_pages(db: Path, match: str, rounds: int, loads: int, opens: int) -> Pages:
    """Server side (Streamlit AppTest), as ``bench_pages.py`` runs them: every page's run after the app's, and
    the round replayer's "next round ▶" rerun."""
    import logging

    from streamlit.testing.v1 import AppTest

    from benchmarks.bench_browser import PAGES

    os.environ["KIFU_DB"] = str(db)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    start = max(1, min(rounds // 4, rounds - opens - 1))
    opens = min(opens, rounds - start)
    app = str(REPO / "app" / "streamlit_app.py")

    def fresh(round_no: int | None = None) -> AppTest:
        at = AppTest.from_file(app, default_timeout=120)
        at.query_params["match"] = match
        if round_no is not None:
            at.query_params["round"] = str(round_no)
        at.run()
        return at

    t = time.perf_counter()
    fresh().switch_page("app_pages/matches.py").run()
    print(f"  the first run (imports, not counted): {(time.perf_counter() - t) * 1000:,.0f} ms", flush=True)
    first: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for path in PAGES:
        name = path or "matches"
        times = first.setdefault(f"/{path}", [])
        for _ in range(loads):
            at = fresh(start if name == "round_browser" else None)
            t, c = time.perf_counter(), time.process_time()
            at.switch_page(f"app_pages/{name}.py").run()
            times.append((time.perf_counter() - t) * 1000)
            cpu.setdefault(f"/{path}", []).append((time.process_time() - c) * 1000)
            assert not at.exception, at.exception
        show(path, times)
    at = fresh(start)
    at.switch_page("app_pages/round_browser.py").run()
    opened = []
    for _ in range(opens):
        t = time.perf_counter()
        at.button(key="rb.next_round").click().run()
        opened.append((time.perf_counter() - t) * 1000)
        assert not at.exception, at.exception
    from app import ui

    ui.close_all()  # the pages' DuckDB, closed before the interpreter's exit
    return Pages("AppTest (server side)", first, opened, cpu)


def round_queries(db: Path, runs: int = 50) -> list[float]:
    """ms of opening a round by its queries (``bench_pages.py``'s "round browser: open a round": round info +
    its events), on rounds spread over every match of ``db``."""
    import duckdb

    from queries import dashboard as q

    with duckdb.connect(str(db), read_only=True) as con:
        picks = con.execute("select match_id, round_no from (select distinct match_id, round_no from events "
                            "where round_no is not null) "
                            f"using sample reservoir({int(runs)} rows) repeatable (7)"
                            ).fetchall()  # fmt: skip
        q.round_info(con, *picks[0])
        times = []
        for m, r in picks:
            t = time.perf_counter()
            q.round_info(con, m, int(r))
            q.round_events(con, m, int(r))
            times.append((time.perf_counter() - t) * 1000)
    return times


# -------------------------------------------------------------------------------------------- 7. query

def penalties_per_bot() -> str:
    """Penalties per bot across the season: the Penalties page's query (every match, every player) by bot."""
    from queries import sql

    return ("select player_name as bot, count(*) as penalties,\n"
            "       count(explained_by) as explained_by_a_finding, count(dealer_fault) as dealer_fault,\n"
            "       count(distinct match_id) as matches\n"
            f"from (\n{sql('pages/penalties')}\n) as p\n"
            "group by all order by penalties desc, bot")  # fmt: skip


def lake_connection(lake: Path) -> tuple[Any, str]:
    """A DuckDB connection over the lake: ``queries.lake.connect_lake`` when this Kifu has it, else a
    read_parquet view per table folder (hive partitions)."""
    try:
        from queries.lake import connect_lake  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        return connect_lake(lake), "queries.lake.connect_lake"
    import duckdb

    con = duckdb.connect()
    for entry in sorted(lake.iterdir()):
        name = entry.name.removesuffix(".parquet")
        if entry.is_dir() and any(entry.rglob("*.parquet")):
            src = f"read_parquet('{entry}/**/*.parquet', hive_partitioning = true)"
        elif entry.suffix == ".parquet":
            src = f"read_parquet('{entry}')"
        else:
            continue
        con.execute(f'create view "{name}" as select * from {src}')
    return con, "read_parquet views (queries.lake not available)"


def timed_query(con: Any, text: str, runs: int = 5) -> tuple[list[float], Any]:
    times, df = [], None
    for _ in range(runs):
        t = time.perf_counter()
        df = con.execute(text, {"match": None, "player": None}).df()
        times.append((time.perf_counter() - t) * 1000)
    return times, df


# -------------------------------------------------------------------------------------------- 8. table


@dataclass
class Row:
    figure: str
    measured: str
    target: str = "—"
    met: bool | None = None


def fmt_s(x: float) -> str:
    return f"{x:,.2f} s" if x < 10 else f"{x:,.1f} s"


def fmt_mb(x: float) -> str:
    return f"{x / 1e6:,.1f} MB"


def fmt_mib(x: float) -> str:
    return f"{x / MIB:,.0f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=20, help="matches in the season (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=1000, help="rounds per match (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the rounds' shuffle (default: %(default)s)")
    ap.add_argument("--misbehaving-every", type=int, default=5, metavar="K",
                    help="the 2nd match and every K-th after it are made of the misbehaving bot's rounds "
                    "(0: none; default: %(default)s)")
    ap.add_argument("--work", type=Path,
                    help="work folder, kept: the logs built there are reused by the next run given the "
                    "same --rounds, --seed and --misbehaving-every (default: a new folder under /tmp, "
                    "removed at the end unless --keep)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (logs, databases, lake)")
    ap.add_argument("--skip-browser", action="store_true",
                    help="the pages run server side (AppTest) instead of in chromium")
    ap.add_argument("--loads", type=int, default=5, help="loads of each page (default: %(default)s)")
    ap.add_argument("--opens", type=int, default=20,
                    help="rounds opened in the replayer (default: %(default)s)")
    ap.add_argument("--pages-only", action="store_true",
                    help="step 6 alone on --db (a season database built before): chromium, then AppTest")
    ap.add_argument("--db", type=Path, help="the database of --pages-only")
    ap.add_argument("--match", help="the match the pages show (--pages-only; default: the one with the most findings)")
    args = ap.parse_args()
    if args.pages_only:
        if args.db is None or not args.db.exists():
            sys.exit("--pages-only needs --db PATH, an existing season database")
        pages_only(args)
        return
    if not LARGEST.exists():
        sys.exit(f"{LARGEST}: not found (the fixtures live in tests/fixtures/algori-2023)")
    if args.matches < 1 or args.rounds < 2:
        sys.exit("--matches ≥ 1 and --rounds ≥ 2")
    made = args.work is None
    work = Path(tempfile.mkdtemp(prefix="kifu-season-")) if made else args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.platform(terse=True)}; work folder {work}")  # fmt: skip
    try:
        rows = season(args, work)
    finally:
        if made and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"\nkept: {work}")
    print(f"\n## Season benchmark: {args.matches} matches × {args.rounds:,} rounds "
          f"({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)\n")
    print("| figure | measured | target | met? |")
    print("|---|---|---|---|")
    for r in rows:
        met = "—" if r.met is None else ("yes" if r.met else "**no**")
        print(f"| {r.figure} | {r.measured} | {r.target} | {met} |")
    print(f"\nwhole run: {time.perf_counter() - T0:,.0f} s")


def load_average() -> str:
    """The machine's load average (1, 5, 15 min), as ``uptime`` prints it."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def pages_only(args: argparse.Namespace) -> None:
    """Step 6 on a database built before: every page's first render in chromium (unless --skip-browser) and server
    side (AppTest: also the CPU time of the process, DuckDB's threads included, which the machine's load
    inflates less than wall time), p50/p95 of --loads loads each, the load average before each."""
    import duckdb

    db = args.db.resolve()
    with duckdb.connect(str(db), read_only=True) as con:
        n, events = con.execute("select count(*), (select count(*) from events) from matches").fetchone()
        match = args.match or con.execute(
            "select m.match_id from matches m left join violations v using (match_id) group by m.match_id "
            "order by count(v.match_id) desc, m.match_id limit 1").fetchone()[0]  # fmt: skip
        rounds = con.execute("select rounds_played from matches where match_id = ?", [match]).fetchone()[0]
    print(f"{db}: {n} matches, {events:,} events; pages on match {match} ({rounds} rounds), {args.loads} loads each; "
          f"{os.cpu_count()} cores")  # fmt: skip
    ways = [apptest_pages] if args.skip_browser else [browser_pages, apptest_pages]
    for measure in ways:
        step(f"{'chromium' if measure is browser_pages else 'AppTest (server side)'}; load average {load_average()}")
        pages = measure(db, match, int(rounds or 2), args.loads, 0 if measure is apptest_pages else args.opens)
        print(f"  load average after: {load_average()}")
        cpu = " | CPU p50 ms | CPU p95 ms" if pages.cpu else ""
        print(f"\n| page ({pages.how}) | p50 ms | p95 ms{cpu} |\n|---|---:|---:{'|---:|---:' if cpu else ''}|")
        for path, times in pages.first.items():
            c = pages.cpu.get(path)
            more = f" | {statistics.median(c):,.0f} | {pct(c, 95):,.0f}" if c else ""
            print(f"| {path} | {statistics.median(times):,.0f} | {pct(times, 95):,.0f}{more} |")
        if pages.open_round:
            print(f"| open a round (next round ▶) | {statistics.median(pages.open_round):,.0f} | "
                  f"{pct(pages.open_round, 95):,.0f} |")  # fmt: skip


def season(args: argparse.Namespace, work: Path) -> list[Row]:
    import duckdb

    rows: list[Row] = []
    n, rounds = args.matches, args.rounds
    run = work / "run"
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir()

    step(f"1. data: {n} season matches of {rounds:,} rounds (gzip -6), the {rounds:,}-round match (.jsonl)")
    data = build(work, n, rounds, args.seed, args.misbehaving_every)
    season_gz = sum(p.stat().st_size for p in data.season)

    step(f"2. orjson floor: the {rounds:,}-round match (best of 3), the season (once)")
    one_floor, one_lines, one_bytes = min(orjson_pass([data.one], orjson.loads) for _ in range(3))
    season_floor, season_lines, season_bytes = orjson_pass(data.season, orjson.loads)
    print(f"  one match: {one_lines:,} lines, {one_bytes / 1e6:.1f} MB: {one_floor:.2f} s")
    print(f"  season: {season_lines:,} lines, {season_bytes / 1e6:,.1f} MB ({season_gz / 1e6:,.1f} MB "
          f"gzipped): {season_floor:.2f} s")  # fmt: skip
    rows += [Row(f"orjson floor, the {rounds:,}-round match ({one_lines:,} lines, {one_bytes / 1e6:,.0f} "
                 "MB), best of 3", fmt_s(one_floor)),
             Row(f"orjson floor, the season ({season_lines:,} lines, {season_bytes / 1e6:,.0f} MB, gunzip "
                 "included)", fmt_s(season_floor))]  # fmt: skip

    for jobs in (1, 2):
        step(f"3. kifu ingest the {rounds:,}-round match --jobs {jobs}")
        r = ingest([str(data.one)], run / f"one-j{jobs}.duckdb", jobs)
        print(f"  {fmt_s(r.wall)} = {r.wall / one_floor:.1f} × floor; tree peak RSS {fmt_mib(r.peak_rss)} "
              f"(PSS {fmt_mib(r.peak_pss)}; processes seen: {r.processes}); {r.events:,} events")  # fmt: skip
        limit = 6 if jobs == 1 else 3
        rows.append(Row(f"`kifu ingest --jobs {jobs}`, the {rounds:,}-round match: wall (× floor)",
                        f"{fmt_s(r.wall)} ({r.wall / one_floor:.1f} ×)", f"≤ {limit} × (README targets)",
                        r.wall / one_floor <= limit))  # fmt: skip
    one_db = run / "one-j2.duckdb"
    (run / "one-j1.duckdb").unlink(missing_ok=True)

    season_runs: dict[int, Ingest] = {}
    given = "the folder" if len(data.season_arg) == 1 else "its files"
    for jobs in (1, 2):
        step(f"3. kifu ingest the season ({n} matches, {given}) --jobs {jobs}")
        r = season_runs[jobs] = ingest(data.season_arg, run / f"season-j{jobs}.duckdb", jobs, data.season)
        if r.matches != n:
            sys.exit(f"the season database holds {r.matches} matches, not {n}")
        print(f"  {fmt_s(r.wall)} = {r.wall / season_floor:.1f} × floor, {n / r.wall:.3f} matches/s; "
              f"tree peak RSS {fmt_mib(r.peak_rss)} (PSS {fmt_mib(r.peak_pss)}; processes seen: "
              f"{r.processes}); {r.events:,} events")  # fmt: skip
        done = ", ".join(f"{k}: {fmt_mib(v)}" for k, v in sorted(r.at.items()))
        print(f"  tree peak RSS by matches done: {done}")
        if jobs == 1:
            (run / "season-j1.duckdb").unlink(missing_ok=True)
    s1, s2 = season_runs[1], season_runs[2]
    ratio = s1.wall / s2.wall
    rows += [Row(f"`kifu ingest --jobs {j}`, the season ({n} matches): wall, matches/s (× floor)",
                 f"{fmt_s(r.wall)}, {n / r.wall:.3f}/s ({r.wall / season_floor:.1f} ×)")
             for j, r in season_runs.items()]  # fmt: skip
    rows.append(Row("season throughput, `--jobs 2` / `--jobs 1`", f"{ratio:.2f} ×", "≥ 1.8 ×", ratio >= 1.8))
    for j, r in season_runs.items():
        rows.append(Row(f"peak RSS of the process tree, season, `--jobs {j}` (processes: {r.processes}; PSS)",
                        f"{fmt_mib(r.peak_rss)} ({fmt_mib(r.peak_pss)})", "≤ 1 GB",
                        r.peak_rss <= GB))  # fmt: skip
    sizes = {k: v for k, v in sorted(s2.at.items()) if k in (5, 10, 20) or k == n}
    flat = max(sizes.values()) / max(min(sizes.values()), 1)
    rows.append(Row("peak RSS of the tree, `--jobs 2`, once the first 5 / 10 / 20 matches are done (the "
                    "season run's running peak)",
                    " / ".join(f"{k}: {fmt_mib(v)}" for k, v in sizes.items()) + f" (× {flat:.2f})",
                    "≤ 1 GB, flat (≤ × 1.15)", max(sizes.values()) <= GB and flat <= 1.15))  # fmt: skip

    step("4. database size: the season's, the one match's, per table (pragma_storage_info blocks)")
    season_db = run / "season-j2.duckdb"
    dbs = (("season", season_db, season_gz), (f"{rounds:,}-round match", one_db, data.one_gz6))
    for label, db, gz in dbs:
        size = db_bytes(db)
        print(f"  {label}: {fmt_mb(size)} = {size / gz:.2f} × the log gzipped ({fmt_mb(gz)})")
        rows.append(Row(f"database size, {label} (× the log(s) gzip -6, {fmt_mb(gz)})",
                        f"{fmt_mb(size)} ({size / gz:.2f} ×)", "≤ 4 ×", size / gz <= 4))  # fmt: skip
    per = table_sizes(season_db)
    whole = db_bytes(season_db)
    print(f"  season, per table (sum {fmt_mb(sum(per.values()))} of {fmt_mb(whole)}):")
    for t, b in sorted(per.items(), key=lambda kv: -kv[1]):
        if b:
            print(f"    {t:<28}{b / 1e6:>10,.1f} MB{b / whole:>8.1%}")
    top = [f"{t} {b / 1e6:,.0f}" for t, b in sorted(per.items(), key=lambda kv: -kv[1])[:4] if b]
    rows.append(Row("season database per table, largest (MB, pragma_storage_info blocks)", ", ".join(top)))

    step(f"5. kifu export --db {season_db.name} --to lake")
    lake = run / "lake"
    exported = export(season_db, lake)
    if isinstance(exported, str):
        print(f"  {exported}")
        rows.append(Row("`kifu export` of the season: wall, lake size", exported))
    else:
        wall, size = exported
        print(f"  {fmt_s(wall)}; lake {fmt_mb(size)} = {size / season_gz:.2f} × the logs gzipped")
        rows.append(Row("`kifu export` of the season: wall, lake size (× the logs gzipped)",
                        f"{fmt_s(wall)}, {fmt_mb(size)} ({size / season_gz:.2f} ×)"))  # fmt: skip

    with duckdb.connect(str(season_db), read_only=True) as con:
        ids = [m for (m,) in con.execute("select match_id from matches order by match_id").fetchall()]
    match = ids[len(ids) // 2]
    how = "AppTest" if args.skip_browser else "chromium"
    step(f"6. pages on the season database (match {match}), {how}: first render of every page ({args.loads} "
         f"loads each), {args.opens} rounds opened in the replayer")  # fmt: skip
    measure = apptest_pages if args.skip_browser else browser_pages
    pages = measure(season_db, match, rounds, args.loads, args.opens)
    every = [x for xs in pages.first.values() for x in xs]
    pages.first = {("/ (matches)" if p == "/" else p): xs for p, xs in pages.first.items()}
    worst = max(pages.first, key=lambda p: pct(pages.first[p], 95))
    worst95 = pct(pages.first[worst], 95)
    opened = pages.open_round
    print(f"  every page: p50 {statistics.median(every):,.0f} ms, p95 {pct(every, 95):,.0f} ms; slowest p95 "
          f"{worst} {worst95:,.0f} ms")  # fmt: skip
    print(f"  next round ▶ → its board ({len(opened)}): p50 {statistics.median(opened):,.0f} ms, "
          f"p95 {pct(opened, 95):,.0f} ms")  # fmt: skip
    rq = round_queries(season_db)
    print(f"  open a round, queries ({len(rq)} rounds of every match): p50 {statistics.median(rq):.1f} ms, "
          f"p95 {pct(rq, 95):.1f} ms")  # fmt: skip
    rows += [Row(f"first render of every page, {pages.how}, {args.loads} loads each: p50 / p95 of all; "
                 "slowest page's p95",
                 f"{statistics.median(every):,.0f} / {pct(every, 95):,.0f} ms; {worst} {worst95:,.0f} ms",
                 "p95 ≤ 1.5 s (every page)", worst95 <= 1500),
             Row(f"open a round in the replayer (next round ▶ → its board), {pages.how}: p50 / p95",
                 f"{statistics.median(opened):,.0f} / {pct(opened, 95):,.0f} ms", "p95 ≤ 300 ms",
                 pct(opened, 95) <= 300),
             Row(f"open a round, its queries (round info + events, {len(rq)} rounds): p50 / p95",
                 f"{statistics.median(rq):.1f} / {pct(rq, 95):.1f} ms")]  # fmt: skip

    step("7. penalties per bot across the season: p50 of 5 runs on the database and on the lake")
    text = penalties_per_bot()
    figure = "penalties per bot across the season, p50 of 5"
    with duckdb.connect(str(season_db), read_only=True) as con:
        times, df = timed_query(con, text)
    print(df.to_string(index=False))
    print(f"  database: p50 {statistics.median(times):.0f} ms (runs: {', '.join(f'{x:.0f}' for x in times)})")
    rows.append(Row(f"{figure}: database", f"{statistics.median(times):,.0f} ms"))
    if isinstance(exported, str):
        print("  lake: skipped (no lake)")
        rows.append(Row(f"{figure}: lake", "skipped: no lake"))
        return rows
    try:
        con, via = lake_connection(lake)
        ltimes, ldf = timed_query(con, text)
        con.close()
    except Exception as exc:  # noqa: BLE001 - a lake another version wrote: say so, the run goes on
        print(f"  lake: failed: {exc}")
        rows.append(Row(f"{figure}: lake", f"failed: {str(exc)[:120]}"))
        return rows
    same = ldf.reset_index(drop=True).equals(df.reset_index(drop=True))
    print(f"  lake ({via}): p50 {statistics.median(ltimes):.0f} ms (runs: "
          f"{', '.join(f'{x:.0f}' for x in ltimes)}); same result as the database: {'yes' if same else 'NO'}")
    rows.append(Row(f"{figure}: lake", f"{statistics.median(ltimes):,.0f} ms "
                    f"({'same result' if same else 'result differs'})"))  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
