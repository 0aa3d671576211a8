"""Random self-play: ``python -m shengji.engine.selfplay --hands N --seed S --rules PRESET``
``[--players P --decks D --mode tractor|friends] [--house-options random [--shape any]]``.

Plays N whole hands in matches (a new match starts when one ends) with random legal actions,
checks the invariants after every hand, and prints one JSON line of figures. Exits 1 when an
invariant breaks: every card of the decks conserved, ``100 × decks`` points in play, each
seat's view holding only its own hidden cards (and, in 找朋友, no call before the first lead
but the dealer's; under ``hide_defender_points`` no defender's points while the hand is
played, RULES-SPEC.md §10.8), and every hand replaying from its JSON record to the same end
state.

``--house-options random`` plays under random house options (RULES-SPEC.md §10,
``shengji.engine.random_options``): a new valid rule set every ``--hands-per-rules`` hands (a
match started at random levels and dealer under it), at the table shape given, or with
``--shape any`` at every shape of ``random_options.SHAPES`` in turn. The preset is then drawn too.
Imports no Django.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from random import Random
from typing import Any

from shengji.engine.cards import format_cards
from shengji.engine.hand import BURYING, ESCAPE, PLAYING, HandState
from shengji.engine.match import Match
from shengji.engine.random_options import SHAPES, changed_options, random_house_rules, random_start
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import HandRecord, record_of, replay_final
from shengji.engine.rules import MODE, PRESET_NAMES, RuleSet, default_decks, preset
from shengji.engine.scoring import points
from shengji.engine.trump import Trump
from shengji.engine.views import view_for


class InvariantError(AssertionError):
    """A self-play invariant broke; the message says which and where."""


def check_invariants(state: HandState) -> None:
    """Cards conserved, points conserved (for hands played to the end)."""
    cards: Counter[int] = Counter()
    for hand in state.hands:
        cards.update(hand)
    for trick in state.tricks:
        for cards_played in trick.plays:
            cards.update(cards_played)
    for cards_played in state.trick.plays:
        cards.update(cards_played)
    # Before the bid window closes the kitty is aside; then in the dealer's hand until buried.
    cards.update(state.kitty if state.trump is None else state.buried)
    undealt = state.deck[state.kitty_size + state.drawn :]
    cards.update(undealt)
    expected = Counter({c: n for c, n in enumerate(state.copies) if n})
    if cards != expected:
        raise InvariantError(f"cards not conserved in {state!r}")
    result = state.result
    if result is not None and result.outcome != ESCAPE:
        total = state.attacker_points + state.defender_points + points(state.buried)
        if total != 100 * state.decks or sum(state.seat_points) + points(state.buried) != total:
            raise InvariantError(f"{total} points in play, not {100 * state.decks}: {state!r}")


def check_views(state: HandState) -> None:
    """Each seat's view holds its own hand and no other hidden card; the kitty goes to the
    seat that buried it alone (the dealer, or under ``kitty_theft`` the last burier), and the
    calls to the dealer alone before the first lead (RULES-SPEC.md §9.4, §10.24)."""
    trump = state.trump or Trump(state.level, None)
    hidden_kitty = state.phase in (BURYING, PLAYING) or state.in_theft_window
    for seat in range(state.players):
        view = view_for(state, seat)
        own = format_cards(sorted(state.hands[seat], key=trump.display_order.__getitem__))
        if view["hand"] != own or "hands" in view or "seed" in view:
            raise InvariantError(f"seat {seat}'s view shows other cards: {state!r}")
        if hidden_kitty and seat != state.burier and view["kitty"] is not None:
            raise InvariantError(f"seat {seat} sees the kitty: {state!r}")
        calls_hidden = state.rules.is_friends and not state.calls_shown and seat != state.dealer
        if calls_hidden and view.get("calls") is not None:
            raise InvariantError(f"seat {seat} sees the calls before the lead: {state!r}")
        check_points_hidden(state, view)


def check_points_hidden(state: HandState, view: dict[str, Any]) -> None:
    """RULES-SPEC.md §10.8: while the hand is played under ``hide_defender_points`` a view
    shows no points of the known defenders (their total, cards, seat points, tricks won)."""
    if not (state.rules.hide_defender_points and state.phase == PLAYING):
        return
    shown = [view["points"]["defenders"], view["point_cards"]["defenders"]]
    shown += [view.get("seat_points", [None] * state.players)[s] for s in state.side]
    tricks = [view["last_trick"], *(view.get("tricks") or ())]
    shown += [t["points"] for t in tricks if t is not None and t["winner"] in state.side]
    if any(value is not None for value in shown):
        raise InvariantError(f"seat {view['seat']} sees the defenders' points: {state!r}")


def check_replay(state: HandState) -> None:
    """The record's replay reaches the live end state: result, hands, tricks and sides."""
    record = HandRecord.from_json(record_of(state).to_json())
    replayed = replay_final(record)
    if (
        replayed.result != state.result
        or replayed.hands != state.hands
        or replayed.buried != state.buried
        or replayed.side != state.side
        or replayed.seat_points != state.seat_points
        or [t.plays for t in replayed.tricks] != [t.plays for t in state.tricks]
    ):
        raise InvariantError(f"the replay of {state!r} reaches another end state")


