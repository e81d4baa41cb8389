"""ALGORI dealer log records: normalise any known shape into an :class:`Activity`, read typed values.

Accepted shapes (see ``docs/data-model.md``): the 2023 dealer's download log, the same
documents as stored in MongoDB (relaxed or canonical Extended JSON, or pymongo documents),
the official spec's spelling (``player_id``, ``content``, ``total_score``, disconnect
payload as an object), and the 2022 dealer (no ``dealer_code``/``desk``, extra events).
Kifu's referee writes its JUA logs in the same shape.

Player-sent payloads are echoed by the dealer *before* it validates them, so fields such as
``card_play`` or ``yell_uno`` may hold anything; typed columns take a value only when it is
well-typed and the raw value always stays in ``contents``.  Only the envelope and the
fields the dealer itself writes are required to be well-formed; a record that breaks them
is quarantined with the reason.  Pure: text and dictionaries in, values out.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import orjson

from common.jsontext import parse_json
from rules.uno.cards import Card

EVENTS_2023 = frozenset(
    {
        "join-room", "first-player", "next-player", "play-card", "draw-card",
        "play-draw-card", "challenge", "public-card", "pointed-not-say-uno",
        "special-logic", "color-change-request", "color-of-wild", "shuffle-wild",
        "penalty", "finish-turn", "finish-game", "disconnect",
    }
)  # fmt: skip


#: Events of the 2022 dealer that the 2023 one no longer writes; ingested like the others.
EVENTS_2022 = frozenset({"say-uno-and-play-card", "say-uno-and-play-draw-card", "receiver-card"})


KNOWN_EVENTS = EVENTS_2023 | EVENTS_2022


ENVELOPE_ONLY = frozenset({"join-room", "disconnect", "finish-game"})


class RecordError(ValueError):
    """A record that is not a usable activity; the message is the quarantine reason."""


@dataclass(slots=True)
class Activity:
    dealer_code: str | None
    dealer: str
    event: str
    player: str | None
    turn: int | None
    contents: Any
    desk: dict[str, Any] | None
    date_ms: int | None
    contents_json: bytes | str = "null"


def normalize(doc: Any) -> Activity:
    """Check and normalise one activity document; raise :class:`RecordError` if unusable."""
    if not isinstance(doc, dict):
        raise RecordError(f"not a JSON object (got {_type_name(doc)})")
    if "collection" in doc and "document" in doc and "event" not in doc:
        raise RecordError(f"not an activity: a '{doc.get('collection')}' collection document")
    event = doc.get("event")
    if not isinstance(event, str) or not event:
        if "event" not in doc:
            raise RecordError("missing required field 'event' (not an ALGORI activity?)")
        raise RecordError(f"field 'event' is {_type_name(event)}, expected a non-empty string")
    dealer = doc.get("dealer")
    if not isinstance(dealer, str) or not dealer:
        if "dealer" not in doc:
            raise RecordError("missing required field 'dealer'")
        raise RecordError(f"field 'dealer' is {_type_name(dealer)}, expected a non-empty string")
    dealer_code = doc.get("dealer_code")
    if dealer_code is not None and not isinstance(dealer_code, str):
        raise RecordError(f"field 'dealer_code' is {_type_name(dealer_code)}, expected a string")
    player = as_code(doc.get("player"))
    if player is _BAD:
        raise RecordError(f"field 'player' is {_type_name(doc.get('player'))}, expected a string")
    turn = doc.get("turn")
    if turn is not None:
        turn = as_int(turn)
        if turn is None or turn < 0:
            what = _type_name(doc.get("turn")) if turn is None else _short(doc.get("turn"))  # -5: said as it is
            raise RecordError(f"field 'turn' is {what}, expected a round number")
        if turn > INT32_MAX:
            raise RecordError(f"field 'turn' is {_short(doc.get('turn'))}, out of range for a round number")
    contents = doc["contents"] if "contents" in doc else doc.get("content")
    if event in KNOWN_EVENTS and event != "disconnect":
        if contents is None:
            contents = {}
        if not isinstance(contents, dict):
            raise RecordError(f"field 'contents' of {event} is {_type_name(contents)}, expected an object")
        if event not in ENVELOPE_ONLY and turn is None and event not in EVENTS_2022:
            raise RecordError(f"{event} without the round number 'turn'")
        _check_dealer_fields(event, contents)
    desk = doc.get("desk")
    if desk is not None and not isinstance(desk, dict):
        raise RecordError(f"field 'desk' is {_type_name(desk)}, expected an object")
    date_ms = _date_ms(doc.get("dateCreated"))
    if date_ms is _BAD:
        raise RecordError(f"field 'dateCreated' is not a date ({_short(doc.get('dateCreated'))})")
    try:
        contents_json = orjson.dumps(contents, default=json_default)  # UTF-8 bytes, stored as text
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise RecordError(f"field 'contents' cannot be stored ({exc}; nested more than 254 levels?)") from exc
    return Activity(dealer_code, dealer, event, player, turn, contents, desk, date_ms, contents_json)  # type: ignore[arg-type]


def _check_dealer_fields(event: str, c: dict[str, Any]) -> None:
    """Fields the dealer writes itself must be well-formed (player echoes may be anything)."""
    if event == "first-player":
        order = c.get("play_order")
        if not isinstance(order, list) or not order or not all(isinstance(p, str) for p in order):
            raise RecordError("first-player without a 'play_order' list of player codes")
        if not isinstance(c.get("cards_receive"), dict):
            raise RecordError("first-player without the dealt hands 'cards_receive'")
    elif event == "next-player":
        if not isinstance(c.get("next_player"), str):
            raise RecordError("next-player without 'next_player'")
    elif event in ("penalty", "public-card", "shuffle-wild", "color-change-request"):
        if not isinstance(c.get("player"), str):
            raise RecordError(f"{event} without the player code 'player'")
    elif event == "finish-turn":
        for key in ("score", "total_score"):
            if key in c and not _is_score_map(c[key]):
                raise RecordError(f"finish-turn '{key}' is not a map of player code to number")
    elif event == "finish-game":
        for key in ("score", "total_score", "order"):
            if key in c and not _is_score_map(c[key]):
                raise RecordError(f"finish-game '{key}' is not a map of player code to number")
    elif event == "join-room":
        code = c.get("player_code", c.get("player_id"))
        if code is not None and not isinstance(as_code(code), str):
            raise RecordError("join-room 'player_code' is not a string")


def _is_score_map(v: Any) -> bool:
    return isinstance(v, dict) and all(as_int(x) is not None for x in v.values())


class _Bad:
    pass


_BAD: Any = _Bad()


def as_code(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, dict) and isinstance(v.get("$oid"), str):
        return v["$oid"]
    if type(v).__name__ == "ObjectId":
        return str(v)
    return _BAD


INT32_MAX = 2**31 - 1


#: Dates Kifu stores: 1970-01-01 .. 9999-12-31 (epoch ms); others are kept only in the raw record.
DATE_MS_MAX = 253_402_300_799_999


def as_int(v: Any) -> int | None:
    """An integral JSON number as int (``5``, ``5.0``); anything else (bools, NaN, ∞, text) is None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def as_int32(v: Any) -> int | None:
    """Like :func:`_as_int`, but None outside the range of the INTEGER columns it goes to."""
    n = as_int(v)
    return n if n is not None and -INT32_MAX - 1 <= n <= INT32_MAX else None


