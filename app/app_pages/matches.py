"""Matches: what Kifu is and where to start, every ingested match grouped by game, and the selected one in detail."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app import chaser, charts, rulesets, ui
from app.i18n import N_, _
from queries import chaser as cq
from queries import dashboard as q
from queries import kakomimasu as kq

UNO_STEPS = ("app_pages/player_rounds.py", "app_pages/penalties.py", "app_pages/round_browser.py")
STATUS = {"finished": N_("finished"), "incomplete": N_("incomplete")}
#: The columns of each game's table (``name`` and ``final_scores`` are filled in below).
COLUMNS = {
    "algori-uno": ["dealer_name", "rules", "players", "winner", "final_scores", "rounds_played", "white_wild", "status",
                   "started_at", "dealer_code", "match_id"],
    "kakomimasu": ["name", "board", "players", "winner", "final_scores", "n_turns", "status", "started_at", "match_id"],
    "chaser": ["name", "map", "winner", "final_scores", "end_kind", "started_at", "match_id"],
    ui.JUA_GAME: ["dealer_name", "players", "winner", "final_scores", "rounds_played", "status", "started_at", "dealer_code",
                  "match_id"],
}  # fmt: skip
CLICK = {"algori-uno": N_("Click a row to see that match below."),
         "kakomimasu": N_("Click a row to replay that game on the Kakomimasu board."),
         "chaser": N_("Click a row to replay that game on the CHaser map."), ui.JUA_GAME: N_("Click a row to see that match below.")}  # fmt: skip

#: The live parts (the strip, the match shown while it is played) keep what they show at full strength while they
#: refresh: Streamlit fades an element still being redrawn after half a second, and a refresh that waits for the
#: watcher's next batch would fade the strip every two seconds.  Kifu's own style, no log text.
LIVE_STYLE = ("<style>.st-key-matches-live [data-stale='true'], .st-key-matches-detail [data-stale='true']"
              " {opacity: 1 !important; transition: none !important}</style>")  # fmt: skip

#: Seconds between two refreshes of the tables while a match is being played, and while a watcher runs with none
#: being played yet (one may start).
LIVE_EVERY, WATCH_EVERY = 2.0, 5.0

st.title(_("Matches"))
con = ui.require_data()
matches = q.match_list(con)
#: JUA UNO listed as a game of its own, after ALGORI UNO (its matches are UNO matches under a JUA profile)
sections = ui.match_sections(matches)
present = ui.games_in_order(sections)
shown_match, shown_game = ui.selected_match(), ui.shown_game()
if shown_game == "algori-uno" and shown_match in set(matches["match_id"]):
    shown_game = dict(zip(matches["match_id"], sections, strict=True)).get(shown_match, shown_game)
live_first = ui.live_matches(con)  # what this (whole) run shows as live; the refreshes compare with it
st.session_state.pop("rb.follow_link", None)  # the replayer's ?follow=1 link (below) applies again
watched = ui.watcher_present()


def intro() -> None:
    """One line on what Kifu is, one on where to start (links to the pages, in the order a contestant uses them)."""
    st.markdown(_("**Kifu** replays contest logs — {games} — and checks every move against the rules, so you can see "
                  "where a bot went wrong.").format(games=", ".join(ui.game_name(g) for g in present)))  # fmt: skip
    steps: list[tuple[str, str, str]] = []
    if "algori-uno" in present:
        steps += [("app_pages/player_rounds.py", N_("1 · Pick your bot: its worst rounds"), ":material/troubleshoot:"),
                  ("app_pages/penalties.py", N_("2 · Its penalties and why"), ":material/gavel:"),
                  ("app_pages/round_browser.py", N_("3 · Replay the round"), ":material/style:")]  # fmt: skip
    if "kakomimasu" in present:
        steps.append(("app_pages/kakomimasu_board.py", N_("Kakomimasu: replay a game on the board"), ":material/grid_on:"))
    if "chaser" in present:
        steps.append(("app_pages/chaser_board.py", N_("CHaser: replay a game on the map"), ":material/videogame_asset:"))
    st.caption(_("Where to start:"))
    uno, others = [s for s in steps if s[0] in UNO_STEPS], [s for s in steps if s[0] not in UNO_STEPS]
    for row in (uno, others):  # ALGORI's three steps on one line, the other games' boards on the next
        if row:
            for col, (page, label, icon) in zip(st.columns(3), row, strict=False):
                col.page_link(page, label=_(label), icon=icon)


def game_table(matches: Any, game: str, live: set[str]) -> Any:
    section = [ui.section_of(g, r) for g, r in zip(matches["game"], matches["ruleset"], strict=True)]
    rows = matches[[s == game for s in section]].reset_index(drop=True)
    family = rows["ruleset"].map(rulesets.rules_family)
    table = rows.assign(
        name=[n if isinstance(n, str) and n else None for n in rows["name"]],
        rules=family.map(lambda f: _(rulesets.RULE_SHORT[f])),
        white_wild=[ui.white_wild_words(w) if f == rulesets.ALGORI else None for w, f in zip(rows["white_wild"], family, strict=True)],
        final_scores=rows["scores"], map=rows["board"],
        # a live match's length grows: left out of the table the page draws once (the live strip tells it)
        rounds_played=rows["rounds_played"].where(~rows["match_id"].isin(live)),
        n_turns=rows["rounds_played"].where(~rows["match_id"].isin(live)),
        status=[_(ui.LIVE) if m in live else _(STATUS[s]) if s in STATUS else s
                for m, s in zip(rows["match_id"], rows["status"], strict=True)],
        end_kind=rows["end_kind"].map(chaser.kinds_text),
    )
    return rows, table[COLUMNS.get(game, COLUMNS["kakomimasu"])]


def open_match(game: str, match: str) -> None:
    """A click on a match: an ALGORI match is shown below (the sidebar follows the URL); another game's opens on its board."""
    if game in ("algori-uno", ui.JUA_GAME):
        st.query_params["match"] = match
        st.rerun()
    st.switch_page(ui.GAME_PAGES.get(game, "app_pages/matches.py"), query_params=ui.link_params(match=match))


