"""Dashboard timings on a 1,000-round match: the queries behind each page (p50/p95) and the
full server-side run of every page (Streamlit AppTest), on one machine, in one run.

Usage:  .venv/bin/python benchmarks/bench_pages.py [--rounds 1000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.synth import long_match, write  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    from loaders.pipeline import ingest, open_sources

    with tempfile.TemporaryDirectory() as tmp:
        log = write(Path(tmp) / "long.jsonl", long_match(args.rounds))
        db = Path(tmp) / "kifu.duckdb"
        t = time.perf_counter()
        report = ingest(open_sources([str(log)]), db)
        print(f"built a {args.rounds}-round match: {report.records_read:,} events, {log.stat().st_size / 1e6:.0f} MB, "
              f"ingested + validated in {time.perf_counter() - t:.1f}s")  # fmt: skip
        pages(db, report.matches[0], args.rounds, args.repeat)


def pages(db: Path, match: str, rounds: int, repeat: int = 20) -> None:
    """Print every page's queries (p50/p95 ms) and its full server-side run on match ``match`` of ``db``."""
    import duckdb

    from queries import dashboard as q

    con = duckdb.connect(str(db), read_only=True)
    mid_round = rounds // 2
    events = q.round_events(con, match, mid_round)
    seq = int(events["seq"].iloc[len(events) // 2])
    cases = {
        "matches: list + summary + race": lambda: (q.match_list(con), q.match_summary(con, match), q.score_race(con, match)),
        "round browser: index": lambda: q.round_index(con, match),
        "round browser: open a round": lambda: (q.round_info(con, match, mid_round), q.round_events(con, match, mid_round)),
        "round browser: step (findings + raw)": lambda: (q.event_findings(con, match, seq), q.raw_event(con, match, seq)),
        "penalties": lambda: q.penalties(con, match),
        "challenges": lambda: (q.challenges(con, match), q.wd4_unchallenged(con, match)),
        "special logic": lambda: q.special_logic(con, match),
        "violations": lambda: q.violations(con, match),
        "players": lambda: q.bot_stats(con),
        "standings": lambda: q.standings(con, [match]),
    }
    print(f"\nqueries ({repeat} runs each)          p50 ms   p95 ms")
    for name, fn in cases.items():
        fn()
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        print(f"  {name:<36}{statistics.median(times):>8.1f}{pct(times, 95):>9.1f}")
    con.close()

    os.environ["KIFU_DB"] = str(db)
    import logging

    from streamlit.testing.v1 import AppTest

    # AppTest runs pages outside a server: Streamlit warns of the missing server context on every
    # run (a filter, because Streamlit resets its loggers' levels when it reads its config)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())

    print("\nfull page run (AppTest, server side)   p50 ms   p95 ms")
    names = ["matches", "round_browser", "penalties", "challenges", "special_logic", "violations", "players",
             "standings", "upload"]  # fmt: skip
    for page in names:
        times = []
        for _ in range(5):
            at = AppTest.from_file(str(REPO / "app" / "streamlit_app.py"), default_timeout=120)
            at.query_params["match"] = match
            if page == "round_browser":
                at.query_params["round"] = str(mid_round)
            at.run()
            t = time.perf_counter()
            at.switch_page(f"app_pages/{page}.py").run()
            times.append((time.perf_counter() - t) * 1000)
            assert not at.exception, at.exception
        print(f"  {page:<36}{statistics.median(times):>8.0f}{pct(times, 95):>9.0f}")


if __name__ == "__main__":
    main()
