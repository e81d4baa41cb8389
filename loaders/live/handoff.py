"""``kifu ingest`` into a database a ``kifu watch`` writes: the ingest hands its files to the watcher.

Without a watcher an ingest writes a copy of the database and swaps it in (:mod:`loaders.live.swap`),
holding ``<db>.lock`` for its whole run: a watcher's batches would wait for it all along (and a batch
written meanwhile would be lost by the swap).  With a watcher there, the one process that writes the
file is the watcher, so the ingest asks it to read its files instead:

``<db>.watch.inbox/`` (a folder of the user's own, nobody else may write it)
    ``ID.request``  written by the ingest (a ``.part`` renamed: never seen half written): the files, the
                    name each is stored under, the rule profile, the ingest's and the watcher's process ids;
    ``ID.taken``    the request, renamed by the watcher when it takes it (a request is taken once);
    ``ID.progress`` records and bytes read so far (the watcher, after each batch that read some);
    ``ID.answer``   the ingest's report (counts, quarantined records, problems), written by the watcher
                    once the batch holding the files' last records is committed;
    ``ID.cancel``   the ingest was stopped (Ctrl-C, SIGTERM): the watcher stops reading its files;
    ``ID.body-N``   the body of a URL the ingest fetched (read by the watcher as the ingest would).

The watcher reads the files as one-shot sources — each to its end, then closed, as ``kifu ingest``
reads them — in its usual bounded batches, after the lines of what it follows (a followed line waits
behind one batch at the most).  The ingest waits for the answer in steps of :data:`STEP_S` (Ctrl-C
and SIGTERM answered at once); when the watcher it handed the files to is gone, or has not taken them
within :data:`TAKE_S`, or has read nothing of them for :data:`STALL_S`, it says so in one line and
ingests them itself, by a copy and a swap (what the watcher stored of them is recognised and skipped).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from loaders.core.feeds import BytesSource, Document, Lines, Restart
from loaders.core.sources import FileSource, Record, SourceError
from loaders.games import _maybe_claimed
from loaders.pipeline import RunReport, SourceReport
from queries import sharing as live

#: The watcher takes a request at its next poll; one not taken within this long is taken back.
TAKE_S = 30.0
#: A request taken of which the watcher has read nothing for this long is given up (the ingest swaps).
STALL_S = 300.0
#: How often the ingest looks at the answer, the progress and the watcher's lock.
STEP_S = 0.1


def inbox_dir(db: str | Path) -> Path:
    db = Path(db)
    return db.with_name(db.name + ".watch.inbox")


def _own_folder(path: Path, make: bool) -> bool:
    """Whether ``path`` is a folder of this user's that nobody else may write (made so when ``make``)."""
    if make:
        try:
            path.mkdir(mode=0o700, exist_ok=True)
        except OSError:
            return False
    try:
        st = path.lstat()
    except OSError:
        return False
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """``data`` at ``path``, atomically (a ``.part`` renamed)."""
    tmp = path.with_name(path.name + ".part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- the report, as it travels


def report_to_json(report: RunReport) -> dict[str, Any]:
    d = asdict(report)
    for k in ("skipped_records", "unknown_events", "issue_reasons"):
        d[k] = dict(getattr(report, k))
    d["source_reasons"] = {k: dict(v) for k, v in report.source_reasons.items()}
    return d


def report_from_json(d: dict[str, Any]) -> RunReport:
    fields = set(RunReport.__dataclass_fields__)
    d = {k: v for k, v in d.items() if k in fields}
    report = RunReport(**d)
    report.sources = [SourceReport(**s) for s in d.get("sources", [])]
    for k in ("skipped_records", "unknown_events", "issue_reasons"):
        setattr(report, k, Counter(d.get(k) or {}))
    report.source_reasons = {k: Counter(v) for k, v in (d.get("source_reasons") or {}).items()}
    report.issue_examples = [tuple(x) for x in d.get("issue_examples", [])]  # type: ignore[misc]
    return report


# -- the ingest's side


class Interrupted(Exception):
    """The ingest was stopped while the watcher read its files (what it stored of them stays stored)."""

    def __init__(self, stored: int, pid: int | None) -> None:
        super().__init__(f"{stored:,} records")
        self.stored = stored
        self.pid = pid


def hand_over(db: str | Path, sources: list[Any], *, ruleset: str | None = None, say: Callable[[str], None],
              progress: Callable[[int, int], None] | None = None) -> RunReport | None:  # fmt: skip
    """Hand ``sources`` (``FileSource`` / ``BytesSource``) to the ``kifu watch`` writing into ``db`` and wait for
    its report.  Returns None when the ingest should swap after all (said with ``say``, in one line): no
    watcher, a folder that is not the user's own, a watcher gone, a request not taken, or no progress.
    ``progress(bytes_read, bytes_total)`` is called as the watcher reads.  KeyboardInterrupt (Ctrl-C, and
    SIGTERM as ``kifu`` turns it): the watcher is told to stop, and :class:`Interrupted` raised."""
    db = Path(db).resolve()
    pid = live.watcher_pid(db)
    folder = inbox_dir(db)
    if pid is None or not _own_folder(folder, make=True):
        return None
    rid = f"{time.time_ns()}-{os.getpid()}"
    files = [folder / f"{rid}.{x}" for x in ("request", "taken", "progress", "answer", "cancel")]
    request, taken, prog, answer, cancel = files
    entries = []
    total = 0
    try:
        for i, s in enumerate(sources):
            if isinstance(s, BytesSource):
                body = folder / f"{rid}.body-{i}"
                files.append(body)
                fd = os.open(body, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(s.data)
                entries.append({"path": str(body), "name": s.name, "body": True, "size": s.size})
            else:
                entries.append({"path": str(Path(s.path).resolve()), "name": s.name, "body": False, "size": s.size})
            total += int(s.size or 0)
        _write_json(request, {"id": rid, "pid": os.getpid(), "watcher": pid, "ruleset": ruleset, "sources": entries,
                              "made": time.time()})  # fmt: skip
        say(f"kifu watch (process {pid}) writes into {db}: it reads these files between its own batches")
        return _wait(db, pid, request, taken, prog, answer, cancel, total, say, progress)
    except KeyboardInterrupt:
        stored = (_read_json(prog) or {}).get("records", 0)
        if not request.exists() and taken.exists():
            _write_json(cancel, {"at": time.time()})  # the watcher stops reading them and removes the files
            files.remove(cancel)
            files.remove(taken)
        raise Interrupted(int(stored), pid) from None
    finally:
        for f in files:
            try:
                f.unlink()
            except OSError:
                pass


def _wait(db: Path, pid: int, request: Path, taken: Path, prog: Path, answer: Path, cancel: Path, total: int,
          say: Callable[[str], None], progress: Callable[[int, int], None] | None) -> RunReport | None:  # fmt: skip
    made = last_change = time.monotonic()
    seen: tuple[Any, ...] = ()
    while True:
        got = _read_json(answer)
        if got is not None and isinstance(got.get("report"), dict):
            report = report_from_json(got["report"])
            for problem in got.get("problems", []):
                say(f"kifu ingest: {problem} — not ingested")
            return report
        now = time.monotonic()
        if live.watcher_pid(db) != pid:
            if answer.exists():
                continue
            say(f"kifu ingest: kifu watch (process {pid}) stopped before it had read these files — ingesting them "
                "by a copy of the database instead (what it stored of them is recognised)")  # fmt: skip
            return None
        if request.exists():
            if now - made > TAKE_S:
                try:
                    os.rename(request, request.with_name(request.name + ".withdrawn"))
                except OSError:
                    continue  # taken just now
                request.with_name(request.name + ".withdrawn").unlink(missing_ok=True)
                say(f"kifu ingest: kifu watch (process {pid}) did not take these files within {TAKE_S:.0f} s — "
                    "ingesting them by a copy of the database instead")  # fmt: skip
                return None
        else:
            p = _read_json(prog) or {}
            state = (p.get("records"), p.get("bytes"))
            if state != seen:
                seen, last_change = state, now
                if progress is not None:
                    progress(int(p.get("bytes") or 0), total)
            elif now - last_change > STALL_S:
                _write_json(cancel, {"at": time.time()})
                say(f"kifu ingest: kifu watch (process {pid}) read nothing of these files for {STALL_S:.0f} s — "
                    "ingesting them by a copy of the database instead")  # fmt: skip
                return None
        time.sleep(STEP_S)


# -- the watcher's side


@dataclass
class RequestEnd:
    """After a request's last item: once the batch holding it is committed, the answer is written."""

    key: str
    request: str


@dataclass
class Request:
    id: str
    pid: int
    ruleset: Any
    files: list[OneShot]
    report: RunReport
    made: float = field(default_factory=time.monotonic)
    problems: list[str] = field(default_factory=list)
    new_events: int = 0  # events its records added
    ended: bool = False  # its RequestEnd handed out
    cancelled: bool = False
    touched: bool = False  # read from since its progress was last written


class OneShot:
    """One file of a request, read once to its end: JSON lines of the dealer as :class:`Lines` (in slices of
    at most the records a batch may take; closed with :class:`Restart`, as ``kifu ingest`` closes a file's
    matches at its end), anything else — a game of Kakomimasu or CHaser, a file without a readable record —
    as one :class:`Document`, ingested as ``kifu ingest`` ingests it.  The first readable record decides."""

    def __init__(self, key: str, source: Any) -> None:
        self.key = key
        self.source = source
        self.name = source.name
        self.done = False
        self.report: SourceReport | None = None
        self._it: Iterator[Record] | None = None
        self._head: list[Record] = []
        self._lines: bool | None = None

    def close(self) -> None:
        if self._it is not None:
            close = getattr(self._it, "close", None)
            if close is not None:
                close()
            self._it = None

    def poll(self, limit: int) -> list[Any]:
        if self.done:
            return []
        if self._lines is None:
            self._it = iter(self.source.records())
            for rec in self._it:
                self._head.append(rec)
                if rec.error is None:
                    break
                if len(self._head) >= 1000:  # a thousand records and none readable: whatever it is, whole
                    break
            first = self._head[-1] if self._head else None
            self._lines = first is not None and first.error is None and not _maybe_claimed(first.doc)
            if not self._lines:
                self.close()
                self.done = True
                return [Document(self.key, _reopen(self.source))]
        records, self._head = self._head[:limit], self._head[limit:]
        assert self._it is not None
        while len(records) < limit:
            rec = next(self._it, None)
            if rec is None:
                self.close()
                self.done = True
                break
            records.append(rec)
        out: list[Any] = [Lines(self.key, self.name, records)] if records else []
        if self.done:
            out.append(Restart(self.key))
        return out


def _reopen(source: Any) -> Any:
    """A fresh source over the same bytes (the one peeked at has been read from)."""
    if isinstance(source, BytesSource):
        return BytesSource(source.name, source.data)
    fresh = FileSource(source.path)
    fresh.name = source.name
    return fresh


class Inbox:
    """The watcher's side of ``<db>.watch.inbox``: requests taken, their files read, their answers written."""

    def __init__(self, db: Path, *, resolve_ruleset: Callable[[str], Any] | None = None) -> None:
        self.folder = inbox_dir(db)
        self.requests: dict[str, Request] = {}
        self.by_key: dict[str, Request] = {}
        self.resolve_ruleset = resolve_ruleset
        self._looked = 0.0

    def active(self) -> int:
        return len(self.requests)

    def files_left(self) -> int:
        return sum(1 for r in self.requests.values() for f in r.files if not f.done)

    def request_of(self, key: str) -> Request | None:
        return self.by_key.get(key)

    def _take(self) -> None:
        """Take the requests waiting (at most one look every 0.1 s)."""
        now = time.monotonic()
        if now - self._looked < 0.1:
            return
        self._looked = now
        try:
            names = sorted(e.name for e in os.scandir(self.folder) if e.name.endswith(".request"))
        except OSError:
            return
        if not names or not _own_folder(self.folder, make=False):
            return
        for name in names:
            path = self.folder / name
            rid = name[: -len(".request")]
            taken = self.folder / f"{rid}.taken"
            try:
                os.rename(path, taken)
            except OSError:
                continue  # withdrawn meanwhile
            data = _read_json(taken)
            if data is None or not _alive(data.get("pid")):
                self._remove(rid)
                continue
            self._start(rid, data)

    def _start(self, rid: str, data: dict[str, Any]) -> None:
        ruleset = None
        problems: list[str] = []
        if data.get("ruleset"):
            try:
                ruleset = self.resolve_ruleset(data["ruleset"]) if self.resolve_ruleset else None
            except ValueError as exc:
                problems.append(f"--ruleset: {exc}")
        files = []
        for i, entry in enumerate(data.get("sources") or []):
            key = f"ingest:{rid}:{i}"
            try:
                if entry.get("body"):
                    with open(entry["path"], "rb") as fh:
                        source: Any = BytesSource(str(entry["name"]), fh.read())
                else:
                    source = FileSource(entry["path"])
                    source.name = str(entry["name"])
            except (OSError, SourceError, KeyError) as exc:
                problems.append(f"{entry.get('name')}: cannot read ({exc})")
                continue
            files.append(OneShot(key, source))
        req = Request(rid, int(data.get("pid") or 0), ruleset, files, RunReport(run_id=0, db=""), problems=problems)
        self.requests[rid] = req
        for f in files:
            self.by_key[f.key] = req

    def poll(self, limit: int) -> list[Any]:
        """The next items of the requests taken, up to ``limit`` records (files in the order given)."""
        self._take()
        out: list[Any] = []
        for req in list(self.requests.values()):
            if req.cancelled or (self.folder / f"{req.id}.cancel").exists() or not _alive(req.pid):
                self._cancel(req)
                if not req.ended:  # its files' matches closed where reading stopped; no answer
                    req.ended = True
                    out += [Restart(f.key) for f in req.files]
                    out.append(RequestEnd(f"ingest:{req.id}", req.id))
                continue
            for f in req.files:
                if limit <= 0:
                    return out
                if f.done:
                    continue
                try:
                    got = f.poll(limit)
                except SourceError as exc:
                    f.close()
                    f.done = True
                    req.problems.append(str(exc))
                    got = [Restart(f.key)]
                req.touched = True
                out += got
                limit -= sum(len(i.records) for i in got if isinstance(i, Lines))
                if not f.done:
                    return out  # one file at a time, in order
            if not req.ended and all(f.done for f in req.files):
                req.ended = True
                out.append(RequestEnd(f"ingest:{req.id}", req.id))
        return out

    def source_report(self, req: Request, f: OneShot) -> SourceReport:
        if f.report is None:
            f.report = SourceReport(f.name, size=getattr(f.source, "size", None) if f.source.kind == "file" else None)
            req.report.sources.append(f.report)
        return f.report

    def file_of(self, key: str) -> OneShot | None:
        req = self.by_key.get(key)
        return None if req is None else next((f for f in req.files if f.key == key), None)

    def committed(self, ended: list[str], run_id: int | None, db: Path) -> None:
        """After a commit: the progress of the requests read from, the answer of those whose end was in it."""
        for req in self.requests.values():
            if req.touched and req.id not in ended:
                req.touched = False
                done = sum(int(getattr(f.source, "bytes_done", 0) or 0) if not f.done else int(f.source.size or 0)
                           for f in req.files)  # fmt: skip
                try:
                    _write_json(self.folder / f"{req.id}.progress", {"records": req.report.records_read, "bytes": done})
                except OSError:
                    pass
        for rid in ended:
            req = self.requests.pop(rid, None)
            if req is None:
                continue
            for f in req.files:
                self.by_key.pop(f.key, None)
            if req.cancelled:
                self._remove(rid)
                continue
            r = req.report
            r.run_id, r.db = run_id or 0, str(db)
            r.duration_s = time.monotonic() - req.made
            r.bytes_read = sum(int(f.source.size or 0) for f in req.files)
            r.duplicates = max(0, sum(s.accepted for s in r.sources) - r.ingested)
            try:
                _write_json(self.folder / f"{rid}.answer", {"report": report_to_json(r), "problems": req.problems})
            except OSError:
                pass
            (self.folder / f"{rid}.taken").unlink(missing_ok=True)

    def _cancel(self, req: Request) -> None:
        """Stop reading a request's files (its ingest was stopped or is gone); what was stored stays."""
        req.cancelled = True
        for f in req.files:
            if not f.done:
                f.close()
                f.done = True

    def rewind(self) -> None:
        """The database was replaced under the watcher: every request is read again from its start."""
        for req in self.requests.values():
            if req.cancelled:
                continue
            req.report = RunReport(run_id=0, db="")
            req.new_events = 0
            req.ended = False
            for i, f in enumerate(req.files):
                f.close()
                req.files[i] = OneShot(f.key, _reopen(f.source))

    def close(self) -> None:
        """The watcher stops: the requests not answered are left to their ingests (which swap)."""
        for req in self.requests.values():
            for f in req.files:
                f.close()
        self.requests.clear()
        self.by_key.clear()

    def _remove(self, rid: str) -> None:
        for suffix in ("taken", "progress", "cancel"):
            (self.folder / f"{rid}.{suffix}").unlink(missing_ok=True)