def scoreboard(match: str) -> None:
    """The match's scoreboard: each round's score and the total of every player, as the log gives them."""
    table = ui.scoreboard_table(q.scoreboard(con, match))
    if table.empty:
        return
    st.markdown("**" + _("Scoreboard") + "**")
    st.caption(_(ui.JUA_SCORING))
    st.dataframe(table, hide_index=True, width="stretch", key="matches.scoreboard",
                 column_config={_("Player"): st.column_config.TextColumn(_("Player"), pinned=True)})


def status_words(match: str, row: Any, live: set[str]) -> str:
    return _(ui.LIVE) if match in live else _(STATUS.get(row["status"], row["status"]))


def live_strip(rows: Any) -> None:
    """One line per match being played: how far it has come (it grows while the page refreshes itself)."""
    if rows.empty:
        return
    with st.container(key="matches-live"):
        for r in rows.to_dict("records"):
            parts = [ui.game_name(r["game"]), ui.md(r["name"])]
            if r["game"] == "algori-uno":
                parts += [_("round {n}").format(n=ui.num(r["round_no"], 0)),
                          _("{n} events").format(n=f"{ui.num(r['events'], 0):,}")]  # fmt: skip
            elif ui.num(r["round_no"]) is not None:
                parts.append(_("turn {n}").format(n=ui.num(r["round_no"], 0)))
            if pd.notna(r["updated_at"]):
                parts.append(_("stored at {time}").format(time=pd.Timestamp(r["updated_at"]).strftime("%H:%M:%S")))
            line = st.container(horizontal=True, vertical_alignment="center", gap="small")
            line.markdown(f":red-badge[{_(ui.LIVE)}] " + " · ".join(parts), width="content")
            if r["game"] == "algori-uno":
                follow = {**ui.link_params(match=r["match_id"]), "follow": "1"}
                line.page_link("app_pages/round_browser.py", label=_("Follow it in the replayer"),
                               icon=":material/style:", query_params=follow)
        st.caption(_("Being played now: this page updates itself every {n} seconds.").format(n=int(LIVE_EVERY)))


