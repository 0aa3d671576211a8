"""What each seat may see of a hand, and the moves offered to it.

``view_for(state, seat)`` is the public view plus that seat's private part: its own hand, and
for the dealer (under ``kitty_theft`` the seat that buries or buried last, RULES-SPEC.md §10.24)
the kitty while burying and the buried cards while playing, and in 找朋友 the
calls before the first lead (RULES-SPEC.md §9.4: the others see them from the first lead on; a
call shows who filled it, never who holds a called card). ``view_public`` is
for spectators; ``view_all`` (every hand, the kitty, the seed) is for replays of finished hands.
All are JSON-serialisable dicts with cards in notation (docs/NOTATION.md). The seed is never in
a seat's or spectator's view: it would reveal every card.

``legal_actions(state, seat)`` lists moves where the choices are few: every bid, every single,
pair and tractor lead (throws are legal but not listed), every single follow; for a follow of
several cards and for burying it offers one legal sample (docs/NOTATION.md, Legal actions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shengji.engine.action_errors import WRONG_SEAT, IllegalActionError
from shengji.engine.actions import (
    CLOSE_ACTION,
    DRAW_ACTION,
    Action,
    bid,
    bury,
    call,
    play,
    takeback,
)
from shengji.engine.bidding import legal_bids
from shengji.engine.cards import format_cards
from shengji.engine.errors import ShengjiError
from shengji.engine.follow import legal_follow
from shengji.engine.friends import default_calls, format_calls, friend_call_error
from shengji.engine.hand import (
    BIDDING,
    BURYING,
    DEALING,
    FINISHED,
    PLAYED,
    PLAYING,
    HandState,
    Trick,
)
from shengji.engine.patterns import pair_ids
from shengji.engine.rainbow import is_rainbow, rainbow_legal_follow
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import card_points
from shengji.engine.takeback import withdrawn
from shengji.engine.trump import TRUMP, Trump, sort_cards
from shengji.engine.tuples import has_wide, tuple_lead_choices


def _display_trump(state: HandState) -> Trump:
    return state.trump if state.trump is not None else Trump(state.level, None)


def _sorted_text(state: HandState, cards: list[int]) -> str:
    return format_cards(sort_cards(cards, _display_trump(state)))  # type: ignore[arg-type]


def _trick(trick: Trick | None) -> dict[str, Any] | None:
    return None if trick is None else trick.to_dict()


def _failed_throws(state: HandState, seat: int | None) -> list[dict[str, Any]]:
    """Forced throws are shown to all (the whole attempt was put on the table); a rejected
    throw's cards only to its thrower (docs/ENGINE-PART2-DECISIONS.md D15)."""
    shown = []
    for failed in state.failed_throws:
        data = failed.to_dict()
        if failed.result != "forced" and seat != failed.seat:
            data["attempted"] = None
            data["attempted_count"] = len(failed.attempted)
        shown.append(data)
    return shown


def view_public(state: HandState) -> dict[str, Any]:
    """Everything every seat and spectator may know."""
    return _public(state, None)


def _calls(state: HandState, seat: int | None) -> list[dict[str, Any]] | None:
    """The friend calls for ``seat`` (None: a spectator, -1: a replay): hidden from all but the
    dealer until the first lead (RULES-SPEC.md §9.4)."""
    if not state.rules.is_friends:
        return None
    if state.calls_shown or seat == -1 or (seat is not None and seat == state.dealer):
        return [c.to_dict() for c in state.calls]
    return None


def _points_hidden(state: HandState, seat: int | None) -> bool:
    """RULES-SPEC.md §10.8 ``hide_defender_points``: while the hand is played, no seat and no
    spectator sees what the defenders known so far have taken (a replay, ``seat`` -1, does)."""
    return state.rules.hide_defender_points and state.phase == PLAYING and seat != -1


