"""Bidding for trump (亮主, RULES-SPEC.md §5.2) under the three ``bidding`` options.

A bid *shows* cards: k identical level cards (1 ≤ k ≤ decks) or k identical jokers (2 ≤ k ≤
decks; jokers mean no-trump). With two decks that is one level card, a level pair or a joker
pair; more decks add triples and quads, and more copies beat fewer (RULES-SPEC.md §9.2
Bidding). Whether a bid may stand over the standing bid depends on the option (written here for
two decks; with more, each count of copies is a rank of its own, above all showings of fewer):

- ``strength``: single level card < level pair < ``SJ`` pair < ``BJ`` pair; a new bid must be
  strictly stronger; any seat may bid, the standing bidder too.
- ``count`` (冲主): an overcall shows more level cards of another suit, or at least as many
  identical jokers as the level cards shown; only another seat may overcall (seed 002:
  其他玩家); a joker showing stands for good.
- ``reinforce`` (seed 003): single < pair < joker pair, both joker pairs equal, and the earliest
  of equal strength stands. The kinds of seed 003 fall out of who shows what: the bidder's
  second copy is 自保, another seat's pair of another suit 反主, the bidder's pair of another
  suit 自反, a joker pair 反无主.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shengji.engine.action_errors import (
    BID_CARDS_NOT_HELD,
    BID_NOT_SHOWABLE,
    BID_OWN_OVERCALL,
    BID_SAME_SUIT,
    BID_TOO_WEAK,
)
from shengji.engine.cards import BIG_JOKER, RANKS, SMALL_JOKER, SUITS, Card, format_cards

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


def showing_error(cards: Sequence[int], level: str, decks: int = 2) -> str | None:
    """None when the cards are a showable bid: 1 to ``decks`` identical level cards, or 2 to
    ``decks`` identical jokers."""
    if not 1 <= len(cards) <= decks or any(c != cards[0] for c in cards):
        return BID_NOT_SHOWABLE
    first = cards[0]
    if first >= SMALL_JOKER:
        return None if len(cards) >= 2 else BID_NOT_SHOWABLE
    return None if _is_level_card(first, level) else BID_NOT_SHOWABLE


def _is_level_card(card: int, level: str) -> bool:
    return card < SMALL_JOKER and RANKS[card % 13] == level


def _held(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return all(hand.count(c) >= cards.count(c) for c in set(cards))


def _suit_of(cards: Sequence[int]) -> str | None:
    return None if cards[0] >= SMALL_JOKER else SUITS[cards[0] // 13]


def _strength(system: str, cards: Sequence[int]) -> int:
    """Comparable strength; under ``count`` the number of cards shown (a joker pair is 2).

    More copies beat fewer; at k ≥ 2 copies ``strength`` ranks level cards < ``SJ`` < ``BJ``
    (3 ranks a count: 3k − 4, +1, +2) and ``reinforce`` level cards < jokers, both joker
    showings equal (2 ranks a count: 2k − 2, +1). A single level card is 1. Two decks give the
    values of RULES-SPEC.md §5.2: single 1, pair 2, ``SJ`` pair 3, ``BJ`` pair 4 (``reinforce``: 1,
    2, 3).
    """
    count = len(cards)
    if system == "count" or count == 1:
        return count
    if system == "reinforce":
        return 2 * count - 2 + (1 if cards[0] >= SMALL_JOKER else 0)
    rank = 2 if cards[0] == BIG_JOKER else 1 if cards[0] == SMALL_JOKER else 0
    return 3 * count - 4 + rank


def bid_error(
    system: str,
    level: str,
    standing: Bid | None,
    seat: int,
    cards: Sequence[int],
    hand: Sequence[int],
    decks: int = 2,
) -> str | None:
    """None when ``seat`` may bid ``cards`` now, else the reason code.

    ``hand`` is what the seat has been dealt so far (RULES-SPEC.md §5.1: bids during the deal are
    checked against the cards received by then).
    """
    code = showing_error(cards, level, decks)
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
        return None if len(cards) >= len(standing.cards) else BID_TOO_WEAK
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


def possible_showings(hand: Sequence[int], level: str, decks: int = 2) -> list[tuple[int, ...]]:
    """Every distinct showable bid the hand holds: level cards suit by suit (S H C D), each from
    one copy up to the copies held (at most ``decks``), then ``SJ`` and ``BJ`` from two copies
    up."""
    level_rank = RANKS.index(level)
    found: list[tuple[int, ...]] = []
    for suit_index in range(4):
        card = suit_index * 13 + level_rank
        found.extend((card,) * k for k in range(1, min(hand.count(card), decks) + 1))
    for joker in (SMALL_JOKER, BIG_JOKER):
        found.extend((joker,) * k for k in range(2, min(hand.count(joker), decks) + 1))
    return found


def strongest_showing(
    cards: Sequence[int], level: str, system: str, decks: int = 2
) -> tuple[Card, ...] | None:
    """RULES-SPEC.md §5.2 ``flip_rule = as_bids``: the turned-over kitty read as bids under
    ``system``, card by card in the order turned; None when they hold no bid.

    Each card shows what it completes: a level card itself, and the n-th copy of a level card
    or a joker n copies (a single joker is no bid). A showing stands when it is stronger than
    the standing one, so the strongest wins and the earliest of equal strength stays. No seat
    shows them, so the seat rules (``count``: only another seat, another suit) do not apply:
    only the order of strength (docs/ENGINE-PART2-DECISIONS.md D12).
    """
    best: tuple[Card, ...] | None = None
    copies: dict[int, int] = {}
    for card in cards:
        copies[card] = copies.get(card, 0) + 1
        shown = (Card(card),) * copies[card]
        if showing_error(shown, level, decks) is not None:
            continue
        if best is None or _flip_stands(system, shown, best):
            best = shown
    return best


def _flip_stands(system: str, shown: Sequence[int], best: Sequence[int]) -> bool:
    """Whether ``shown`` is stronger than ``best``: ``_strength``, except that under ``count``
    jokers stand over as many level cards or fewer and nothing stands over jokers (so the two
    joker pairs are equal), as in its bidding."""
    if system != "count":
        return _strength(system, shown) > _strength(system, best)
    if best[0] >= SMALL_JOKER:
        return False
    if shown[0] >= SMALL_JOKER:
        return len(shown) >= len(best)
    return len(shown) > len(best)


def showing_suit(cards: Sequence[int] | None) -> str | None:
    """The suit a showing names; None for a joker pair (no-trump) or no showing."""
    return None if not cards else _suit_of(cards)


def legal_bids(
    system: str,
    level: str,
    standing: Bid | None,
    seat: int,
    hand: Sequence[int],
    decks: int = 2,
) -> list[tuple[int, ...]]:
    """Every showing ``seat`` may bid now."""
    return [
        cards
        for cards in possible_showings(hand, level, decks)
        if bid_error(system, level, standing, seat, cards, hand, decks) is None
    ]
