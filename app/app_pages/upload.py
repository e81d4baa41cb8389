"""Upload a dealer log from the browser and ingest it (into a copy of the database, swapped in)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import streamlit as st

from app import ui
from loaders.pipeline import SourceError
from loaders.sources import FileSource
from loaders.swap import ingest_swapped

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


st.title("Upload a log")
limit = int(st.get_option("server.maxUploadSize"))
st.markdown(
    f"Upload a dealer log file — the download of the dealer's log page (JSON lines), a `mongoexport` "
    f"of the `activities` collection, or a JSON array; gzip is fine. **Limit: {limit} MB per file.** "
    "The file is ingested and validated into the dashboard's database; re-uploading a log adds nothing."
)
uploaded = st.file_uploader("Dealer log", type=None, key="up.file")
if uploaded is not None and st.button("Ingest", type="primary", key="up.go"):
    target = data_dir() / safe_name(uploaded.name)
    target.write_bytes(uploaded.getbuffer())
    bar = st.progress(0.0, text="ingesting…")

    class Bar:
        def __init__(self, source: FileSource) -> None:
            self.total = max(source.size, 1)
            self.done = 0

        def update(self, n: int) -> None:
            self.done += n
            bar.progress(min(self.done / self.total, 1.0), text=f"ingesting… {self.done / 1e6:.1f} MB")

        def set_postfix_str(self, text: str, refresh: bool = False) -> None:
            pass

        def close(self) -> None:
            bar.progress(1.0, text="done")

    try:
        with st.spinner("Ingesting and validating…"):
            report = ingest_swapped([FileSource(target)], ui.db_path(), progress=Bar)
    except (SourceError, OSError) as exc:
        st.error(f"Could not ingest {uploaded.name}: {exc}")
        st.stop()
    if report.accepted:
        st.success(
            f"{report.records_read:,} records · {report.ingested:,} new events · "
            f"{report.duplicates:,} already present · {report.quarantined:,} quarantined · "
            f"{len(report.matches)} match(es)."
        )
    else:
        st.error(f"Nothing in {uploaded.name} could be ingested ({report.quarantined:,} record(s) quarantined; "
                 "see the Violations page → Load issues).")  # fmt: skip
    for source, line, reason in report.issue_examples[:10]:
        st.text(f"line {line}: {reason}")
