"""Where the ingest process spends its time: each stage of `kifu ingest` added in turn, one core.

    .venv/bin/python benchmarks/bench_stages.py [LOG]      (default: the largest fixture log)

Prints cumulative seconds and µs per record for: reading and splitting lines with the JSON
parse, the ALGORI normaliser, the record identity key, the whole ingest without validation,
and the whole ingest with validation in one process (``--jobs 1``) and with every core — so
the serial part that bounds ``--jobs N`` is read off the same run.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.synth import LARGEST  # noqa: E402


def main() -> None:
    from loaders.games.uno import matches
    from rules.uno.log import normalize
    from loaders.pipeline import ingest, open_sources
    from loaders.parallel.workers import default_jobs
    from loaders.core.sources import FileSource

    path = sys.argv[1] if len(sys.argv) > 1 else str(LARGEST)
    rows = []

    def stage(name: str, fn) -> None:
        t = time.perf_counter()
        n = fn()
        rows.append((name, time.perf_counter() - t, n))

    def floor() -> int:
        n = 0
        for rec in FileSource(path).records():
            n += 1
        return n

    def normalise() -> int:
        n = 0
        for rec in FileSource(path).records():
            normalize(rec.doc)
            n += 1
        return n

    def keyed() -> int:
        n = 0
        for rec in FileSource(path).records():
            matches.record_meta(normalize(rec.doc))
            n += 1
        return n

    def whole(validate: bool, jobs: int = 1):
        def run() -> int:
            with tempfile.TemporaryDirectory() as tmp:
                return ingest(open_sources([path]), Path(tmp) / "k.duckdb", validate=validate, jobs=jobs).records_read

        return run

    stage("read + split lines + orjson parse", floor)
    stage("… + normalise", normalise)
    stage("… + record identity key", keyed)
    stage("ingest, no validation", whole(False))
    stage("ingest + validation, --jobs 1", whole(True))
    cores = default_jobs()
    if cores > 1:
        stage(f"ingest + validation, --jobs {cores}", whole(True, cores))
    print(f"{path}\n{'stage':<40}{'seconds':>9}{'µs/record':>11}")
    for name, t, n in rows:
        print(f"{name:<40}{t:>9.2f}{t / n * 1e6:>11.1f}")


if __name__ == "__main__":
    os.environ.setdefault("KIFU_MEMORY_LIMIT", "256MB")
    main()
