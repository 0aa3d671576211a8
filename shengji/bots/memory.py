"""What a seat may remember of a hand, rebuilt from public information only.

A bot is called with a seat's view (``view_for(seat)``) and the hand's *public history*: the
action texts in order. Only ``play`` actions are read from it; bids come from the view, and
``draw``, ``close``, ``bury`` and ``leave`` are skipped unread. The walk pairs each lead with
the view's ``failed_throws`` (seat, trick): a forced throw counts as the cards it played (its
whole attempt is public), and a rejected throw counts as nothing, its cards never read (they
are the thrower's secret; ``public_history`` removes them anyway).

From that walk a ``Memory`` keeps: the cards played (copies counted), the groups each seat has
shown void in, the groups where a seat has shown it holds no pair, and cards certainly in a
seat's hand (level cards shown in a bid and not played yet, the part of a forced throw that was
taken back). Everything here is public: it is what a careful player at the table would note.

If the history is missing or does not match the view (wrong number of tricks), the memory falls
back to what the view alone shows (the current and the last trick, the point cards taken) and
``complete`` is False: bots then know fewer played cards, which only makes them more careful.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shengji.engine.actions import TAKEBACK, Action, as_action
from shengji.engine.bombs import BOMB_SIZE, FOLLOW_SUIT, OFF, is_bomb
from shengji.engine.cards import parse_cards
from shengji.engine.lead import lead_info
from shengji.engine.patterns import NO_GROUP, pair_ids, play_group
from shengji.engine.rules import MAX_PLAYERS as MAX_SEATS
from shengji.engine.rules import RuleSet
from shengji.engine.takeback import standing_indices
from shengji.engine.trump import Trump

CARD_SLOTS = 54
NO_PROTECTIONS = "no_protections"
PAIRS_OWED = (NO_PROTECTIONS, "tractors_only_from_tractors")
"""The draw policies under which a follower giving fewer pairs than the lead asks holds no
more pairs in the group: ``suit_only`` owes none, and the protecting policies let a follower
keep a pair inside a larger tuple (RULES-SPEC.md §9.2, §10.14)."""
SEATS = 4
"""Seats of a classic table; a view's ``players`` (4..8) says how many a hand has."""


def counts_of(cards: Iterable[int]) -> list[int]:
    """Copies of each card id (a list of 54 counts)."""
    found = [0] * CARD_SLOTS
    for c in cards:
        found[c] += 1
    return found


