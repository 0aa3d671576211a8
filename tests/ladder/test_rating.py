"""The skill rating: OpenSkill Plackett-Luce, 2v2, bot-played seats, provisional, order."""

from __future__ import annotations

import pytest
from django.test import override_settings

from accounts.models import User
from games.models import Hand
from games.services.wrap_up import hand_settle
from ladder.models import LadderProfile, RatingChange
from ladder.rating import RatedSeat, Rating, bot_played, default_rating, rate_hand
from tests.ladder.helpers import make_hand, make_users


def profile(user: User) -> LadderProfile:
    return LadderProfile.objects.get(user=user)


@pytest.mark.parametrize(
    ("turns", "auto", "expected"), [(25, 12, False), (25, 13, True), (24, 12, False), (0, 0, False)]
)
def test_more_than_half_of_the_turns_makes_a_seat_bot_played(
    turns: int, auto: int, expected: bool
) -> None:
    assert bot_played(turns, auto) is expected


def test_pure_rating_winners_go_up_losers_down() -> None:
    seats = {seat: RatedSeat(default_rating()) for seat in range(4)}
    new = rate_hand(seats, winner_side=1)
    assert new[1].mu > 25 > new[0].mu
    assert new[1] == new[3] and new[0] == new[2]
    assert all(rating.sigma < default_rating().sigma for rating in new.values())


@pytest.mark.django_db
def test_a_hand_moves_all_four_ratings_and_records_them() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    hand_settle(hand_id=hand.pk)
    winners, losers = [profile(users[0]), profile(users[2])], [profile(users[1]), profile(users[3])]
    assert all(p.rating_mu > 25 for p in winners)
    assert all(p.rating_mu < 25 for p in losers)
    for p in winners + losers:
        assert p.rating_ordinal == pytest.approx(p.rating_mu - 3 * p.rating_sigma)
        assert p.rated_hands == 1
        change = RatingChange.objects.get(user=p.user, hand=hand)
        assert (change.mu_before, change.mu_after) == pytest.approx((25, p.rating_mu))


@pytest.mark.django_db
def test_a_bot_played_seat_is_rated_as_played_and_so_is_its_partner() -> None:
    """托管 or absence shields no rating (docs/LADDER.md, "Seats the bot played")."""
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0}, auto_turns={2: 13})
    hand_settle(hand_id=hand.pk)
    assert profile(users[2]).rating_mu > 25
    assert profile(users[0]).rating_mu > 25  # the partner
    assert profile(users[0]).rated_hands == 1
    assert profile(users[1]).rating_mu < 25 and profile(users[3]).rating_mu < 25  # opponents move
    assert set(RatingChange.objects.filter(hand=hand).values_list("user_id", flat=True)) == {
        u.pk for u in users
    }
    # The table points are settled as usual.
    assert profile(users[2]).balance == 1390


@pytest.mark.django_db
def test_half_of_the_turns_by_the_bot_still_rates_the_seat() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0}, auto_turns={2: 12})
    hand_settle(hand_id=hand.pk)
    assert profile(users[2]).rating_mu > 25


@pytest.mark.django_db
def test_a_bot_seat_never_moves_the_partner() -> None:
    """A bot seated at the start makes the hand practice: no rating moves at all (it used to
    move the opponents' ratings against the bot's side)."""
    users = make_users(3)
    hand = make_hand([users[0], users[1], users[2], None], result={"attacker_points": 200})
    hand_settle(hand_id=hand.pk)
    assert profile(users[1]).rating_mu == pytest.approx(25)  # partner of the bot seat 3
    assert [profile(u).rating_mu for u in users] == [pytest.approx(25)] * 3
    assert not RatingChange.objects.filter(hand=hand).exists()


@pytest.mark.django_db
def test_an_escape_moves_only_the_escaper_down() -> None:
    users = make_users()
    hand = make_hand(users, status=Hand.Status.ESCAPED, escaped=[3])
    hand_settle(hand_id=hand.pk)
    assert profile(users[3]).rating_mu < 25
    assert [profile(u).rating_mu for u in users[:3]] == [pytest.approx(25)] * 3


@pytest.mark.django_db
def test_provisional_until_sigma_falls_under_the_threshold() -> None:
    users = make_users()
    assert profile(users[0]).rating_provisional
    with override_settings(LADDER_RATING_PROVISIONAL_SIGMA=8.0):
        for _ in range(3):
            hand_settle(hand_id=make_hand(users, result={"attacker_points": 0}).pk)
        sigma = profile(users[0]).rating_sigma
        assert sigma < 8.0
        assert not profile(users[0]).rating_provisional
    users2 = make_users()
    hand_settle(hand_id=make_hand(users2, result={"attacker_points": 0}).pk)
    assert profile(users2[0]).rating_sigma > 6.0
    assert profile(users2[0]).rating_provisional  # the default threshold, 6.0


@pytest.mark.django_db
def test_ratings_are_applied_in_the_order_hands_are_settled() -> None:
    users = make_users()
    first = make_hand(users, result={"attacker_points": 0})  # side 0 wins
    second = make_hand(users, result={"attacker_points": 200})  # side 1 wins
    hand_settle(hand_id=first.pk)
    hand_settle(hand_id=second.pk)
    seats = {s: RatedSeat(default_rating()) for s in range(4)}
    after_first = rate_hand(seats, winner_side=0)
    after_second = rate_hand({s: RatedSeat(r) for s, r in after_first.items()}, winner_side=1)
    assert profile(users[0]).rating_mu == pytest.approx(after_second[0].mu)
    reverse = rate_hand(
        {s: RatedSeat(r) for s, r in rate_hand(seats, winner_side=1).items()}, winner_side=0
    )
    assert reverse[0].mu != pytest.approx(after_second[0].mu, abs=1e-9)
    changes = RatingChange.objects.filter(user=users[0]).order_by("id")
    assert [c.hand_id for c in changes] == [first.pk, second.pk]
    assert changes[1].mu_before == pytest.approx(changes[0].mu_after)


def test_rating_value_object() -> None:
    assert Rating(30.0, 2.0).ordinal == pytest.approx(24.0)
