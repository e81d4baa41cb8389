"""`kifu watch` on its other sources: the dealer's MongoDB and a Kakomimasu server, line (or turn) to finding.

    .venv/bin/python benchmarks/bench_watch_sources.py [--speed 20] [--mongo-uri URI]

* **MongoDB.** A real dealer log (80 rounds of a misbehaving bot) inserted document by document at its
  recorded pace × ``--speed`` (``kifu.replay_log.replay_to_mongo``) into mongomock — or a real server
  with ``--mongo-uri`` — while a watcher polls the collection (in this process: mongomock lives in
  it).  Latency of a finding = when the watcher told it − when its document was inserted; p50 / p95 /
  max over every finding; then the database is compared with a one-shot ingest of the collection.
* **Kakomimasu.** A real game served turn by turn by a local HTTP server (``KakomimasuReplayServer``)
  at its own pace × ``--speed``; the watcher polls it every second, as ``kifu watch URL`` does.
  Printed: how long after a turn is served the watcher has stored it (p50 / p95 / max over the turns),
  and the database against a one-shot ingest of the finished game.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_watch import cut_rounds, pct  # noqa: E402
from kifu.replay_log import KakomimasuReplayServer, replay_to_mongo  # noqa: E402
from loaders.core.feeds import KakomimasuFeed, MongoFeed  # noqa: E402
from loaders.core.mongo import MongoSource  # noqa: E402
from loaders.pipeline import ingest, open_sources  # noqa: E402
from loaders.live.watch import Finding, Watcher  # noqa: E402
from tests.loaders.test_watch import content  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures"


def mongo(args: argparse.Namespace, tmp: Path) -> None:
    lines = cut_rounds(FIXTURES / "algori-2023" / "misbehave_skipbind2_80.stored.jsonl.gz", 80)
    src = tmp / "stored.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    if args.mongo_uri:
        import pymongo

        client, uri = pymongo.MongoClient(args.mongo_uri), args.mongo_uri
    else:
        import mongomock

        client, uri = mongomock.MongoClient(), "mongodb://mongomock"
    name = f"kifu_bench_{uuid.uuid4().hex[:8]}"
    col = client[name]["activities"]
    inserted = [0.0] * len(lines)
    found: list[tuple[float, Finding]] = []
    w = Watcher(tmp / "mongo.duckdb", [MongoFeed(MongoSource(uri, name, client=client))], poll_s=0.1,
                on_finding=lambda f: found.append((time.time(), f)))  # fmt: skip
    done = threading.Event()

    def write() -> None:
        replay_to_mongo(src, col, speed=args.speed, on_line=lambda i, line, at: inserted.__setitem__(i, at))
        done.set()

    threading.Thread(target=write, daemon=True).start()
    idle = [0]

    def until() -> bool:
        if done.is_set():
            idle[0] += 1
        return idle[0] > 40

    w.run(until=until)
    lat = [at - inserted[f.seq - 1] for at, f in found if f.seq and 0 < f.seq <= len(lines)]
    ingest([MongoSource(uri, name, client=client)], tmp / "mongo-one.duckdb")
    same = content(tmp / "mongo.duckdb") == content(tmp / "mongo-one.duckdb")
    if args.mongo_uri:
        client.drop_database(name)
    print(f"MongoDB ({'server' if args.mongo_uri else 'mongomock'}), {len(lines):,} documents at ×{args.speed:g}: "
          f"{len(lat):,} findings; document inserted → finding told: p50 {pct(lat, .5) * 1000:.0f} ms · "
          f"p95 {pct(lat, .95) * 1000:.0f} ms · max {max(lat, default=float('nan')) * 1000:.0f} ms; "
          f"tables equal to a one-shot ingest: {'yes' if same else 'NO'}")  # fmt: skip


def kakomimasu(args: argparse.Namespace, tmp: Path) -> None:
    game = max((FIXTURES / "kakomimasu" / "v1_games").glob("*.json"), key=lambda p: p.stat().st_size)
    doc = json.loads(game.read_bytes())
    turn_s = float(doc.get("operationSec") or 0) + float(doc.get("transitionSec") or 0) or 1.0
    with KakomimasuReplayServer(game, speed=args.speed) as server:
        feed = KakomimasuFeed(server.match_url(doc["id"]), interval_s=1.0)
        started = time.monotonic()
        w = Watcher(tmp / "kako.duckdb", [feed], poll_s=0.1)
        w.run(until=lambda: feed.done)
        took = time.monotonic() - started
        served = [(r.at, r.turns) for r in server.requests if r.turns is not None]
        t0 = server._started or started
    n = len(doc.get("log") or [])
    # a turn is there to be read from when the server's game reaches it; Kifu reads it at the next poll
    lat = []
    for k in range(1, n + 1):
        ready = t0 + k * turn_s / args.speed
        got = next((at for at, turns in served if turns >= k and at >= ready - 1e-6), None)
        if got is not None:
            lat.append(got - ready)
    ingest(open_sources([str(game)]), tmp / "kako-one.duckdb")
    same = content(tmp / "kako.duckdb") == content(tmp / "kako-one.duckdb")
    print(f"Kakomimasu ({game.name}, {n} turns of {turn_s:g} s at ×{args.speed:g}: {n * turn_s / args.speed:.0f} s of "
          f"play): followed in {took:.0f} s, {w.status.batches} batches; turn reached by the server → read by the "
          f"watcher: p50 {pct(lat, .5) * 1000:.0f} ms · p95 {pct(lat, .95) * 1000:.0f} ms (polled every second, "
          f"stored in the batch that follows); tables equal to a one-shot ingest: {'yes' if same else 'NO'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--mongo-uri")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kifu-bench-sources-"))
    mongo(args, tmp)
    kakomimasu(args, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