@dataclass(slots=True)
class Memory:
    """Public facts of a hand so far, as counts and bitmasks (bit ``1 << group``).

    ``played``: copies of each card played (the current trick included). ``voids[s]``: groups
    seat ``s`` has shown it no longer holds. ``no_pairs[s]``: groups where seat ``s`` has shown
    it holds no pair. ``known[s]``: copies of each card certainly in seat ``s``'s hand.
    ``dealer_or_kitty``: cards certainly with the dealer or in the buried kitty (the dealer's
    bid cards and the flipped kitty cards, not played yet). ``complete``: the history covered
    every play of the hand. ``tricks``: every completed trick as ``(seat, cards)`` in play
    order (what ``shengji.bots.friendship`` reads). The per-seat lists have one entry per seat
    (``new_memory(players)``; four by default). ``bombs`` and ``draw_policy`` are the table's
    (RULES-SPEC.md §10.16, §9.2, §10.14): they say what a follow proves.
    """

    played: list[int] = field(default_factory=lambda: [0] * CARD_SLOTS)
    voids: list[int] = field(default_factory=lambda: [0] * SEATS)
    no_pairs: list[int] = field(default_factory=lambda: [0] * SEATS)
    known: list[list[int]] = field(default_factory=lambda: [[0] * CARD_SLOTS for _ in range(4)])
    dealer_or_kitty: list[int] = field(default_factory=lambda: [0] * CARD_SLOTS)
    complete: bool = True
    tricks: list[tuple[tuple[int, tuple[int, ...]], ...]] = field(default_factory=list)
    bombs: str = OFF
    draw_policy: str = NO_PROTECTIONS

    def copy(self) -> Memory:
        return Memory(
            list(self.played),
            list(self.voids),
            list(self.no_pairs),
            [list(k) for k in self.known],
            list(self.dealer_or_kitty),
            self.complete,
            list(self.tricks),
            self.bombs,
            self.draw_policy,
        )

    @property
    def players(self) -> int:
        return len(self.voids)

    def note_play(
        self, seat: int, cards: Sequence[int], lead: Sequence[int] | None, trump: Trump
    ) -> None:
        """Record ``seat`` playing ``cards``; ``lead`` is the trick's lead (None for a lead)."""
        played = self.played
        known = self.known[seat]
        held = self.dealer_or_kitty
        for c in cards:
            played[c] += 1
            if known[c]:
                known[c] -= 1
            elif held[c]:
                held[c] -= 1
        if lead is not None:
            self._note_follow(seat, cards, lead, trump)

    def _note_follow(
        self, seat: int, cards: Sequence[int], lead: Sequence[int], trump: Trump
    ) -> None:
        """A follower with fewer led-group cards than the lead has no more of them; one that
        gave fewer pairs than the lead asks has no more pairs in that group (RULES-SPEC.md §4),
        unless the table's rules let it keep them (below)."""
        if len(lead) > 1 and play_group(lead, trump) == NO_GROUP:
            return  # a rainbow lead (RULES-SPEC.md §10.17): no suit was owed
        groups = trump.groups
        group = groups[lead[0]]
        bit = 1 << group
        if self.bombs != OFF and len(lead) == BOMB_SIZE and is_bomb(cards):
            # RULES-SPEC.md §10.16: a bomb is played whatever the hand holds under any_suit;
            # under follow_suit one outside the led group proves a void in it.
            if self.bombs == FOLLOW_SUIT and groups[cards[0]] != group:
                self.voids[seat] |= bit
                self.no_pairs[seat] |= bit
            return
        suited = [c for c in cards if groups[c] == group]
        if len(suited) < len(lead):
            self.voids[seat] |= bit
            self.no_pairs[seat] |= bit
            return
        if len(lead) > 1 and self.draw_policy in PAIRS_OWED:
            wanted = lead_info(lead, trump).pair_units
            if wanted and len(pair_ids(suited)) < wanted:
                self.no_pairs[seat] |= bit


def new_memory(
    players: int = SEATS, *, complete: bool = True, rules: RuleSet | None = None
) -> Memory:
    """An empty memory for a table of ``players`` seats (under ``rules``' bombs and draw
    policy; None: the classic rules)."""
    return Memory(
        voids=[0] * players,
        no_pairs=[0] * players,
        known=[[0] * CARD_SLOTS for _ in range(players)],
        complete=complete,
        bombs=OFF if rules is None else rules.bombs,
        draw_policy=NO_PROTECTIONS if rules is None else rules.draw_policy,
    )


SEAT_WORDS = ("0", "1", "2", "3", "4", "5", "6", "7")


_PARSED: dict[str, tuple[int, ...]] = {}


def _parsed(text: str) -> tuple[int, ...]:
    """``parse_cards`` of a play's card text, remembered (a long hand's history is read again
    at every decision)."""
    found = _PARSED.get(text)
    if found is None:
        if len(_PARSED) > 100_000:
            _PARSED.clear()
        found = tuple(parse_cards(text))
        _PARSED[text] = found
    return found


def _play_parts(text: str) -> tuple[int, str] | None:
    """(seat, card text) of a ``play`` action text, else None. ``play N`` alone (a redacted
    rejected throw) gives an empty card text."""
    words = text.split(None, 2)
    if len(words) < 2 or words[0].lower() != "play" or words[1] not in SEAT_WORDS:
        return None
    return int(words[1]), words[2] if len(words) > 2 else ""


@dataclass(frozen=True, slots=True)
class PublicPlay:
    """One play action of the history as the walk reads it."""

    index: int
    """Position of the action in the history."""
    seat: int
    trick: int
    is_lead: bool
    cards: tuple[int, ...] | None
    """What reached the table: None for a rejected throw."""
    taken_back: tuple[int, ...]
    """The part of a forced throw that went back to the thrower's hand."""


