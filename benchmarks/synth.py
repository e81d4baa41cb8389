"""Build larger logs from the real fixtures (for benchmarks only).

* :func:`long_match` — one match of N rounds made of the real rounds of a fixture, repeated
  and renumbered, with running totals and the final result recomputed so the log stays
  consistent.
* :func:`relabelled` — the same match under another dealer code/name (a distinct match).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "algori-2023"
LARGEST = FIXTURES / "demo4_skipbind2_300.download.jsonl.gz"


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def long_match(rounds: int, source: Path = LARGEST, dealer: str = "synthetic-1000", code: str = "D-99999999") -> Iterator[str]:
    acts = _lines(source)
    joins = [a for a in acts if a["event"] == "join-room"]
    by_round: dict[int, list[dict]] = {}
    for a in acts:
        if a.get("turn") is not None and a["event"] not in ("finish-game", "disconnect"):
            by_round.setdefault(a["turn"], []).append(a)
    tail = [a for a in acts if a["event"] in ("disconnect",)]
    order = sorted(by_round)
    totals: dict[str, int] = {}
    wins: dict[str, int] = {}
    for a in joins:
        yield json.dumps({**a, "dealer": dealer, "dealer_code": code})
    for n in range(1, rounds + 1):
        for a in by_round[order[(n - 1) % len(order)]]:
            a = {**a, "dealer": dealer, "dealer_code": code, "turn": n}
            if a["event"] == "finish-turn":
                c = dict(a["contents"])
                for p, s in c["score"].items():
                    totals[p] = totals.get(p, 0) + s
                if c.get("winner"):
                    wins[c["winner"]] = wins.get(c["winner"], 0) + 1
                c["total_score"] = dict(sorted(totals.items(), key=lambda kv: -kv[1]))
                a["contents"] = c
            yield json.dumps(a)
    winner = max(totals, key=lambda p: totals[p])
    yield json.dumps({"dealer_code": code, "event": "finish-game", "dealer": dealer, "player": "", "turn": rounds,
                      "contents": {"winner": winner, "order": wins, "score": totals}})  # fmt: skip
    for a in tail:
        yield json.dumps({**a, "dealer": dealer, "dealer_code": code})


def write(path: Path, lines: Iterator[str]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return path


def relabelled(source: Path, dealer: str, code: str) -> Iterator[str]:
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                d["dealer"], d["dealer_code"] = dealer, code
                yield json.dumps(d)
