"""Where uploaded logs go: Kifu's data folder, under a name Kifu makes up (never the client's)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from app import ui

ALLOWED = (".jsonl.gz", ".json.gz", ".log.gz", ".jsonl", ".json", ".log", ".ndjson", ".txt", ".gz")


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