def uno_detail(match: str, row: Any, live: set[str]) -> None:
    st.subheader(f"{ui.md(row['dealer_name'])} · {ui.md(row['dealer_code'])}")
    family = rulesets.rules_family(row["ruleset"])
    if family == rulesets.JUA:
        st.caption(_("match {match} · {rules} · {players} players · {rounds} rounds · {status}").format(
            match=match, rules=rulesets.rules_words(row["ruleset"]), players=ui.num(row["n_players"], 0),
            rounds=row["rounds_played"], status=status_words(match, row, live)))  # fmt: skip
    else:
        st.caption(_("match {match} · white wild {white} · {rounds} rounds · {status}").format(
            match=match, white=ui.white_wild_words(row["white_wild"]), rounds=row["rounds_played"],
            status=status_words(match, row, live)))  # fmt: skip
    summary = q.match_summary(con, match).reset_index(drop=True)
    if family == rulesets.JUA:  # special logic is ALGORI's alone
        summary = summary.drop(columns=["special_logic"])
    st.caption(_("Click a player to make it your bot and see its rounds, worst first."))
    event = st.dataframe(
        ui.readable(summary), hide_index=True, placeholder=ui.MISSING, width="stretch", key="matches.players",
        on_select="rerun", selection_mode="single-row",
        column_config={_("Rank"): st.column_config.NumberColumn(_("Rank"), help=_("final rank; ties go to whoever reached the score first"))},
    )  # fmt: skip
    picked = ui.selected_row(event)
    if picked is not None:
        code = str(summary["player_code"].iloc[picked])
        bots = ui.bot_matches(con)
        mine = bots[(bots["match_id"] == match) & (bots["player_code"] == code)]
        bot = str(mine["bot_id"].iloc[0]) if not mine.empty else None
        st.session_state["filter.bot"] = bot
        page = "app_pages/player_rounds.py"
        st.switch_page(page, query_params={**ui.link_params(match=match, bot=bot), "player": code})
    if family == rulesets.JUA:
        scoreboard(match)
    race = q.score_race(con, match)
    if not race.empty:
        st.plotly_chart(charts.score_race(race, _("Cumulative score by round"), ui.chart_labels(), ui.name_colors(con, match)),
                        width="stretch", config=charts.CONFIG, key="matches.race")  # fmt: skip
    st.page_link("app_pages/round_browser.py", label=_("Open the rounds of this match in the replayer"), icon=":material/style:")


def kakomimasu_detail(match: str, row: Any, live: set[str]) -> None:
    game = kq.game(con, match) or {}
    name = row["name"] if isinstance(row["name"], str) and row["name"] else ui.game_name("kakomimasu")
    st.subheader(f"{ui.md(name)} · {ui.md(row['board'] or '?')}")
    st.caption(_("Kakomimasu · {turns} of {total} turns · {status} · decided by {how}").format(
        turns=row["rounds_played"], total=game.get("total_turn") or "?", status=status_words(match, row, live),
        how=_(ui.DECIDED_BY.get(game.get("decided_by"), "—"))))  # fmt: skip
    st.dataframe(ui.readable(kq.teams(con, match).drop(columns=["player_code", "player_index"])), hide_index=True,
                 placeholder=ui.MISSING, width="stretch", key="matches.teams")  # fmt: skip
    if st.button(_("Open this game on the Kakomimasu board"), icon=":material/grid_on:", key="matches.open_km"):
        st.switch_page("app_pages/kakomimasu_board.py", query_params=ui.link_params(match=match))


def chaser_detail(match: str, row: Any, live: set[str]) -> None:
    names = {k: ui.md(v) for k, v in ui.names_of(con, match).items()}  # into Markdown: escaped
    st.subheader(ui.md(row["name"]))
    info = cq.game(con, match) or {}
    st.caption(chaser.end_sentence(info.get("end_kind"), info.get("winner"), info.get("loser"), info.get("end_turn"),
                                   (info.get("items_cool") or 0, info.get("items_hot") or 0), names)
               + " · " + _("items: {scores}").format(scores=ui.md(row["scores"] or "—")))  # fmt: skip
    if st.button(_("Replay this game on the map"), icon=":material/play_arrow:", key="matches.open_ch"):
        st.switch_page("app_pages/chaser_board.py", query_params=ui.link_params(match=match))


