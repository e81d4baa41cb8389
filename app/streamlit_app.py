"""Kifu dashboard entry point: page config, shared sidebar filters, navigation."""

from __future__ import annotations

import streamlit as st

from app import ui, uploads

st.set_page_config(page_title="Kifu — game-log analytics", page_icon=":material/style:", layout="wide")

con = ui.connect()
ui.sidebar_filters(con)
st.sidebar.caption(f"Database: `{ui.db_path().name}` · {ui.UPLOAD_NOTE[uploads.policy()]}")

pages = {
    "Matches": [
        st.Page("app_pages/matches.py", title="Matches", icon=":material/leaderboard:", url_path="matches", default=True),
        st.Page("app_pages/round_browser.py", title="Round browser", icon=":material/style:", url_path="round_browser"),
    ],
    "Analysis": [
        st.Page("app_pages/penalties.py", title="Penalties", icon=":material/gavel:", url_path="penalties"),
        st.Page("app_pages/challenges.py", title="Challenges", icon=":material/swords:", url_path="challenges"),
        st.Page("app_pages/special_logic.py", title="Special logic", icon=":material/auto_awesome:", url_path="special_logic"),
        st.Page("app_pages/violations.py", title="Violations", icon=":material/rule:", url_path="violations"),
    ],
    "Compare": [
        st.Page("app_pages/players.py", title="Players", icon=":material/smart_toy:", url_path="players"),
        st.Page("app_pages/standings.py", title="Standings", icon=":material/emoji_events:", url_path="standings"),
    ],
    "Data": [st.Page("app_pages/upload.py", title="Upload a log", icon=":material/upload_file:", url_path="upload")],
}
st.navigation(pages).run()
