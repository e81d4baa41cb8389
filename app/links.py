"""One link vocabulary for every game's board: ``?match=<id>&round=<n>&turn=<n>&event=<seq>`` (+ ``bot=``).

* ``match`` — the match (its id; the sidebar also takes an ALGORI dealer's code or name);
* ``round`` — the round (UNO; Kakomimasu and CHaser games have one round, and ignore it);
* ``turn`` — the turn (UNO: within the round; Kakomimasu: the turn shown; CHaser: the turn's first action);
* ``event`` — the event's number in the stored log (UNO: the line's seq; CHaser: the action's number;
  Kakomimasu: its turn, the game's only steps). ``event`` wins over ``turn`` when a link names both;
* ``bot`` — the chosen bot: kept as it is in every link built here, never dropped.

Old links keep working: ``seq=`` (UNO and CHaser) is read as ``event=``.  A link that names something the
match does not have is refused (the page says so and shows nothing else): :func:`missing` words it.

Plain functions over a mapping of query parameters (``st.query_params`` or a dict): no Streamlit, no SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from app.i18n import N_, _

#: The parameters of a board link, in the order links are written.
PARAMS = ("match", "round", "turn", "event", "bot")
#: Old names still read: alias -> the parameter it stands for.
ALIASES = {"seq": "event"}
#: The position parameters (what a board link points at inside a match).
POSITION = ("round", "turn", "event")


@dataclass(frozen=True)
class Link:
    """What a link asks for, as written (text; None: not named)."""

    match: str | None = None
    round: str | None = None
    turn: str | None = None
    event: str | None = None
    bot: str | None = None

    def key(self) -> tuple[str | None, ...]:
        return (self.match, self.round, self.turn, self.event)

    @property
    def names_position(self) -> bool:
        return any(getattr(self, p) for p in POSITION)


def _get(params: Mapping[str, Any], name: str) -> str | None:
    value = params.get(name)
    if isinstance(value, list | tuple):
        value = value[0] if value else None
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def read(params: Mapping[str, Any]) -> Link:
    """The link ``params`` hold (a new name wins over its old alias)."""
    got = {p: _get(params, p) for p in PARAMS}
    for old, new in ALIASES.items():
        if got[new] is None:
            got[new] = _get(params, old)
    return Link(**got)


def number(text: str | None) -> int | None:
    """A link's number (digits only; anything else is no number)."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 18:
        return None
    return int(text)


def build(current: Mapping[str, Any] | None = None, **position: Any) -> dict[str, str]:
    """The query parameters of a link to ``position`` (match=, round=, turn=, event=; None leaves one out),
    keeping the ``bot=`` of ``current`` (the page's own parameters) — a link never drops the chosen bot."""
    out: dict[str, str] = {}
    bot = position.pop("bot", None)
    if bot is None and current is not None:
        bot = _get(current, "bot")
    unknown = set(position) - set(PARAMS)
    if unknown:
        raise ValueError(f"not a link parameter: {sorted(unknown)}")
    for p in PARAMS:
        value = bot if p == "bot" else position.get(p)
        if value is not None and value == value:  # NaN: none
            out[p] = str(int(value)) if isinstance(value, float) else str(value)
    return out


def query(current: Mapping[str, Any] | None = None, **position: Any) -> str:
    """:func:`build` as a query string (``?match=…&round=…``)."""
    return "?" + urlencode(build(current, **position))


def write(params: Any, **position: Any) -> None:
    """Put ``position`` into the page's parameters (``st.query_params``): the position parameters it names
    are set, the others and the old aliases removed; ``match``, ``bot`` and every other parameter are kept."""
    for p in POSITION:
        value = position.get(p)
        if value is None:
            params.pop(p, None)
        else:
            params[p] = str(value)
    for old in ALIASES:
        params.pop(old, None)
    if position.get("match") is not None:
        params["match"] = str(position["match"])


def forget(params: Any) -> None:
    """Remove a refused link's position (and aliases) from the page's parameters: the next run of the page
    (the user picks something) shows the board again."""
    for p in (*POSITION, *ALIASES):
        params.pop(p, None)


