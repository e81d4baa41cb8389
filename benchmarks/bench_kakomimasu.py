"""Kakomimasu replay speed: turns/s and games/s on the largest fixture game, against a baseline
measured in the same run (reading the game's JSON: the parse floor), plus the board page's payload
and a whole-folder ingest.

Usage:  .venv/bin/python benchmarks/bench_kakomimasu.py [--game PATH] [--repeat 30]
(default game: tests/fixtures/kakomimasu/v1_games/game08_island-4.json, else the bundled copy)
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rules.kakomimasu.engine import Board, step  # noqa: E402
from rules.kakomimasu.game import from_v1  # noqa: E402
from rules.kakomimasu.replay import judge_all  # noqa: E402

SHARED = REPO / "tests" / "fixtures" / "kakomimasu"
DEFAULT = SHARED / "v1_games" / "game08_island-4.json"
BUNDLED = REPO / "samples" / "kakomimasu_island-4_hanako-vs-a3.json.gz"


def timed(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", type=Path, default=DEFAULT if DEFAULT.exists() else BUNDLED)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    raw = args.game.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    game = from_v1(doc)
    turns = len(game.turns)
    print(f"game {args.game.name}: {game.width}×{game.height}, {len(game.players)} teams × {game.n_agent} agents, "
          f"{turns} turns, {sum(len(a) for t in game.turns for a in t.actions)} actions, {len(raw) / 1024:.0f} KiB")  # fmt: skip

    parse = timed(lambda: json.loads(raw), args.repeat)
    read = timed(lambda: from_v1(json.loads(raw)), args.repeat)

    def engine_only() -> None:
        b = Board.empty(game.width, game.height, game.points, game.n_player, game.n_agent)  # type: ignore[arg-type]
        for t in game.turns:
            b, _ = step(b, [list(a) for a in t.actions])

    steps = timed(engine_only, args.repeat)
    judged = timed(lambda: judge_all(from_v1(json.loads(raw))), args.repeat)

    def row(name: str, xs: list[float]) -> None:
        med = statistics.median(xs)
        print(f"  {name:<44} {med * 1000:8.2f} ms/game  {turns / med:10,.0f} turns/s  {1 / med:8,.1f} games/s  "
              f"×{med / statistics.median(parse):6.1f} parse")  # fmt: skip

    print(f"median of {args.repeat} runs (one core):")
    row("baseline: json.loads of the game", parse)
    row("read + check every field (from_v1)", read)
    row("engine only (step × turns, server fill)", steps)
    row("full replay + judge (both fills, findings)", judged)

    # the board page's work: replay + payload (needs the app's i18n, no server)
    from app.kakomimasu import game_payload

    records = timed(lambda: game_payload(from_v1(json.loads(raw)), match="m", names={}), max(5, args.repeat // 3))
    size = len(json.dumps(game_payload(game, match="m", names={}), ensure_ascii=False))
    print(f"  {'board page payload (replay + frames)':<44} {statistics.median(records) * 1000:8.2f} ms/game  "
          f"payload {size / 1024:.0f} KiB")  # fmt: skip

    folder = SHARED if SHARED.exists() else REPO / "tests" / "data" / "kakomimasu"
    from loaders.pipeline import ingest, open_sources

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        report = ingest(open_sources([str(folder)]), Path(tmp) / "k.duckdb")
        took = time.perf_counter() - t
        t = time.perf_counter()
        again = ingest(open_sources([str(folder)]), Path(tmp) / "k.duckdb")
        took2 = time.perf_counter() - t
    print(f"ingest of {folder}: {len(report.matches)} games, {report.records_read} records in {took:.2f} s "
          f"(re-ingest, a no-op: {took2:.2f} s, {again.ingested} new)")  # fmt: skip


if __name__ == "__main__":
    main()
