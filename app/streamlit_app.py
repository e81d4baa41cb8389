"""Kifu dashboard entry point: page config, shared sidebar, navigation."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Kifu", page_icon="🃏", layout="wide")

pages = [
    st.Page("app_pages/overview.py", title="Matches", icon="🏁", default=True),
]
nav = st.navigation(pages)
nav.run()
