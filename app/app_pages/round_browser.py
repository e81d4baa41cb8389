"""Round replayer: one round of a match stepped through in the browser, on the card table."""

from __future__ import annotations

import json
import time
from typing import Any

import pandas as pd
import streamlit as st

from app import frames, i18n, links, reasons, replayer, ui
from app.findings import finding_sentence
from app.i18n import N_, _
from queries import boards
from queries import dashboard as q

#: Seconds between two looks at the newest event while following a match being played.
FOLLOW_EVERY = 1.5
#: How long a URL this page wrote may come back from the browser (a rerun sent before the browser had it).
URL_LAG_S = 3.0

SHOW = {"all": N_("all events"), "findings": N_("events with findings"), "errors": N_("events with errors"),
        "refused": N_("refused actions"), "penalties": N_("penalties")}  # fmt: skip

#: The marker kinds the replayer's keys look for, in words.
MARK_WORDS = {"finding": N_("finding"), "penalty": N_("penalty"), "refused": N_("refused action")}

st.title(_("Round replayer"))
con = ui.require_data()
state = st.session_state


def _following(match: str | None) -> bool:
    """Whether "Follow live" is on for ``match`` (kept apart from its switch: see :func:`_set_following`)."""
    return bool(state.get("rb.following", {}).get(match))


def _set_following(match: str, on: bool) -> None:
    """Switch following on or off from the page (a link, a step back, another round picked).  The switch is
    drawn anew under a new key: a rerun the browser sends before it has the new position carries the old one,
    which would otherwise switch following back."""
    state.setdefault("rb.following", {})[match] = on
    state[f"rb.follow_gen.{match}"] = state.get(f"rb.follow_gen.{match}", 0) + 1
    if on:  # a new token: a pause the browser remembers for this round ends
        state["rb.follow_token"] = state.get("rb.follow_token", 0) + 1


first_match = ui.selected_match()
first_live = first_match in ui.live_ids(con)
# ?follow=1 (the Matches page's "Follow it in the replayer", a shared link): follow, once per visit of the link —
# the URL this page writes reaches the browser a moment after the page stops following, and a rerun meanwhile
# still carries follow=1 (the Matches page forgets the visit: its link works again)
if st.query_params.get("follow") == "1" and state.get("rb.follow_link") != first_match:
    state["rb.follow_link"] = first_match
    if first_live:
        _set_following(first_match, True)
stepped_back = state.pop("rb.follow_off", None)  # (match, round, seq): the user stepped back while following
if stepped_back is not None and stepped_back[0] == first_match:  # following stops; the replayer stays there
    _m, back_round, back_seq = stepped_back
    _set_following(first_match, False)
    state[f"rb.round.{first_match}"] = back_round
    state.setdefault("rb.positions", {})[f"{first_match}/{back_round}"] = back_seq
    state["rb.token"] = state.get("rb.token", 0) + 1
first_following = first_live and _following(first_match)


def _newest(payload: dict[str, Any]) -> int | None:
    """The newest event the replayer shows (the filter's last one; the round's last when the filter shows none)."""
    frames_ = payload["frames"]
    shown = payload.get("visible") or range(len(frames_))
    for i in reversed(list(shown)):
        if frames_[i]["seq"] is not None:
            return int(frames_[i]["seq"])
    return None


def _known_boards(events: pd.DataFrame) -> pd.DataFrame:
    """The round being played without its newest lines whose board the validator has not replayed yet (it needs the
    next line to judge one): they show at the next refresh, with their board, instead of an empty table now."""
    known = events["hands"].notna().to_numpy().nonzero()[0] if "hands" in events else []
    return events.iloc[: int(known[-1]) + 1] if len(known) else events


def before_round(total: object, score: object) -> int | None:
    """The running total before a round (its total less its score; None when either is unknown)."""
    t, r = ui.num(total), ui.num(score)
    return None if t is None or r is None else t - r