def _shown_trick(state: HandState, trick: Trick | None, hidden: bool) -> dict[str, Any] | None:
    """A trick as a view shows it: with its points unless they went to a known defender and
    the defenders' points are hidden."""
    data = _trick(trick)
    if data is not None and hidden and trick is not None and trick.winner in state.side:
        data["points"] = None
    return data


def _public(state: HandState, seat: int | None) -> dict[str, Any]:
    trump = state.trump
    hidden = _points_hidden(state, seat)
    view: dict[str, Any] = {
        "rules": state.rules.name,
        "phase": state.phase,
        "first_hand": state.first_hand,
        "levels": list(state.levels),
        "level": state.level,
        "trump": _trump(trump),
        "dealer": state.dealer,
        "defenders": None if state.defenders is None else list(state.defenders),
        "redeals": state.deal_number,
        "drawn": state.drawn,
        "card_counts": [len(h) for h in state.hands],
        "bids": [b.to_dict() for b in state.bids],
        "flipped": format_cards(state.flipped),
        "to_act": state.to_act,
        "trick": _trick(state.trick) if state.phase == PLAYING else None,
        "last_trick": _shown_trick(state, state.last_trick, hidden),
        "tricks_played": len(state.tricks),
        "points": {
            "attackers": state.attacker_points,
            "defenders": None if hidden else state.defender_points,
        },
        "point_cards": {
            "attackers": format_cards(state.attacker_cards),
            "defenders": None if hidden else format_cards(state.defender_cards),
        },
        "penalty_points": state.penalty_points,
        "failed_throws": _failed_throws(state, seat),
        "kitty": None,
        "result": _result(state, seat),
    }
    if not state.rules.is_classic:
        _add_shape(view, state, seat)
    if state.rules.has_deck_options:
        # RULES-SPEC.md §10.11: the kitty's size and the cards removed are shown to everyone.
        view["kitty_size"] = state.kitty_size
        view["removed"] = format_cards(state.removed)
    if state.rules.takes_back:
        view["taken_back"] = _taken_back(state)
    if state.rules.play_history == "full":
        # RULES-SPEC.md §10.9: every completed trick of the hand.
        view["tricks"] = [_shown_trick(state, trick, hidden) for trick in state.tricks]
    if state.phase == FINISHED and state.result is not None and state.result.outcome == PLAYED:
        view["kitty"] = format_cards(state.buried)
    return view


def _trump(trump: Trump | None) -> dict[str, Any] | None:
    """``{"level", "suit"}``, and ``tractor`` under the tractor options (RULES-SPEC.md §10.13)."""
    if trump is None:
        return None
    shown: dict[str, Any] = {"level": trump.level, "suit": trump.suit}
    if trump.has_tractor_rule:
        shown["tractor"] = list(trump.tractor)
    return shown


def _add_shape(view: dict[str, Any], state: HandState, seat: int | None) -> None:
    """What bigger tables and 找朋友 add to every view (RULES-SPEC.md §9.4)."""
    rules = state.rules
    view["players"] = state.players
    view["decks"] = state.decks
    view["mode"] = rules.mode
    view["kitty_size"] = state.kitty_size
    view["side"] = None if state.defenders is None else list(state.defenders)
    hidden = _points_hidden(state, seat)
    view["seat_points"] = [
        None if hidden and s in state.side else points for s, points in enumerate(state.seat_points)
    ]
    view["friends"] = rules.friends
    view["calls"] = _calls(state, seat)
    view["calls_made"] = bool(state.calls) and len(state.calls) == rules.friends


def _taken_back(state: HandState) -> dict[str, Any] | None:
    """RULES-SPEC.md §10.22, §10.23: what the hand's last action took back, for every seat to
    see (a bid or a play everyone saw), or None when the last action is no takeback."""
    action = withdrawn(state.actions)
    if action is None:
        return None
    return {"seat": action.seat, "kind": action.kind, "cards": format_cards(action.cards)}


