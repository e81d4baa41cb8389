"""Upload a dealer log from the browser; a separate process ingests it (into a copy of the database, swapped in)."""

from __future__ import annotations

import time

import streamlit as st

from app import ui, uploads

st.title("Upload a log")
mode = uploads.policy()
if mode == "off":
    st.info(
        "Uploading is off on this server: it is reachable from other machines and no upload token is set. "
        "Whoever runs it can allow uploads with `kifu serve --allow-upload` or an upload token "
        "(`--upload-token-file` or `KIFU_UPLOAD_TOKEN`)."
    )
    st.stop()
limit = int(st.get_option("server.maxUploadSize"))
st.markdown(
    f"Upload a dealer log file — the download of the dealer's log page (JSON lines), a `mongoexport` "
    f"of the `activities` collection, or a JSON array; gzip is fine. **Limit: {limit} MB per file.** "
    "The file is ingested and validated into the dashboard's database, then deleted (its records stay in "
    "the database); re-uploading a log adds nothing."
)
if mode == "token":
    given = st.text_input("Upload token", type="password", key="up.token")
    if not uploads.token_ok(given):
        if given:
            st.error("That is not this server's upload token.")
        st.stop()
uploaded = st.file_uploader("Dealer log", type=None, key="up.file")
if uploaded is not None and st.button("Ingest", type="primary", key="up.go"):
    try:
        target = uploads.save(uploaded.name, uploaded.getbuffer())
    except uploads.UploadRefused as exc:
        st.error(f"Could not take {ui.md(uploaded.name)}: {ui.md(exc)}")
        st.stop()
    proc, status_file = uploads.start_ingest(target)
    bar = st.progress(0.0, text="ingesting…")
    with st.spinner("Ingesting and validating…"):
        while True:
            status = uploads.read_status(status_file)
            state = status.get("state")
            if state in ("done", "failed") or proc.poll() is not None:
                proc.wait()
                status = uploads.read_status(status_file)
                break
            if state == "waiting":
                bar.progress(0.0, text="waiting for another ingest to finish…")
            elif state == "running":
                done, total = int(status.get("done", 0)), max(int(status.get("total", 1)), 1)
                bar.progress(min(done / total, 1.0), text=f"ingesting… {done / 1e6:.1f} of {total / 1e6:.1f} MB")
            time.sleep(0.25)
    status_file.unlink(missing_ok=True)
    target.unlink(missing_ok=True)
    bar.progress(1.0, text="done")
    if status.get("state") != "done":
        st.error(f"Could not ingest {ui.md(uploaded.name)}: {ui.md(status.get('error') or 'the ingest stopped')}")
        st.stop()
    if status.get("accepted"):
        st.success(
            f"{status['records_read']:,} records · {status['ingested']:,} new events · "
            f"{status['duplicates']:,} already present · {status['quarantined']:,} quarantined · "
            f"{status['matches']} match(es)."
        )
    else:
        st.error(f"Nothing in {ui.md(uploaded.name)} could be ingested ({status['quarantined']:,} record(s) "
                 "quarantined; see the Violations page → Load issues).")  # fmt: skip
    for line, reason in status.get("issues", []):
        st.text(f"line {line}: {reason}")
