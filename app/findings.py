"""Validator findings in plain words, with player names, in the viewer's language.

The validator (``rules/``, pure and English) writes one detailed message per finding, in its own
terms (``play-card blue-5 on red-1: Card play invalid with card before.``).  A contestant reads
instead: who, the check's plain title (:mod:`app.reasons`), what the bot did (card labels and
player codes in words, read from the message where it has a known shape) and — only when they
differ — what the rules expected against what happened.  The check code and the validator's own
message stay available as secondary details (:func:`finding_detail`, ``finding_item``'s keys).
"""

from __future__ import annotations

import re
from typing import Any

from app import reasons
from app.i18n import N_, _, current
from rules.chaser.checks import CHECKS as CHASER_CHECKS
from rules.kakomimasu.checks import CHECKS as KAKOMIMASU_CHECKS
from rules.uno.catalog import CHECKS as UNO_CHECKS

#: Every game's checks by code (codes are unique across games).
CHECKS = {**UNO_CHECKS, **KAKOMIMASU_CHECKS, **CHASER_CHECKS}

_CARD = re.compile(r"\b(red|yellow|green|blue|black|white)-([0-9]|skip|reverse|draw_2|wild_draw_4|wild_shuffle|white_wild|wild)\b")
#: The validator's fixed expected/actual phrases, in words.
VALUES = {
    "accepted": N_("accepted"), "no penalty": N_("no penalty"), "no penalty line": N_("no penalty line"),
    "no line": N_("no line in the log"), "none": N_("nothing"), "no draw": N_("nobody draws"),
    "no winner": N_("no winner"), "round ends": N_("the round ends"), "round continues": N_("the round goes on"),
    "next player draws 4": N_("the next player draws 4"), "whole play refused": N_("the whole play refused"),
    "card stays played, previous colour continues": N_("the card stays played, the previous colour goes on"),
    "no other playable card": N_("no other playable card"), "an action within 5 s": N_("a move within 5 seconds"),
    "a penalty line (0 cards)": N_("a penalty line (0 cards)"), "yell_uno true": N_("UNO yelled"),
    "yell_uno false": N_("UNO not yelled"), "challenge judged": N_("the challenge judged"),
    "challenge allowed": N_("the challenge allowed"), "challenge logged": N_("a challenge in the log"),
    "bound by a white wild": N_("bound by a white wild"), "is_draw false, no card": N_("no card drawn"),
    "no live wild draw 4 to challenge": N_("no wild draw 4 to challenge"), "invalid is_challenge": N_("an invalid challenge answer"),
    "at most 3": N_("at most 3"), "at most 10": N_("at most 10"), "timeout": N_("a timeout"),
    # the JUA profile audit's phrases (rules/uno/audit.py)
    "no card of the current colour": N_("no card of the current colour"), "no call": N_("no UNO call"),
    "a play": N_("a card played"), "draw": N_("a draw"), "a pointing": N_("a pointing"),
    "a missed call in its window": N_("a missed call, pointed out in time"), "a verdict": N_("a verdict"),
    "judged": N_("judged"), "a winner": N_("a winner"), "finish-turn": N_("the end of the round"),
}  # fmt: skip
#: A pending draw stack in a validator message: "(stack +6 (yellow-draw_2 black-wild_draw_4))".
_STACK = re.compile(r"\(stack \+(?P<total>\d+)(?: \((?P<cards>[^)]*)\))?\)")
#: Checks whose expected/actual only restate the title (shown without them).
SELF_EVIDENT = frozenset({"pointing-without-effect", "uno-call-missed"})
_ACTIONS = {"PUT": N_("place at ({x}, {y})"), "MOVE": N_("move to ({x}, {y})"), "REMOVE": N_("remove the wall at ({x}, {y})")}


def with_names(text: Any, names: dict[str, str]) -> str:
    """A message with player codes replaced by their names."""
    s = "" if text is None else str(text)
    codes = sorted((c for c in names if c and names[c] != c), key=len, reverse=True)
    if not codes:
        return s
    return re.sub("|".join(re.escape(c) for c in codes), lambda m: names[m.group(0)], s)