def walk_plays(
    history: Sequence[str], failed_throws: Sequence[Mapping[str, Any]], players: int = SEATS
) -> Iterator[PublicPlay]:
    """The history's plays with trick numbers, failed throws resolved from the view's
    ``failed_throws`` (docs/NOTATION.md): forced ones count as the cards played, rejected ones
    as nothing (their cards are not read). A trick is complete after ``players`` plays."""
    trick = 0
    in_trick = 0
    pending = 0
    for index, text in enumerate(history):
        parts = _play_parts(str(text))
        if parts is None:
            continue
        seat, card_text = parts
        if in_trick == 0 and pending < len(failed_throws):
            failed = failed_throws[pending]
            if failed.get("seat") == seat and failed.get("trick") == trick:
                pending += 1
                if failed.get("result") == "rejected":
                    yield PublicPlay(index, seat, trick, True, None, ())
                    continue
                played = tuple(parse_cards(str(failed.get("played") or "")))
                attempted = list(parse_cards(str(failed.get("attempted") or "")))
                for c in played:
                    if c in attempted:
                        attempted.remove(c)
                yield PublicPlay(index, seat, trick, True, played, tuple(attempted))
                in_trick = 1
                continue
        cards = _parsed(card_text)
        yield PublicPlay(index, seat, trick, in_trick == 0, cards, ())
        in_trick += 1
        if in_trick == players:
            in_trick = 0
            trick += 1


def public_history(actions: Iterable[Action | str], view: Mapping[str, Any]) -> list[str]:
    """The hand's actions as the view's seat may know them.

    Keeps bids and plays (and ``close``, ``leave``); drops ``draw``; a ``bury`` keeps its cards
    only for the seat that buried them (the dealer, or a thief, RULES-SPEC.md §10.24); another
    seat's rejected throw is written ``play N`` without its cards. A takeback and the bid or
    play it withdrew are dropped (RULES-SPEC.md §10.22, §10.23: the hand is the one its
    standing actions make).
    The site can pass its action log through this before calling a bot (the bots read only
    ``play`` actions and never the cards of another seat's rejected throw, so the choice is
    the same either way; tests/bots check it).
    """
    seat = view.get("seat")
    texts = _standing_texts([str(a) for a in actions])
    out: list[str] = []
    hidden: set[int] = set()
    failed = view.get("failed_throws") or []
    if any(f.get("result") == "rejected" and f.get("seat") != seat for f in failed):
        for play in walk_plays(texts, failed, players_of(view)):
            if play.cards is None and play.seat != seat:
                hidden.add(play.index)
    for index, text in enumerate(texts):
        word = text.split(None, 1)[0].lower() if text.strip() else ""
        if word == "draw":
            continue
        if word == "bury" and text.split()[1:2] != [str(seat)]:
            out.append(" ".join(text.split()[:2]))
            continue
        if index in hidden:
            out.append(" ".join(text.split()[:2]))
            continue
        out.append(text)
    return out


def _standing_texts(texts: list[str]) -> list[str]:
    """The texts of the actions still standing (takeback.py), all of them without a takeback."""
    if not any(text.lower().startswith(TAKEBACK) for text in texts):
        return texts
    actions = [as_action(text, MAX_SEATS) for text in texts]
    return [texts[index] for index in standing_indices(actions)]


def players_of(view: Mapping[str, Any]) -> int:
    """Seats at the table (a view without ``players`` is a classic four-seat one)."""
    return int(view.get("players") or SEATS)


def decks_of(view: Mapping[str, Any]) -> int:
    """Decks in play (a view without ``decks`` is a classic two-deck one)."""
    return int(view.get("decks") or 2)


def copies_of(view: Mapping[str, Any], rules: RuleSet) -> tuple[int, ...] | None:
    """Copies of each card in the hand's deal when the table's deck is not full (RULES-SPEC.md
    §10.11, §10.12: the view shows the cards removed), else None."""
    if not rules.has_deck_options:
        return None
    return rules.card_copies(parse_cards(view.get("removed") or ""))


