"""Upload a dealer log from the browser and ingest it (into a copy of the database, swapped in)."""

from __future__ import annotations

import streamlit as st

from app import ui
from app.uploads import data_dir, safe_name
from loaders.pipeline import SourceError
from loaders.sources import FileSource
from loaders.swap import ingest_swapped

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
        st.error(f"Could not ingest {ui.md(uploaded.name)}: {ui.md(exc)}")
        st.stop()
    if report.accepted:
        st.success(
            f"{report.records_read:,} records · {report.ingested:,} new events · "
            f"{report.duplicates:,} already present · {report.quarantined:,} quarantined · "
            f"{len(report.matches)} match(es)."
        )
    else:
        st.error(f"Nothing in {ui.md(uploaded.name)} could be ingested ({report.quarantined:,} record(s) quarantined; "
                 "see the Violations page → Load issues).")  # fmt: skip
    for source, line, reason in report.issue_examples[:10]:
        st.text(f"line {line}: {reason}")