def _date_ms(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return _BAD
    if isinstance(v, (int, float)):
        if v != v or v in (float("inf"), float("-inf")) or not 0 <= v <= DATE_MS_MAX:
            return _BAD
        return int(v)
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.timezone.utc)
        try:
            return _date_ms(int(v.timestamp() * 1000))
        except (OverflowError, ValueError, OSError):
            return _BAD
    if isinstance(v, dict) and "$date" in v:
        return _date_ms(v["$date"])
    if isinstance(v, dict) and "$numberLong" in v:
        try:
            return _date_ms(int(v["$numberLong"]))
        except (TypeError, ValueError):
            return _BAD
    if isinstance(v, str):
        try:
            parsed = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            return _BAD
        return _date_ms(parsed)
    return _BAD


def unwrap_extended_json(v: Any) -> Any:
    """Canonical Extended JSON numbers (``{"$numberInt": "5"}``) to plain values."""
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k in ("$numberInt", "$numberLong") and isinstance(x, str):
                try:
                    return int(x)
                except ValueError:
                    return v
            if k == "$numberDouble" and isinstance(x, str):
                try:
                    return float(x)
                except ValueError:
                    return v
        return {k: unwrap_extended_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unwrap_extended_json(x) for x in v]
    return v


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number"}.get(
        type(v), f"a {type(v).__name__}"
    )


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _card_cols(obj: Any) -> tuple[str | None, int | None, str | None]:
    card = Card.from_dealer(obj)
    if card is None:
        return None, None, None
    return card.color, card.number, card.special


