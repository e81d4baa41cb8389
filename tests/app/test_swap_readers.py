"""Viewers keep reading while ingests swap the database file under them.

Six reader threads (one per "browser session") query through :class:`app.ui.Db` while the
main thread runs ingests that rename a new file over the database and reopen the shared
connection, as another session's page load does.  No reader may see an exception.
"""

from __future__ import annotations

import threading
from pathlib import Path

from app import ui
from loaders.pipeline import open_sources
from loaders.live.swap import ingest_swapped
from queries import dashboard as q
from tests.conftest import REPO, SAMPLE, read_lines, write_lines


def test_readers_survive_swaps(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    ingest_swapped(open_sources([str(REPO / "tests" / "data" / "probe_head.jsonl")]), db)
    lines = read_lines(SAMPLE)
    stop = threading.Event()
    failures: list[BaseException] = []
    reads = [0] * 6

    def reader(i: int) -> None:
        while not stop.is_set():
            try:
                con = ui.Db(db)
                matches = q.match_list(con)
                for mid in matches["match_id"]:
                    q.round_index(con, mid)
                    q.round_events(con, mid, 1)
                    q.player_names(con, mid)
                reads[i] += 1
            except BaseException as exc:  # noqa: BLE001 - every failure is the finding
                failures.append(exc)
                return

    threads = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(6)]
    for t in threads:
        t.start()
    for k in range(1, 6):
        part = write_lines(tmp_path / f"part{k}.jsonl", lines[: k * 1000])
        ingest_swapped(open_sources([str(part)]), db)
        ui._open(db)  # another session's page load reopens (and closes the replaced connection)
    stop.set()
    for t in threads:
        t.join(60)
    assert not failures, [f"{type(e).__name__}: {e}" for e in failures[:5]]
    assert all(n > 0 for n in reads)
    con = ui.Db(db)
    assert len(q.match_list(con)) == 2  # the probe's match and the sample's
