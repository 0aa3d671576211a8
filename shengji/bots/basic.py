"""The basic bot: fast heuristics for every phase (docs/BOTS.md explains each rule).

- Bidding: bid the suit whose trumps (jokers, level cards, that suit) make the largest share of
  the cards received so far, when the share is high enough; overcall an opponent only with a
  clearly better suit; never overcall the partner.
- Burying: keep trumps, void the short side suits when it costs little, bury low cards, and
  keep point cards out of the kitty unless the dealer's trumps make the last trick safe.
- Leading: a whole hand that cannot be beaten; sure winners (throws that cannot fail given the
  cards already seen, top pairs and tractors, top singles) while nobody is likely to ruff;
  a low card of a suit the partner is void in; trumps when this seat holds many of them;
  else a low card of a short side suit.
- Following: every candidate play gets an expected value: the trick's points (its own
  included) times the chance this side takes the trick, minus what the cards spent are worth.
  So it wins tricks with points when it can, gives points to a partner who is winning, and
  otherwise discards low cards that carry no points.

The play policy works on a ``Knowledge`` (the view plus the memory of the public history),
never on a hand state: the search bot's playouts call it the same way.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import combinations
from random import Random
from typing import Any

from shengji.bots.base import BIDDING, BURYING, DEALING, PLAYING, acts_now, public_part
from shengji.bots.friendship import call_text, choose_calls, follow_bonus, lead_bonus, random_calls
from shengji.bots.knowledge import FRIENDS, Knowledge, hand_of, knowledge_from_view
from shengji.bots.memory import copies_of, counts_of, decks_of, players_of, trump_of
from shengji.engine.bidding import Bid, legal_bids, make_bid
from shengji.engine.bombs import BOMB_SIZE, FOLLOW_SUIT, OFF, bomb_allowed, is_bomb
from shengji.engine.cards import SMALL_JOKER, format_cards, parse_cards
from shengji.engine.follow import follow_error, legal_follow
from shengji.engine.lead import lead_info
from shengji.engine.patterns import best_cover, pair_ids, pair_profile, pairs_by_order, run_tops
from shengji.engine.rainbow import (
    answers,
    is_rainbow,
    rainbow_legal_follow,
    rainbow_multiplier,
    rainbow_units,
)
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import card_points, last_trick_multiplier
from shengji.engine.throw import throw_check
from shengji.engine.trick import play_score, trick_winner
from shengji.engine.trump import ORDER_SLOTS, TRUMP, Trump
from shengji.engine.views import lead_choices

Play = tuple[int, ...]
Scored = tuple[float, Play]

POINTS = tuple(card_points(c) for c in range(54))
NO_PROTECTIONS = "no_protections"
ALPHA = 0.5
"""Weight of a card's keep value against trick points when following."""
LEAD_VALUE = 0.0
"""What taking the lead is worth, in points."""
PAIR_BREAK = 6.0
"""Cost of splitting a pair held in hand."""
BOMB_KEEP = 30.0
"""Cost of spending or splitting four copies of a card under ``bombs`` (a bomb kept takes a
later trick with points; ALPHA halves it, so a bomb is played for about 15 points or more)."""


def keep_value(card: int, trump: Trump) -> float:
    """How much a card is worth keeping for later tricks (points not counted)."""
    order = trump.orders[card]
    if trump.groups[card] == TRUMP:
        return 9.0 + order
    return 0.8 * order


# --- per-decision context ------------------------------------------------------------------


_ORDERED: dict[Trump, tuple[int, ...]] = {}


def _by_group_and_order(trump: Trump) -> tuple[int, ...]:
    """Card ids sorted by group, then order (cached per trump)."""
    found = _ORDERED.get(trump)
    if found is None:
        found = tuple(sorted(range(54), key=lambda c: (trump.groups[c], trump.orders[c], c)))
        _ORDERED[trump] = found
    return found


