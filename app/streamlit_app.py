"""Kifu dashboard entry point: page config, language, shared sidebar filters, navigation."""

from __future__ import annotations

import streamlit as st

from app import i18n, ui, uploads
from app.i18n import _
from queries import dashboard as q

st.set_page_config(page_title="Kifu — game-log analytics", page_icon=":material/style:", layout="wide")


def _language_switch() -> None:
    """日本語 / English, remembered for the session and kept in the URL (``?lang=``)."""
    lang = i18n.current()
    if st.session_state.get("lang") not in i18n.LANGUAGES:
        st.session_state["lang"] = lang
    st.sidebar.segmented_control("Language / 言語", list(i18n.LANGUAGES), key="lang",
                                 format_func=lambda code: i18n.LANGUAGES[code], label_visibility="collapsed")  # fmt: skip
    if st.session_state.get("lang") not in i18n.LANGUAGES:  # a click on the selected segment clears it
        st.session_state["lang"] = lang
    st.query_params["lang"] = st.session_state["lang"]


_language_switch()
con = ui.connect()
games = q.games_present(con) if con is not None else []
has_uno = not games or "algori-uno" in games  # an empty database shows ALGORI's pages (and how to fill them)

def _matches_alias() -> None:
    """``/matches`` typed or reloaded: the Matches page lives at ``/`` (the default page), keep the query."""
    st.switch_page("app_pages/matches.py", query_params=dict(st.query_params))


#: The game of each page that belongs to one game (its sidebar lists that game's matches only).
GAME_OF = {"kakomimasu_board": "kakomimasu", "kakomimasu_analysis": "kakomimasu", "chaser_board": "chaser",
           "chaser_games": "chaser", "": None, "home": None, "matches": None, "upload": None}  # fmt: skip

pages: dict[str, list[st.Page]] = {
    _("Matches"): [
        st.Page("app_pages/matches.py", title=_("Matches"), icon=":material/leaderboard:", url_path="home", default=True),
    ],
}
if has_uno:
    pages[_("Matches")] += [
        st.Page("app_pages/round_browser.py", title=_("Round replayer"), icon=":material/style:", url_path="round_browser"),
        st.Page("app_pages/player_rounds.py", title=_("Where did my bot go wrong?"), icon=":material/troubleshoot:",
                url_path="player_rounds"),
    ]
    pages[_("Analysis")] = [
        st.Page("app_pages/penalties.py", title=_("Penalties"), icon=":material/gavel:", url_path="penalties"),
        st.Page("app_pages/challenges.py", title=_("Challenges"), icon=":material/swords:", url_path="challenges"),
        st.Page("app_pages/special_logic.py", title=_("Special logic"), icon=":material/auto_awesome:", url_path="special_logic"),
        st.Page("app_pages/violations.py", title=_("Violations"), icon=":material/rule:", url_path="violations"),
    ]
    pages[_("Compare")] = [
        st.Page("app_pages/players.py", title=_("Players"), icon=":material/smart_toy:", url_path="players"),
        st.Page("app_pages/standings.py", title=_("Standings"), icon=":material/emoji_events:", url_path="standings"),
    ]
if "kakomimasu" in games:
    pages[_("Kakomimasu")] = [
        st.Page("app_pages/kakomimasu_board.py", title=_("Kakomimasu board"), icon=":material/grid_on:",
                url_path="kakomimasu_board"),
        st.Page("app_pages/kakomimasu_analysis.py", title=_("Kakomimasu points and actions"), icon=":material/insights:",
                url_path="kakomimasu_analysis"),
    ]
if "chaser" in games:
    pages[_("CHaser")] = [
        st.Page("app_pages/chaser_board.py", title=_("CHaser replay"), icon=":material/videogame_asset:",
                url_path="chaser_board"),
        st.Page("app_pages/chaser_games.py", title=_("CHaser games and bots"), icon=":material/sports_score:",
                url_path="chaser_games"),
    ]
pages[_("Data")] = [
    st.Page("app_pages/upload.py", title=_("Upload a log"), icon=":material/upload_file:", url_path="upload"),
    st.Page(_matches_alias, title=_("Matches"), url_path="matches", visibility="hidden"),
]
page = st.navigation(pages)
ui.sidebar_filters(con, GAME_OF.get(page.url_path, "algori-uno"))
st.sidebar.caption(_("Database: {name} · {note}").format(name=ui.code(ui.db_path().name), note=_(ui.UPLOAD_NOTE[uploads.policy()])))
page.run()