def length_of(v: Any) -> int | None:
    return len(v) if isinstance(v, list) else None


def str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def event_target(a: Activity) -> str | None:
    c = a.contents if isinstance(a.contents, dict) else {}
    ev = a.event
    if ev in ("penalty", "public-card", "shuffle-wild", "color-change-request"):
        return str_or_none(c.get("player"))
    if ev in ("challenge", "pointed-not-say-uno"):
        return str_or_none(c.get("target"))
    if ev == "next-player":
        return str_or_none(c.get("next_player"))
    if ev == "first-player":
        return str_or_none(c.get("first_player"))
    if ev in ("finish-turn", "finish-game"):
        return str_or_none(c.get("winner"))
    if ev == "join-room":
        return str_or_none(as_code(c.get("player_code", c.get("player_id"))))
    return None


def event_cards(a: Activity) -> tuple[tuple[str | None, int | None, str | None], int | None]:
    c = a.contents if isinstance(a.contents, dict) else {}
    ev = a.event
    if ev in ("play-card", "play-draw-card", "say-uno-and-play-card", "say-uno-and-play-draw-card"):
        return _card_cols(c.get("card_play")), None
    if ev == "draw-card":
        drawn = c.get("card_draw")
        first = drawn[0] if isinstance(drawn, list) and drawn else None
        return _card_cols(first), length_of(drawn)
    if ev == "first-player":
        return _card_cols(c.get("first_card")), None
    if ev in ("penalty", "receiver-card"):
        return (None, None, None), length_of(c.get("cards_receive"))
    if ev == "challenge":
        result = c.get("result")
        return (None, None, None), length_of(result.get("cards_receive")) if isinstance(result, dict) else None
    if ev == "public-card":
        return (None, None, None), length_of(c.get("cards"))
    return (None, None, None), None


def penalty_cause(error: Any) -> str | None:
    """The dealer's error text; "Did not say uno." is logged as an object with a message."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if error is None:
        return None
    return orjson.dumps(error).decode()


def js_length(text: str) -> int:
    """String length as JavaScript counts it (UTF-16 code units), which the dealer checks."""
    return len(text.encode("utf-16-le")) // 2


def dumps(v: Any) -> str:
    return orjson.dumps(v, default=json_default).decode()


def json_default(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.isoformat()
    return str(v)


def stored_activity(raw: str) -> Activity:
    """A stored raw line read again as the loader read it."""
    doc = parse_json(raw)
    if '"$number' in raw:
        doc = unwrap_extended_json(doc)
    return normalize(doc)


def activity_from_raw(raw: str, seq: int) -> dict[str, Any]:
    """A stored raw line as the rules engine reads it (what the loader fed the replay)."""
    return replay_activity(stored_activity(raw), seq)


def replay_activity(a: Activity, seq: int) -> dict[str, Any]:
    """The activity as the rules engine reads it."""
    return {"seq": seq, "event": a.event, "player": a.player, "turn": a.turn, "contents": a.contents,
            "desk": a.desk, "date_ms": a.date_ms}  # fmt: skip
