"""A deal line written again later in the same log is reported on its match, never dropped unsaid.

The dealer's round-1 ``first-player`` repeated after round 1 ended (with the same contents and a
new timestamp) used to look like the stored copy of that line read again: counted as "already in
the database" and dropped, with no finding.  It is now an ``event-sequence`` finding on the match,
once, and ingesting the file again adds nothing.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.conftest import fixture_path, ingest, query


def _log_with_round_one_dealt_twice(tmp_path: Path) -> tuple[Path, int]:
    with gzip.open(fixture_path("demo4_bind2_60", "download"), "rt", encoding="utf-8") as f:
        lines = [json.loads(x) for x in f.read().splitlines() if x.strip()][:400]
    deal = next(i for i, d in enumerate(lines) if d["event"] == "first-player")
    end = next(i for i, d in enumerate(lines) if d["event"] == "finish-turn")
    again = {**lines[deal], "dateCreated": lines[end]["dateCreated"]}
    out = tmp_path / "dealt-twice.jsonl"
    out.write_text("\n".join(json.dumps(d) for d in [*lines[: end + 1], again, *lines[end + 1 :]]) + "\n")
    return out, end + 2  # the repeated line's line number


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_repeated_deal_is_one_finding_and_re_ingesting_adds_nothing(tmp_path: Path, jobs: int) -> None:
    log, line = _log_with_round_one_dealt_twice(tmp_path)
    db = tmp_path / "k.duckdb"
    ingest(db, log, jobs=jobs)
    found = query(db, "select code, family, message from violations where code = 'event-sequence'")
    assert len(found) == 1, found
    code, family, message = found[0]
    assert family == "consistency"
    assert f"first-player of round 1 written again after round 1 (line {line} of" in message
    assert "but for its timestamp" in message
    assert query(db, "select count(*) from events") == [(400,)]  # every line but the copy
    ingest(db, log, jobs=jobs)
    assert query(db, "select count(*) from violations where code = 'event-sequence'") == [(1,)]
    assert query(db, "select count(*) from events") == [(400,)]  # every line but the copy
