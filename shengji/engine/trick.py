"""Who wins a trick (RULES-SPEC.md §4 Winner).

Each play gets a *score*: None for a play that cannot win (a discard, or cards that do not
split into the lead's shape), else its key order, plus ``TRUMP_BONUS`` when it ruffs a
non-trump lead (毙). A later play wins only with a strictly higher score: equal cards go to
the one played first (先出者为大).

A thrown lead (two or more units) may be judged otherwise under ``throw_beat`` (RULES-SPEC.md
§10.15): a play that can win is compared with the best play so far, unit by unit
(``all_units``), by its highest card (``highest_card``) or by its units from the largest down
(``largest_units``).
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.bombs import OFF, bomb_winner
from shengji.engine.errors import WRONG_COUNT, IllegalPlayError
from shengji.engine.lead import lead_info
from shengji.engine.patterns import shape_key
from shengji.engine.rainbow import is_rainbow, rainbow_winner
from shengji.engine.shapes import LeadInfo
from shengji.engine.trump import TRUMP, TRUMP_BONUS, Trump
from shengji.engine.tuples import Format, has_wide, lead_format, play_key, play_readings

KEY_UNIT = "key_unit"
ALL_UNITS = "all_units"
HIGHEST_CARD = "highest_card"
LARGEST_UNITS = "largest_units"
THROW_BEAT = (KEY_UNIT, ALL_UNITS, HIGHEST_CARD, LARGEST_UNITS)


def trick_winner(
    plays: Sequence[Sequence[int]],
    trump: Trump,
    throw_beat: str = KEY_UNIT,
    bombs: str = OFF,
    rainbow_min: int = 0,
) -> int:
    """Index in ``plays`` (listed from the leader) of the play that wins the trick (4–8 plays;
    tuples of any size, RULES-SPEC.md §9.2; a thrown lead by ``throw_beat``, §10.15; a bomb
    beats the rest under ``bombs``, §10.16).

    Precondition: ``plays[0]`` is a valid lead and every play has as many cards as the lead.
    """
    lead = plays[0]
    if rainbow_min and is_rainbow(lead, trump, rainbow_min):
        return rainbow_winner(plays, trump, rainbow_min)  # RULES-SPEC.md §10.17
    if bombs != OFF:
        bomb = bomb_winner(plays, trump)
        if bomb is not None:
            return bomb
    if len(lead) == 1:
        return _single_trick_winner(plays, trump)
    info = lead_info(lead, trump)
    if throw_beat != KEY_UNIT and info.shape.is_throw:
        return _throw_winner(plays, info, trump, throw_beat)
    best_score = info.key
    winner = 0
    for index in range(1, len(plays)):
        score = play_score(plays[index], info, trump)
        if score is not None and score > best_score:
            best_score, winner = score, index
    return winner


def _throw_winner(
    plays: Sequence[Sequence[int]], info: LeadInfo, trump: Trump, throw_beat: str
) -> int:
    """RULES-SPEC.md §10.15: each play that can win against the best play so far."""
    fmt = lead_format(plays[0], trump)
    winner = 0
    for index in range(1, len(plays)):
        if play_score(plays[index], info, trump) is None:
            continue
        if _beats(plays[index], plays[winner], fmt, trump, throw_beat):
            winner = index
    return winner


def _beats(
    play: Sequence[int], best: Sequence[int], fmt: Format, trump: Trump, throw_beat: str
) -> bool:
    """Whether ``play`` beats ``best`` (both of the lead's format, of its group or trump)."""
    if throw_beat == HIGHEST_CARD:
        strengths = trump.strengths
        return max(strengths[c] for c in play) > max(strengths[c] for c in best)
    mine = play_readings(play, fmt, trump)
    theirs = play_readings(best, fmt, trump)
    if throw_beat == ALL_UNITS:
        # Some reading of the play beats every unit of each reading of the best so far.
        return any(all(all(a > b for a, b in zip(r, t, strict=True)) for t in theirs) for r in mine)
    order = _largest_first(fmt)
    return max(_pick(r, order) for r in mine) > max(_pick(t, order) for t in theirs)


def _largest_first(fmt: Format) -> list[int]:
    """The format's unit indexes, the largest units first (format order among equals); the
    singles left out when the lead has a tuple (RULES-SPEC.md §10.15 ``largest_units``)."""
    indexes = sorted(range(len(fmt.units)), key=lambda i: -fmt.units[i][0] * fmt.units[i][1])
    if any(k >= 2 for k, _ in fmt.units):
        indexes = [i for i in indexes if fmt.units[i][0] >= 2]
    return indexes


def _pick(reading: Sequence[int], order: Sequence[int]) -> tuple[int, ...]:
    return tuple(reading[i] for i in order)


def _single_trick_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int:
    groups = trump.groups
    strengths = trump.strengths
    led = plays[0][0]
    group = groups[led]
    best_score = strengths[led]
    winner = 0
    for index in range(1, len(plays)):
        play = plays[index]
        if len(play) != 1:
            raise IllegalPlayError(WRONG_COUNT, f"play {index} has {len(play)} cards")
        played = play[0]
        played_group = groups[played]
        if played_group != group and played_group != TRUMP:
            continue
        score = strengths[played]
        if score > best_score:
            best_score, winner = score, index
    return winner


def play_score(play: Sequence[int], info: LeadInfo, trump: Trump) -> int | None:
    """The play's score against the lead, or None when it cannot win (discard, wrong shape)."""
    size = info.shape.size
    if len(play) != size:
        raise IllegalPlayError(WRONG_COUNT, f"{len(play)} cards against a lead of {size}")
    cards = bytes(play)
    grouped = cards.translate(trump.group_table)
    if grouped.count(info.group) == size:
        bonus = 0
    elif grouped.count(TRUMP) == size:
        bonus = TRUMP_BONUS
    else:
        return None
    if info.units is not None or (size > 2 and info.pair_units and has_wide(cards)):
        # RULES-SPEC.md §9.2 Winning: tuples of three or more cards.
        key = play_key(cards, lead_format(info.split.cards(), trump), trump)
        return None if key is None else key + bonus
    if size == 2 and info.pair_units:
        # A pair lead: only a pair can win (two unpaired trumps are a discard).
        return trump.orders[cards[0]] + bonus if cards[0] == cards[1] else None
    key = shape_key(cards, info.shape, trump)
    return None if key is None else key + bonus


def is_discard(play: Sequence[int], lead: Sequence[int], trump: Trump) -> bool:
    """Whether the play cannot win against the lead whatever else is played (垫牌)."""
    return play_score(play, lead_info(lead, trump), trump) is None
