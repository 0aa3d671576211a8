"""Translation between our notation and the peer bot's (bench/bench_peer.py), from one seat's
view only.

The peer writes a card suit first with ``10`` for the ten and calls the small joker ``LJ``
(``S10``, ``HA``, ``LJ``, ``BJ``); we write rank first with ``T`` and call it ``SJ`` (``TS``,
``AH``, ``SJ``, ``BJ``; docs/NOTATION.md), so the peer's ``SJ`` is our ``JS``. Its level is a
rank (``"10"``), its trump suit one of ``S H D C`` or None for no-trump, as ours. A declaration
is ``{"seat", "cards", "strength"}`` with strength 1 (a level card), 2 (a level pair), 3 (a
small-joker pair), 4 (a big-joker pair): our ``strength`` bidding at two decks (RULES-SPEC.md
§5.2).

``peer_request`` builds what the peer's bot is given for a decision from ``view_for(seat)`` and
the public history alone: the seat's hand, the level and trump, the standing bid, the finished
tricks (from the history's plays, winners by our engine), the current trick, the attackers'
points and, for the dealer, its own buried cards. The peer's state object also holds the other
hands and (for a non-dealer) the kitty: those are filled by a shuffle of the cards this seat
cannot see, with the sizes the view shows, so nothing hidden reaches the peer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from shengji.bots.memory import remember, trump_of
from shengji.engine.cards import BIG_JOKER, RANKS, SMALL_JOKER, SUITS, format_cards, parse_cards
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import points
from shengji.engine.trick import trick_winner
from shengji.engine.trump import Trump

PEER_TEN = "10"
PEER_RANKS = tuple(PEER_TEN if r == "T" else r for r in RANKS)
DECKS = 2
CARD_IDS = 54
KITTY = 8
PEER_DECLARE, PEER_BURY, PEER_PLAY = "declare", "bury", "play"


def peer_rank(rank: str) -> str:
    """Our rank letter as the peer writes it (``T`` → ``10``)."""
    return PEER_TEN if rank == "T" else rank


def peer_card(card: int) -> str:
    """``Card('TS')`` → ``"S10"``, ``SJ`` → ``"LJ"``."""
    if card == SMALL_JOKER:
        return "LJ"
    if card == BIG_JOKER:
        return "BJ"
    return SUITS[card // 13] + peer_rank(RANKS[card % 13])


def our_card(code: str) -> int:
    """The peer's ``"S10"`` → our card id (``TS``); ``LJ`` → ``SJ``."""
    if code == "LJ":
        return SMALL_JOKER
    if code == "BJ":
        return BIG_JOKER
    suit, rank = code[:1], code[1:]
    if suit not in SUITS or rank not in PEER_RANKS:
        raise ValueError(f"not a peer card code: {code!r}")
    return SUITS.index(suit) * 13 + PEER_RANKS.index(rank)


def peer_cards(cards: Sequence[int]) -> list[str]:
    return [peer_card(c) for c in cards]


def our_cards(codes: Sequence[str]) -> list[int]:
    return [our_card(c) for c in codes]


def bid_strength(cards: Sequence[int]) -> int:
    """The peer's declaration strength of a two-deck showing (1 … 4)."""
    if len(cards) == 1:
        return 1
    if cards[0] == BIG_JOKER:
        return 4
    return 3 if cards[0] == SMALL_JOKER else 2