def can_take_back(state: HandState, seat: int) -> bool:
    """Whether ``seat`` may send ``takeback`` now (its last bid or play can be withdrawn)."""
    if not state.rules.takes_back:
        return False
    try:
        state.check_action(seat, takeback(seat))
    except ShengjiError:
        return False
    return True


def _result(state: HandState, seat: int | None) -> dict[str, Any] | None:
    """The result, with rejected throws masked as in the views (D15): after an escape the
    thrower's hand was never shown; nor, after an escape before the first lead, the friend
    calls (RULES-SPEC.md §9.4: shown from the first lead on)."""
    if state.result is None:
        return None
    result = state.result.to_dict()
    result["failed_throws"] = _failed_throws(state, seat)
    if "calls" in result:
        result["calls"] = _calls(state, seat)
    return result


def view_for(state: HandState, seat: int) -> dict[str, Any]:
    """The public view plus what only ``seat`` may see."""
    _check_seat(state, seat)
    view = _public(state, seat)
    view["seat"] = seat
    view["hand"] = _sorted_text(state, state.hands[seat])
    if seat == state.burier and view["kitty"] is None:
        # The seat that buries last holds the kitty (RULES-SPEC.md §9.4, §10.24).
        if state.phase == BURYING:
            view["kitty"] = format_cards(state.kitty_taken)
        elif state.phase == PLAYING or state.in_theft_window:
            view["kitty"] = format_cards(state.buried)
    if seat == state.dealer and state.rules.is_friends and _calls_now(state):
        view["call_defaults"] = call_defaults(state, seat)
    if state.rules.takes_back:
        view["can_take_back"] = can_take_back(state, seat)
    return view


def _calls_now(state: HandState) -> bool:
    """Whether the dealer may call now: while burying the kitty it was dealt, or before the
    first lead when a theft's trump made a call illegal (RULES-SPEC.md §10.24)."""
    if state.phase == BURYING:
        return state.burier == state.dealer
    return state.calls_missing


def call_defaults(state: HandState, seat: int) -> str:
    """The calls the dealer's pickers start from, "1AS 1KH" (``friends.default_calls``: never a
    card of the dealer's hand while another legal call exists; ENGINE-PART2-DECISIONS.md F13);
    the calls the server makes for a dealer whose calls step ran out."""
    trump = state.trump
    assert trump is not None
    rules = state.rules
    calls = default_calls(
        state.hands[seat],
        trump,
        state.decks,
        rules.friends,
        rules.friend_cards,
        copies=state.copies,
    )
    return format_calls(calls)


def view_all(state: HandState) -> dict[str, Any]:
    """Every card: for replays and analysis, never for a live seat."""
    view = _public(state, -1)
    view["failed_throws"] = [f.to_dict() for f in state.failed_throws]
    view["result"] = None if state.result is None else state.result.to_dict()
    view["seed"] = state.seed
    view["hands"] = [_sorted_text(state, h) for h in state.hands]
    view["kitty_dealt"] = format_cards(state.kitty)
    view["buried"] = format_cards(state.buried)
    return view


def _check_seat(state: HandState, seat: int) -> None:
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalActionError(WRONG_SEAT, f"no seat {seat!r}: seats are 0..{state.players - 1}")


# --- legal actions ------------------------------------------------------------------------