DETAIL = {"algori-uno": uno_detail, ui.JUA_GAME: uno_detail, "kakomimasu": kakomimasu_detail, "chaser": chaser_detail}


def file_stamp() -> tuple[Any, ...]:
    """The database as the file system sees it — the file and its write-ahead log (inode, size, time) and
    whether a watcher is there: a refresh that finds it as before reads nothing from the database."""
    path = ui.db_path()
    out: list[Any] = [ui.watcher_present()]
    for f in (path, path.with_name(path.name + ".wal")):
        try:
            st_ = f.stat()
            out.append((st_.st_ino, st_.st_size, st_.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


def live_rows_now() -> tuple[Any, Any]:
    """The match list and the live rows for a refresh: read only when the file changed since the last one
    (a refresh of an unchanged database neither waits for the file nor makes the watcher wait)."""
    stamp = file_stamp()
    cached = st.session_state.get("matches.live.cache")
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    now, live_rows = q.match_list(con), ui.live_matches(con)
    st.session_state["matches.live.cache"] = (stamp, now, live_rows)
    return now, live_rows


def live_part() -> None:
    """The live strip, the one part of the page that changes while matches are being played: a fragment that
    runs again every few seconds and reads the database only when its file changed.  A match that starts or
    ends, or a new match in the database, reruns the whole page once (tables, sidebar labels, the pace)."""
    now, live_rows = live_rows_now()
    live = {str(m) for m in live_rows["match_id"]}
    if live != {str(m) for m in live_first["match_id"]} or set(now["match_id"]) != set(matches["match_id"]):
        st.rerun(scope="app")
    live_strip(live_rows)


def tables(live: set[str]) -> None:
    """Every game's table and the match picked below its game's: drawn by the page's run, never refreshed by the
    live part (a live match's row names it live and leaves out its growing length; the strip above tells it).
    The match shown, when it is being played, is a fragment of its own that follows it."""
    for game in present:
        rows, table = game_table(matches, game, live)
        st.header(_("{game} · {matches}").format(game=ui.game_name(game), matches=ui.counted("match", len(rows))), divider="gray")
        if len(present) > 1 or game != "algori-uno":
            st.caption(_(CLICK.get(game, CLICK["kakomimasu"])))
        key = f"matches.table.{game}"
        event = st.dataframe(ui.readable(table), hide_index=True, placeholder=ui.MISSING, width="stretch", key=key,
                             on_select="rerun", selection_mode="single-row")  # fmt: skip
        picked = ui.selected_row(event)
        if picked is not None and picked < len(rows):
            clicked = str(rows["match_id"].iloc[picked])
            if clicked != st.session_state.get(f"{key}.opened"):  # a new click (a kept selection is not one)
                st.session_state[f"{key}.opened"] = clicked
                open_match(game, clicked)
        if shown_game == game and shown_match in set(rows["match_id"]):
            detail = DETAIL.get(game, kakomimasu_detail)
            if shown_match in live:
                with st.container(key="matches-detail"):
                    ui.fragment(live_detail, run_every=LIVE_EVERY, key="matches.detail")(detail, game, shown_match)
            else:
                detail(shown_match, rows[rows["match_id"] == shown_match].iloc[0], live)


def live_detail(detail: Any, game: str, match: str) -> None:
    """The match shown while it is being played: its players, scores and race, read again at every refresh
    when the file changed."""
    now, live_rows = live_rows_now()
    rows = now[now["match_id"] == match]
    if rows.empty:
        return
    detail(match, rows.iloc[0], {str(m) for m in live_rows["match_id"]})


with st.container(key="matches-intro"):
    intro()
st.html(LIVE_STYLE)
every = LIVE_EVERY if not live_first.empty else WATCH_EVERY if watched else None
if every is not None:
    ui.fragment(live_part, run_every=every, key="matches.live")()
with st.container(key="matches-tables"):
    tables({str(m) for m in live_first["match_id"]})
