"""Reasons in plain words: a short title and a one-sentence explanation for every validator check
(all three games) and every ALGORI dealer penalty cause, in the viewer's language.

The validator (``rules/``) names its checks with stable codes (``card-legal-on-top``) and the
dealer writes terse English errors (``Card play invalid with card before.``, some misspelt).
Neither is what a contestant should read first: pages show :func:`check_title` /
:func:`cause_title` and keep the code or the dealer's own text as a second, smaller detail.

Written from the contest rules and the system spec (``docs/rules/*.md``, the ALGORI rules
digest).  ``tests/app/test_reasons.py`` fails when a check or dealer cause has no entry here or
no Japanese translation.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from app.i18n import N_, _


class Reason(NamedTuple):
    title: str  #: short, sentence case, no final full stop (marked with N_)
    explanation: str  #: one sentence a contestant understands (marked with N_)


R = Reason

#: Every validator check by code.
CHECK_REASONS: dict[str, Reason] = {
    # ---- ALGORI UNO: what a bot did against the rules
    "turn-owner": R(N_("Acted out of turn"),
                    N_("The bot played, drew, chose a colour or challenged when it was not its turn.")),
    "owed-draw-respected": R(N_("Played instead of drawing"),
                             N_("After a draw 2, wild draw 4 or white wild the next player must take the cards first, "
                                "but the bot played a card.")),
    "card-object-valid": R(N_("Card missing or not a real card"),
                           N_("The card the bot sent was missing or its colour, number or symbol does not exist in UNO.")),
    "yell-field-valid": R(N_("UNO yes/no missing or invalid"),
                          N_("Every play must say whether the bot yells UNO (true or false); this one did not.")),
    "card-owned": R(N_("Played a card not in the hand"), N_("The bot played a card it does not hold.")),
    "card-legal-on-top": R(N_("Card does not match the top card"),
                           N_("Only a card of the same colour, number or symbol as the top card, or a wild, can be "
                              "played; this one matched nothing.")),
    "wild-colour-given": R(N_("Wild without a colour"),
                           N_("A wild or wild draw 4 must name the next colour, and none was given.")),
    "wild-colour-valid": R(N_("Invalid colour chosen"), N_("The colour chosen must be red, yellow, green or blue.")),
    "yell-only-at-two": R(N_("UNO yelled at the wrong time"),
                          N_("UNO can be yelled only with the play that takes the hand from two cards to one.")),
    "uno-call-missed": R(N_("UNO not yelled"),
                         N_("The bot went down to one card without yelling UNO; when another player points this out "
                            "it draws 2 cards.")),
    "wd4-bluff": R(N_("Wild draw 4 bluff"),
                   N_("The bot played a wild draw 4 while holding another playable card: allowed, but a challenge "
                      "against it would win.")),
    "play-draw-allowed": R(N_("Drawn card played wrongly"),
                           N_("After drawing, only a drawn card that fits may be played, and the answer must say "
                              "play or keep (true or false).")),
    "challenge-eligible": R(N_("Challenge not allowed"),
                            N_("Only the next player can challenge, right after a wild draw 4 and before drawing, "
                               "answering challenge or not (true or false).")),
    "colour-choice-eligible": R(N_("Colour chosen when not asked"),
                                N_("A colour can be sent only when the dealer asks the bot to choose one.")),
    "pointing-valid": R(N_("Invalid UNO pointing"),
                        N_("Only a player in the game who holds exactly one card can be pointed at for not yelling "
                           "UNO.")),
    "pointing-without-effect": R(N_("UNO pointing had no effect"),
                                 N_("The player pointed at had yelled UNO or could no longer be pointed at, so "
                                    "nothing happened (no penalty).")),
    "special-logic-valid": R(N_("Special logic title missing or too long"),
                             N_("A special logic needs a title of at most 32 characters.")),
    "special-logic-limit": R(N_("Too many special logics in a round"),
                             N_("The dealer handles at most 10 special logics per player in a round and ignores "
                                "the rest.")),
    "special-logic-registry": R(N_("More than 3 special-logic titles"),
                                N_("A bot can register at most 3 different special-logic titles in a match.")),
    "response-time": R(N_("No move within 5 seconds"),
                       N_("Every move must come within 5 seconds; otherwise the dealer gives 2 penalty cards and "
                          "the turn passes.")),
    # ---- ALGORI UNO: the dealer's decisions, re-derived
    "penalty-cause": R(N_("Penalty for a different reason than the rules give"),
                       N_("The dealer's penalty names another error than the one the rules report first for this "
                          "move.")),
    "penalty-unjustified": R(N_("Penalty for a legal move"), N_("The dealer penalised a move the rules allow.")),
    "missing-penalty": R(N_("Illegal move not penalised"),
                         N_("The dealer accepted a move the rules forbid, without a penalty.")),
    "penalty-count": R(N_("Wrong number of penalty cards"),
                       N_("A penalty is 2 cards, but a hand never grows beyond 25 cards.")),
    "forced-draw-amount": R(N_("Forced draw of the wrong size"),
                            N_("The number of cards drawn after a draw 2, wild draw 4 or white wild differs from "
                               "what the rules give.")),
    "voluntary-draw": R(N_("Normal draw handled wrongly"),
                        N_("A player who draws by choice gets one card, or none when already holding 25.")),
    "draw-reason": R(N_("Draw reason recorded wrongly"),
                     N_("The reason the log gives for a draw (draw 2, wild draw 4, by choice…) differs from the "
                        "replay.")),
    "next-seat": R(N_("Turn given to the wrong player"),
                   N_("After skips, reverses and white wilds the rules give the next turn to another player than "
                      "the dealer did.")),
    "predicted-next": R(N_("Announced next player differs"),
                        N_("The next (or skipped) player announced with a play differs from what the rules give.")),
    "turn-counter": R(N_("Turn number off"),
                      N_("The turn number should go up by one each time the turn passes, and it did not.")),
    "deal-and-first-card": R(N_("Wrong deal or first card"),
                             N_("Each player starts with 7 cards and the first card turned up must be one the rules "
                                "allow.")),
    "challenge-verdict": R(N_("Wrong challenge verdict"),
                           N_("Whether the challenge succeeded differs from the dealer's rule for the challenged "
                              "hand.")),
    "challenge-rule-departure": R(N_("Challenge verdict departs from the written rule"),
                                  N_("With a white wild involved, the dealer judges the challenge differently from "
                                     "the written contest rule.")),
    "challenge-outcome": R(N_("Wrong cards after a challenge"),
                           N_("A won challenge makes the wild draw 4 player take it back plus 4 cards, a lost one "
                              "makes the challenger draw 6.")),
    "public-card": R(N_("Wrong hand shown after a challenge"),
                     N_("After a challenge the challenger must see the challenged player's hand, and another hand "
                        "was shown.")),
    "uno-pointing-outcome": R(N_("Wrong result of an UNO pointing"),
                              N_("A correct pointing makes the player who forgot UNO draw 2 cards; otherwise "
                                 "nothing happens.")),
    "shuffle-redistribution": R(N_("Shuffle wild dealt wrongly"),
                                N_("A shuffle wild collects every hand and deals the cards out again, and the cards "
                                   "were dealt differently.")),
    "round-end": R(N_("Round ended wrongly"),
                   N_("A round ends when a player has played their last card (or the cards run out), and this one "
                      "ended, or went on, against that.")),
    "wd4-last-card-draw": R(N_("Winning wild draw 4 made nobody draw"),
                            N_("By the rules the last card still takes effect, so the next player draws 4, but the "
                               "dealer ended the round without it.")),
    "round-score": R(N_("Round score wrong"),
                     N_("The round score differs from the points of the cards left in the hands.")),
    "total-score": R(N_("Running total wrong"), N_("The total differs from the sum of the round scores so far.")),
    "match-result": R(N_("Match result wrong"),
                      N_("Wins, totals or the winner (on a tie, whoever reached the score first) differ from the "
                         "rounds.")),
    "timeout-effects": R(N_("Timeout for the wrong player"),
                         N_("The dealer gave a timeout penalty to a player who was not the one to move.")),
    "timeout-early": R(N_("Timeout before 5 seconds"),
                       N_("The dealer wrote a timeout although 5 seconds had not yet passed.")),
    "timeout-missed": R(N_("Late move without a timeout"),
                        N_("A player moved after more than 5 seconds, and the dealer gave no timeout.")),
    "special-logic-timer": R(N_("Special logic stopped the 5-second clock"),
                             N_("After an accepted special logic the dealer no longer timed the player, so a late "
                                "move went unpunished.")),
    "wild-colour-rejected": R(N_("Wild without a colour refused whole"),
                              N_("The rules keep such a wild on the table with the previous colour, but the dealer "
                                 "returned the card to the hand.")),
    "bound-challenge-refused": R(N_("Bound player's challenge refused"),
                                 N_("The rules let the next player challenge a wild draw 4, but the dealer refuses "
                                    "it with a penalty when a white wild binds that player.")),
    "pointing-window": R(N_("UNO pointing refused while still allowed"),
                         N_("The rules allow pointing until the next player plays a card, and the dealer refused "
                            "it before that.")),
    "penalty-cap-silent": R(N_("Refused at 25 cards without a penalty line"),
                            N_("The player already held 25 cards, so the dealer refused the move without writing a "
                               "penalty but still ended the turn.")),
    "deck-exhausted-continues": R(N_("Round went on with no cards to draw"),
                                  N_("The rules end the round when the draw pile is empty and one card is on the "
                                     "table, and the dealer went on.")),
    # ---- JUA competition rules (profile jua-2016): what a bot did, and the referee's decisions
    "pair-identical": R(N_("Not a pair of identical cards"),
                        N_("Under the JUA rules only two number cards of the same colour and number can be played "
                           "together; symbol and wild cards are always played alone.")),
    "pair-finish-uno": R(N_("Finished with a pair without calling UNO"),
                         N_("A pair that would empty the hand needs the UNO call with that play; without it only one "
                            "card of the pair is played.")),
    "stack-answer": R(N_("Card cannot answer the draw stack"),
                      N_("Facing a draw 2 only a draw 2 or a wild draw 4 can be played, facing a wild draw 4 only a "
                         "wild draw 4; otherwise the player draws the whole stack.")),
    "challenge-must-play": R(N_("No correct card after a successful challenge"),
                             N_("When a challenge against its wild draw 4 succeeds, the bot takes the card back and "
                                "must play a correct card instead; drawing is not allowed.")),
    "stack-total": R(N_("Draw stack total wrong"),
                     N_("The cards drawn for a draw stack or a challenge, or the stack total the log shows, differ "
                        "from the sum of the stacked draw cards.")),
    "dealer-rotation": R(N_("Wrong start player or seating"),
                         N_("Under the JUA rules the seating never changes and the winner of a round starts the "
                            "next one.")),
    "round-count": R(N_("Wrong number of rounds"),
                     N_("The match has another number of rounds than its rules set (5 under the JUA rules).")),
    "player-count": R(N_("Too few or too many players"),
                      N_("The JUA rules are for 2 to 10 players, and this match has another number.")),
    # ---- ALGORI UNO: the log against the replayed table
    "snapshot-mismatch": R(N_("Table differs from the replay"),
                           N_("The hands or piles the log records differ from the ones the replay computes.")),
    "next-player-contents": R(N_("Turn information differs from the replay"),
                              N_("What the dealer sent to the player whose turn it is differs from the replayed "
                                 "table.")),
    "echo-fields": R(N_("Wrong turn number on a move"),
                     N_("A move carries another turn number than the current turn.")),
    "event-sequence": R(N_("Events out of order or missing"),
                        N_("The log's events do not follow the dealer's order, or a line is missing.")),
    "finish-hands": R(N_("Final hands differ from the replay"),
                      N_("The hands written at the end of the round differ from the replayed hands.")),
    "conservation": R(N_("Cards lost or added"),
                      N_("The cards in hands and piles no longer add up to the 112 cards of the deck, or a card is in play "
                         "more often than the deck holds it.")),
    "cards-played-counter": R(N_("Played-card counter off"),
                              N_("The number of cards played that the log reports differs from the replay.")),
    # ---- Kakomimasu
    "kakomimasu-no-such-agent": R(N_("Order for an agent the team does not have"),
                                  N_("The bot gave an order to an agent number its team does not have.")),
    "kakomimasu-several-actions": R(N_("Several orders for one agent"),
                                    N_("Each agent can do only one action per turn.")),
    "kakomimasu-illegal-action": R(N_("Action not allowed"),
                                   N_("The action breaks a rule: outside the field, not one of the 8 neighbouring "
                                      "cells, removing where there is no wall, and so on.")),
    "kakomimasu-onto-opponent-wall": R(N_("Onto the other team's wall"),
                                       N_("An agent cannot be placed on, or move onto, a cell walled by another "
                                          "team.")),
    "kakomimasu-put-onto-opponent-wall": R(
        N_("Agent placed on the other team's wall"),
        N_("The rules forbid placing an agent on a cell walled by another team; "
           "the server does not refuse it, and the agent stays off the field.")),
    "kakomimasu-none-action": R(N_("Agent told to stay"),
                                N_("A NONE order keeps the agent where it is; the server logs it as invalid, but it "
                                   "costs nothing.")),
    "kakomimasu-conflict": R(N_("Actions collided"),
                             N_("Several agents aimed at the same cell, so none of those actions took effect.")),
    "kakomimasu-reverted": R(N_("Action cancelled"),
                             N_("Another agent stays on or ends up at the target cell, so this action was undone.")),
    "kakomimasu-forbidden-action-accepted": R(
        N_("Server accepted a forbidden action"),
        N_("The server answered success to an action the rules forbid, instead of refusing it.")),
    "kakomimasu-area-rule-departure": R(N_("Server's areas differ from the written rule"),
                                        N_("The server counts enclosed areas differently from the official rule, so "
                                           "the area points differ.")),
    "kakomimasu-result-code": R(N_("Action result differs from the replay"),
                                N_("Whether an action succeeded, as the log says, differs from the replay.")),
    "kakomimasu-points": R(N_("Points differ from the replay"),
                           N_("A team's wall or area points after a turn differ from the replay.")),
    "kakomimasu-final-tiles": R(N_("Final field differs from the replay"),
                                N_("The walls and areas at the end differ from the replay.")),
    "kakomimasu-final-agents": R(N_("Final agent positions differ from the replay"),
                                 N_("Where the agents stand at the end differs from the replay.")),
    "kakomimasu-final-points": R(N_("Final points differ from the last turn"),
                                 N_("A player's final points differ from the points after the last turn.")),
    "kakomimasu-snapshot-tiles": R(N_("Field snapshot differs from the replay"),
                                   N_("A recorded field differs from the replay of the turns before it.")),
    "kakomimasu-snapshot-agents": R(N_("Agents moved in an impossible way"),
                                    N_("Between two snapshots agents moved in a way no action allows, or a wall "
                                       "vanished with no agent next to it.")),
    "kakomimasu-snapshot-points": R(N_("Snapshot points do not match its field"),
                                    N_("The points recorded with a snapshot differ from its own walls and areas.")),
    "kakomimasu-agent-count": R(N_("Agent count differs from the log"),
                                N_("The game's number of agents per team differs from the agents the players have "
                                   "in the log; the replay uses the agents the log shows.")),
    "kakomimasu-player-count": R(N_("Player count differs from the log"),
                                 N_("The game's number of players, or the players in a turn, differs from the "
                                    "players the game lists; the replay uses the listed players.")),
    "kakomimasu-turns": R(N_("Turns missing or extra"),
                          N_("The log has fewer or more turns than the game's set number, or a gap between turns.")),
    "kakomimasu-action-undetermined": R(N_("Action could not be determined"),
                                        N_("Old logs keep no actions, and the snapshots do not show which agent did "
                                           "this.")),
    # ---- CHaser
    "chaser-invalid-method": R(N_("Unknown command sent"),
                               N_("The client sent a command the server does not know, which stops the game and "
                                  "loses it.")),
    "chaser-invalid-direction": R(N_("Action without a valid direction"),
                                  N_("The client sent an action without up, down, left or right, which stops the "
                                     "game and loses it.")),
    "chaser-no-response": R(N_("Stopped answering"),
                            N_("The client disconnected, timed out or did not send GetReady, and a communication "
                               "error loses the game.")),
    "chaser-surroundings": R(N_("Surroundings differ from the replay"),
                             N_("The 3×3 cells the server reported after an action differ from the replayed map.")),
    "chaser-item-taken": R(N_("Item pickup differs from the replay"),
                           N_("An item was taken where the replay takes none, or the other way round.")),
    "chaser-final-items": R(N_("Item count differs from the replay"),
                            N_("The items counted at the end differ from the replay.")),
    "chaser-end": R(N_("End of the game differs from the replay"),
                    N_("Who lost, why or when, as the log says, differs from the replay.")),
    "chaser-winner": R(N_("Winner differs from the replay"), N_("The logged winner differs from the replay.")),
    "chaser-turns": R(N_("Turns out of order or past the limit"),
                      N_("The remaining turns do not count down by one, Cool and Hot did not alternate, or the log "
                         "goes on after the map's last turn.")),
    "chaser-log-line": R(N_("Log line out of place"),
                         N_("A line the server does not write there was skipped or read where it belongs, and the rest of the log was read.")),
    "chaser-truncated": R(N_("Log ends early"), N_("The log stops before the end of the game.")),
}  # fmt: skip

#: Every error text the ALGORI dealer (or Kifu's referee, under the JUA rules) writes as a penalty cause (spellings
#: as the dealer writes them).
CAUSE_REASONS: dict[str, Reason] = {
    "Next player invalid.": R(N_("Not its turn"), N_("The bot acted when it was not its turn.")),
    "Can not play card.": R(N_("Had to draw first"),
                            N_("After a draw 2, wild draw 4 or white wild the player must take the cards, not play.")),
    "Card play is required.": R(N_("No card sent"),
                                N_("The play did not include a card; under the JUA rules also: the offender of a "
                                   "successful challenge drew instead of playing a correct card.")),
    "Param card play invalid.": R(N_("Card without a number or symbol"),
                                  N_("The card sent had neither a number nor a symbol.")),
    "Special card play invalid.": R(N_("Unknown card symbol"),
                                    N_("The card's symbol is not one of UNO's special cards.")),
    "Color card play invalid.": R(N_("Unknown card colour"), N_("The card's colour is not one of UNO's colours.")),
    "Number card play invalid.": R(N_("Invalid card number"), N_("The card's number is not 0 to 9.")),
    "Card play invalid.": R(N_("Not a real card"),
                            N_("The colour, number and symbol sent do not make a card that exists in the deck.")),
    "Yell uno is required.": R(N_("UNO yes/no missing"),
                               N_("The play did not say whether the bot yells UNO.")),
    "Param yell uno invalie.": R(N_("UNO yes/no not true or false"),
                                 N_("Whether the bot yells UNO must be sent as true or false.")),
    "Card play not exist of player.": R(N_("Card not in the hand"), N_("The bot played a card it does not hold.")),
    "Card play invalid with card before.": R(N_("Card does not match the top card"),
                                             N_("The card has neither the colour, the number nor the symbol of the "
                                                "top card, and is not a wild.")),
    "Color of wild is required.": R(N_("Wild without a colour"),
                                    N_("A wild or wild draw 4 must name the next colour.")),
    "Color wild is required.": R(N_("Wild without a colour"), N_("A wild or wild draw 4 must name the next colour.")),
    "Color wild invalid.": R(N_("Invalid colour"), N_("The colour must be red, yellow, green or blue.")),
    "Can not say uno and play card.": R(N_("UNO yelled at the wrong time"),
                                        N_("UNO can be yelled only when the play leaves one card in the hand.")),
    "Can not play draw card.": R(N_("No drawn card to play"),
                                 N_("The bot tried to play a drawn card that does not fit, or without having drawn.")),
    "Is play card is required.": R(N_("Play-or-keep answer missing"),
                                   N_("After drawing, the bot must say whether it plays the drawn card.")),
    "Param is play card invalie.": R(N_("Play-or-keep answer not true or false"),
                                     N_("Whether the drawn card is played must be sent as true or false.")),
    "Already changed color.": R(N_("Colour already chosen"),
                                N_("The bot sent a colour although no colour choice was pending.")),
    "Can not chose color of wild.": R(N_("Colour cannot be chosen now"),
                                      N_("The colour cannot be chosen at this point, for example after a wild draw 4.")),
    "Player name is required.": R(N_("Pointed at nobody"), N_("The UNO pointing did not name a player.")),
    "Player name invalid.": R(N_("Pointed at an unknown player"),
                              N_("The player named in the UNO pointing is not in the game.")),
    "Can not pointed not say uno.": R(N_("Pointed player does not hold one card"),
                                      N_("Only a player down to one card can be pointed at for not yelling UNO.")),
    "Param title invalid.": R(N_("Special logic without a title"), N_("A special logic must have a title.")),
    "Special logic title too long.": R(N_("Special logic title too long"),
                                       N_("A special logic title can have at most 32 characters.")),
    "Did not say uno.": R(N_("UNO not yelled"),
                          N_("The player went down to one card without yelling UNO and was pointed out.")),
    "Can not challenge.": R(N_("Challenge not allowed"),
                            N_("There was no wild draw 4 this player could challenge at that moment.")),
    "Is challenge is required.": R(N_("Challenge answer missing"),
                                   N_("The bot must say whether it challenges the wild draw 4.")),
    "Param is challenge invalie.": R(N_("Challenge answer not true or false"),
                                     N_("Whether the bot challenges must be sent as true or false.")),
    "Already penalized.": R(N_("Already pointed out"),
                            N_("Another player had already pointed this player out (no penalty).")),
    "Out of target.": R(N_("Player out of reach"),
                        N_("Only the player who just played can be pointed at, and this one could not (no penalty).")),
    "Interrupts are restricted.": R(N_("Not accepted right now"),
                                    N_("The dealer was busy with another step and did not take moves (no penalty).")),
    # Kifu's referee under the JUA rules (kifu play; docs/rules/jua.md)
    "Pair invalid.": R(N_("Not a valid pair"),
                       N_("Only two identical number cards (same colour and number) can be played together.")),
    "Can not answer draw stack.": R(N_("Card cannot answer the draw stack"),
                                    N_("Facing a draw stack only a draw 2 or a wild draw 4 can be played (only a wild "
                                       "draw 4 on a wild draw 4); otherwise the player draws the stack.")),
    "Only the drawn card may be played.": R(N_("Only the drawn card may be played"),
                                            N_("After drawing, the player may play the card just drawn, and no other "
                                               "card of the hand.")),
    "timeout": R(N_("Too slow (5 seconds)"), N_("The bot did not move within 5 seconds.")),
    "color-of-wild timeout": R(N_("Colour not chosen in time"),
                               N_("The bot did not choose a colour within 5 seconds.")),
}  # fmt: skip

#: Kifu's own vocabulary shown in tables.
SEVERITIES = {"error": N_("Error"), "warning": N_("Warning"), "info": N_("Note")}
FAMILIES = {"player-rule": N_("Bot broke a rule"), "dealer-judgement": N_("Dealer departs from the rules"),
            "consistency": N_("Log and replay differ")}  # fmt: skip
BOOLEANS = {True: N_("yes"), False: N_("no")}


def check_reason(code: Any) -> Reason | None:
    return CHECK_REASONS.get(str(code))


def check_title(code: Any) -> str:
    """A check's plain-words title in the viewer's language (the code itself for an unknown check)."""
    r = CHECK_REASONS.get(str(code))
    return _(r.title) if r is not None else str(code)


def check_explanation(code: Any) -> str:
    r = CHECK_REASONS.get(str(code))
    return _(r.explanation) if r is not None else ""


def cause_reason(cause: Any) -> Reason | None:
    return CAUSE_REASONS.get(str(cause)) if cause is not None else None


def cause_title(cause: Any) -> str:
    """A dealer cause's plain-words title (the dealer's text itself when it is not a known cause)."""
    r = cause_reason(cause)
    return _(r.title) if r is not None else ("?" if cause is None else str(cause))


def cause_explanation(cause: Any) -> str:
    r = cause_reason(cause)
    return _(r.explanation) if r is not None else ""


def severity_word(value: Any) -> str:
    return _(SEVERITIES[value]) if value in SEVERITIES else ("" if value is None else str(value))


def family_word(value: Any) -> str:
    return _(FAMILIES[value]) if value in FAMILIES else ("" if value is None else str(value))


def yes_no(value: Any) -> str | None:
    """A boolean cell as "yes"/"no" in the viewer's language (None for a missing value)."""
    try:
        import pandas as pd

        if value is None or pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return _(BOOLEANS[bool(value)])