def check_title(code: Any) -> str:
    """A check's plain-words title (see :mod:`app.reasons`)."""
    return reasons.check_title(code)


def _label(m: re.Match[str]) -> str:
    from app.describe import label_words

    return label_words(m.group(0))


def value_words(value: Any, names: dict[str, str]) -> str:
    """An expected/actual value in words: dealer errors by their plain title, card labels in words,
    player codes by name, the validator's fixed phrases translated; anything else as it is."""
    s = "" if value is None else str(value)
    if s in VALUES:
        return _(VALUES[s])
    if reasons.cause_reason(s) is not None:
        return reasons.cause_title(s)
    if s in names:
        return names[s]
    m = re.fullmatch(r"\[(.*)\]", s)
    if m:
        return _CARD.sub(_label, m.group(1)) if m.group(1) else _("no card")
    return _CARD.sub(_label, with_names(s, names))


def _name(raw: str, names: dict[str, str]) -> str:
    s = raw.strip().strip("'\"")
    return names.get(s, s)


def _card(raw: str) -> str:
    from app.describe import label_words

    raw = raw.strip()
    if raw == "(missing)":
        return _("no card")
    first, plus, second = raw.partition(" + ")  # a pair play (JUA): "blue-3 + blue-3"
    if plus:
        return _("the pair {card} and {second}").format(card=_card(first), second=_card(second))
    return label_words(raw) if _CARD.fullmatch(raw) else raw


def _stack(msg: str) -> str:
    """' (draw stack +2 +4 = 6)' for a message naming a pending draw stack ('' for none)."""
    m = _STACK.search(msg)
    if m is None or m["total"] == "0":
        return ""
    faces = [{"draw_2": "+2", "wild_draw_4": "+4"}.get(c.partition("-")[2], "?") for c in (m["cards"] or "").split()]
    text = " ".join(faces) + f" = {m['total']}" if len(faces) >= 2 else f"+{m['total']}"
    return _(" (draw stack {stack})").format(stack=text)


def what_happened(f: dict[str, Any], names: dict[str, str]) -> str | None:
    """What the player did, read from the validator's message when it has a known shape (else None)."""
    from app.describe import colour_word

    msg = f.get("message")
    if not isinstance(msg, str):
        return None
    accepted = f.get("actual") == "accepted" or f.get("code") == "missing-penalty"
    if m := re.match(r"play-card \(missing\) on (?P<top>[a-z]+-[a-z0-9_]+)", msg):
        return _("sent a play without a card (top card {top})").format(top=_card(m["top"]))
    if m := re.match(r"play-card (?P<card>.+?) on (?P<top>[a-z]+-[a-z0-9_]+)(?=[:\s]|$)", msg):
        text = _("played {card} on {top}") if accepted else _("tried to play {card} on {top}")
        return text.format(card=_card(m["card"]), top=_card(m["top"])) + _stack(msg)
    if m := re.match(r"play-draw-card is_play_card=(?P<flag>.+?) \(drawn (?P<card>[^)]*)\)", msg):
        if m["card"] == "None":
            return _("tried to play a drawn card without a drawn card that fits")
        if m["flag"] == "True":
            text = _("played the drawn card {card}") if accepted else _("tried to play the drawn card {card}")
        elif m["flag"] == "False":
            text = _("kept the drawn card {card}")
        else:
            text = _("answered neither play nor keep for the drawn card {card}")
        return text.format(card=_card(m["card"]))
    if m := re.match(r"(?:play-card|play-draw-card) (?P<card>[a-z]+-[a-z0-9_]+) without a valid colour", msg):
        return _("played {card} without a valid colour").format(card=_card(m["card"]))
    if m := re.match(r"pointed-not-say-uno at (?P<target>.+?)(?::|$)", msg):
        return _("pointed at {target} for not yelling UNO").format(target=_name(m["target"], names))
    if m := re.match(r"special-logic title (?P<title>.*?): ", msg):
        title = m["title"]
        return _("special logic “{title}”").format(title=title.strip("'\"")) if title != "(missing)" \
            else _("special logic without a title")  # fmt: skip
    if m := re.match(r"color-of-wild (?P<colour>.+?) \(top (?P<top>\S+)\)", msg):
        colour = m["colour"].strip("'\"")
        return _("chose {colour} (top card {top})").format(colour=colour_word(colour), top=_card(m["top"]))
    if m := re.match(r"wild draw 4 on (?P<top>\S+) while holding \[(?P<cards>.*)\]", msg):
        return _("played a wild draw 4 on {top} while holding {cards}").format(
            top=_card(m["top"]), cards=_CARD.sub(_label, m["cards"]))
    if m := re.match(r"turn (?P<turn>\d+): \S+ agent (?P<agent>\d+) (?P<action>PUT|MOVE|REMOVE|NONE)"
                     r"(?: \((?P<x>-?\d+), (?P<y>-?\d+)\))?", msg):  # fmt: skip
        action = m["action"]
        if action == "NONE" or m["x"] is None:
            act = _("stay") if action == "NONE" else action.lower()
        else:
            act = _(_ACTIONS[action]).format(x=m["x"], y=m["y"])
        return _("turn {turn}, agent {agent}: {action}").format(turn=m["turn"], agent=m["agent"], action=act)
    if m := re.match(r"turn (?P<turn>\d+): ", msg):
        return _("turn {turn}").format(turn=m["turn"])
    return None