def trump_of(view: Mapping[str, Any]) -> Trump | None:
    found = view.get("trump")
    if not found:
        return None
    length, size = found.get("tractor") or (2, 2)  # RULES-SPEC.md §10.13
    return Trump(str(found["level"]), found.get("suit"), (int(length), int(size)))


def _trick_cards(trick: Mapping[str, Any] | None) -> list[tuple[int, tuple[int, ...]]]:
    if not trick:
        return []
    return [(int(p["seat"]), _parsed(p["cards"])) for p in trick.get("plays", [])]


def remember(
    view: Mapping[str, Any], history: Sequence[str] | None = None, rules: RuleSet | None = None
) -> Memory:
    """The memory of the view's seat: from the history when it matches the view, else from
    the view alone (``complete`` False). ``rules``: the table's, for what a follow proves
    (None: the classic rules)."""
    trump = trump_of(view)
    players = players_of(view)
    memory = new_memory(players, rules=rules)
    _note_bids(memory, view)
    if trump is None:
        return memory
    if history is not None and _walk_into(memory, view, history, trump):
        return memory
    memory = new_memory(players, complete=not view.get("tricks_played"), rules=rules)
    _note_bids(memory, view)
    _from_view(memory, view, trump)
    return memory


def _note_bids(memory: Memory, view: Mapping[str, Any]) -> None:
    """Level cards shown in bids are in the bidder's hand (the dealer's may have been buried),
    and flipped kitty cards went to the dealer (who may have buried them)."""
    dealer = view.get("dealer")
    for bid in view.get("bids") or []:
        seat = int(bid["seat"])
        shown = counts_of(parse_cards(bid["cards"]))
        target = memory.dealer_or_kitty if seat == dealer else memory.known[seat]
        for c, n in enumerate(shown):
            if n > target[c]:
                target[c] = n
    if dealer is not None:
        decks = decks_of(view)
        for c in parse_cards(view.get("flipped") or ""):
            memory.dealer_or_kitty[c] = min(decks, memory.dealer_or_kitty[c] + 1)


def _walk_into(
    memory: Memory, view: Mapping[str, Any], history: Sequence[str], trump: Trump
) -> bool:
    """Replay the public plays into ``memory``; False when they do not match the view."""
    lead: tuple[int, ...] | None = None
    current: list[tuple[int, tuple[int, ...]]] = []
    tricks = 0
    players = players_of(view)
    for play in walk_plays(history, view.get("failed_throws") or [], players):
        if play.cards is None:
            continue
        if play.is_lead:
            lead = play.cards
            current = []
        memory.note_play(play.seat, play.cards, None if play.is_lead else lead, trump)
        known = memory.known[play.seat]
        for c in set(play.taken_back):
            known[c] = max(known[c], play.taken_back.count(c))
        current.append((play.seat, play.cards))
        if len(current) == players:
            memory.tricks.append(tuple(current))
            tricks += 1
            current = []
    if tricks != view.get("tricks_played", 0):
        return False
    shown = _trick_cards(view.get("trick"))
    return [(s, sorted(c)) for s, c in current] == [(s, sorted(c)) for s, c in shown]


def _from_view(memory: Memory, view: Mapping[str, Any], trump: Trump) -> None:
    """What the view alone shows: the last and current tricks and every point card taken."""
    last = _trick_cards(view.get("last_trick"))
    current = _trick_cards(view.get("trick"))
    for plays in (last, current):
        if plays:
            lead = plays[0][1]
            for i, (seat, cards) in enumerate(plays):
                memory.note_play(seat, cards, None if i == 0 else lead, trump)
    if last:
        memory.tricks.append(tuple(last))
    in_last = counts_of(c for _, cards in last for c in cards)
    taken = view.get("point_cards") or {}
    for side in ("attackers", "defenders"):
        for c in parse_cards(taken.get(side) or ""):
            if in_last[c]:
                in_last[c] -= 1
            else:
                memory.played[c] += 1