def replayer_page() -> None:
    """The page under its title: a fragment that reruns by itself while following a match being played."""
    match = first_match  # the sidebar's match: it changes in a whole run only (a refresh never reads its picker)
    player = ui.selected_player()
    names = ui.names_of(con, match)
    colors = ui.player_colors(con, match)
    rounds = q.round_index(con, match)
    if rounds.empty:
        st.info(_("This match has no round yet."))
        st.stop()
    round_numbers = [int(r) for r in rounds["round_no"]]
    positions: dict[str, int] = state.setdefault("rb.positions", {})  # "match/round" -> seq last shown
    # ---- following a match being played: the newest round and its newest event, until the user steps back
    live = match in ui.live_ids(con)
    following = live and _following(match)
    if (match, live, following) != (first_match, first_live, first_following):
        st.rerun()  # the match started or ended, or Follow was switched: the whole page, at its new pace

    def _force(round_no: int, seq: int | None) -> None:
        """Move the replayer (the next run sends a new jump token)."""
        state[f"rb.round.{match}"] = round_no
        state[ui.lkey("rb.round")] = round_no
        if seq is not None:
            positions[f"{match}/{round_no}"] = seq
        state["rb.token"] = state.get("rb.token", 0) + 1

    # ---- a link ?match=…&round=…&turn=…&event=… (old links: &seq=…), applied once per URL (app/links.py); a round,
    # turn or event the match does not have is refused: the page says so and shows nothing else
    params = st.query_params
    link = links.read(params)
    url_key = link.key()
    # (a URL this page wrote in the last seconds is no link: while following, the page writes a new one every
    # refresh, and a rerun may carry one the browser had not caught up with yet)
    lately = {k for k, t in state.get("rb.urls_written", []) if time.monotonic() - t < URL_LAG_S}

    def _refuse(message: str) -> None:
        st.error(message, icon=":material/link_off:")
        links.forget(params)  # the next run (the user picks something) shows the board again
        state["rb.url"] = None
        st.stop()

    def _asked(value: str) -> str:
        return ui.md(links.clip(value))

    want_turn = want_event = None
    if state.get("rb.url") != url_key and url_key not in lately:
        state["rb.url"] = url_key
        if link.names_position:
            if link.round is not None:
                wanted = links.resolve(link.round, round_numbers)
                if wanted is None:
                    _refuse(links.missing("round", _asked(link.round), round_numbers))
            elif link.event is not None:  # an event without its round: the round that holds it
                n = links.number(link.event)
                hold = rounds[(rounds["first_seq"] <= n) & (rounds["last_seq"] >= n)] if n is not None else rounds.iloc[0:0]
                if hold.empty:
                    _refuse(links.missing("match_event", _asked(link.event),
                                          [int(rounds["first_seq"].min()), int(rounds["last_seq"].max())]))  # fmt: skip
                wanted = int(hold["round_no"].iloc[0])
            else:  # a turn of the round shown
                wanted = state.get(f"rb.round.{match}")
                wanted = wanted if wanted in round_numbers else round_numbers[0]
            want_turn, want_event = link.turn, link.event
            if _following(match):
                _set_following(match, False)
            _force(wanted, None)

    if following and state.get(f"rb.round.{match}") != round_numbers[-1]:
        _force(round_numbers[-1], None)
    current_round = state.get(f"rb.round.{match}")
    if current_round not in round_numbers:
        current_round = round_numbers[0]
    round_key = ui.lkey("rb.round")
    if state.get(round_key) != current_round:
        state[round_key] = current_round
    events = q.round_events(con, match, current_round)
    pos_key = f"{match}/{current_round}"
    if want_event is not None:
        n = links.number(want_event)
        if n is None or n not in set(int(x) for x in events["seq"]):
            _refuse(links.missing("event", _asked(want_event), [int(x) for x in events["seq"]], round=current_round))
        positions[pos_key] = n
    elif want_turn is not None:
        turns = sorted({int(t) for t in events["turn_no"].dropna()})
        n = links.number(want_turn)
        if n is None or n not in turns:
            _refuse(links.missing("turn", _asked(want_turn), turns, round=current_round))
        positions[pos_key] = int(events[events["turn_no"] == n]["seq"].min())
    flagged = q.player_rounds(con, match, player)
    flagged = flagged[(flagged["penalties"] > 0) | (flagged["player_rule"] > 0)]
    flag_rounds = sorted({int(r) for r in flagged["round_no"]})

    def _unfollow() -> None:
        """Another round picked: following stops (the user looks back)."""
        if _following(match):
            _set_following(match, False)

    def _follow_switched(key: str) -> None:
        on = bool(state.get(key))
        state.setdefault("rb.following", {})[match] = on
        if on:  # switched on (again): a new token, so a pause the browser remembers ends
            state["rb.follow_token"] = state.get("rb.follow_token", 0) + 1

    def _pick_round() -> None:
        _unfollow()
        _force(int(state[round_key]), None)

    def _go_round(delta: int) -> None:
        _unfollow()
        i = round_numbers.index(int(state[round_key]))
        _force(round_numbers[min(max(i + delta, 0), len(round_numbers) - 1)], None)

    def _next_flagged() -> None:
        _unfollow()
        later = [r for r in flag_rounds if r > int(state[round_key])] or flag_rounds
        if later:
            first = flagged[flagged["round_no"] == later[0]]["first_flag_seq"].dropna()
            _force(later[0], int(first.min()) if len(first) else None)

    # ---- round navigation (one row, also on a phone)
    i_round = round_numbers.index(current_round)
    nav = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    nav.button("◀", key="rb.prev_round", help=_("Previous round"), on_click=_go_round, args=(-1,), disabled=i_round == 0)
    nav.selectbox(_("Round"), round_numbers, key=round_key, on_change=_pick_round, width=130,
                  format_func=lambda r, t=_("round {n}"): t.format(n=r), label_visibility="collapsed")  # fmt: skip
    nav.button("▶", key="rb.next_round", help=_("Next round"), on_click=_go_round, args=(1,),
               disabled=i_round == len(round_numbers) - 1)  # fmt: skip
    nav.button(_("Next flagged round"), key="rb.next_flagged", icon=":material/flag:", on_click=_next_flagged,
               disabled=not flag_rounds,
               help=_("The next round where the selected player (or anyone) was penalised or broke a rule"))  # fmt: skip
    show = nav.selectbox(_("Show"), list(SHOW), key=ui.lkey("rb.show"), format_func=ui.choices(SHOW), width=200,
                         label_visibility="collapsed")  # fmt: skip
    ui.remember("rb.show", show)
    if live:
        switch = f"rb.follow.{match}.{state.get(f'rb.follow_gen.{match}', 0)}"
        nav.toggle(_("Follow live"), value=following, key=switch, on_change=_follow_switched, args=(switch,),
                   help=_("This match is being played: keep showing its newest round and newest event. Stepping back "
                          "or picking another round stops following."))  # fmt: skip

    round_no = current_round
    info = q.round_info(con, match, round_no) or {}
    if live and round_no == round_numbers[-1]:
        events = _known_boards(events)
    if len(events) >= q.ROUND_EVENTS_LIMIT:
        st.warning(_("This round has more than {n} events; the replayer shows the first {n}. Query the `events` table "
                     "for the rest.").format(n=f"{q.ROUND_EVENTS_LIMIT:,}"))  # fmt: skip
    found = q.round_findings(con, match, round_no)
    payload = frames.uno_round(events, info, names, colors, found, match=match, round_no=round_no,
                               think=boards.round_think(con, match, round_no))  # fmt: skip
    payload["visible"] = frames.visible(payload["frames"], show, player)
    seek = state.pop("rb.seek", None)
    if seek is not None:  # a key's marker kind sought in this round (from the round before or after)
        kind, way = seek
        test = {"finding": lambda f: bool(f["findings"]), "penalty": lambda f: f["event"] == "penalty",
                "refused": lambda f: bool(f["refused"])}[kind]  # fmt: skip
        hits = [payload["frames"][i]["seq"] for i in payload["visible"] if test(payload["frames"][i])]
        if hits:
            positions[pos_key] = hits[0] if way > 0 else hits[-1]
    none_left = state.pop("rb.none_left", None)
    if none_left is not None:
        st.caption(_("No {what} in the rounds that way either.").format(what=_(MARK_WORDS[none_left])))
    newest = _newest(payload)
    if following and newest is not None:
        positions[pos_key] = newest
    start = positions.get(pos_key)
    if start is None and payload["frames"]:
        start = payload["frames"][0]["seq"]
    payload["jump"] = {"seq": start, "token": state.get("rb.token", 0)}
    payload["follow"] = {"on": following, "key": pos_key, "token": state.get("rb.follow_token", 0)}
    # stepping past the round's last event goes on into the next round (and back): not while following
    payload["cross"] = {"prev": not following and i_round > 0, "next": not following and i_round < len(round_numbers) - 1}
    # following: one replayer for every round (a new round is new data for it, not a new replayer drawn in its place)
    comp_key = f"rb.replayer.{match}.live" if following else f"rb.replayer.{match}.{round_no}"
    if following:
        st.caption(_("Following the match as it is played: the newest event of round {n} shows as soon as it is "
                     "stored.").format(n=round_no))  # fmt: skip
    elif live:
        st.caption(_("This match is being played. Turn on **Follow live** to keep showing its newest event."))

    def _cross(way: int, kind: str = "") -> None:
        """Stepped past the round's last (first) event: on into the next (previous) round, at its first (last)
        event; with a marker ``kind`` (a key found none left in this round): the nearest round that way that has
        one (findings: the validator's; penalties and refused actions: the round's penalties), at that event."""
        _unfollow()
        later = round_numbers[i_round + 1 :] if way > 0 else round_numbers[:i_round][::-1]
        if kind:
            column = ["violations", "warnings"] if kind == "finding" else ["penalties"]
            have = rounds[rounds[column].sum(axis=1) > 0]["round_no"]
            later = [r for r in later if r in set(int(x) for x in have)]
            if not later:
                state["rb.none_left"] = kind
                return
            state["rb.seek"] = (kind, way)
        if not later:
            return
        to = later[0]
        edge = rounds[rounds["round_no"] == to]["first_seq" if way > 0 else "last_seq"]
        _force(to, int(edge.iloc[0]) if len(edge) else None)

    reported, cross = replayer.board(payload, key=comp_key, on_cross=None if following else _cross)
    if cross is not None and not following:  # (the callback handles it before the run; this is a fallback)
        _cross(*cross)
        st.rerun()
    if reported is not None and state.get("rb.seen") != (comp_key, reported):
        state["rb.seen"] = (comp_key, reported)
        positions[pos_key] = reported
        if following and reported < (state.get("rb.follow_sent") or newest or 0):
            # the user stepped back (the replayer stopped following already): the round of that event, and no more
            # following; the widgets above are drawn already, so the next run sets them
            back = rounds[(rounds["first_seq"] <= reported) & (rounds["last_seq"] >= reported)]["round_no"]
            state["rb.follow_off"] = (match, int(back.iloc[0]) if len(back) else round_no, reported)
            st.rerun()
    state["rb.follow_sent"] = newest if following else None
    seq = positions.get(pos_key, start)
    positions[pos_key] = seq
    links.write(st.query_params, match=match, round=round_no, event=seq)
    if following:
        st.query_params["follow"] = "1"
        state["rb.follow_link"] = match  # our own URL is no new link
    else:
        st.query_params.pop("follow", None)
    state["rb.url"] = (match, str(round_no), None, str(seq) if seq is not None else None)  # our own URL is no new link
    state["rb.urls_written"] = [*state.get("rb.urls_written", [])[-7:], (state["rb.url"], time.monotonic())]

    # ---- scores of the round as they stand at the event shown, like the dealer's page (対戦得点 / 累計): the round's
    # score only from the event that ends it (no spoiler of the outcome), the total before it until then
    scores = q.round_scores(con, match, round_no)
    short = {code: frames.clip(name) for code, name in names.items()}  # a page's text: long names shortened
    if scores["score"].notna().any() or scores["total_score"].notna().any():
        ends = [int(x) for x in events[events["event"] == "finish-turn"]["seq"]]
        ended = bool(ends) and seq is not None and seq >= ends[0]
        table = {
            _("Round score"): {short.get(r.player_code, r.player_code): ui.num(r.score) if ended else None
                               for r in scores.itertuples()},
            _("Total"): {short.get(r.player_code, r.player_code): ui.num(r.total_score) if ended
                         else ui.num(before_round(r.total_score, r.score)) for r in scores.itertuples()},
        }  # fmt: skip
        st.dataframe(pd.DataFrame(table).T.astype("Int64"), width="stretch", key="rb.scores", placeholder=ui.MISSING)
        st.caption(_("Scores as they stand at this event: the round's score shows from the event that ends it.")
                   if not ended else _("The round has ended at this event: its score and the new total."))  # fmt: skip

    # ---- the current event in detail (follows the replayer)
    cols = st.columns([3, 2])
    here = found[(found["seq"] == seq) | (found["penalty_seq"] == seq)] if seq is not None else found.iloc[0:0]
    with cols[0]:
        if not here.empty:
            st.markdown("**" + _("Findings at this event") + "**")
            for i, f in enumerate(here.to_dict("records")):  # one short block per finding: reads on a phone
                sev = str(f.get("severity"))
                mark = {"error": ":red", "warning": ":orange"}.get(sev, ":gray")
                with st.container(border=True, key=f"rb.finding.{i}"):
                    st.markdown(f"{mark}[**{reasons.severity_word(sev)}**] · {ui.md(finding_sentence(f, short))}")
                    st.caption(ui.md(f.get("code")), help=reasons.check_explanation(f.get("code")) or None)
    with cols[1], st.expander(_("Raw event (as read from the log)")):
        raw = q.raw_event(con, match, seq) if seq is not None else None
        if raw:
            st.caption(_("{source} · line {line}").format(source=raw["source"], line=raw["line"]))
            try:
                st.json(json.loads(raw["raw"]), expanded=2)
            except ValueError:
                st.code(raw["raw"])

    # ---- a replay to share
    def _round_file() -> str:
        with i18n.using(lang):
            return replayer.standalone_html(payload | {"visible": None},
                                            title=_("Kifu replay · round {n}").format(n=round_no), lang=lang)  # fmt: skip

    def _match_file() -> str:  # called when the button is clicked, outside a page run: a run scope of its own
        with i18n.using(lang), ui.reading():
            every = [frames.round_from(con, match, r, names, colors) for r in round_numbers]
            return replayer.standalone_html({"rounds": every}, title=_("Kifu replay · {n} rounds").format(n=len(every)),
                                            lang=lang)  # fmt: skip

    lang = i18n.current()
    dl = st.container(horizontal=True)
    dl.download_button(_("Download this round as one HTML file"), data=_round_file, file_name=f"kifu-round-{round_no}.html",
                       mime="text/html", icon=":material/download:", key="rb.dl_round", on_click="ignore")  # fmt: skip
    dl.download_button(_("Download the whole match as one HTML file"), data=_match_file,
                       file_name=f"kifu-match-{match[:12]}.html", mime="text/html", icon=":material/download:",
                       key="rb.dl_match", on_click="ignore")  # fmt: skip


ui.fragment(replayer_page, run_every=FOLLOW_EVERY if first_following else None, key="rb.page")()
