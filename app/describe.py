"""Events in words, for the replayer ("who did what, with which card, why"), in the viewer's language.

An action the dealer refused (it is followed by a penalty on the same player) is worded as an
attempt: "X tries to play red 5 — refused: …", never as if it happened.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from app import reasons
from app.i18n import N_, _
from rules.uno.events import penalty_text

#: The dealer's own Japanese labels for its events (its log viewer), English for the rest.
EVENT_LABELS = {
    "join-room": N_("Join"), "first-player": N_("Round starts"), "next-player": N_("Next turn"),
    "color-change-request": N_("Colour requested"), "color-of-wild": N_("Colour chosen"),
    "shuffle-wild": N_("Hands shuffled"), "play-card": N_("Play a card"), "draw-card": N_("Draw a card"),
    "play-draw-card": N_("Play the drawn card"), "pointed-not-say-uno": N_("UNO not yelled, pointed out"),
    "challenge": N_("Challenge"), "public-card": N_("Hand shown"), "special-logic": N_("Special logic"),
    "finish-turn": N_("Round over"), "penalty": N_("Penalty"), "finish-game": N_("Match over"),
    "disconnect": N_("Disconnect"),
}  # fmt: skip
COLOURS = {"red": N_("red"), "yellow": N_("yellow"), "green": N_("green"), "blue": N_("blue"),
           "black": N_("black"), "white": N_("white")}  # fmt: skip
FACES = {"skip": N_("skip"), "reverse": N_("reverse"), "draw_2": N_("draw 2"), "wild": N_("wild"),
         "wild_draw_4": N_("wild draw 4"), "wild_shuffle": N_("shuffle wild"), "white_wild": N_("white wild")}  # fmt: skip
REASONS = {"draw_2": N_("a draw 2"), "wild_draw_4": N_("a wild draw 4"), "skip_bind_2": N_("the white wild's skip-bind"),
           "bind_2": N_("the white wild's bind"), "nothing": N_("no playable card / by choice")}  # fmt: skip
#: Every error text the ALGORI dealer writes as a penalty cause, as it writes them (typos included);
#: ``app.reasons.CAUSE_REASONS`` says each in plain words (a test keeps the two in step).
DEALER_ERRORS = [
    "Next player invalid.", "Can not play card.", "Card play is required.", "Param card play invalid.",
    "Special card play invalid.", "Color card play invalid.", "Number card play invalid.",
    "Card play invalid.", "Yell uno is required.", "Param yell uno invalie.",
    "Card play not exist of player.", "Card play invalid with card before.", "Color of wild is required.",
    "Color wild is required.", "Color wild invalid.", "Can not say uno and play card.",
    "Can not play draw card.", "Is play card is required.", "Param is play card invalie.",
    "Already changed color.", "Can not chose color of wild.", "Player name is required.",
    "Player name invalid.", "Can not pointed not say uno.", "Param title invalid.",
    "Special logic title too long.", "Did not say uno.", "Can not challenge.",
    "Is challenge is required.", "Param is challenge invalie.", "Already penalized.",
    "Out of target.", "Interrupts are restricted.", "timeout", "color-of-wild timeout",
]  # fmt: skip
#: Events a player sends (the ones a penalty right after can refuse).
ACTIONS = frozenset({"play-card", "draw-card", "play-draw-card", "challenge", "pointed-not-say-uno",
                     "special-logic", "color-of-wild"})  # fmt: skip


def cell_int(v: Any) -> int | None:
    """A table cell as int, None for NULL/NaN/pandas NA or anything not a number."""
    try:
        return None if v is None or pd.isna(v) else int(v)
    except (TypeError, ValueError):
        return None


def cell_text(v: Any) -> str | None:
    """A table cell as a non-empty str, else None."""
    return v if isinstance(v, str) and v else None


def event_label(event: Any) -> str:
    key = str(event)
    return _(EVENT_LABELS[key]) if key in EVENT_LABELS else key


def colour_word(colour: Any) -> str:
    return _(COLOURS[colour]) if colour in COLOURS else str(colour)


def card_words(color: Any, number: Any, special: Any) -> str:
    """'red 5', 'blue skip' — or a plain 'an unreadable card'."""
    if cell_text(color) is None:
        return _("an unreadable card")
    n = cell_int(number)
    if n is not None:
        face = str(n)
    else:
        raw = str(cell_text(special) or "?")
        face = _(FACES[raw]) if raw in FACES else raw.replace("_", " ")
    return _("{colour} {face}").format(colour=colour_word(color), face=face)


def label_words(label: Any) -> str:
    """A board card label ('red-5', 'blue-wild') in words."""
    if not isinstance(label, str) or not label:
        return "?"
    colour, _sep, face = label.partition("-")
    return card_words(colour, int(face) if face.isdigit() else None, face)


def cause_words(cause: Any) -> str:
    """A dealer's penalty cause in plain words first, the dealer's own text kept second:
    'Card does not match the top card (dealer: “Card play invalid with card before.”)'.
    A text the dealer is not known to write is shown as it is."""
    text = str(cause) if cause is not None else "?"
    if reasons.cause_reason(text) is None:
        return text
    return _("{title} (dealer: “{message}”)").format(title=reasons.cause_title(text), message=text)


def log_card_words(card: Any) -> str:
    """A card as the log writes it (``{"color": "blue", "number": 3}``) in words."""
    if not isinstance(card, dict):
        return _("an unreadable card")
    return card_words(card.get("color"), card.get("number"), card.get("special"))


def stack_words(cards: Any, total: Any) -> str:
    """A draw stack as '+2 +4 +4 = 10' (just '+10' when its cards are unknown)."""
    faces = [{"draw_2": "+2", "wild_draw_4": "+4"}.get(c.get("special"), "?") for c in cards if isinstance(c, dict)] \
        if isinstance(cards, list) else []  # fmt: skip
    n = cell_int(total) or 0
    if len(faces) >= 2:
        return " ".join(faces) + f" = {n}"
    return f"+{n}"


def describe(row: dict[str, Any], names: dict[str, str], refused_by: str | None = None, *,
             played_cards: int | None = None, family: str | None = None) -> str:  # fmt: skip
    """One sentence for one event row of ``queries.dashboard.round_events``.

    ``refused_by``: the dealer's error text when the next event is a penalty refusing this action.
    ``played_cards``: for a pair play, how many cards left the hand (1: a finishing pair without the UNO
    call, of which only one card is played). ``family``: the match's rules (``jua-2016``: the offender of a
    successful challenge plays again).
    """
    def who(code: Any) -> str:
        return names.get(code, code) if isinstance(code, str) and code else _("the dealer")

    try:
        c = json.loads(cell_text(row.get("contents")) or "{}")
    except ValueError:
        c = {}
    c = c if isinstance(c, dict) else {}
    ev = row["event"]
    actor, target = who(row.get("actor")), who(row.get("target"))
    card = card_words(row.get("card_color"), row.get("card_number"), row.get("card_special"))
    colour = colour_word(c["color_of_wild"]) if isinstance(c.get("color_of_wild"), str) else None
    if refused_by is not None and ev in ACTIONS:
        cause = cause_words(refused_by)
        if ev == "play-card" and isinstance(c.get("card_play_pair"), dict):
            what = _("play the pair {card} and {second}").format(card=card, second=log_card_words(c["card_play_pair"]))
        elif ev == "play-card":
            what = _("play {card}").format(card=card)
        elif ev == "play-draw-card":
            what = _("play the drawn card {card}").format(card=card) if c.get("is_play_card") is True \
                else _("keep the drawn card")  # fmt: skip
        elif ev == "draw-card":
            what = _("draw a card")
        elif ev == "challenge":
            what = _("challenge {target}").format(target=target)
        elif ev == "pointed-not-say-uno":
            what = _("point at {target} for not yelling UNO").format(target=target)
        elif ev == "special-logic":
            title = c.get("title")
            what = _("fire special logic “{title}”").format(title=title if isinstance(title, str) else _("(no title)"))
        else:
            what = _("choose {colour}").format(colour=colour or "?")
        return _("{actor} tries to {what} — refused: {cause}").format(actor=actor, what=what, cause=cause)
    if ev == "first-player":
        return _("New deal: first card {card}; {target} goes first.").format(card=card, target=target)
    if ev == "next-player":
        turn = cell_int(row.get("turn_no"))
        if c.get("must_play_card") is True:
            return _("{target}'s turn again (turn {turn}): the challenge succeeded, so {target} must play a correct "
                     "card.").format(target=target, turn=turn)  # fmt: skip
        stack = c.get("draw_stack") if isinstance(c.get("draw_stack"), dict) else None
        if c.get("must_call_draw_card") is True and stack is not None and cell_int(stack.get("number")):
            return _("{target}'s turn (turn {turn}); faces the draw stack {stack}: stack another draw card on it or "
                     "draw {n}.").format(target=target, turn=turn, stack=stack_words(stack.get("cards"), stack.get("number")),
                                         n=cell_int(stack.get("number")))  # fmt: skip
        if c.get("must_call_draw_card") is True:
            return _("{target}'s turn (turn {turn}); must draw.").format(target=target, turn=cell_int(row.get("turn_no")))
        return _("{target}'s turn (turn {turn}).").format(target=target, turn=cell_int(row.get("turn_no")))
    if ev in ("play-card", "play-draw-card"):
        if ev == "play-draw-card" and c.get("is_play_card") is not True:
            return _("{actor} keeps the drawn card.").format(actor=actor)
        text = _("{actor} plays the drawn card {card}") if ev == "play-draw-card" else _("{actor} plays {card}")
        text = text.format(actor=actor, card=card)
        if ev == "play-card" and isinstance(c.get("card_play_pair"), dict):
            second = log_card_words(c["card_play_pair"])
            if played_cards == 1:
                text = _("{actor} plays {card} — only one card of the pair {card} and {second}: finishing with a pair "
                         "needs the UNO call").format(actor=actor, card=card, second=second)  # fmt: skip
            else:
                text = _("{actor} plays a pair: {card} and {second}").format(actor=actor, card=card, second=second)
        if colour:
            text += _(", choosing {colour}").format(colour=colour)
        if row.get("yell_uno") is True:
            text += _(" and yells UNO")
        return text + _(".")
    if ev == "draw-card":
        n = cell_int(row.get("n_cards")) or 0
        if c.get("is_draw") is False:
            return _("{actor} cannot draw (25 cards or more) and passes.").format(actor=actor)
        reason = cell_text(row.get("draw_reason")) or "nothing"
        why = _(REASONS[reason]) if reason in REASONS else reason
        stack = c.get("draw_stack") if isinstance(c.get("draw_stack"), dict) else None
        if stack is not None and isinstance(stack.get("cards"), list) and len(stack["cards"]) >= 2:
            why = _("the draw stack {stack}").format(stack=stack_words(stack["cards"], stack.get("number")))
        text = _("{actor} draws {n} card(s) ({why}).").format(actor=actor, n=n, why=why)
        return text + (_(" It can be played.") if c.get("can_play_draw_card") is True else "")
    if ev == "challenge":
        if c.get("is_challenge") is not True:
            return _("{actor} does not challenge {target}'s wild draw 4.").format(actor=actor, target=target)
        r = c.get("result") if isinstance(c.get("result"), dict) else {}
        if r.get("is_challenge_success") is True and family == "jua-2016":
            return _("{actor} challenges {target}'s wild draw 4 and wins: {target} takes it back, draws 4 and must "
                     "play again.").format(actor=actor, target=target)  # fmt: skip
        if r.get("is_challenge_success") is True:
            return _("{actor} challenges {target}'s wild draw 4 and wins: {target} takes it back plus 4 cards.").format(
                actor=actor, target=target)
        n = cell_int(row.get("n_cards"))
        return _("{actor} challenges {target}'s wild draw 4 and loses: {actor} draws {n}.").format(
            actor=actor, target=target, n=n if n is not None else 6)
    if ev == "public-card":
        if isinstance(c.get("shown_to"), str) and c["shown_to"]:
            return _("{target}'s hand is shown to {to} only (the challenger).").format(target=target, to=who(c["shown_to"]))
        return _("{target}'s hand is shown to the challenger.").format(target=target)
    if ev == "pointed-not-say-uno":
        return _("{actor} points at {target} for not yelling UNO.").format(actor=actor, target=target)
    if ev == "special-logic":
        title = c.get("title")
        return _("{actor} fires special logic “{title}”.").format(
            actor=actor, title=title if isinstance(title, str) else _("(no title)"))
    if ev == "color-change-request":
        return _("The dealer asks {target} to choose a colour.").format(target=target)
    if ev == "color-of-wild":
        return _("{actor} chooses {colour}.").format(actor=actor, colour=colour or "?")
    if ev == "shuffle-wild":
        return _("Shuffle wild by {target}: all hands are collected and dealt again.").format(target=target)
    if ev == "penalty":
        return _("Penalty for {target}, +{n} card(s): {cause}").format(
            target=target, cause=cause_words(penalty_text(c.get("error"))), n=cell_int(row.get("n_cards")) or 0)
    if ev == "finish-turn":
        if cell_text(row.get("target")):
            return _("Round over: {target} wins.").format(target=target)
        return _("Round over without a winner.")
    return _("{event} by {actor}.").format(event=event_label(ev), actor=actor)
