"""Reasons in plain words: every check and every dealer cause has a title and an explanation in English
and Japanese; findings and penalty causes read as words, not log lines or codes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from streamlit.testing.v1 import AppTest

from app import i18n, reasons
from app.describe import DEALER_ERRORS, cause_words, describe
from app.findings import CHECKS, finding_item, finding_sentence
from rules.core import Violation
from rules.uno import events
from rules.uno.catalog import ERROR_TO_CODE

App = Callable[..., AppTest]
NAMES = {"P-00000006": "Misbehaver", "P-00000004": "Alice"}


def _ja() -> dict[str, str]:
    with i18n.po_path("ja").open("rb") as fh:
        return {m.id: m.string for m in read_po(fh) if m.id and not m.fuzzy}


MINE = ("app/reasons.py", "app/findings.py", "app/describe.py", "app/app_pages/player_rounds.py",
        "app/app_pages/violations.py", "app/app_pages/penalties.py")


def _missing_of_mine() -> list[str]:
    """Messages of these pages (and their wording modules) a Japanese page looked up without a translation
    (other pages' brand-new messages, e.g. the sidebar's, are their own tests' business)."""
    from babel.messages.extract import extract_from_file

    from tests.conftest import REPO

    ids = {m[1] for f in MINE for m in extract_from_file("python", REPO / f, keywords={"_": None, "N_": None})}
    return sorted(i18n.MISSING & ids)


def _every_cause() -> set[str]:
    """Every penalty cause the dealer can write, from every place the project lists them."""
    return (set(DEALER_ERRORS) | set(ERROR_TO_CODE) | events.PLAY_DRAW_ERRORS | events.COLOR_ERRORS
            | events.POINT_ERRORS | events.TITLE_ERRORS)  # fmt: skip


def test_every_check_has_a_reason_in_both_languages() -> None:
    ja = _ja()
    missing = sorted(set(CHECKS) - set(reasons.CHECK_REASONS))
    assert not missing, f"checks without a plain-words title/explanation in app/reasons.py: {missing}"
    assert not set(reasons.CHECK_REASONS) - set(CHECKS), "reasons for checks that no longer exist"
    for code, r in reasons.CHECK_REASONS.items():
        assert r.title and r.explanation.endswith("."), code
        assert code not in r.title + r.explanation, f"{code}: the code in its own words"
        assert ja.get(r.title) and ja.get(r.explanation), f"{code}: no Japanese translation (scripts/messages.py --ja)"


def test_every_dealer_cause_has_a_reason_in_both_languages() -> None:
    ja = _ja()
    missing = sorted(_every_cause() - set(reasons.CAUSE_REASONS))
    assert not missing, f"dealer causes without a plain-words title/explanation in app/reasons.py: {missing}"
    for cause, r in reasons.CAUSE_REASONS.items():
        assert r.title and r.explanation.endswith("."), cause
        assert r.title != cause and "invalie" not in r.title, cause
        assert ja.get(r.title) and ja.get(r.explanation), f"{cause!r}: no Japanese translation"


def test_vocabulary_is_translated() -> None:
    ja = _ja()
    for words in (reasons.SEVERITIES, reasons.FAMILIES, reasons.BOOLEANS):
        assert all(ja.get(w) for w in words.values())
    with i18n.using("ja"):
        assert reasons.severity_word("error") == ja["Error"] and reasons.yes_no(True) == ja["yes"]
        assert reasons.yes_no(None) is None and reasons.family_word("odd") == "odd"


def test_cause_words_put_plain_words_first_and_keep_the_dealers_text() -> None:
    with i18n.using("en"):
        assert cause_words("Card play invalid with card before.") == \
            "Card does not match the top card (dealer: “Card play invalid with card before.”)"
        assert cause_words("Param yell uno invalie.").startswith("UNO yes/no not true or false (dealer: ")
        assert cause_words("something new") == "something new"
    with i18n.using("ja"):
        text = cause_words("Card play invalid with card before.")
        assert text.startswith("場札") and "“Card play invalid with card before.”" in text
        assert not text.startswith("Card")


def _f(code: str, message: str, expected: str | None = None, actual: str | None = None, player: str = "P-00000006") -> dict:
    return {"code": code, "player": player, "message": message, "expected": expected, "actual": actual}


def test_finding_sentence_is_words_with_names_not_codes() -> None:
    f = _f("card-legal-on-top", "play-card blue-5 on red-1: Card play invalid with card before.",
           "Card play invalid with card before.", "Card play invalid with card before.")
    with i18n.using("en"):
        text = finding_sentence(f, NAMES)
        assert text == "Misbehaver: Card does not match the top card — tried to play blue 5 on red 1"
    with i18n.using("ja"):
        text = finding_sentence(f, NAMES)
        assert "Misbehaver" in text and "青の5" in text and "赤の1" in text
        assert not re.search(r"card-legal|play-card|P-\d{8}|期待|Card play", text)


def test_expected_and_actual_only_when_they_differ_and_in_words() -> None:
    same = _f("wild-colour-given", "play-card black-wild on green-6: Color of wild is required.",
              "Color of wild is required.", "Color of wild is required.")
    differ = _f("turn-owner", "play-card blue-6 on blue-draw_2: Next player invalid.", "P-00000004", "P-00000006")
    cause = _f("owed-draw-respected", "play-card blue-draw_2 on yellow-white_wild: Can not play card.",
               "Can not play card.", "no penalty line")
    with i18n.using("en"):
        assert "should be" not in finding_sentence(same, NAMES)
        assert finding_sentence(differ, NAMES).endswith("(should be: Alice; was: Misbehaver)")
        assert finding_sentence(cause, NAMES).endswith("(should be: Had to draw first; was: no penalty line)")
    with i18n.using("ja"):
        assert "Can not play card." not in finding_sentence(cause, NAMES)


def test_finding_item_of_each_game_has_a_title_and_explanation() -> None:
    v = Violation(code="kakomimasu-conflict", family="player-rule", severity="info", seq=3, round_no=1, turn_no=1,
                  message="turn 1: hanako agent 0 PUT (2, 6) — conflict: 2 actions aimed at this cell", player="hanako")
    with i18n.using("en"):
        item = finding_item(v, {"hanako": "Hanako"})
    assert item["text"] == "Hanako: Actions collided — turn 1, agent 0: place at (2, 6)"
    assert item["code"] == "kakomimasu-conflict" and item["explanation"].startswith("Several agents")


def test_penalty_sentence_uses_the_plain_cause() -> None:
    row = {"event": "penalty", "target": "P-00000006", "n_cards": 2, "contents": '{"error": "Param yell uno invalie."}'}
    with i18n.using("en"):
        text = describe(row, NAMES)
    assert text.startswith("Penalty for Misbehaver, +2 card(s): UNO yes/no not true or false")
    assert "“Param yell uno invalie.”" in text


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_where_did_my_bot_go_wrong_says_what_went_wrong(app: App, sample_db: Path, lang: str) -> None:
    i18n.MISSING.clear()
    at = app(sample_db, "player_rounds", player="P-00000006", lang=lang)
    assert not _missing_of_mine()
    df = at.dataframe[0].value
    with i18n.using(lang):
        what, pens = i18n._("What went wrong"), i18n._("Penalties")
        for label in ("Penalty cards", "Rule breaks", "Serious findings", "All findings"):
            assert i18n._(label) in df.columns
    assert all(isinstance(t, str) and t for t in df.loc[df[pens] > 0, what])
    text = " ".join(df[what])
    assert not re.search(r"Card play|invalie|Can not", text) and not any(c in text for c in CHECKS)  # no dealer text, no code
    assert re.search(r"\d× |×\d", text)
    # every count column has a tooltip defining it
    config = json.loads(at.dataframe[0].proto.columns)
    with i18n.using(lang):
        for label in ("Penalties", "Penalty cards", "Rule breaks", "Serious findings", "All findings", "What went wrong"):
            assert len(config[i18n._(label)].get("help", "")) > 20, label


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_violations_page_labels_checks_by_title(app: App, sample_db: Path, lang: str) -> None:
    i18n.MISSING.clear()
    at = app(sample_db, "violations", lang=lang)
    assert not _missing_of_mine()
    with i18n.using(lang):
        check, code, sev, kind = i18n._("Check"), i18n._("Check code"), i18n._("Severity"), i18n._("Kind")
        table = at.dataframe[1].value
        assert set(table[sev]) <= {i18n._("Error"), i18n._("Warning"), i18n._("Note")}
        assert set(table[kind]) <= {i18n._(w) for w in reasons.FAMILIES.values()}
    assert not (set(table[check]) & set(CHECKS))  # titles, not codes
    assert set(table[code]) <= set(CHECKS)
    if lang == "ja":
        assert not any(re.search(r"P-\d{8}|期待", m) for m in table[i18n.translations("ja").gettext("What happened")])


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_penalties_page_shows_causes_in_words(app: App, sample_db: Path, lang: str) -> None:
    i18n.MISSING.clear()
    at = app(sample_db, "penalties", lang=lang)
    assert not _missing_of_mine()
    with i18n.using(lang):
        causes = at.dataframe[0].value[i18n._("Cause")]
        dealer = "ディーラー" if lang == "ja" else "dealer"
        assert all(dealer in c for c in causes)
        assert not any(c.startswith(("Card play", "Param", "Can not")) for c in causes)
