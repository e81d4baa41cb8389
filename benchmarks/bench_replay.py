"""Validator figures per fixture: events replayed per second, findings per family and code,
and every dealer-judgement finding with one example.

Usage:  .venv/bin/python benchmarks/bench_replay.py [FIXTURE_PREFIX ...]
"""

from __future__ import annotations

import gzip
import sys
import time
from collections import Counter
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURES = REPO / "tests" / "fixtures" / "algori-2023"

from rules.uno.replay import replay  # noqa: E402


def load(path: Path) -> list[dict]:
    out = []
    with gzip.open(path, "rb") as f:
        for i, line in enumerate(f):
            d = orjson.loads(line)
            out.append({"seq": i + 1, "event": d["event"], "player": d.get("player"), "turn": d.get("turn"),
                        "contents": d.get("contents"), "desk": d.get("desk"), "date_ms": d.get("dateCreated")})  # fmt: skip
    return out


def main() -> None:
    names = sys.argv[1:] or sorted(p.name.split(".")[0] for p in FIXTURES.glob("*.download.jsonl.gz"))
    for name in names:
        acts = load(FIXTURES / f"{name}.download.jsonl.gz")
        t = time.perf_counter()
        found = [v for f in replay(acts) for v in f.violations]
        dt = time.perf_counter() - t
        print(f"\n{name}: {len(acts):,} events replayed in {dt:.2f}s = {len(acts) / dt:,.0f} events/s")
        fam = Counter(v.family for v in found)
        print("  by family: " + ", ".join(f"{k} {fam[k]}" for k in ("player-rule", "dealer-judgement", "consistency")))
        for (family, code, sev), n in sorted(Counter((v.family, v.code, v.severity) for v in found).items()):
            print(f"    {family:<17}{code:<26}{sev:<8}{n:>5}")
        seen = set()
        for v in found:
            if v.family == "dealer-judgement" and v.code not in seen:
                seen.add(v.code)
                print(f"  dealer-judgement example [{v.code}] round {v.round_no} seq {v.seq}: {v.message}")


if __name__ == "__main__":
    main()