def run(
    rules: RuleSet,
    hands: int,
    seed: int,
    *,
    policy: RandomPolicy | None = None,
    replay: bool = True,
) -> dict[str, Any]:
    """Play ``hands`` hands; return the figures (raises ``InvariantError`` on a break)."""
    policy = policy or RandomPolicy()
    rng = Random(seed)
    stats = _Stats()
    match = Match(rules, rng.getrandbits(63))
    started = time.perf_counter()
    play_time = 0.0
    for _ in range(hands):
        if match.over:
            stats.matches += 1
            match = Match(rules, rng.getrandbits(63))
        before = time.perf_counter()
        state = play_random(match.start_hand(), rng, policy, at_first_lead=check_views)
        result = match.finish_hand()
        play_time += time.perf_counter() - before
        check_invariants(state)
        if replay:
            check_replay(state)
        stats.add(state, result)
    elapsed = time.perf_counter() - started
    return stats.summary(rules, hands, seed, elapsed, play_time, replay)


def run_random_options(
    hands: int,
    seed: int,
    *,
    shapes: Sequence[tuple[int, int, str]] = SHAPES,
    hands_per_rules: int = 3,
    policy: RandomPolicy | None = None,
    replay: bool = True,
) -> dict[str, Any]:
    """Play ``hands`` hands under random house options (see the module doc): a new rule set
    (and a match at random levels) every ``hands_per_rules`` hands, the shapes in turn. The
    views are checked at the first lead and after the middle trick of every hand."""
    policy = policy or RandomPolicy()
    rng = Random(seed)
    stats = _Stats()
    options: Counter[str] = Counter()
    started = time.perf_counter()
    play_time = 0.0
    match: Match | None = None
    for number in range(hands):
        if match is None or match.over or number % hands_per_rules == 0:
            players, decks, mode = shapes[(number // hands_per_rules) % len(shapes)]
            rules = random_house_rules(rng, players, decks, mode)
            levels, dealer = random_start(rng, rules)
            match = Match(rules, rng.getrandbits(63), levels=levels, dealer=dealer)
            options.update(changed_options(rules).keys())
            stats.matches += 1
        before = time.perf_counter()
        state = play_random(
            match.start_hand(), rng, policy, at_first_lead=check_views, at_trick=_mid_hand_views
        )
        result = match.finish_hand()
        play_time += time.perf_counter() - before
        check_invariants(state)
        if replay:
            check_replay(state)
        stats.add(state, result)
    elapsed = time.perf_counter() - started
    stats.matches -= 1
    figures = stats.summary(RuleSet(name="random"), hands, seed, elapsed, play_time, replay)
    figures["shapes"] = ["/".join(map(str, shape)) for shape in shapes]
    figures["hands_per_rules"] = hands_per_rules
    figures["options_changed"] = dict(sorted(options.items()))
    return figures


def _mid_hand_views(state: HandState) -> None:
    """``check_views`` once in the middle of the hand (the third completed trick)."""
    if len(state.tricks) == 3:
        check_views(state)


class _Stats:
    def __init__(self) -> None:
        self.matches = 1
        self.attacker_points = 0
        self.attacker_total = 0
        self.defender_points = 0
        self.kitty_count = 0
        self.kitty_points = 0
        self.multipliers: Counter[int] = Counter()
        self.failed: Counter[str] = Counter()
        self.results: Counter[str] = Counter()
        self.escapes = 0
        self.redeals = 0
        self.flips = 0
        self.passed_ace = 0
        self.actions = 0
        self.tricks = 0

    def add(self, state: HandState, result: Any) -> None:
        self.actions += len(state.actions)
        self.redeals += result.redeals
        self.flips += bool(result.flipped)
        self.failed.update(f.result for f in result.failed_throws)
        if result.outcome == ESCAPE:
            self.escapes += 1
            self.results["escape"] += 1
            return
        self.tricks += result.tricks
        self.attacker_points += result.trick_points
        self.attacker_total += result.attacker_points
        self.defender_points += result.defender_points
        self.passed_ace += result.passed_ace is not None
        if result.kitty_multiplier:
            self.kitty_count += 1
            self.kitty_points += result.kitty_bonus
            self.multipliers[result.kitty_multiplier] += 1
        self.results[f"{result.winner}+{result.levels_gained}"] += 1

    def summary(
        self, rules: RuleSet, hands: int, seed: int, elapsed: float, play: float, replay: bool
    ) -> dict[str, Any]:
        """Points are trick points per side over the hands played to the end; kitty bonuses
        count the hands where the attackers took the last trick."""
        shape = (
            {}
            if rules.is_classic
            else {
                "players": rules.players,
                "decks": rules.decks,
                "mode": rules.mode,
            }
        )
        return {
            "rules": rules.name,
            **shape,
            "seed": seed,
            "hands": hands,
            "seconds": round(elapsed, 3),
            "hands_per_second": round(hands / elapsed, 1) if elapsed else None,
            "play_hands_per_second": round(hands / play, 1) if play else None,
            "replay_checked": replay,
            "matches": self.matches,
            "actions": self.actions,
            "tricks": self.tricks,
            "points": {"attackers": self.attacker_points, "defenders": self.defender_points},
            "attacker_points_with_kitty_and_penalties": self.attacker_total,
            "kitty_bonuses": {
                "count": self.kitty_count,
                "points": self.kitty_points,
                "multipliers": {str(k): v for k, v in sorted(self.multipliers.items())},
            },
            "failed_throws": dict(sorted(self.failed.items())),
            "escapes": self.escapes,
            "redeals": self.redeals,
            "flipped_kitties": self.flips,
            "passed_ace": self.passed_ace,
            "results": dict(sorted(self.results.items())),
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shengji.engine.selfplay", description=__doc__)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="ranked", choices=PRESET_NAMES)
    parser.add_argument("--players", type=int, default=4, choices=range(4, 9))
    parser.add_argument("--decks", type=int, default=0, help="2..4; default by players")
    parser.add_argument("--mode", default="tractor", choices=MODE)
    parser.add_argument(
        "--escape-rate", type=float, default=0.0, help="chance a hand has an escape"
    )
    parser.add_argument("--throw-rate", type=float, default=0.1, help="chance a lead is a throw")
    parser.add_argument("--no-replay", action="store_true", help="skip the replay check")
    parser.add_argument(
        "--house-options",
        default="preset",
        choices=("preset", "random"),
        help="random: random house options (RULES-SPEC.md §10) drawn every few hands",
    )
    parser.add_argument(
        "--shape", default="", help="with random house options: 'any' for every table shape"
    )
    parser.add_argument("--hands-per-rules", type=int, default=3)
    args = parser.parse_args(argv)
    policy = RandomPolicy(throw_rate=args.throw_rate, escape_rate=args.escape_rate)
    if args.house_options == "random":
        return _main_random(args, policy)
    try:
        rules = preset(args.rules)
        if (args.players, args.decks, args.mode) != (4, 0, "tractor"):
            rules = rules.with_options(
                name=rules.name, players=args.players, decks=args.decks, mode=args.mode
            )
        figures = run(rules, args.hands, args.seed, policy=policy, replay=not args.no_replay)
    except Exception as error:  # any engine error during self-play is a broken invariant
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    print(json.dumps(figures), flush=True)
    return 0


def _main_random(args: argparse.Namespace, policy: RandomPolicy) -> int:
    """``--house-options random``: the given shape (players, decks, mode), or every shape."""
    if args.shape == "any":
        shapes: Sequence[tuple[int, int, str]] = SHAPES
    else:
        decks = args.decks or default_decks(args.players)
        shapes = ((args.players, decks, args.mode),)
    try:
        figures = run_random_options(
            args.hands,
            args.seed,
            shapes=shapes,
            hands_per_rules=args.hands_per_rules,
            policy=policy,
            replay=not args.no_replay,
        )
    except Exception as error:  # any engine error during self-play is a broken invariant
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