def finding_detail(f: dict[str, Any], names: dict[str, str]) -> str:
    """The validator's own message with player names (English, as written; a secondary detail), in
    “quotes” for a viewer of another language: the original, kept for reference."""
    text = with_names(f.get("message"), names)
    return text if current() == "en" or not text else f"“{text}”"


def finding_specifics(f: dict[str, Any], names: dict[str, str]) -> str:
    """What the bot did and — only when they differ — what the rules expected against what happened,
    without who and the title (for a table that shows those in their own columns; '' when nothing)."""
    code = f.get("code")
    expected, actual = f.get("expected"), f.get("actual")
    what = what_happened(f, names)
    if code == "challenge-eligible" and isinstance(expected, str) and expected and reasons.cause_reason(expected) is None:
        what = value_words(expected, names)  # the validator's expected is why the challenge was not allowed
        expected = None
    text = what or ""
    if code in SELF_EVIDENT:
        return text
    if isinstance(expected, str) and expected and isinstance(actual, str) and actual and expected != actual:
        e, a = value_words(expected, names), value_words(actual, names)
        if e != a and not (what and a in what):
            differ = _(" (should be: {expected}; was: {actual})").format(expected=e, actual=a)
            text = text + differ if text else differ.strip().strip("()（）")
    return text


def finding_sentence(f: dict[str, Any], names: dict[str, str]) -> str:
    """One finding as a sentence a contestant can read: who, the check in plain words, what the bot did,
    and what the rules expected against what happened (only when they differ)."""
    player = f.get("player")
    who = names.get(player, player) if isinstance(player, str) and player else None
    text = check_title(f.get("code"))
    specifics = finding_specifics(f, names)
    if specifics:
        text = _("{title} — {what}").format(title=text, what=specifics)
    if who:
        text = _("{who}: {what}").format(who=who, what=text)
    return text


def finding_item(v: Any, names: dict[str, str]) -> dict[str, Any]:
    """A validator finding (``rules.core.Violation``) as the replayer shows it: severity, code, sentence
    (and the plain title, explanation and validator's note for a tooltip or second line)."""
    row = {"code": v.code, "player": v.player, "message": v.message, "expected": v.expected, "actual": v.actual}
    return {"severity": v.severity, "code": v.code, "text": finding_sentence(row, names),
            "title": check_title(v.code), "explanation": reasons.check_explanation(v.code),
            "detail": finding_detail(row, names)}  # fmt: skip
