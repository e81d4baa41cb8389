"""Players: every bot of one game across its matches (bot versions side by side), with that game's statistics."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app import chaser, rulesets, ui
from app.i18n import N_, _
from queries import chaser as cq
from queries import dashboard as q
from queries import kakomimasu as kq

#: Columns holding a share (0..1): shown as "34%" here and in the comparison.
PERCENT = ("win_rate", "challenge_accuracy", "failed_rate")
NOTES = {
    "algori-uno": N_("ALGORI UNO: every bot over its matches — rounds won, penalties, the validator's errors, challenges, "
                     "think time. Win rate: rounds won out of rounds played."),
    "kakomimasu": N_("Kakomimasu: every player over its games — wins, draws, losses, points (the final total: area + wall "
                     "points, added up over the games; area and wall are per game), actions and how many failed."),
    "chaser": N_("CHaser: every bot over its games — wins, losses, draws, items taken, how its games were won and lost, "
                 "its actions. Win rate: games won out of games played."),
}  # fmt: skip


#: Columns measured from the ALGORI dealer's 5-second clock (the JUA rules have none).
THINK = ["think_p50_ms", "think_p95_ms", "think_max_ms", "actions_over_4s"]
JUA_NOTE = N_("JUA competition rules (2016): every bot over its JUA matches — rounds won, penalties, the validator's "
              "errors, challenges. The JUA rules set no time limit, so there is no think time. Win rate: rounds won out "
              "of rounds played.")  # fmt: skip


def stats_of(game: str, family: str | None = None) -> tuple[pd.DataFrame, str]:
    """That game's statistics, one row per bot, and the column holding the bot's name (UNO: of one rule family)."""
    if game == "algori-uno":
        matches = None if family is None else [m for m, r in q.rulesets(con).items() if rulesets.rules_family(r) == family]
        stats = q.bot_stats(con, matches)
        # a bot by its identity (name @ dealer): its name alone where no other bot has it, else "name · dealer"
        twice = stats["player_name"].duplicated(keep=False)
        stats = stats.assign(player_name=[f"{n} · {d}" if t else n for n, d, t in
                                          zip(stats["player_name"], stats["dealer_name"], twice, strict=True)])  # fmt: skip
        return (stats.drop(columns=THINK) if family == rulesets.JUA else stats), "player_name"
    if game == "kakomimasu":
        return kq.players(con), "player_name"
    bots = cq.bots(con)
    bots = bots.assign(win_rate=(bots["wins"] / bots["games"].where(bots["games"] > 0)).round(4),
                       won_by=bots["won_by"].map(lambda v: chaser.kinds_text(v, "win")),
                       lost_by=bots["lost_by"].map(lambda v: chaser.kinds_text(v, "loss")))  # fmt: skip
    cols = ["bot", "games", "wins", "losses", "draws", "win_rate", "items", "items_per_game", "won_by", "lost_by",
            "walks", "looks", "searches", "puts", "invalid"]  # fmt: skip
    return bots[[c for c in cols if c in bots.columns]], "bot"


def as_integers(df: pd.DataFrame) -> pd.DataFrame:
    """Counts as integers (a count with a missing value would otherwise show as 400.0)."""
    out = df.copy()
    for col in out.columns:
        if col not in PERCENT and pd.api.types.is_numeric_dtype(out[col]):
            vals = out[col].dropna()
            if len(vals) and (vals == vals.round()).all() and not col.endswith(("_per_round", "_per_game", "score")):
                out[col] = out[col].astype("Int64")
    return out


def percent_text(value: Any) -> str:
    return ui.MISSING if value is None or pd.isna(value) else f"{float(value) * 100:.0f}%"


def number_text(value: Any) -> str:
    """A count as 1059, a mean as 3.71 (never 1059.0 or 0.0083)."""
    if value is None or pd.isna(value):
        return ui.MISSING
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return f"{float(value):.2f}"


def table_view(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The table as shown: shares as percentages (one format: "34%"), long text wide."""
    shown = df.copy()
    config: dict[str, Any] = {}
    for col in PERCENT:
        if col in shown.columns:
            shown[col] = shown[col] * 100
            name = _(ui.COLUMN_NAMES[col])
            config[name] = st.column_config.NumberColumn(name, format="%.0f%%")
    for col in shown.columns:  # means: two decimals (3.71, not 3.7083); whole numbers as such (1059, not 1059.00)
        if col not in PERCENT and pd.api.types.is_float_dtype(shown[col]):
            name = _(ui.COLUMN_NAMES.get(col, col))
            whole = bool((shown[col].dropna() == shown[col].dropna().round()).all())
            config.setdefault(name, st.column_config.NumberColumn(name, format="%d" if whole else "%.2f"))
    config.update(ui.wide_columns([c for c in ("won_by", "lost_by") if c in shown.columns]))
    return ui.readable(shown), config