def peer_declaration(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The standing bid of the view (its last bid) as the peer's declaration, or None."""
    bids = view.get("bids") or []
    if not bids:
        return None
    standing = bids[-1]
    cards = parse_cards(str(standing["cards"]))
    return {
        "seat": int(standing["seat"]),
        "cards": peer_cards(cards),
        "strength": bid_strength(cards),
    }


def peer_trick(
    plays: Sequence[tuple[int, Sequence[int]]], trump: Trump, rules: RuleSet
) -> dict[str, Any]:
    """A finished trick (``(seat, cards)`` from the leader) with its winner by our engine and
    its points, as the peer's ``{"leader", "plays", "winner", "points"}``."""
    found = trick_winner(
        [list(c) for _, c in plays], trump, rules.throw_beat, rules.bombs, rules.rainbow_min
    )
    return {
        "leader": plays[0][0],
        "plays": [{"seat": s, "cards": peer_cards(c)} for s, c in plays],
        "winner": plays[found][0],
        "points": sum(points(c) for _, c in plays),
    }


def current_trick(view: Mapping[str, Any]) -> dict[str, Any]:
    """The trick in progress as the peer's ``{"leader", "plays"}``."""
    trick = view.get("trick") or {}
    plays = trick.get("plays") or []
    return {
        "leader": int(trick.get("leader", view.get("to_act") or 0)),
        "plays": [
            {"seat": int(p["seat"]), "cards": peer_cards(parse_cards(str(p["cards"])))}
            for p in plays
        ],
    }


def unseen(hand: Sequence[int], played: Sequence[int], own_kitty: Sequence[int]) -> list[int]:
    """The cards this seat cannot see: two decks less its hand, every card played (``played``:
    copies of each card id) and, for the dealer, its own buried cards; sorted by id."""
    left = [DECKS - played[c] for c in range(CARD_IDS)]
    for c in [*hand, *own_kitty]:
        left[c] -= 1
    if any(n < 0 for n in left):
        raise ValueError("the seat's hand, kitty and the played cards hold a card three times")
    return [c for c in range(CARD_IDS) for _ in range(left[c])]


def fill_hidden(
    seat: int, counts: Sequence[int], cards: Sequence[int], kitty: int, rng: Random
) -> tuple[list[list[int]], list[int]]:
    """Deal ``cards`` (what ``seat`` cannot see), shuffled, to the other seats (``counts[s]``
    each) and ``kitty`` cards to a kitty; ``seat``'s own entry stays empty."""
    pool = list(cards)
    wanted = sum(n for s, n in enumerate(counts) if s != seat) + kitty
    if wanted != len(pool):
        raise ValueError(f"{len(pool)} unseen cards for {wanted} hidden places")
    rng.shuffle(pool)
    hands: list[list[int]] = []
    at = 0
    for s, n in enumerate(counts):
        if s == seat:
            hands.append([])
            continue
        hands.append(pool[at : at + n])
        at += n
    return hands, pool[at:]


def peer_request(
    op: str, view: Mapping[str, Any], history: Sequence[str], rules: RuleSet, rng: Random
) -> dict[str, Any]:
    """The peer's input for ``op`` (declare, bury or play) from the seat's view and the public
    history; ``rng`` shuffles the hidden cards."""
    seat = int(view["seat"])
    hand = parse_cards(str(view.get("hand") or ""))
    request: dict[str, Any] = {
        "seat": seat,
        "level": peer_rank(str(view["level"])),
        "banker": view.get("dealer"),
        "declaration": peer_declaration(view),
    }
    if op == PEER_DECLARE:
        hands: list[list[str]] = [[] for _ in range(4)]
        hands[seat] = peer_cards(hand)
        request["hands"] = hands
        request["final"] = view.get("phase") == "bidding"
        return request
    trump = trump_of(view)
    if trump is None:
        raise ValueError("no trump yet: only a declaration can be asked")
    request["trump_suit"] = trump.suit
    memory = remember(view, history)
    if not memory.complete:
        raise ValueError("the history does not cover the hand's plays")
    own_kitty = parse_cards(str(view.get("kitty") or "")) if op == PEER_PLAY else []
    hidden = unseen(hand, memory.played, own_kitty)
    dealer = seat == view.get("dealer")
    kitty = 0 if dealer else KITTY
    others, filled_kitty = fill_hidden(seat, view["card_counts"], hidden, kitty, rng)
    others[seat] = list(hand)
    request["hands"] = [peer_cards(h) for h in others]
    if op == PEER_BURY:
        return request
    request["buried"] = peer_cards(own_kitty if dealer else filled_kitty)
    request["history"] = [peer_trick(t, trump, rules) for t in memory.tricks]
    request["trick"] = current_trick(view)
    request["attacker_points"] = int((view.get("points") or {}).get("attackers") or 0)
    return request


def action_text(op: str, seat: int, codes: Sequence[str]) -> str:
    """The peer's answer as our action text: ``bid``, ``bury`` or ``play`` (docs/NOTATION.md)."""
    word = {PEER_DECLARE: "bid", PEER_BURY: "bury", PEER_PLAY: "play"}[op]
    return f"{word} {seat} {format_cards(our_cards(codes))}"
