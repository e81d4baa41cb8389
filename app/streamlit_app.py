"""Kifu dashboard entry point: page config, language, shared sidebar filters, navigation."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app import i18n, ui, uploads
from app.i18n import _
from app.rulesets import JUA, rules_family
from queries import dashboard as q

#: The page icon: a file in the repository, sent by this server as a data URL (a ":material/…" icon would
#: make every browser fetch it from a public font CDN).
ICON = Path(__file__).with_name("kifu-icon.svg")
st.set_page_config(page_title="Kifu — game-log analytics", page_icon=str(ICON) if ICON.exists() else "🀄", layout="wide")


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


def _matches_alias() -> None:
    """``/matches`` typed or reloaded: the Matches page lives at ``/`` (the default page), keep the query."""
    st.switch_page("app_pages/matches.py", query_params=dict(st.query_params))


def _not_found() -> None:
    """Kifu's own page for a path no page has (Streamlit's would be an English dialog over the default page)."""
    asked = st.session_state.get("path.not_found") or ""
    st.title(_("Page not found"))
    st.warning(_("Kifu has no page at {path}.").format(path=ui.code("/" + asked)), icon=":material/search_off:")
    st.markdown(_("Its pages are in the sidebar (☰ on a phone). To start:"))
    st.page_link("app_pages/matches.py", label=_("Matches: every match, and where to start"), icon=":material/leaderboard:",
                 query_params=ui.link_params())  # fmt: skip


def _unknown_path(pages: dict[str, list[st.Page]]) -> str | None:
    """The path the browser asked for when no page has it (None: a page has it, or the default page was asked)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        manager = get_script_run_ctx().pages_manager  # type: ignore[union-attr]
        asked, hashed = manager.intended_page_name, manager.intended_page_script_hash
    except Exception:  # noqa: BLE001 - Streamlit's internals moved: its own dialog shows instead
        return None
    if not asked or hashed:
        return None
    known = {p.url_path for group in pages.values() for p in group}
    return None if asked.strip("/") in known else asked.strip("/")


def _show_not_found(pages: dict[str, list[st.Page]]) -> None:
    """Route an unknown path to Kifu's "page not found" page (hidden from the sidebar)."""
    asked = _unknown_path(pages)
    if asked is None:
        return
    st.session_state["path.not_found"] = asked
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        get_script_run_ctx().pages_manager.set_script_intent("", "not_found")  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001
        pass


#: The game of every page: a game's pages list that game's matches only in the sidebar; None: a page shared
#: by every game (its sidebar has a "Game" picker first, and opens on the first game present: ALGORI UNO).
GAME_OF = {"round_browser": "algori-uno", "player_rounds": "algori-uno", "penalties": "algori-uno",
           "challenges": "algori-uno", "special_logic": "algori-uno", "violations": "algori-uno",
           "kakomimasu_board": "kakomimasu", "kakomimasu_analysis": "kakomimasu", "chaser_board": "chaser",
           "chaser_games": "chaser", "jua_rules": ui.JUA_GAME, "": None, "not_found": None, "home": None, "matches": None, "players": None, "standings": None,
           "upload": None}  # fmt: skip


# Every run reads the database through one lease (app/ui.py): while a `kifu watch` writes the file, the
# run lets go of it when it ends, however it ends (st.stop, st.rerun and st.switch_page pass through finally).
ui.begin_run()
language = None
try:
    st.html(ui.PHONE_STYLE)
    _language_switch()
    language = i18n.pin()  # the switch has set it for this run: read once, not per string
    con = ui.connect()
    ui.settings_warning()
    games = q.games_present(con) if con is not None else []
    has_uno = not games or "algori-uno" in games  # an empty database shows ALGORI's pages (and how to fill them)

    pages: dict[str, list[st.Page]] = {
        _("Matches"): [
            st.Page("app_pages/matches.py", title=_("Matches"), icon=":material/leaderboard:", url_path="home", default=True),
        ],
    }
    if has_uno:  # ALGORI UNO's pages, in the order a contestant uses them: the round, the bot, the penalties
        pages[_("ALGORI UNO")] = [
            st.Page("app_pages/round_browser.py", title=_("Round replayer"), icon=":material/style:", url_path="round_browser"),
            st.Page("app_pages/player_rounds.py", title=_("Where did my bot go wrong?"), icon=":material/troubleshoot:",
                    url_path="player_rounds"),
            st.Page("app_pages/penalties.py", title=_("Penalties"), icon=":material/gavel:", url_path="penalties"),
            st.Page("app_pages/challenges.py", title=_("Challenges"), icon=":material/swords:", url_path="challenges"),
            st.Page("app_pages/special_logic.py", title=_("Special logic"), icon=":material/auto_awesome:", url_path="special_logic"),
            st.Page("app_pages/violations.py", title=_("Violations"), icon=":material/rule:", url_path="violations"),
        ]
    if "algori-uno" in games and any(rules_family(r) == JUA for r in q.rulesets(con).values()):
        pages[_("JUA UNO")] = [  # JUA's own rules; its matches replay on the UNO pages above
            st.Page("app_pages/jua_rules.py", title=_("JUA rules in play"), icon=":material/playing_cards:",
                    url_path="jua_rules"),
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
    pages[_("Compare")] = [  # every game's bots and standings (each page has a game choice)
        st.Page("app_pages/players.py", title=_("Players"), icon=":material/smart_toy:", url_path="players"),
        st.Page("app_pages/standings.py", title=_("Standings"), icon=":material/emoji_events:", url_path="standings"),
    ]
    pages[_("Data")] = [
        st.Page("app_pages/upload.py", title=_("Upload a log"), icon=":material/upload_file:", url_path="upload"),
        st.Page(_matches_alias, title=_("Matches"), url_path="matches", visibility="hidden"),
        st.Page(_not_found, title=_("Page not found"), url_path="not_found", visibility="hidden"),
    ]
    _show_not_found(pages)
    page = st.navigation(pages, expanded=True)  # every game's pages in view: no "View more"
    if page.url_path != "not_found":
        ui.sidebar_filters(con, GAME_OF.get(page.url_path), board=page.url_path in ui.BOARD_PATHS)
    st.sidebar.caption(_("Database: {name} · {note}").format(name=ui.code(ui.db_path().name), note=_(ui.UPLOAD_NOTE[uploads.policy()])))
    page.run()
finally:
    i18n.unpin(language)
    ui.end_run()
