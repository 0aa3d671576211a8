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
from shengji.engine.trump import NO_LEVEL

FIRST = "first"
SELF_REINFORCE = "self_reinforce"  # 自保
OVERTURN = "overturn"  # 反主
SELF_OVERTURN = "self_overturn"  # 自反
NO_TRUMP_OVERTURN = "no_trump_overturn"  # 反无主
BID_KINDS = (FIRST, SELF_REINFORCE, OVERTURN, SELF_OVERTURN, NO_TRUMP_OVERTURN)

JOKERS_HIGH = "jokers_high"
SUIT_ORDER = "suit_order"
LENGTH_ONLY = "length_only"
ANY_STRONGER = "any_stronger"
REINFORCE_ONLY = "reinforce_only"
REINFORCE_TO_MATCH = "reinforce_to_match"
PAIR_OR_MORE = "pair_or_more"
ALL_COPIES = "all_copies"
SMALL_ALL_BIG_LESS_ONE = "small_all_big_less_one"
NO_JOKER_BIDS = "none"
_SUIT_RANKS = {"S": 3, "H": 2, "C": 1, "D": 0}
"""RULES-SPEC.md §10.18 ``suit_order``: S > H > C > D."""


@dataclass(frozen=True, slots=True)
class BidOptions:
    """The bidding house options (RULES-SPEC.md §10.18–§10.20): ``order`` (``bid_order``),
    ``reinforce`` (``bid_reinforce``) and ``jokers`` (``joker_bids``)."""

    order: str = JOKERS_HIGH
    reinforce: str = ANY_STRONGER
    jokers: str = PAIR_OR_MORE


DEFAULT_BID_OPTIONS = BidOptions()
"""Today's bidding: every preset and every stored hand bids under it."""


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


def showing_error(
    cards: Sequence[int], level: str, decks: int = 2, jokers: str = PAIR_OR_MORE
) -> str | None:
    """None when the cards are a showable bid: 1 to ``decks`` identical level cards, or 2 to
    ``decks`` identical jokers (as many as ``joker_bids`` asks, RULES-SPEC.md §10.20). Nothing is
    showable at level NT, whose trump is fixed (RULES-SPEC.md §10.5)."""
    if not 1 <= len(cards) <= decks or any(c != cards[0] for c in cards) or level == NO_LEVEL:
        return BID_NOT_SHOWABLE
    first = cards[0]
    if first >= SMALL_JOKER:
        fewest = _fewest_jokers(first, jokers, decks)
        return None if fewest is not None and len(cards) >= fewest else BID_NOT_SHOWABLE
    return None if _is_level_card(first, level) else BID_NOT_SHOWABLE


def _fewest_jokers(joker: int, jokers: str, decks: int) -> int | None:
    """RULES-SPEC.md §10.20: the fewest copies of ``joker`` a showing needs; None when no joker
    may be shown."""
    if jokers == PAIR_OR_MORE:
        return 2
    if jokers == ALL_COPIES:
        return decks
    if jokers == SMALL_ALL_BIG_LESS_ONE:
        return decks - 1 if joker == BIG_JOKER else decks
    return None


def _is_level_card(card: int, level: str) -> bool:
    return card < SMALL_JOKER and RANKS[card % 13] == level


