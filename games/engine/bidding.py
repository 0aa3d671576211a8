"""Bidding for trump (亮主, RULES.md §5.2) under the three ``bidding`` options.

A bid *shows* cards: one level card, two identical level cards, or two identical jokers (a
joker pair means no-trump). Whether it may stand over the standing bid depends on the option:

- ``strength``: single level card < level pair < ``SJ`` pair < ``BJ`` pair; a new bid must be
  strictly stronger; any seat may bid, the standing bidder too.
- ``count`` (冲主): an overcall shows more level cards of another suit, or a joker pair over
  level cards; only another seat may overcall (seed 002: 其他玩家); a joker pair stands for good.
- ``reinforce`` (seed 003): single < pair < joker pair, both joker pairs equal, and the earliest
  of equal strength stands. The kinds of seed 003 fall out of who shows what: the bidder's
  second copy is 自保, another seat's pair of another suit 反主, the bidder's pair of another
  suit 自反, a joker pair 反无主.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.engine.action_errors import (
    BID_CARDS_NOT_HELD,
    BID_NOT_SHOWABLE,
    BID_OWN_OVERCALL,
    BID_SAME_SUIT,
    BID_TOO_WEAK,
)
from games.engine.cards import BIG_JOKER, RANKS, SMALL_JOKER, SUITS, Card, format_cards

FIRST = "first"
SELF_REINFORCE = "self_reinforce"  # 自保
OVERTURN = "overturn"  # 反主
SELF_OVERTURN = "self_overturn"  # 自反
NO_TRUMP_OVERTURN = "no_trump_overturn"  # 反无主
BID_KINDS = (FIRST, SELF_REINFORCE, OVERTURN, SELF_OVERTURN, NO_TRUMP_OVERTURN)


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid that stood when it was made: who, what, the suit it names (None = no-trump)."""

    seat: int
    cards: tuple[int, ...]
    suit: str | None
    strength: int
    kind: str

    @property
    def jokers(self) -> bool:
        return self.cards[0] >= SMALL_JOKER

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "cards": format_cards(self.cards),
            "suit": self.suit,
            "kind": self.kind,
        }


def showing_error(cards: Sequence[int], level: str) -> str | None:
    """None when the cards are a showable bid: one level card, or two identical level cards or
    jokers."""
    if len(cards) == 1:
        return None if _is_level_card(cards[0], level) else BID_NOT_SHOWABLE
    if len(cards) == 2 and cards[0] == cards[1]:
        first = cards[0]
        return None if first >= SMALL_JOKER or _is_level_card(first, level) else BID_NOT_SHOWABLE
    return BID_NOT_SHOWABLE


def _is_level_card(card: int, level: str) -> bool:
    return card < SMALL_JOKER and RANKS[card % 13] == level


