"""Uploads: who may upload, where files go, the disk budget, and the ingest job that runs them.

Uploaded files are written to Kifu's data folder under a name Kifu makes up (never the
client's), ingested by a separate process (``loaders.live.upload_job``) and removed when that
job ends, whether it succeeded or not: the records live on in the database.
"""

from __future__ import annotations

import hmac
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from app import ui

ALLOWED = (".jsonl.gz", ".json.gz", ".log.gz", ".jsonl", ".json", ".log", ".ndjson", ".txt", ".gz")
REPO = Path(__file__).resolve().parents[1]


class UploadRefused(Exception):
    """An upload Kifu will not take (off, over the disk budget); the message says why."""


def data_dir() -> Path:
    """Kifu's data folder: uploads are written here and nowhere else."""
    base = Path(os.environ.get("KIFU_DATA", ui.db_path().parent / "kifu-data")).resolve()
    path = base / "uploads"
    path.mkdir(parents=True, exist_ok=True)
    return path


def safe_name(client_name: str) -> str:
    """A server-side name: a fresh id plus a known suffix; nothing of the client's path is used."""
    lower = client_name.lower()
    suffix = next((s for s in ALLOWED if lower.endswith(s)), ".log")
    return f"{uuid.uuid4().hex}{suffix}"


def policy() -> str:
    """'open' (anyone who reaches the page), 'token' (an upload token is asked) or 'off'.

    ``kifu serve`` turns uploads off when it binds beyond loopback, unless ``--allow-upload``
    or an upload token (``KIFU_UPLOAD_TOKEN`` / ``--upload-token-file``) is given.
    """
    if os.environ.get("KIFU_UPLOAD_TOKEN"):
        return "token"
    return "off" if os.environ.get("KIFU_UPLOAD", "on").lower() in ("off", "0", "no", "false") else "open"


def token_ok(given: str) -> bool:
    expected = os.environ.get("KIFU_UPLOAD_TOKEN", "")
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def budget_bytes() -> int:
    """Total size uploads may occupy at once (``KIFU_UPLOAD_BUDGET_MB``, default 1024)."""
    try:
        return max(0, int(os.environ.get("KIFU_UPLOAD_BUDGET_MB", "1024"))) << 20
    except ValueError:
        return 1024 << 20


def in_use() -> int:
    """Bytes held by uploads still being ingested."""
    return sum(p.stat().st_size for p in data_dir().iterdir() if p.is_file())


def save(client_name: str, data: Any) -> Path:
    """Write an upload to the data folder, within the disk budget (refused otherwise)."""
    size = len(data)
    used = in_use()
    if used + size > budget_bytes():
        raise UploadRefused(
            f"the server's upload space is full ({(used + size) / 1e6:,.1f} MB asked, budget "
            f"{budget_bytes() / 1e6:,.0f} MB); try again when the current uploads are done"
        )
    target = data_dir() / safe_name(client_name)
    try:
        target.write_bytes(data)
    except OSError as exc:
        target.unlink(missing_ok=True)
        raise UploadRefused(f"the server could not store the upload ({exc.strerror or exc})") from None
    return target


def start_ingest(path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """Start the ingest job for an uploaded file; returns the process and its status file."""
    status = path.with_name(path.name + ".status.json")
    proc = subprocess.Popen(
        [sys.executable, "-m", "loaders.live.upload_job", str(path), str(ui.db_path()), str(status)],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    return proc, status


def read_status(status: Path) -> dict[str, Any]:
    try:
        data = json.loads(status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"state": "starting"}
    return data if isinstance(data, dict) else {"state": "starting"}