def _held(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return all(hand.count(c) >= cards.count(c) for c in set(cards))


def _suit_of(cards: Sequence[int]) -> str | None:
    return None if cards[0] >= SMALL_JOKER else SUITS[cards[0] // 13]


def _strength(system: str, cards: Sequence[int], options: BidOptions = DEFAULT_BID_OPTIONS) -> int:
    """Comparable strength; under ``count`` the number of cards shown (a joker pair is 2).

    More copies beat fewer; at k ≥ 2 copies ``strength`` ranks level cards < ``SJ`` < ``BJ``
    (3 ranks a count: 3k − 4, +1, +2) and ``reinforce`` level cards < jokers, both joker
    showings equal (2 ranks a count: 2k − 2, +1). A single level card is 1. Two decks give the
    values of RULES-SPEC.md §5.2: single 1, pair 2, ``SJ`` pair 3, ``BJ`` pair 4 (``reinforce``: 1,
    2, 3). Under ``strength`` with any bidding house option set, ``_ordered_strength``.
    """
    if (
        options is not DEFAULT_BID_OPTIONS
        and system == "strength"
        and options != DEFAULT_BID_OPTIONS
    ):
        return _ordered_strength(options.order, cards)
    count = len(cards)
    if system == "count" or count == 1:
        return count
    if system == "reinforce":
        return 2 * count - 2 + (1 if cards[0] >= SMALL_JOKER else 0)
    rank = 2 if cards[0] == BIG_JOKER else 1 if cards[0] == SMALL_JOKER else 0
    return 3 * count - 4 + rank


def _ordered_strength(order: str, cards: Sequence[int]) -> int:
    """RULES-SPEC.md §10.18: more cards beat fewer (8 ranks a count); at equal count, under
    ``jokers_high`` and ``suit_order``, ``BJ`` > ``SJ`` > level cards, and under ``suit_order``
    level cards of two or more copies also by suit, S > H > C > D; under ``length_only`` the
    count alone. A lone ``BJ`` (``joker_bids = small_all_big_less_one``) is thus above a level
    single and below a level pair (§10.20)."""
    count = len(cards)
    if order == LENGTH_ONLY:
        return 8 * count
    first = cards[0]
    if first >= SMALL_JOKER:
        return 8 * count + (7 if first == BIG_JOKER else 6)
    if order == SUIT_ORDER and count >= 2:
        return 8 * count + _SUIT_RANKS[SUITS[first // 13]]
    return 8 * count


def bid_error(
    system: str,
    level: str,
    standing: Bid | None,
    seat: int,
    cards: Sequence[int],
    hand: Sequence[int],
    decks: int = 2,
    options: BidOptions = DEFAULT_BID_OPTIONS,
    bids: Sequence[Bid] = (),
) -> str | None:
    """None when ``seat`` may bid ``cards`` now, else the reason code.

    ``hand`` is what the seat has been dealt so far (RULES-SPEC.md §5.1: bids during the deal are
    checked against the cards received by then). ``options`` are the bidding house options and
    ``bids`` the bids that stood so far, in order (read by ``reinforce_to_match``).
    """
    code = showing_error(cards, level, decks, options.jokers)
    if code is not None:
        return code
    if not _held(hand, cards):
        return BID_CARDS_NOT_HELD
    if standing is None:
        return None
    if system == "count":
        return _count_overcall_error(standing, seat, cards)
    if options.reinforce != ANY_STRONGER:
        if seat == standing.seat:
            return _reinforcement_error(standing, cards)
        if options.reinforce == REINFORCE_TO_MATCH and _matches(standing, seat, cards, bids):
            return None
    if _strength(system, cards, options) <= standing.strength:
        return BID_TOO_WEAK
    return None


def _reinforcement_error(standing: Bid, cards: Sequence[int]) -> str | None:
    """RULES-SPEC.md §10.19: while its bid stands, a seat may only add copies of its card."""
    if cards[0] == standing.cards[0] and len(cards) > len(standing.cards):
        return None
    return BID_OWN_OVERCALL


def _matches(standing: Bid, seat: int, cards: Sequence[int], bids: Sequence[Bid]) -> bool:
    """RULES-SPEC.md §10.19 ``reinforce_to_match``: ``seat`` shows the card of its last bid again
    with more copies, as many as the standing level showing (RULES-DECISIONS 45)."""
    if standing.jokers or len(cards) != len(standing.cards):
        return False
    last = next((bid for bid in reversed(bids) if bid.seat == seat), None)
    return last is not None and last.cards[0] == cards[0] and len(last.cards) < len(cards)


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


def make_bid(
    system: str,
    standing: Bid | None,
    seat: int,
    cards: Sequence[int],
    options: BidOptions = DEFAULT_BID_OPTIONS,
) -> Bid:
    """The ``Bid`` for an already checked showing, with its kind relative to the standing bid."""
    shown = tuple(Card(c) for c in cards)
    suit = _suit_of(shown)
    strength = _strength(system, shown, options)
    return Bid(seat, shown, suit, strength, _kind(standing, seat, suit, shown))


def _kind(standing: Bid | None, seat: int, suit: str | None, cards: Sequence[int]) -> str:
    if standing is None:
        return FIRST
    if cards[0] >= SMALL_JOKER:
        return NO_TRUMP_OVERTURN
    if seat != standing.seat:
        return OVERTURN
    return SELF_REINFORCE if suit == standing.suit else SELF_OVERTURN


def possible_showings(
    hand: Sequence[int], level: str, decks: int = 2, jokers: str = PAIR_OR_MORE
) -> list[tuple[int, ...]]:
    """Every distinct showable bid the hand holds: level cards suit by suit (S H C D), each from
    one copy up to the copies held (at most ``decks``), then ``SJ`` and ``BJ`` from two copies
    up (from as many as ``joker_bids`` asks, RULES-SPEC.md §10.20). None at level NT
    (RULES-SPEC.md §10.5)."""
    if level == NO_LEVEL:
        return []
    level_rank = RANKS.index(level)
    found: list[tuple[int, ...]] = []
    for suit_index in range(4):
        card = suit_index * 13 + level_rank
        found.extend((card,) * k for k in range(1, min(hand.count(card), decks) + 1))
    for joker in (SMALL_JOKER, BIG_JOKER):
        fewest = _fewest_jokers(joker, jokers, decks)
        if fewest is not None:
            found.extend((joker,) * k for k in range(fewest, min(hand.count(joker), decks) + 1))
    return found


def strongest_showing(
    cards: Sequence[int],
    level: str,
    system: str,
    decks: int = 2,
    options: BidOptions = DEFAULT_BID_OPTIONS,
) -> tuple[Card, ...] | None:
    """RULES-SPEC.md §5.2 ``flip_rule = as_bids``: the turned-over kitty read as bids under
    ``system``, card by card in the order turned; None when they hold no bid.

    Each card shows what it completes: a level card itself, and the n-th copy of a level card
    or a joker n copies (a single joker is no bid). A showing stands when it is stronger than
    the standing one, so the strongest wins and the earliest of equal strength stays. No seat
    shows them, so the seat rules (``count``: only another seat, another suit) do not apply:
    only the order of strength (docs/ENGINE-PART2-DECISIONS.md D12), in ``options``' order and
    with the joker showings they allow (RULES-SPEC.md §10.18, §10.20).
    """
    best: tuple[Card, ...] | None = None
    copies: dict[int, int] = {}
    for card in cards:
        copies[card] = copies.get(card, 0) + 1
        shown = (Card(card),) * copies[card]
        if showing_error(shown, level, decks, options.jokers) is not None:
            continue
        if best is None or _flip_stands(system, shown, best, options):
            best = shown
    return best


def _flip_stands(
    system: str,
    shown: Sequence[int],
    best: Sequence[int],
    options: BidOptions = DEFAULT_BID_OPTIONS,
) -> bool:
    """Whether ``shown`` is stronger than ``best``: ``_strength``, except that under ``count``
    jokers stand over as many level cards or fewer and nothing stands over jokers (so the two
    joker pairs are equal), as in its bidding."""
    if system != "count":
        return _strength(system, shown, options) > _strength(system, best, options)
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
    options: BidOptions = DEFAULT_BID_OPTIONS,
    bids: Sequence[Bid] = (),
) -> list[tuple[int, ...]]:
    """Every showing ``seat`` may bid now (``options`` and ``bids`` as ``bid_error`` reads
    them)."""
    return [
        cards
        for cards in possible_showings(hand, level, decks, options.jokers)
        if bid_error(system, level, standing, seat, cards, hand, decks, options, bids) is None
    ]
