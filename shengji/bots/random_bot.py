"""The random bot: uniformly random legal moves from its own view (the engine's random player's
choices), for baselines and load. Deterministic given its seed and the sequence of calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from shengji.bots.base import BIDDING, BURYING, DEALING, PLAYING, acts_now, public_part
from shengji.bots.basic import (
    NO_PROTECTIONS,
    _legal_bids,
    bids_made,
    bury_size,
    calls_again,
    draw_policy_of,
)
from shengji.bots.friendship import call_text, random_calls
from shengji.bots.knowledge import FRIENDS, hand_of
from shengji.bots.memory import copies_of, decks_of, trump_of
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.follow import legal_follow
from shengji.engine.random_play import RandomPolicy, random_bury, random_follow, random_lead
from shengji.engine.rules import RuleSet


class RandomBot:
    """Random legal actions: bids now and then, a random bury, random leads (throws
    included, which may fail) and random legal follows."""

    name = "random"

    def __init__(self, seed: int = 0, policy: RandomPolicy | None = None) -> None:
        self.rng = Random(seed)
        self.policy = policy or RandomPolicy()

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        view = public_part(view)
        phase = view.get("phase")
        seat = int(view["seat"])
        hand = hand_of(view)
        if phase in (DEALING, BIDDING):
            return self._bid(view, rules, seat, hand)
        if not acts_now(view):
            return None
        trump = trump_of(view)
        assert trump is not None
        if phase == BURYING or calls_again(view, rules):
            if view.get("mode") == FRIENDS and not view.get("calls_made"):
                count = int(view.get("friends") or getattr(rules, "friends", 0) or 1)
                policy = str(getattr(rules, "friend_cards", "unrestricted"))
                copies = copies_of(view, rules)
                calls = random_calls(trump, decks_of(view), count, policy, self.rng, copies)
                return call_text(seat, calls)
            size = bury_size(view)
            buried = random_bury(hand, self.rng) if size == 8 else self.rng.sample(hand, size)
            return f"bury {seat} {format_cards(buried)}"
        if phase != PLAYING:
            return None
        plays = (view.get("trick") or {}).get("plays") or []
        if plays:
            lead = parse_cards(plays[0]["cards"])
            policy = draw_policy_of(rules)
            cards: tuple[int, ...]
            if len(lead) > 1 and (decks_of(view) > 2 or policy != NO_PROTECTIONS):
                cards = tuple(legal_follow(hand, lead, trump, self.rng, draw_policy=policy))
            else:
                cards = tuple(random_follow(hand, lead, trump, self.rng))
        else:
            cards = tuple(random_lead(hand, trump, self.rng, self.policy))
        return f"play {seat} {format_cards(cards)}"

    def _bid(
        self, view: Mapping[str, Any], rules: RuleSet, seat: int, hand: list[int]
    ) -> str | None:
        if self.rng.random() >= self.policy.bid_rate:
            return None
        decks = decks_of(view)
        made = bids_made(rules, view.get("bids") or [])
        standing = made[-1] if made else None
        options = _legal_bids(rules, str(view["level"]), standing, seat, hand, decks, made)
        if not options:
            return None
        return f"bid {seat} {format_cards(self.rng.choice(options))}"
