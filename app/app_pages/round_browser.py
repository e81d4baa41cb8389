"""Round browser: every round of a match, turn by turn, on the replayed board."""

from __future__ import annotations

import json

import streamlit as st

from app import ui
from app.describe import describe
from queries import dashboard as q

FLAGS = {"penalty": "penalties", "challenge": "challenges", "special logic": "special_logic",
         "shuffle wild": "shuffles", "white wild": "white_wilds", "violation": "violations"}  # fmt: skip

st.title("Round browser")
con = ui.require_data()
match = ui.selected_match()
names = ui.names_of(con, match)
rounds = q.round_index(con, match)
if rounds.empty:
    st.info("This match has no round yet.")
    st.stop()

# ---- deep link: ?match=…&round=…&turn=… or &seq=…  (applied once per URL)
params = st.query_params
url_key = (params.get("round"), params.get("turn"), params.get("seq"))
if st.session_state.get("rb.url") != url_key:
    st.session_state["rb.url"] = url_key
    if params.get("round", "").isdigit() and int(params["round"]) in set(rounds["round_no"]):
        st.session_state["rb.round"] = int(params["round"])
        st.session_state["rb.want"] = ("seq", int(params["seq"])) if params.get("seq", "").isdigit() else (
            ("turn", int(params["turn"])) if params.get("turn", "").isdigit() else None)

# ---- round index
with st.expander("Rounds of this match", expanded=False):
    f1, f2 = st.columns(2)
    flags = f1.multiselect("Only rounds with", list(FLAGS), key="rb.flags")
    ends = f2.multiselect("How it ended", sorted(rounds["end_kind"].unique()), key="rb.ends")
    shown = rounds
    for flag in flags:
        shown = shown[shown[FLAGS[flag]] > 0]
    if ends:
        shown = shown[shown["end_kind"].isin(ends)]
    st.caption(f"{len(shown)} of {len(rounds)} rounds")
    st.dataframe(shown.drop(columns=["first_seq", "last_seq"]), hide_index=True, width="stretch", key="rb.index")

round_numbers = list(rounds["round_no"])
if st.session_state.get("rb.round") not in round_numbers:
    st.session_state["rb.round"] = round_numbers[0]
round_no = st.selectbox("Round", round_numbers, key="rb.round",
                        format_func=lambda r: f"round {r}")  # fmt: skip
info = q.round_info(con, match, round_no) or {}
seats = json.loads(info.get("play_order") or "[]")
events = q.round_events(con, match, round_no)
if len(events) >= q.ROUND_EVENTS_LIMIT:
    st.warning(f"This round has more than {q.ROUND_EVENTS_LIMIT:,} events; the browser shows the first "
               f"{q.ROUND_EVENTS_LIMIT:,}. Query the `events` table for the rest.")  # fmt: skip

# ---- event filters
c1, c2, c3 = st.columns([3, 2, 2])
types = c1.multiselect("Event types", ui.EVENT_TYPES, default=ui.EVENT_TYPES, key="rb.types")
who = c2.selectbox("Player", ["(anyone)", *seats], key="rb.who", format_func=lambda p: names.get(p, p))
only = c3.selectbox("Show", ["all events", "events with findings", "events with errors", "penalties"], key="rb.only")
mask = events["event"].isin(types)
if who != "(anyone)":
    mask &= (events["actor"] == who) | (events["target"] == who)
if only == "events with findings":
    mask &= events["findings"] > 0
elif only == "events with errors":
    mask &= events["errors"] > 0
elif only == "penalties":
    mask &= events["event"] == "penalty"
view = events[mask].reset_index(drop=True)
if view.empty:
    st.warning("No event of this round matches the filters.")
    st.stop()

# ---- position: step buttons, slider, jump to turn
last = len(view) - 1
want = st.session_state.pop("rb.want", None)
if want is not None:
    kind, value = want
    col = "seq" if kind == "seq" else "turn_no"
    hits = view.index[view[col] >= value]
    st.session_state["rb.pos"] = int(hits[0]) if len(hits) else last
if st.session_state.get("rb.round_shown") != round_no:
    st.session_state["rb.round_shown"] = round_no
    if want is None:
        st.session_state["rb.pos"] = 0
