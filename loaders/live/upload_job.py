"""Ingest one uploaded file in its own process: ``python -m loaders.live.upload_job FILE DB STATUS``.

The dashboard starts this for every upload so that parsing never runs in the web server's
process (no viewer waits on it, and its memory is returned when it exits).  The job writes
its progress and then its result as JSON to ``STATUS`` (replaced atomically) and removes the
uploaded file when it ends, whether the ingest succeeded or not.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def _write(status: Path, data: dict[str, Any]) -> None:
    tmp = status.with_name(status.name + ".part")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, status)


def upload_jobs(cores: int) -> int:
    """Processes for an upload's rounds: every core but one, left to the dashboard's server
    (``KIFU_UPLOAD_JOBS`` overrides; 1 replays in the job's own process)."""
    try:
        wanted = int(os.environ.get("KIFU_UPLOAD_JOBS", "0"))
    except ValueError:
        wanted = 0
    return wanted if wanted >= 1 else max(1, cores - 1)


def run(upload: Path, db: Path, status: Path) -> int:
    from common.settings import SettingError
    from loaders.pipeline import printable, source_problem
    from loaders.parallel.workers import default_jobs
    from loaders.core.sources import FileSource, SourceError
    from loaders.live.swap import ingest_swapped
    from queries import DatabaseError

    class Progress:
        """Bytes read so far, written at most every 0.3 s."""

        def __init__(self, source: Any) -> None:
            self.total = max(int(source.size), 1)
            self.done = 0
            self.last = 0.0

        def update(self, n: int) -> None:
            self.done += n
            now = time.monotonic()
            if now - self.last >= 0.3:
                self.last = now
                _write(status, {"state": "running", "done": self.done, "total": self.total})

        def set_postfix_str(self, text: str, refresh: bool = False) -> None:
            pass

        def close(self) -> None:
            pass

    _write(status, {"state": "running", "done": 0, "total": 1})
    try:
        report = ingest_swapped(
            [FileSource(upload)], db, progress=Progress, jobs=upload_jobs(default_jobs()),
            waiting=lambda msg: _write(status, {"state": "waiting", "message": "waiting for another ingest to finish"}),
        )  # fmt: skip
    except (SourceError, DatabaseError, SettingError) as exc:
        _write(status, {"state": "failed", "error": printable(exc)})
        return 1
    except Exception as exc:  # noqa: BLE001 - the viewer gets one line, the server log the rest
        print(f"upload job: {type(exc).__name__}: {exc}", file=sys.stderr)
        _write(status, {"state": "failed", "error": f"the ingest failed ({type(exc).__name__})"})
        return 1
    finally:
        upload.unlink(missing_ok=True)
    _write(status, {
        "state": "done", "records_read": report.records_read, "ingested": report.ingested,
        "duplicates": report.duplicates, "quarantined": report.quarantined, "matches": len(report.matches),
        "match_ids": list(report.matches), "accepted": report.accepted,
        "issues": [[line, reason] for _, line, reason in report.issue_examples[:10]],
        # why nothing was ingested (the file is empty, or the exact reason its records were refused)
        "problem": next((p for s in report.sources if (p := source_problem(report, s)) is not None), None),
    })  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