def _held(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return all(hand.count(c) >= cards.count(c) for c in set(cards))


def _suit_of(cards: Sequence[int]) -> str | None:
    return None if cards[0] >= SMALL_JOKER else SUITS[cards[0] // 13]


def _strength(system: str, cards: Sequence[int]) -> int:
    """Comparable strength; under ``count`` the number of cards shown (a joker pair is 2)."""
    if system == "count":
        return len(cards)
    if cards[0] >= SMALL_JOKER:
        if system == "reinforce":
            return 3
        return 4 if cards[0] == BIG_JOKER else 3
    return len(cards)


def bid_error(
    system: str,
    level: str,
    standing: Bid | None,
    seat: int,
    cards: Sequence[int],
    hand: Sequence[int],
) -> str | None:
    """None when ``seat`` may bid ``cards`` now, else the reason code.

    ``hand`` is what the seat has been dealt so far (RULES.md §5.1: bids during the deal are
    checked against the cards received by then).
    """
    code = showing_error(cards, level)
    if code is not None:
        return code
    if not _held(hand, cards):
        return BID_CARDS_NOT_HELD
    if standing is None:
        return None
    if system == "count":
        return _count_overcall_error(standing, seat, cards)
    if _strength(system, cards) <= standing.strength:
        return BID_TOO_WEAK
    return None


def _count_overcall_error(standing: Bid, seat: int, cards: Sequence[int]) -> str | None:
    if seat == standing.seat:
        return BID_OWN_OVERCALL
    if standing.jokers:
        return BID_TOO_WEAK
    if cards[0] >= SMALL_JOKER:
        # "同等数量的花牌": as many identical jokers as the level cards shown, or more.
        return None
    if _suit_of(cards) == standing.suit:
        return BID_SAME_SUIT
    return None if len(cards) > len(standing.cards) else BID_TOO_WEAK


def make_bid(system: str, standing: Bid | None, seat: int, cards: Sequence[int]) -> Bid:
    """The ``Bid`` for an already checked showing, with its kind relative to the standing bid."""
    shown = tuple(Card(c) for c in cards)
    suit = _suit_of(shown)
    return Bid(seat, shown, suit, _strength(system, shown), _kind(standing, seat, suit, shown))


def _kind(standing: Bid | None, seat: int, suit: str | None, cards: Sequence[int]) -> str:
    if standing is None:
        return FIRST
    if cards[0] >= SMALL_JOKER:
        return NO_TRUMP_OVERTURN
    if seat != standing.seat:
        return OVERTURN
    return SELF_REINFORCE if suit == standing.suit else SELF_OVERTURN


def possible_showings(hand: Sequence[int], level: str) -> list[tuple[int, ...]]:
    """Every distinct showable bid the hand holds (singles and pairs of level cards, joker
    pairs), weakest kinds first."""
    level_rank = RANKS.index(level)
    found: list[tuple[int, ...]] = []
    for suit_index in range(4):
        card = suit_index * 13 + level_rank
        held = hand.count(card)
        if held:
            found.append((card,))
        if held >= 2:
            found.append((card, card))
    for joker in (SMALL_JOKER, BIG_JOKER):
        if hand.count(joker) >= 2:
            found.append((joker, joker))
    return found


def strongest_showing(cards: Sequence[int], level: str, system: str) -> tuple[Card, ...] | None:
    """RULES.md §5.2 ``flip_rule = as_bids``: the turned-over kitty read as bids under
    ``system``, card by card in the order turned; None when they hold no bid.

    Each card shows what it completes: a level card itself, and the second copy of a level card
    or a joker a pair (a single joker is no bid). A showing stands when it is stronger than the
    standing one, so the strongest wins and the earliest of equal strength stays. No seat shows
    them, so the seat rules (``count``: only another seat, another suit) do not apply: only the
    order of strength (docs/ENGINE-PART2-DECISIONS.md D12).
    """
    best: tuple[Card, ...] | None = None
    best_strength = 0
    seen: set[int] = set()
    for card in cards:
        shown = (Card(card), Card(card)) if card in seen else (Card(card),)
        seen.add(card)
        if showing_error(shown, level) is not None:
            continue
        strength = _flip_strength(system, shown)
        if strength > best_strength:
            best, best_strength = shown, strength
    return best


def _flip_strength(system: str, cards: Sequence[int]) -> int:
    """``_strength``, except that under ``count`` a joker pair is above any level-card bid
    (it overcalls them) and the two joker pairs are equal."""
    if system == "count" and cards[0] >= SMALL_JOKER:
        return 3
    return _strength(system, cards)


def showing_suit(cards: Sequence[int] | None) -> str | None:
    """The suit a showing names; None for a joker pair (no-trump) or no showing."""
    return None if not cards else _suit_of(cards)


def legal_bids(
    system: str, level: str, standing: Bid | None, seat: int, hand: Sequence[int]
) -> list[tuple[int, ...]]:
    """Every showing ``seat`` may bid now."""
    return [
        cards
        for cards in possible_showings(hand, level)
        if bid_error(system, level, standing, seat, cards, hand) is None
    ]