pos = min(max(int(st.session_state.get("rb.pos", 0)), 0), last)
if st.session_state.get("rb.pos") != pos:
    st.session_state["rb.pos"] = pos


def _step(delta: int) -> None:
    st.session_state["rb.pos"] = min(max(st.session_state["rb.pos"] + delta, 0), last)


def _jump() -> None:
    hits = view.index[view["turn_no"] >= st.session_state["rb.turn"]]
    st.session_state["rb.pos"] = int(hits[0]) if len(hits) else last


b1, b2, b3, b4 = st.columns([1, 1, 6, 2])
b1.button("◀ back", key="rb.prev", on_click=_step, args=(-1,), disabled=st.session_state["rb.pos"] <= 0)
b2.button("next ▶", key="rb.next", on_click=_step, args=(1,), disabled=st.session_state["rb.pos"] >= last)
if last > 0:
    b3.slider("Event", 0, last, key="rb.pos", label_visibility="collapsed")
max_turn = ui.num(events["turn_no"].max(), 1) or 1
b4.number_input("Jump to turn", min_value=1, max_value=max(max_turn, 1), step=1, key="rb.turn", on_change=_jump)

row = view.iloc[st.session_state["rb.pos"]].to_dict()
seq = ui.num(row["seq"], 0)
st.query_params.update({"match": match, "round": str(round_no), "seq": str(seq)})
st.query_params.pop("turn", None)
st.session_state["rb.url"] = (str(round_no), None, str(seq))  # our own URL is not a new deep link

# ---- the board
actor = row["actor"] if isinstance(row["actor"], str) else row["target"] if isinstance(row["target"], str) else None
turn_no = ui.num(row["turn_no"])
turn_label = f"turn {turn_no}" if turn_no is not None else "before the first turn"
st.markdown(f"**Round {round_no} · {turn_label} · event {st.session_state['rb.pos'] + 1}/{len(view)} · seq {seq} · {ui.code(row['event'])}**")
st.text(describe(row, names))
v1, v2 = st.columns([2, 5])
perspective = v1.selectbox("View as", ["(organizer: all hands)", *seats], key="rb.view",
                           format_func=lambda p: names.get(p, p))  # fmt: skip
hands = json.loads(row["hands"]) if isinstance(row["hands"], str) else {}
st.html(ui.board_html(
    seats=seats or list(hands), names=names, hands=hands,
    yell=json.loads(row["yell"]) if isinstance(row["yell"], str) else {},
    bind=json.loads(row["bind"]) if isinstance(row["bind"], str) else {},
    top=row["top"] if isinstance(row["top"], str) else None,
    direction=ui.flag(row["direction"]),
    draw_pile=ui.num(row["draw_pile"], "?"), discard_pile=ui.num(row["discard_pile"], "?"),
    pending=ui.num(row["pending"], 0), owes_draw=bool(ui.flag(row["owes_draw"])),
    to_act=row["to_act"] if isinstance(row["to_act"], str) else None, actor=actor,
    winner=info.get("winner") if row["event"] == "finish-turn" else None,
    perspective=None if perspective not in seats else perspective,
))  # fmt: skip

findings = q.event_findings(con, match, seq)
if not findings.empty:
    st.markdown("**Validator findings at this event**")
    st.dataframe(findings, hide_index=True, width="stretch", key="rb.findings")
with st.expander("Raw event (as read from the log)"):
    raw = q.raw_event(con, match, seq)
    if raw:
        st.caption(f"{raw['source']} · line {raw['line']}")
        try:
            st.json(json.loads(raw["raw"]), expanded=2)
        except ValueError:
            st.code(raw["raw"])

st.markdown("**Events**")
listing = view.assign(
    who=[names.get(a, a) if isinstance(a, str) else names.get(t, t) if isinstance(t, str) else "dealer"
         for a, t in zip(view["actor"], view["target"], strict=True)],
    what=[describe(r, names) for r in view.to_dict("records")],
)[["seq", "turn_no", "event", "who", "what", "errors", "findings"]]
st.dataframe(listing, hide_index=True, width="stretch", height=300, key="rb.events")