#: What a refused link says (``{asked}``: what it named, ``{have}``: what exists).
MISSING = {
    # (a ?match= naming no match is read by the sidebar, ui.sidebar_filters: this is the words for it)
    "match": N_("There is no match {asked} in this database. The link names nothing to show."),
    "round": N_("This match has no round {asked} (its rounds are {have}). The link names nothing to show."),
    "turn": N_("Round {round} has no turn {asked} (its turns are {have}). The link names nothing to show."),
    "event": N_("Round {round} has no event {asked} (its events are numbered {have} in the log). The link names "
                "nothing to show."),
    "match_event": N_("This match has no event {asked} (its events are numbered {have} in the log). The link names "
                      "nothing to show."),
    "game_turn": N_("This game has no turn {asked} (its turns are {have}). The link names nothing to show."),
    "game_event": N_("This game has no action {asked} (its actions are numbered {have}). The link names nothing "
                     "to show."),
}  # fmt: skip


def span(values: Iterable[int]) -> str:
    """'1–40' (or '3' for one value, '—' for none) for a message naming what exists."""
    got = list(values)
    if not got:
        return "—"
    lo, hi = min(got), max(got)
    return str(lo) if lo == hi else f"{lo}–{hi}"


def clip(asked: str, n: int = 24) -> str:
    """What a link named, shortened for a message quoting it."""
    return asked if len(asked) <= n else asked[: n - 1] + "…"


def missing(kind: str, asked: str, have: Iterable[int], **more: Any) -> str:
    """The refusal of a link naming what does not exist, translated (``asked`` as given: the page quotes it
    clipped and escaped, see :func:`clip`)."""
    return _(MISSING[kind]).format(asked=asked, have=span(have), **more)


def resolve(wanted: str | None, have: Iterable[int]) -> int | None:
    """The number a link names when ``have`` holds it; None when it names something else (or nothing)."""
    n = number(wanted)
    return n if n is not None and n in set(have) else None


def locate(link: Link, frames: list[dict[str, Any]], *, by_turn: bool,
           quote: Callable[[str], str] = str) -> tuple[int | None, str | None]:  # fmt: skip
    """The step (a frame's ``seq``) a link names in a game without rounds (Kakomimasu, CHaser), or why it is
    refused: ``(seq, None)``, ``(None, message)``, or ``(None, None)`` when it names no step.

    ``by_turn``: the game's steps are its turns (Kakomimasu: ``turn=`` and ``event=`` both name a turn, the
    field before the first turn is 0); otherwise ``event=`` names a step and ``turn=`` the first step of a turn
    (CHaser). ``quote``: how the message quotes what the link named (the page's Markdown escape)."""
    seqs = [int(f["seq"]) for f in frames if f.get("seq") is not None]
    asked = link.event if link.event is not None else link.turn
    if asked is None:
        return None, None
    n = number(asked)
    quoted = quote(clip(asked))
    if by_turn or link.event is not None:
        if n is not None and n in set(seqs):
            return n, None
        return None, missing("game_turn" if by_turn else "game_event", quoted, seqs)
    turns = sorted({int(f["turn"]) for f in frames if f.get("turn") is not None})
    if n is not None and n in set(turns):
        return next(int(f["seq"]) for f in frames if f.get("turn") == n), None
    return None, missing("game_turn", quoted, turns)


def jump(state: MutableMapping[str, Any], prefix: str, match: str, at: int | None,
         frames: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """The replayer's jump (``{"seq", "token"}``) for a game without rounds: a new token when the link names a
    step other than the one shown last (a link or a typed URL moves the board; the page's own URL does not)."""
    token = state.setdefault(f"{prefix}.token", 0)
    if at is not None and at != state.get(f"{prefix}.at.{match}"):
        state[f"{prefix}.token"] = token = token + 1
    first = frames[0]["seq"] if frames else 0
    return {"seq": at if at is not None else first, "token": token}


def follow(state: MutableMapping[str, Any], params: Any, prefix: str, match: str, param: str, at: int | None) -> None:
    """The step the replayer shows (``at``: what it reported), kept and written into the link (``param``:
    ``turn`` or ``event``)."""
    if at is not None:
        state[f"{prefix}.at.{match}"] = at
        write(params, **{param: at})
