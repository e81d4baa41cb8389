"""Upload a log of any game Kifu knows (ALGORI UNO, Kakomimasu, CHaser) from the browser; a separate process
ingests it (into a copy of the database, swapped in)."""

from __future__ import annotations

import json
import time

import streamlit as st

from app import ui, uploads
from app.i18n import _
from queries import dashboard as q

st.title(_("Upload a log"))
mode = uploads.policy()
if mode == "off":
    st.info(_(
        "Uploading is off on this server: it is reachable from other machines and no upload token is set. "
        "Whoever runs it can allow uploads with `kifu serve --allow-upload` or an upload token "
        "(`--upload-token-file` or `KIFU_UPLOAD_TOKEN`)."
    ))  # fmt: skip
    st.stop()
limit = int(st.get_option("server.maxUploadSize"))
st.markdown(_(
    "Upload a log of any of the three games; Kifu tells them apart by their content:\n\n"
    "* **ALGORI UNO** — a dealer log: the download of the dealer's log page (JSON lines), a `mongoexport` of the "
    "`activities` collection, or a JSON array;\n"
    "* **Kakomimasu** — a game as JSON (the game server's game object, with its `log`, or a 2020 snapshot);\n"
    "* **CHaser** — a server log (the text file the CHaser server writes, `--Stable Log--`) or a `.map` file.\n\n"
    "gzip is fine. **Limit: {limit} MB per file.** The file is ingested and validated into the dashboard's "
    "database, then deleted (its records stay in the database); re-uploading a log adds nothing."
).format(limit=limit))  # fmt: skip
st.caption(_("UNO logs under the JUA competition rules (2016) in the same shape, such as those `kifu play --ruleset "
             "jua-2016` writes, are read too: the log names its rules."))  # fmt: skip
if mode == "token":
    given = st.text_input(_("Upload token"), type="password", key="up.token")
    if not uploads.token_ok(given):
        if given:
            st.error(_("That is not this server's upload token."))
        st.stop()


def _added(new: bool) -> None:
    """What the last upload added (``new``) or found already there: each match named, with a link into the replayer."""
    done = st.session_state.get("up.added")
    if not done:
        return
    con = ui.connect()
    if con is None:
        return
    matches = q.match_list(con)
    games = dict(zip(matches["match_id"], matches["game"], strict=True))
    labels = {m: f"{ui.game_name(games[m])} · {label}" for m, label in ui.match_labels(matches).items()}
    for m in done:
        if m in labels:
            c1, c2 = st.columns([3, 1])
            text = _("Added or updated: **{label}**") if new else _("Already in the database: **{label}**")
            c1.markdown(text.format(label=ui.md(labels[m])))
            if c2.button(_("Open in the replayer"), key=f"up.open.{m}", icon=":material/play_arrow:"):
                page = {"kakomimasu": "app_pages/kakomimasu_board.py", "chaser": "app_pages/chaser_board.py"}.get(
                    games[m], "app_pages/round_browser.py")
                st.switch_page(page, query_params=ui.link_params(match=m))


def _uploader_in_the_viewers_language() -> None:
    """Streamlit's file uploader labels its button "Upload" and repeats "200MB per file" in English
    whatever the page's language (it has no option for them): its button says ours instead, and the limit
    is said once, above, in the viewer's language.  Only Kifu's own catalog text goes into the style."""
    label = json.dumps(_("Choose a file"), ensure_ascii=False)
    st.html("<style>[data-testid='stFileUploaderDropzoneInstructions']{display:none}"
            "[data-testid='stFileUploaderDropzone'] button [data-testid='stMarkdownContainer']{display:none}"
            f"[data-testid='stFileUploaderDropzone'] button > div > span::after{{content:{label}}}</style>")


_uploader_in_the_viewers_language()
uploaded = st.file_uploader(_("Log file"), type=None, key="up.file")
if uploaded is not None and st.button(_("Ingest"), type="primary", key="up.go"):
    try:
        target = uploads.save(uploaded.name, uploaded.getbuffer())
    except uploads.UploadRefused as exc:
        st.error(_("Could not take {name}: {why}").format(name=ui.md(uploaded.name), why=ui.md(exc)))
        st.stop()
    for key in ("up.report", "up.added"):  # the last upload's result is not this one's
        st.session_state.pop(key, None)
    proc, status_file = uploads.start_ingest(target)
    bar = st.progress(0.0, text=_("ingesting…"))
    with st.spinner(_("Ingesting and validating…")):
        while True:
            status = uploads.read_status(status_file)
            state = status.get("state")
            if state in ("done", "failed") or proc.poll() is not None:
                proc.wait()
                status = uploads.read_status(status_file)
                break
            if state == "waiting":
                bar.progress(0.0, text=_("waiting for another ingest to finish…"))
            elif state == "running":
                done, total = int(status.get("done", 0)), max(int(status.get("total", 1)), 1)
                bar.progress(min(done / total, 1.0), text=_("ingesting… {done:.1f} of {total:.1f} MB").format(
                    done=done / 1e6, total=total / 1e6))  # fmt: skip
            time.sleep(0.25)
    status_file.unlink(missing_ok=True)
    target.unlink(missing_ok=True)
    bar.progress(1.0, text=_("done"))
    if status.get("state") != "done":
        st.error(_("Could not ingest {name}: {why}").format(
            name=ui.md(uploaded.name), why=ui.md(status.get("error") or _("the ingest stopped"))))  # fmt: skip
        st.stop()
    st.session_state["up.report"] = status
    if status.get("accepted") and status.get("match_ids"):
        st.session_state["up.added"] = list(status["match_ids"])
        st.query_params["match"] = status["match_ids"][0]  # the sidebar follows the URL
    st.rerun()  # the sidebar lists the new match at once

status = st.session_state.get("up.report")
if status:
    nothing_new = bool(status.get("accepted")) and not status.get("ingested")
    if nothing_new:
        st.info(_("Nothing new: every record of this file was already in the database ({dup} already present · "
                  "{bad} quarantined).").format(dup=f"{status['duplicates']:,}", bad=f"{status['quarantined']:,}"))  # fmt: skip
    elif status.get("accepted"):
        st.success(_("{read} records · {new} new events · {dup} already present · {bad} quarantined · {matches}.").format(
            read=f"{status['records_read']:,}", new=f"{status['ingested']:,}", dup=f"{status['duplicates']:,}",
            bad=f"{status['quarantined']:,}", matches=ui.counted("match", int(status["matches"]))))  # fmt: skip
    else:
        st.error(_("Nothing could be read: {reason}. The database is unchanged.").format(
            reason=ui.md(status.get("problem") or _("no record of a game Kifu knows in it"))))  # fmt: skip
    for line, reason in status.get("issues", []):
        st.text(_("line {line}: {reason}").format(line=line, reason=reason))
    if status.get("accepted"):  # an upload that read nothing names no match, not even the last upload's
        _added(not nothing_new)