def legal_actions(state: HandState, seat: int | None) -> list[Action]:
    """The moves offered to ``seat`` now (None = the server: ``draw`` or ``close``).

    ``leave`` is always possible before the end and is not listed; nor is ``takeback``, which
    no bot and no hint makes (RULES-SPEC.md §10.22, §10.23).
    """
    if seat is not None:
        _check_seat(state, seat)
    phase = state.phase
    if seat is None:
        return [DRAW_ACTION] if phase == DEALING else [CLOSE_ACTION] if phase == BIDDING else []
    if phase in (DEALING, BIDDING):
        rules = state.rules
        standing = state.standing_bid
        showings = legal_bids(
            rules.bidding,
            state.level,
            standing,
            seat,
            state.hands[seat],
            state.decks,
            rules.bid_options,
            state.bids,
        )
        return [bid(seat, cards) for cards in showings]
    if phase == BURYING and seat == state.burier:
        trump = _display_trump(state)
        hand = state.hands[seat]
        buried = bury(seat, sample_bury(hand, trump, state.kitty_size))
        if state.rules.is_friends and not state.calls:
            calls = sample_calls(hand, trump, state.rules, state.decks, state.copies)
            return [call(seat, calls), buried]
        return [buried]
    if phase == PLAYING and seat == state.turn and state.calls_missing:
        # RULES-SPEC.md §10.24: the dealer calls again before leading.
        trump = _display_trump(state)
        calls = sample_calls(state.hands[seat], trump, state.rules, state.decks, state.copies)
        return [call(seat, calls)]
    if phase == PLAYING and seat == state.turn:
        return [play(seat, cards) for cards in _play_choices(state, seat)]
    return []


def sample_bury(hand: list[int], trump: Trump, count: int = 8) -> list[int]:
    """Cards to bury (the kitty's size): non-trumps before trumps, no points before points,
    low first."""
    return sorted(hand, key=lambda c: (trump.groups[c] == TRUMP, card_points(c), trump.orders[c]))[
        :count
    ]


def sample_calls(
    hand: list[int],
    trump: Trump,
    rules: RuleSet,
    decks: int,
    copies: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """Legal friend calls (``(card, ordinal)``): the highest allowed cards the dealer holds
    fewest copies of, each at the ordinal after its own copies (RULES-SPEC.md §9.3.3)."""
    allowed = [
        c
        for c in sorted(range(54), key=lambda c: (hand.count(c), -trump.orders[c], c))
        if hand.count(c) < decks
        and friend_call_error(c, hand.count(c) + 1, trump, decks, rules.friend_cards, copies=copies)
        is None
    ]
    return [(c, hand.count(c) + 1) for c in allowed[: rules.friends]]


def _play_choices(state: HandState, seat: int) -> list[tuple[int, ...]]:
    trump = state.trump
    assert trump is not None
    hand = state.hands[seat]
    lead = state.lead
    if lead is None:
        return lead_choices(hand, trump)
    if len(lead) == 1:
        group = trump.groups[lead[0]]
        suited = sorted({c for c in hand if trump.groups[c] == group})
        return [(c,) for c in (suited or sorted(set(hand)))]
    rainbow = state.rules.rainbow_min
    if is_rainbow(lead, trump, rainbow):
        return [tuple(rainbow_legal_follow(hand, lead, trump, rainbow))]
    return [tuple(legal_follow(hand, lead, trump, draw_policy=state.rules.draw_policy))]


def lead_choices(hand: list[int], trump: Trump) -> list[tuple[int, ...]]:
    """Every distinct single, pair and tractor the hand can lead; with more than two copies of
    a card, every tuple and tractor of tuples too (RULES-SPEC.md §9.2)."""
    if has_wide(hand):
        return tuple_lead_choices(hand, trump)
    singles = [(c,) for c in sorted(set(hand))]
    pairs = pair_ids(hand)
    return singles + [(p, p) for p in pairs] + _tractors(pairs, trump)


def _tractors(pairs: list[int], trump: Trump) -> list[tuple[int, ...]]:
    """Every tractor from the pairs: runs of pairs of one group at consecutive orders."""
    groups, orders = trump.groups, trump.orders
    found: list[tuple[int, ...]] = []

    def extend(run: list[int]) -> None:
        last = run[-1]
        for pair in pairs:
            if groups[pair] == groups[last] and orders[pair] == orders[last] + 1:
                longer = [*run, pair]
                found.append(tuple(c for p in longer for c in (p, p)))
                extend(longer)

    for start in pairs:
        extend([start])
    return found