class Ctx:
    """Facts computed once per decision from a ``Knowledge``."""

    __slots__ = (
        "bombs_apply",
        "card_orders",
        "counts",
        "groups",
        "k",
        "mine",
        "opps",
        "orders",
        "others",
        "pair_orders",
        "top1",
        "top2",
        "total_unseen",
        "trump",
        "tuple_cap",
        "unseen",
        "unseen_n",
    )

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        trump = k.trump
        self.trump = trump
        groups = trump.groups
        orders = trump.orders
        self.groups = groups
        self.orders = orders
        unseen = k.unseen()
        self.unseen = unseen
        self.counts = counts_of(k.hand)
        self.mine: list[list[int]] = [[], [], [], [], []]
        for c in sorted(k.hand, key=trump.strengths.__getitem__):
            self.mine[groups[c]].append(c)
        seat = k.seat
        if k.players == 4 and k.allies is None:
            self.opps: tuple[int, ...] = ((seat + 1) % 4, (seat + 3) % 4)
            self.others: tuple[int, ...] = ((seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)
        else:
            self.opps = k.opponents
            self.others = k.after_me()
        self.tuple_cap = k.decks
        unseen_n = [0] * 5
        card_orders: list[list[int]] = [[], [], [], [], []]
        pair_orders: list[list[int]] = [[], [], [], [], []]
        # Cards in (group, order) order, so the order lists come out sorted.
        for c in _by_group_and_order(trump):
            n = unseen[c]
            if n:
                g = groups[c]
                unseen_n[g] += n
                o = orders[c]
                found = card_orders[g]
                found.append(o)
                if n >= 2:
                    found.append(o)
                    pair_orders[g].append(o)
                    if n > 2:
                        found.extend([o] * (n - 2))
        self.card_orders = card_orders
        self.pair_orders = pair_orders
        top1 = [found[-1] if found else -1 for found in card_orders]
        top2 = [found[-1] if found else -1 for found in pair_orders]
        voids = k.memory.voids
        no_pairs = k.memory.no_pairs
        for g in range(5):
            bit = 1 << g
            holders = [s for s in self.others if not voids[s] & bit]
            if not holders:
                top1[g] = top2[g] = -1
            elif all(no_pairs[s] & bit for s in holders):
                top2[g] = -1
        self.unseen_n = unseen_n
        self.top1 = top1
        self.top2 = top2
        self.total_unseen = max(1, sum(unseen))
        plays = k.plays
        self.bombs_apply = k.rules.bombs != OFF and bool(plays) and len(plays[0]) == BOMB_SIZE

    def share(self, seat: int) -> float:
        """The part of the unseen cards that seat holds."""
        return min(1.0, self.k.card_counts[seat] / self.total_unseen)

    def p_void(self, seat: int, group: int) -> float:
        """Chance the seat holds no card of the group."""
        if self.k.memory.voids[seat] & (1 << group):
            return 1.0
        left = self.unseen_n[group]
        if not left:
            return 1.0
        return float((1.0 - self.share(seat)) ** left)

    def p_trump(self, seat: int) -> float:
        """Chance the seat still holds a trump."""
        return 1.0 - self.p_void(seat, TRUMP)

    def pseudo_hand(self, group: int) -> list[int]:
        """Every unseen card of the group another seat may hold, as one hand (a throw that
        stands against it stands against any real hand)."""
        voids = self.k.memory.voids
        no_pairs = self.k.memory.no_pairs
        bit = 1 << group
        holders = [s for s in self.others if not voids[s] & bit]
        if not holders:
            return []
        most = 1 if all(no_pairs[s] & bit for s in holders) else self.tuple_cap
        groups = self.groups
        unseen = self.unseen
        return [c for c in range(54) if groups[c] == group for _ in range(min(most, unseen[c]))]

    def stands(self, lead: Sequence[int]) -> bool:
        """Whether a lead of one group cannot be beaten in its group by any unseen card."""
        group = self.groups[lead[0]]
        info = lead_info(lead, self.trump)
        if not info.shape.is_throw:
            return self.in_suit_top(lead, info.shape.tractors, info.pair_units)
        forced_part = self.k.rules.forced_part  # whichever part: only "stands" matters here
        return throw_check(lead, [self.pseudo_hand(group)], self.trump, forced_part) is None

    def in_suit_top(self, lead: Sequence[int], tractors: Sequence[int], pair_units: int) -> bool:
        """A single, pair or tractor that no unseen card of its group can beat."""
        group = self.groups[lead[0]]
        key = max(self.orders[c] for c in lead)
        if not pair_units:
            return key >= self.top1[group]
        if key >= self.top2[group]:
            return True
        if not tractors:
            return False
        avail = pair_profile(self.pseudo_hand(group), self.trump)
        beaters = run_tops(avail, tractors[0])
        return not beaters or beaters[0] <= key


# --- leading -------------------------------------------------------------------------------


def _cheapest(cards: Sequence[int], ctx: Ctx) -> int:
    """The card of ``cards`` cheapest to give up: no points, not paired, low."""
    counts = ctx.counts
    trump = ctx.trump
    return min(
        cards,
        key=lambda c: (
            keep_value(c, trump) + 2.5 * POINTS[c] + (PAIR_BREAK if counts[c] >= 2 else 0.0)
        ),
    )


def _sure_throw(ctx: Ctx, group: int) -> Play | None:
    """The largest lead of the group that no unseen card can beat (several parts or one)."""
    mine = ctx.mine[group]
    if not mine:
        return None
    orders = ctx.orders
    top1, top2 = ctx.top1[group], ctx.top2[group]
    chosen: list[int] = []
    for c in sorted(set(mine)):
        o = orders[c]
        if ctx.counts[c] >= 2 and o >= top2:
            chosen += (c,) * ctx.counts[c]
        elif o >= top1:
            chosen.append(c)
    if not chosen:
        return None
    if ctx.stands(chosen):
        return tuple(chosen)
    return None


def _ruff_risk(ctx: Ctx, group: int, size: int, pairs: int) -> float:
    """Chance an opponent ruffs a lead of this non-trump group."""
    if group == TRUMP:
        return 0.0
    fit = 1.0 if not pairs else 0.5 if pairs == 1 else 0.3
    safe = 1.0
    for q in ctx.opps:
        safe *= 1.0 - ctx.p_void(q, group) * ctx.p_trump(q) * fit
    return 1.0 - safe


def _drawing_trumps(ctx: Ctx) -> bool:
    """Whether this seat holds enough trumps to gain by drawing the others'."""
    mine = len(ctx.mine[TRUMP])
    return mine >= 4 and mine >= 0.6 * ctx.unseen_n[TRUMP]


def lead_options(ctx: Ctx) -> list[Scored]:
    """Scored leads, best first."""
    k = ctx.k
    hand = k.hand
    options: dict[Play, float] = {}

    def offer(play: Play, score: float) -> None:
        key = tuple(sorted(play))
        if options.get(key, -1e9) < score:
            options[key] = score

    drawing = _drawing_trumps(ctx)
    memory = k.memory
    partners = (k.partner,) if k.players == 4 and k.allies is None else k.partners
    trump_bit = 1 << TRUMP
    for group in range(5):
        mine = ctx.mine[group]
        if not mine:
            continue
        if len(mine) == len(hand) and len(mine) > 1 and ctx.stands(mine):
            offer(tuple(mine), 1000.0)
        sure = _sure_throw(ctx, group)
        if sure is not None:
            info = lead_info(sure, ctx.trump)
            pts = sum(POINTS[c] for c in sure)
            risk = _ruff_risk(ctx, group, len(sure), info.pair_units)
            base = 40.0 + 4.0 * len(sure) + pts
            if group == TRUMP and not info.pair_units and len(sure) == 1:
                base = 24.0 if drawing else 6.0 - keep_value(sure[0], ctx.trump) * 0.3
            offer(sure, base * (1.0 - risk) - (15.0 + 2.0 * pts) * risk)
            if info.shape.is_throw:
                # The single top card alone, too (a throw gives it no extra safety).
                top = max(sure, key=ctx.trump.strengths.__getitem__)
                if ctx.counts[top] == 1 or group != TRUMP:
                    single_risk = _ruff_risk(ctx, group, 1, 0)
                    offer((top,), (30.0 + POINTS[top]) * (1.0 - single_risk) - 15 * single_risk)
        if group != TRUMP:
            bit = 1 << group
            partner_void = any(
                memory.voids[p] & bit and not memory.voids[p] & trump_bit for p in partners
            )
            opp_void = any(memory.voids[q] & (1 << group) for q in ctx.opps)
            low = _cheapest(mine, ctx)
            score = 12.0 - keep_value(low, ctx.trump) - 1.2 * len(mine) - 1.5 * POINTS[low]
            if partner_void and not opp_void:
                score = 45.0 - keep_value(low, ctx.trump) - 1.5 * POINTS[low]
            elif opp_void:
                score -= 8.0 + 2.0 * POINTS[low]
            offer((low,), score)
        else:
            low = _cheapest(mine, ctx)
            score = (22.0 if drawing else 2.0) - 0.5 * keep_value(low, ctx.trump)
            offer((low,), score - 1.5 * POINTS[low])
    for play in _lead_choices(k, ctx.trump):
        if ctx.trump.has_tractor_rule and _failing_run(ctx, play):
            continue
        if len(play) == 1:
            c = play[0]
            offer(play, -keep_value(c, ctx.trump) - 2.0 * POINTS[c] - 5.0)
        elif play not in options:
            # A pair or tractor that may be beaten: it draws the opponents' pairs.
            group = ctx.groups[play[0]]
            info = lead_info(play, ctx.trump)
            top = ctx.in_suit_top(play, info.tractors, info.pair_units)
            risk = _ruff_risk(ctx, group, len(play), info.pair_units)
            pts = sum(POINTS[c] for c in play)
            value = 8.0 + 2.0 * len(play) if top else 3.0
            spent = sum(keep_value(c, ctx.trump) for c in play) * 0.3
            offer(play, value * (1.0 - risk) - spent - pts * (0.2 if top else 1.0))
    if k.rules.rainbow_min:
        for score, play in _rainbow_leads(ctx):
            offer(play, score)
    if k.allies is not None:
        for play in options:
            options[play] += lead_bonus(k, play)
    scored = [(score, play) for play, score in options.items()]
    scored.sort(key=lambda item: -item[0])
    return scored


def _failing_run(ctx: Ctx, play: Play) -> bool:
    """Whether ``play``, a run of tuples shorter or thinner than the table's tractors
    (RULES-SPEC.md §10.13), is a throw that unseen cards may beat (it would be taken back)."""
    return len(play) > 1 and lead_info(play, ctx.trump).shape.is_throw and not ctx.stands(play)


def _rainbow_leads(ctx: Ctx) -> list[Scored]:
    """Rainbows worth leading (RULES-SPEC.md §10.17): each rank's cards that make one, when
    no unseen cards can make a higher rainbow as large (it then takes the trick, and the
    partners' points with it). Its cards, spent together on one trick, cost what they are worth
    (four aces led as a rainbow take one trick, not four); a whole hand that is one is led."""
    k = ctx.k
    trump = ctx.trump
    minimum = k.rules.rainbow_min
    found: list[Scored] = []
    for play in rainbow_leads(k.hand, trump, minimum):
        size = len(play)
        rank = play[0] % 13
        if any(_can_make_rainbow(ctx, higher, size) for higher in range(rank + 1, 13)):
            continue
        if size == len(k.hand):
            found.append((1000.0, play))
            continue
        spent = sum(keep_value(c, trump) for c in play)
        found.append((40.0 + 4.0 * size + sum(POINTS[c] for c in play) - spent, play))
    return found


def _can_make_rainbow(ctx: Ctx, rank: int, size: int) -> bool:
    """Whether the unseen cards of ``rank`` could make a rainbow of ``size`` cards."""
    groups = ctx.groups
    held = [(c, ctx.unseen[c]) for c in range(rank, 52, 13) if ctx.unseen[c]]
    return sum(n for _, n in held) >= size and len({groups[c] for c, _ in held}) >= 4


def rainbow_leads(hand: Sequence[int], trump: Trump, minimum: int) -> list[Play]:
    """Every rank's cards of the hand that make a rainbow lead (RULES-SPEC.md §10.17)."""
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        if c < SMALL_JOKER:
            by_rank.setdefault(c % 13, []).append(c)
    found = [tuple(sorted(cards)) for _, cards in sorted(by_rank.items())]
    return [cards for cards in found if is_rainbow(cards, trump, minimum)]


def _lead_choices(k: Knowledge, trump: Trump) -> list[Play]:
    """Every distinct single, tuple and tractor the hand can lead (with two decks, the
    engine's pairs and tractors)."""
    if k.decks <= 2:
        return lead_choices(k.hand, trump)
    from shengji.engine.tuples import tuple_lead_choices

    return [tuple(play) for play in tuple_lead_choices(k.hand, trump)]


# --- following -----------------------------------------------------------------------------


def _current_best(k: Knowledge) -> tuple[int, float]:
    """(index in the trick, score) of the play winning the trick so far."""
    trump = k.trump
    lead = k.plays[0]
    info = lead_info(lead, trump)
    best_index, best_score = 0, float(_lead_score(lead, trump))
    for index in range(1, len(k.plays)):
        score = _score(k.plays[index], lead, info, trump)
        if score is not None and score > best_score:
            best_index, best_score = index, score
    return best_index, best_score


def _lead_score(lead: Sequence[int], trump: Trump) -> int:
    """The lead's own score, on the scale of ``_score``."""
    if len(lead) == 1:
        return trump.strengths[lead[0]]
    return lead_info(lead, trump).key


def _score(play: Sequence[int], lead: Sequence[int], info: Any, trump: Trump) -> float | None:
    """A play's score against the lead (the engine's: a ruff of a non-trump lead scores above
    any follow in the suit), or None when it cannot win."""
    if len(lead) == 1:
        c = play[0]
        g = trump.groups[c]
        if g == TRUMP or g == trump.groups[lead[0]]:
            return float(trump.strengths[c])
        return None
    score = play_score(play, info, trump)
    return None if score is None else float(score)


def _p_beat(ctx: Ctx, seat: int, play: Sequence[int], lead: Sequence[int]) -> float:
    """Rough chance that ``seat``, still to play, beats ``play`` (the trick's best so far);
    under ``bombs`` (RULES-SPEC.md §10.16) a four-card lead may also be bombed."""
    if ctx.bombs_apply:
        if is_bomb(play):
            return _p_bomb(ctx, seat, lead, play)
        p = _p_beat_plain(ctx, seat, play, lead)
        return 1.0 - (1.0 - p) * (1.0 - _p_bomb(ctx, seat, lead, None))
    return _p_beat_plain(ctx, seat, play, lead)


def _p_bomb(ctx: Ctx, seat: int, lead: Sequence[int], over: Sequence[int] | None) -> float:
    """Rough chance that ``seat`` plays a bomb (higher than the bomb ``over``, when given): it
    must hold all four copies of a card none of which has been seen; under ``follow_suit`` one
    outside the led group only when void in it."""
    unseen = ctx.unseen
    each = ctx.share(seat) ** BOMB_SIZE
    groups = ctx.groups
    led = groups[lead[0]]
    follow_suit = ctx.k.rules.bombs == FOLLOW_SUIT
    p_void = ctx.p_void(seat, led) if follow_suit else 1.0
    floor = _bomb_rank(over, led, ctx.trump) if over is not None else (-1, -1)
    keep = 1.0
    for c in range(54):
        if unseen[c] < BOMB_SIZE or _bomb_rank((c,), led, ctx.trump) <= floor:
            continue
        chance = each if groups[c] == led or not follow_suit else each * p_void
        keep *= 1.0 - chance
    return 1.0 - keep


def _bomb_rank(bomb: Sequence[int], led: int, trump: Trump) -> tuple[int, int]:
    """A bomb's rank (RULES-SPEC.md §10.16): trump, then the led group, then the others; then
    its order. Equal ranks go to the one played first."""
    group = trump.groups[bomb[0]]
    return (2 if group == TRUMP else 1 if group == led else 0, trump.orders[bomb[0]])


def _p_beat_plain(ctx: Ctx, seat: int, play: Sequence[int], lead: Sequence[int]) -> float:
    groups, orders = ctx.groups, ctx.orders
    lead_group = groups[lead[0]]
    ruffed = groups[play[0]] == TRUMP and lead_group != TRUMP
    key = max(orders[c] for c in play)
    size = len(lead)
    pairs = lead_info(lead, ctx.trump).pair_units if size > 1 else 0
    share = ctx.share(seat)
    p_void = ctx.p_void(seat, lead_group)
    if pairs:
        higher_trumps = _above(ctx.pair_orders[TRUMP], key)
        higher = _above(ctx.pair_orders[lead_group], key)
        each = share * share
    else:
        higher_trumps = _above(ctx.card_orders[TRUMP], key)
        higher = _above(ctx.card_orders[lead_group], key)
        each = share
    fit = 1.0 if not pairs else 0.5
    if ruffed:
        if not higher_trumps:
            return 0.0
        return p_void * (1.0 - (1.0 - each) ** higher_trumps) * fit
    in_suit = 0.0 if p_void >= 1.0 else 1.0 - (1.0 - each) ** higher
    if lead_group == TRUMP:
        return in_suit
    ruff = p_void * ctx.p_trump(seat) * fit * 0.8
    return min(1.0, in_suit * (1.0 - p_void) + ruff)


def _above(orders: list[int], key: int) -> int:
    """How many of the sorted orders are above ``key``."""
    return len(orders) - bisect_right(orders, key)


def _p_side_holds(
    ctx: Ctx, play: Sequence[int], lead: Sequence[int], after: Sequence[int]
) -> float:
    """Chance the play stays best against the opponents among the seats ``after``."""
    keep = 1.0
    for seat in after:
        if not ctx.k.is_partner(seat):
            keep *= 1.0 - _p_beat(ctx, seat, play, lead)
    return keep


def _kitty_stake(ctx: Ctx, lead: Sequence[int]) -> float:
    """Points riding on the last trick: the kitty times its multiplier."""
    k = ctx.k
    if len(k.hand) != len(lead):
        return 0.0
    kitty_points = sum(POINTS[c] for c in k.kitty) if k.kitty is not None else 5 * k.decks
    return float(kitty_points * table_multiplier(lead, lead, ctx.trump, k.rules, k.decks))


def table_multiplier(
    lead: Sequence[int], winning: Sequence[int], trump: Trump, rules: RuleSet, decks: int
) -> int:
    """The kitty multiplier of a last trick led by ``lead`` and won by ``winning`` under the
    table's rules: a rainbow lead's (RULES-SPEC.md §10.17), else ``kitty_multiplier``'s
    (§5.5, §9.2.10, §10.2)."""
    rainbow = rules.rainbow_min
    if rainbow and is_rainbow(lead, trump, rainbow):
        return rainbow_multiplier(lead, trump, rainbow)
    try:
        return last_trick_multiplier(lead, winning, trump, rules.kitty_multiplier, decks)
    except ValueError:
        return 2


def _spend_cost(play: Sequence[int], ctx: Ctx) -> float:
    trump = ctx.trump
    counts = ctx.counts
    cost = 0.0
    used = counts_of(play)
    bombs = ctx.k.rules.bombs != OFF
    for c in set(play):
        cost += keep_value(c, trump) * used[c]
        if counts[c] >= 2 and used[c] < counts[c]:
            cost += PAIR_BREAK
        if bombs and counts[c] >= BOMB_SIZE:
            cost += BOMB_KEEP  # a bomb spent or broken (RULES-SPEC.md §10.16)
    return cost


def follow_options(ctx: Ctx) -> list[Scored]:
    """Scored follows, best first."""
    k = ctx.k
    lead = k.plays[0]
    trump = ctx.trump
    info = lead_info(lead, trump)
    judged = _judged_by_engine(k.rules)
    if judged:
        best_index, best_score = _engine_winner(k, k.plays), 0.0
    else:
        best_index, best_score = _current_best(k)
    n = k.players
    winner_seat = (k.leader + best_index) % n
    partner_winning = k.is_partner(winner_seat)
    after = [(k.seat + i) % n for i in range(1, n - len(k.plays))]
    on_table = sum(POINTS[c] for play in k.plays for c in play) + _kitty_stake(ctx, lead)
    winning_play = k.plays[best_index]
    p_current = _p_side_holds(ctx, winning_play, lead, after)
    partner_after = any(k.is_partner(s) for s in after)
    if partner_winning:
        p_lose_side = p_current
    elif partner_after:
        p_lose_side = _p_partner_beats(ctx, winning_play, lead, after) * 0.8
    else:
        p_lose_side = 0.0
    scored: list[Scored] = []
    for play in follow_candidates(ctx, lead):
        if judged:
            beats = _engine_winner(k, [*k.plays, play]) == len(k.plays)
        else:
            score = _score(play, lead, info, trump)
            beats = score is not None and score > best_score
        if beats:
            p = _p_side_holds(ctx, play, lead, after)
            if partner_after and p < 1.0:
                p += (1.0 - p) * 0.3
        else:
            p = p_lose_side
        stake = on_table + sum(POINTS[c] for c in play)
        value = (2.0 * p - 1.0) * stake - ALPHA * _spend_cost(play, ctx)
        if beats:
            value += LEAD_VALUE * p
        if k.allies is not None:
            value += follow_bonus(k, play, p)
        scored.append((value, play))
    scored.sort(key=lambda item: -item[0])
    return scored


def _judged_by_engine(rules: RuleSet) -> bool:
    """Whether the trick's winner is read from the engine's ``trick_winner``: under bombs and
    the other ``throw_beat`` values (RULES-SPEC.md §10.15, §10.16) the scores here do not say."""
    return rules.bombs != OFF or rules.throw_beat != "key_unit"


def _engine_winner(k: Knowledge, plays: Sequence[Sequence[int]]) -> int:
    rules = k.rules
    return trick_winner(plays, k.trump, rules.throw_beat, rules.bombs, rules.rainbow_min)


def _p_partner_beats(
    ctx: Ctx, play: Sequence[int], lead: Sequence[int], after: Sequence[int]
) -> float:
    """Rough chance that one of the partners still to play beats ``play``."""
    k = ctx.k
    partners = [s for s in after if k.is_partner(s)]
    if len(partners) == 1:
        return _p_beat(ctx, partners[0], play, lead)
    keep = 1.0
    for seat in partners:
        keep *= 1.0 - _p_beat(ctx, seat, play, lead)
    return 1.0 - keep


def follow_candidates(ctx: Ctx, lead: Sequence[int]) -> list[Play]:
    """Legal follows worth considering (all of them for singles and pairs), and under
    ``bombs`` every bomb the seat may play (RULES-SPEC.md §10.16)."""
    found = _follow_candidates(ctx, lead)
    if ctx.bombs_apply:
        k = ctx.k
        rules = k.rules
        found += [
            bomb
            for bomb in quads(k.hand)
            if bomb not in found and bomb_allowed(k.hand, lead, bomb, ctx.trump, rules.bombs)
        ]
    return found


def quads(hand: Sequence[int]) -> list[Play]:
    """Every bomb the hand holds: four copies of one card (RULES-SPEC.md §10.16)."""
    counts = counts_of(hand)
    return [(c,) * BOMB_SIZE for c in range(54) if counts[c] >= BOMB_SIZE]


def _follow_candidates(ctx: Ctx, lead: Sequence[int]) -> list[Play]:
    k = ctx.k
    group = ctx.groups[lead[0]]
    suited = ctx.mine[group]
    hand = k.hand
    size = len(lead)
    if size == 1:
        pool = suited or hand
        return [(c,) for c in sorted(set(pool))]
    if k.decks > 2:
        return _tuple_follows(ctx, lead, suited)
    if size == 2 and lead[0] == lead[1]:
        return _pair_follows(ctx, suited, hand, group)
    return _multi_follows(ctx, lead, suited)


def _pair_follows(ctx: Ctx, suited: list[int], hand: list[int], group: int) -> list[Play]:
    if len(suited) >= 2:
        pairs = pair_ids(suited)
        if pairs:
            return [(p, p) for p in pairs]
        distinct = sorted(set(suited))
        return list(combinations(distinct, 2))
    others = [c for c in hand if ctx.groups[c] != group]
    if len(suited) == 1:
        return [(suited[0], c) for c in sorted(set(others))]
    out: list[Play] = [(p, p) for p in pair_ids(ctx.mine[TRUMP])]
    shortlist = _discard_shortlist(ctx, others, 6)
    out += [
        pair
        for pair in combinations(shortlist, 2)
        if pair[0] != pair[1] or ctx.counts[pair[0]] == 2
    ]
    return list(dict.fromkeys(out))


def _discard_shortlist(ctx: Ctx, cards: Sequence[int], size: int) -> list[int]:
    """The cheapest cards to give away, and the point cards (one copy each, or two when held
    twice), for building discards."""
    trump = ctx.trump
    ordered = sorted(cards, key=lambda c: (keep_value(c, trump), c))
    cheap = ordered[:size]
    points = sorted(
        (c for c in cards if POINTS[c]), key=lambda c: (-POINTS[c], keep_value(c, trump))
    )
    chosen: list[int] = []
    for c in [*cheap, *points[:4]]:
        if chosen.count(c) < ctx.counts[c] and len(chosen) < size + 4:
            chosen.append(c)
    return chosen


def _tuple_follows(ctx: Ctx, lead: Sequence[int], suited: list[int]) -> list[Play]:
    """Follows with three or four decks (tuples, RULES-SPEC.md §9.2): the engine's legal follow
    and a few of its random variants, the led group's cards taken cheaply, with points or
    high, the lead's tuple answered by the highest and lowest own tuple, and when void the
    highest and lowest trumps; every one checked by the engine's ``follow_error`` under the
    table's draw policy."""
    k = ctx.k
    trump = ctx.trump
    hand = k.hand
    size = len(lead)
    policy = draw_policy_of(k.rules)
    fallback = tuple(_legal_follow(hand, lead, trump, policy))
    out: list[Play] = [fallback]
    strength = trump.strengths
    keys = (_cheap_key(ctx), _points_key(ctx), lambda c: (-strength[c], c))
    if len(suited) <= size:
        others = [c for c in hand if ctx.groups[c] != ctx.groups[lead[0]]]
        for key in keys:
            out.append((*suited, *sorted(others, key=key)[: size - len(suited)]))
        trumps = ctx.mine[TRUMP]
        if not suited and len(trumps) >= size and ctx.groups[lead[0]] != TRUMP:
            by_strength = sorted(trumps, key=lambda c: (strength[c], c))
            out += [tuple(by_strength[-size:]), tuple(by_strength[:size])]
            out += _tuple_answers(ctx, lead, trumps)
    else:
        for key in keys:
            out.append(tuple(sorted(suited, key=key)[:size]))
        out += _tuple_answers(ctx, lead, suited)
        rng = Random(len(hand) * 131 + size)
        for _ in range(3):
            out.append(tuple(_legal_follow(hand, lead, trump, policy, rng)))
    valid = [p for p in dict.fromkeys(out) if _follow_error(hand, lead, p, trump, policy) is None]
    return valid or [fallback]


def _tuple_answers(ctx: Ctx, lead: Sequence[int], cards: Sequence[int]) -> list[Play]:
    """For a lead that is one tuple (``k`` copies of a card): the highest and the lowest
    tuple of ``k`` copies among ``cards``."""
    size = len(lead)
    if size < 2 or any(c != lead[0] for c in lead):
        return []
    counts = counts_of(cards)
    held = sorted({c for c in cards if counts[c] >= size}, key=ctx.trump.strengths.__getitem__)
    if not held:
        return []
    return [(held[-1],) * size, (held[0],) * size]


def _multi_follows(ctx: Ctx, lead: Sequence[int], suited: list[int]) -> list[Play]:
    """Follows of a tractor or a throw: the owed tractors and pairs, with the free places
    filled cheaply (no points), or with point cards, or high; ruffs when void."""
    k = ctx.k
    trump = ctx.trump
    hand = k.hand
    size = len(lead)
    info = lead_info(lead, trump)
    policy = draw_policy_of(k.rules)
    fallback = tuple(_legal_follow(hand, lead, trump, policy))
    out: list[Play] = [fallback]
    keys = (_cheap_key(ctx), _points_key(ctx))
    if len(suited) <= size:
        others = [c for c in hand if ctx.groups[c] != info.group]
        for key in keys:
            out.append((*suited, *sorted(others, key=key)[: size - len(suited)]))
        if not suited and len(ctx.mine[TRUMP]) >= size and info.group != TRUMP:
            for high in (False, True):
                ruff = _build_shape(ctx.mine[TRUMP], info, trump, high)
                if ruff is not None:
                    out.append(ruff)
    else:
        for key in keys:
            owed = _owed(suited, info, trump, key)
            rest = list(suited)
            for c in owed:
                rest.remove(c)
            out.append((*owed, *sorted(rest, key=key)[: size - len(owed)]))
        strong = _build_shape(suited, info, trump, True)
        if strong is not None:
            out.append(strong)
    valid = [p for p in dict.fromkeys(out) if _follow_error(hand, lead, p, trump, policy) is None]
    return valid or [fallback]


def draw_policy_of(rules: RuleSet) -> str:
    """The table's draw policy (RULES-SPEC.md §9.2; classic tables have none)."""
    return str(getattr(rules, "draw_policy", NO_PROTECTIONS))


def _follow_error(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trump: Trump, policy: str
) -> str | None:
    if policy == NO_PROTECTIONS:
        return follow_error(hand, lead, play, trump)
    return follow_error(hand, lead, play, trump, draw_policy=policy)


def _legal_follow(
    hand: Sequence[int],
    lead: Sequence[int],
    trump: Trump,
    policy: str,
    rng: Random | None = None,
) -> list[int]:
    if policy == NO_PROTECTIONS and rng is None:
        return [int(c) for c in legal_follow(list(hand), lead, trump)]
    return [int(c) for c in legal_follow(list(hand), lead, trump, rng, draw_policy=policy)]


def _cheap_key(ctx: Ctx) -> Any:
    """Sort key: cards to give up when the other side takes the trick first."""
    trump = ctx.trump
    return lambda c: (ALPHA * keep_value(c, trump) + POINTS[c], c)


def _points_key(ctx: Ctx) -> Any:
    """Sort key: cards to give a partner who takes the trick first (points, then cheap)."""
    trump = ctx.trump
    return lambda c: (ALPHA * keep_value(c, trump) - POINTS[c], c)


def _owed(suited: list[int], info: Any, trump: Trump, key: Any) -> list[int]:
    """The tractors and pairs a follower owes (RULES-SPEC.md §4 Following, obligations 2 and 3):
    the engine's best cover of the lead's tractors, then the spare pairs chosen by ``key``."""
    by_order, _ = pairs_by_order(suited, trump)
    avail = [len(ids) for ids in by_order]
    matched, tops = best_cover(avail, info.tractors)
    chosen: list[int] = []
    for length, top in zip(info.tractors, tops, strict=True):
        for order in range(top, top - length, -1) if top >= 0 else ():
            pair = by_order[order].pop(0)
            chosen += (pair, pair)
    used = sum(length for length, hit in zip(info.tractors, matched, strict=True) if hit)
    spare = sorted((p for ids in by_order for p in ids), key=key)
    for pair in spare[: max(0, info.pair_units - used)]:
        chosen += (pair, pair)
    return chosen


def _build_shape(cards: Sequence[int], info: Any, trump: Trump, high: bool) -> Play | None:
    """Cards of one group in the lead's shape (tractors, pairs, then singles), taking the
    highest or the lowest parts; None when the cards cannot make the shape."""
    pool = list(cards)
    chosen: list[int] = []
    orders = trump.orders
    for length in info.tractors:
        by_order: list[list[int]] = [[] for _ in range(ORDER_SLOTS)]
        for p in pair_ids(pool):
            by_order[orders[p]].append(p)
        tops = run_tops([len(ids) for ids in by_order], length)
        if not tops:
            return None
        top = tops[0] if high else tops[-1]
        for order in range(top, top - length, -1):
            pair = by_order[order][0]
            chosen += (pair, pair)
            pool.remove(pair)
            pool.remove(pair)
    found = sorted(pair_ids(pool), key=lambda p: orders[p], reverse=high)
    if len(found) < info.shape.pairs:
        return None
    for p in found[: info.shape.pairs]:
        chosen += (p, p)
        pool.remove(p)
        pool.remove(p)
    singles = info.shape.singles
    if len(pool) < singles:
        return None
    pool.sort(key=lambda c: (trump.strengths[c], c), reverse=high)
    return (*chosen, *pool[:singles])


# --- playing -------------------------------------------------------------------------------


def play_options(k: Knowledge) -> list[Scored]:
    """Every play the basic bot considers, scored, best first."""
    if k.plays:
        rainbow = k.rules.rainbow_min
        if is_rainbow(k.plays[0], k.trump, rainbow):
            return rainbow_follows(k)
        forced = _forced_follow(k)
        if forced is not None and not _may_bomb(k):
            return [(0.0, forced)]
        return follow_options(Ctx(k))
    return lead_options(Ctx(k))


def rainbow_follows(k: Knowledge) -> list[Scored]:
    """Answers to a rainbow lead (RULES-SPEC.md §10.17): the rainbows owed (the highest the
    hand can give), then the other cards: the point cards when this side will take the
    trick, else the cheapest."""
    trump = k.trump
    rainbow = k.rules.rainbow_min
    lead = k.plays[0]
    owed = rainbow_legal_follow(k.hand, lead, trump, rainbow)
    given = [int(c) for c in answers(owed, rainbow_units(lead, trump, rainbow) or (), trump)[2]]
    rest = list(k.hand)
    for c in given:
        rest.remove(c)
    free = len(lead) - len(given)
    ctx = Ctx(k)
    cheap = (*given, *sorted(rest, key=_cheap_key(ctx))[:free])
    if not free:
        return [(0.0, cheap)]
    generous = (*given, *sorted(rest, key=_points_key(ctx))[:free])
    plays = [*k.plays, cheap]
    winner = _engine_winner(k, plays)
    if k.is_partner((k.leader + winner) % k.players) and (
        len(plays) == k.players or _rainbow_stands(ctx, plays[winner])
    ):
        return [(1.0, generous), (0.0, cheap)]
    return [(1.0, cheap), (0.0, generous)]


def _rainbow_stands(ctx: Ctx, play: Sequence[int]) -> bool:
    """Whether no unseen cards can answer the lead's largest rainbow higher than ``play``."""
    k = ctx.k
    units = rainbow_units(k.plays[0], ctx.trump, k.rules.rainbow_min) or ()
    if not units:
        return False
    ranks = answers(play, units, ctx.trump)[1]
    size = len(units[0][1])
    return not any(_can_make_rainbow(ctx, r, size) for r in range(ranks[0] + 1, 13))


def _may_bomb(k: Knowledge) -> bool:
    """Whether the seat holds a bomb it may play on the lead (RULES-SPEC.md §10.16)."""
    lead = k.plays[0]
    if k.rules.bombs == OFF or len(lead) != BOMB_SIZE:
        return False
    return any(bomb_allowed(k.hand, lead, b, k.trump, k.rules.bombs) for b in quads(k.hand))


def _forced_follow(k: Knowledge) -> Play | None:
    """The follow when there is no choice: exactly as many cards of the led group as the lead
    (or one distinct card for a single lead)."""
    lead = k.plays[0]
    groups = k.trump.groups
    group = groups[lead[0]]
    suited = [c for c in k.hand if groups[c] == group]
    if len(suited) == len(lead) or (len(lead) == 1 and suited and min(suited) == max(suited)):
        return tuple(suited[: len(lead)])
    return None


def choose_play(k: Knowledge) -> Play:
    """The basic bot's play."""
    options = play_options(k)
    return options[0][1]


# --- burying -------------------------------------------------------------------------------


def kitty_safety(hand: Sequence[int], trump: Trump) -> float:
    """0..1: how surely the dealer's side takes the last trick, from the dealer's trumps
    (nine trumps of a classic 33-card hand count as none to spare)."""
    trumps = [c for c in hand if trump.groups[c] == TRUMP]
    jokers = sum(1 for c in trumps if c >= SMALL_JOKER)
    pairs = len(pair_ids(trumps))
    spare = 9 if len(hand) == 33 else 9.0 * len(hand) / 33.0
    return max(0.0, min(1.0, (len(trumps) - spare + jokers + pairs) / 8.0))


def choose_bury(hand: Sequence[int], trump: Trump, size: int = 8) -> list[int]:
    """``size`` cards to bury from the dealer's hand and kitty (8 of 33 at a classic table;
    see the module doc)."""
    safety = kitty_safety(hand, trump)
    point_weight = 1.0 - 0.75 * safety
    counts = counts_of(hand)
    groups = trump.groups

    def cost(c: int) -> float:
        value = keep_value(c, trump) + 0.75 * POINTS[c] * point_weight
        if groups[c] == TRUMP:
            value += 30.0
        if counts[c] >= 2:
            value += 3.0
        return value

    side = [[c for c in hand if groups[c] == g] for g in range(4)]
    best: tuple[float, list[int]] | None = None
    for mask in range(16):
        voided = [g for g in range(4) if mask & (1 << g) and side[g]]
        if len(voided) != bin(mask).count("1"):
            continue
        forced = [c for g in voided for c in side[g]]
        if len(forced) > size:
            continue
        rest = [c for c in hand if not (groups[c] != TRUMP and groups[c] in voided)]
        rest.sort(key=lambda c: (cost(c), c))
        chosen = forced + rest[: size - len(forced)]
        total = sum(cost(c) for c in chosen) - 16.0 * len(voided)
        if best is None or total < best[0]:
            best = (total, chosen)
    assert best is not None
    return best[1]


# --- bidding -------------------------------------------------------------------------------


def _suit_strength(hand: Sequence[int], level: str, suit: str | None) -> float:
    """Trump share of the hand if ``suit`` were trump (None: no-trump), high trumps counted
    a little more."""
    if not hand:
        return 0.0
    trump = Trump(level, suit)
    groups = trump.groups
    orders = trump.orders
    total = 0.0
    for c in hand:
        if groups[c] == TRUMP:
            total += 1.0 + (0.3 if orders[c] >= 12 else 0.0)
    total += 0.3 * len(pair_ids([c for c in hand if groups[c] == TRUMP]))
    return total / len(hand)


def choose_bid(view: Mapping[str, Any], rules: RuleSet) -> Play | None:
    """A showing to bid now, or None."""
    hand = hand_of(view)
    seat = int(view["seat"])
    level = str(view["level"])
    bids = view.get("bids") or []
    made = bids_made(rules, bids)
    standing = made[-1] if made else None
    options = _legal_bids(rules, level, standing, seat, hand, decks_of(view), made)
    if not options:
        return None
    n = len(hand)
    if n < 6:
        return None
    players = players_of(view)
    full = 25 if players == 4 and decks_of(view) == 2 else _cards_each(players, decks_of(view))
    progress = min(1.0, n / full)
    threshold = 0.44 - 0.1 * progress
    closing = view.get("phase") == BIDDING
    friends = view.get("mode") == FRIENDS
    if standing is not None and (
        standing.seat == seat if friends else (standing.seat - seat) % 2 == 0
    ):
        # Our side holds the bid: reinforce our own single when the window closes.
        if closing and standing.seat == seat:
            same = [
                o
                for o in options
                if len(o) == 2 and o[0] < SMALL_JOKER and o[0] == standing.cards[0]
            ]
            return same[0] if same else None
        return None
    current = _suit_strength(hand, level, standing.suit) if standing is not None else 0.0
    best: tuple[float, Play] | None = None
    for showing in options:
        suit = None if showing[0] >= SMALL_JOKER else "SHCD"[showing[0] // 13]
        strength = _suit_strength(hand, level, suit)
        if suit is None:
            strength -= 0.05
        key = (strength, -len(showing))
        if best is None or key > (best[0], -len(best[1])):
            best = (strength, showing)
    assert best is not None
    strength, showing = best
    if standing is None:
        return showing if strength >= threshold else None
    if strength >= threshold and strength - current >= 0.08:
        return showing
    return None


def _cards_each(players: int, decks: int) -> int:
    from shengji.engine.deal import deal_sizes  # bigger tables only

    return deal_sizes(players, decks)[0]


def standing_bid(rules: RuleSet, bids: Sequence[Mapping[str, Any]], decks: int = 2) -> Bid | None:
    """The standing bid as the engine's ``Bid``, rebuilt from the view's public bid list (a
    bid's strength reads only its cards, whatever the decks)."""
    del decks
    made = bids_made(rules, bids)
    return made[-1] if made else None


def bids_made(rules: RuleSet, bids: Sequence[Mapping[str, Any]]) -> list[Bid]:
    """The engine's ``Bid`` of each bid of the view's public list, in order."""
    made: list[Bid] = []
    options = rules.bid_options
    for bid in bids:
        standing = made[-1] if made else None
        cards = parse_cards(bid["cards"])
        made.append(make_bid(rules.bidding, standing, int(bid["seat"]), cards, options))
    return made


def _legal_bids(
    rules: RuleSet,
    level: str,
    standing: Bid | None,
    seat: int,
    hand: list[int],
    decks: int,
    made: Sequence[Bid] = (),
) -> list[Play]:
    options = rules.bid_options
    found = legal_bids(rules.bidding, level, standing, seat, hand, decks, options, made)
    return [tuple(o) for o in found]


# --- the bot -------------------------------------------------------------------------------


class BasicBot:
    """The heuristic bot. Deterministic: the same view and history give the same action.

    In 找朋友 it calls friends by ``friendship.choose_calls`` and reasons about who is a
    friend (``friendship.allies_of``). ``BasicBot(friendship=False, seed=S)`` is the baseline
    for 找朋友 (``make_bot("baseline")``): random legal calls, and only the known side taken
    as the dealer's. ``BasicBot(friend_aware=False)`` (``make_bot("friendblind")``) is the
    ablation that measures a friend's play for its dealer: the basic bot, except that a seat
    other than the dealer never plays as the dealer's friend, before its reveal or after."""

    name = "basic"

    def __init__(
        self, *, friendship: bool = True, friend_aware: bool = True, seed: int = 0
    ) -> None:
        self.friendship = friendship
        self.friend_aware = friend_aware
        self.seed = seed
        if not friendship:
            self.name = "baseline"
        elif not friend_aware:
            self.name = "friendblind"

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        view = public_part(view)
        phase = view.get("phase")
        seat = int(view["seat"])
        if phase in (DEALING, BIDDING):
            showing = choose_bid(view, rules)
            return None if showing is None else f"bid {seat} {format_cards(showing)}"
        if not acts_now(view):
            return None
        if phase == BURYING:
            trump = trump_of(view)
            assert trump is not None
            hand = hand_of(view)
            buried = choose_bury(hand, trump, bury_size(view))
            if view.get("mode") == FRIENDS and not view.get("calls_made"):
                return call_text(seat, self._calls(view, rules, hand, buried, trump))
            return f"bury {seat} {format_cards(buried)}"
        if phase == PLAYING and calls_again(view, rules):
            # RULES-SPEC.md §10.24: a theft's trump dropped a call; the dealer calls again.
            trump = trump_of(view)
            assert trump is not None
            return call_text(seat, self._calls(view, rules, hand_of(view), [], trump))
        if phase == PLAYING:
            k = knowledge_from_view(
                view,
                rules,
                history,
                infer_friends=self.friendship,
                friend_aware=self.friend_aware,
            )
            return f"play {seat} {format_cards(choose_play(k))}"
        return None

    def _calls(
        self,
        view: Mapping[str, Any],
        rules: RuleSet,
        hand: list[int],
        buried: list[int],
        trump: Trump,
    ) -> list[tuple[int, int]]:
        decks = decks_of(view)
        count = int(view.get("friends") or getattr(rules, "friends", 0) or 1)
        policy = str(getattr(rules, "friend_cards", "unrestricted"))
        copies = copies_of(view, rules)
        if not self.friendship:
            rng = Random(f"{self.seed}|{view.get('seat')}|{view.get('hand')}")
            return random_calls(trump, decks, count, policy, rng, copies)
        kept = list(hand)
        for c in buried:
            kept.remove(c)
        return choose_calls(kept, buried, trump, decks, count, policy, copies)


def calls_again(view: Mapping[str, Any], rules: RuleSet) -> bool:
    """Whether a 找朋友 dealer must call again before leading: a theft's trump dropped a call
    (RULES-SPEC.md §10.24)."""
    return rules.kitty_theft == "on" and view.get("mode") == FRIENDS and not view.get("calls_made")


def bury_size(view: Mapping[str, Any]) -> int:
    """How many cards the dealer buries: the kitty it was dealt."""
    kitty = view.get("kitty")
    if kitty:
        return len(parse_cards(kitty))
    return int(view.get("kitty_size") or 8)