st.title(_("Players"))
con = ui.require_data()
picked_game = ui.pick_game(con, "pl.game")  # JUA UNO a game of its own: its bots compared with JUA bots only
family = {"algori-uno": rulesets.ALGORI, ui.JUA_GAME: rulesets.JUA}.get(picked_game)
game = "algori-uno" if family else picked_game
stats, name_col = stats_of(game, family)
stats = as_integers(stats)
ids = list(stats.pop("bot_id")) if "bot_id" in stats.columns else [str(n) for n in stats[name_col]]
shown, config = table_view(stats)
st.caption(_("Click a bot to make it your bot: every page then opens on its worst match."))
event = st.dataframe(shown, hide_index=True, placeholder=ui.MISSING, width="stretch", key=f"pl.table.{picked_game}",
                     column_config=config, on_select="rerun", selection_mode="single-row")  # fmt: skip
if (picked := ui.selected_row(event)) is not None and picked < len(ids):
    ui.make_my_bot(ids[picked], picked_game)
known = set(ui.bot_matches(con)["bot_id"])
ui.this_is_my_bot(con, [str(b) for b in ids if b in known], f"pl.mine.{picked_game}")
if game == "algori-uno" and family != rulesets.JUA:
    st.caption(_(
        "Think time: milliseconds from the moment the dealer's 5-second clock started for the bot (its next-player, "
        "colour request or playable draw) to its action, from the log's timestamps. Actions over 4 s are close to "
        "the limit; a late action the dealer did not punish is a `timeout-missed` or `special-logic-timer` finding."
    ))  # fmt: skip
st.caption(_(JUA_NOTE if family == rulesets.JUA else NOTES.get(game, NOTES["kakomimasu"])))
names = [str(n) for n in stats[name_col]]
if len(names) >= 2:
    c1, c2 = st.columns(2)
    sub = "" if family in (None, rulesets.ALGORI) else f".{family}"  # a JUA bot is compared with JUA bots
    a = c1.selectbox(_("Compare"), names, index=0, key=(f"pl.a.{game}" if game != "algori-uno" else "pl.a") + sub)
    b = c2.selectbox(_("with"), names, index=1, key=(f"pl.b.{game}" if game != "algori-uno" else "pl.b") + sub)
    text = stats.copy().astype(object)
    for col in text.columns:
        if col in PERCENT:
            text[col] = stats[col].map(percent_text)
        elif pd.api.types.is_numeric_dtype(stats[col]):
            text[col] = stats[col].map(number_text)
    text = text.astype(object).where(stats.notna(), ui.MISSING).astype(str)
    text[name_col] = names
    side = ui.readable(text).set_index(_(ui.COLUMN_NAMES[name_col])).loc[[a, b]].T
    side.columns = [f"{a}", f"{b} "] if a == b else [a, b]
    stat = _("Statistic")  # the statistics' names as a column of their own: wide enough to read on a phone
    st.dataframe(side.rename_axis(stat).reset_index(), hide_index=True, width="stretch", key="pl.compare",
                 column_config={stat: st.column_config.TextColumn(stat, width="medium", pinned=True)})
