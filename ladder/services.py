"""Every write of the ladder: profiles and grants (the sign-up grant, the daily relief grant),
hand settlement, ratings, adjustments.

All services are atomic and lock what they change: the hand row first (settlement: its caller,
games/services/wrap_up.py, holds it), then the ladder profiles in user-id order, so two writers
never deadlock and never interleave. The ladder never reads a hand: the games hand it a plain
record of one (`FinishedHand`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import client_address
from accounts.models import User
from ladder import rating as rating_math
from ladder.errors import ApplicationError, settlement_refusals
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange, ReliefClaim
from ladder.selectors import (
    fee_schedule,
    relief_amount,
    relief_claimed_today,
    relief_claimed_today_from,
)
from shengji.settlement import (
    HandOutcome,
    Line,
    SeatState,
    no_show_fee,
    outcome_as_json,
    outcome_from_record,
    record_shape,
    rule_options,
    settle_hand,
)

Kind = LedgerEntry.Kind
Account = LedgerEntry.Account


@dataclass(frozen=True)
class FinishedSeat:
    """Who sat at one seat of a finished hand (None: a bot seated at the hand's start), and
    how the hand went for them."""

    seat: int
    user_id: int | None
    escaped: bool
    absent_at_end: bool
    turns: int
    auto_turns: int


@dataclass(frozen=True)
class FinishedHand:
    """A finished hand as the ladder settles it: the hand's stored status, result, rules,
    dealer, levels and wrap flags, its table's stake and rankedness, and its seats. The games
    build it from the locked hand (`games.services.wrap_up.finished_hand`)."""

    hand_id: int
    status: str
    result: Mapping[str, Any] | None
    ruleset: Mapping[str, Any]
    stake: int
    dealer: int | None
    levels: Any
    wrapped: Any
    ranked: bool
    seats: tuple[FinishedSeat, ...]


@dataclass(frozen=True)
class SettlementResult:
    hand_id: int
    created: bool  # False: the hand was settled before and nothing was written
    entries: list[LedgerEntry]
    rating_changes: list[RatingChange]


# ---------------------------------------------------------------------------------------------
# Profiles


@transaction.atomic
def ladder_profile_open(*, user: User) -> LadderProfile:
    """The user's ladder profile, created with its sign-up grant the first time (idempotent)."""
    return _profiles_locked([user.pk])[user.pk]


def ladder_profiles_lock(*, user_ids: Iterable[int]) -> dict[int, LadderProfile]:
    """The users' profiles, locked (``SELECT … FOR UPDATE``) in user-id order, opened with
    the sign-up grant where missing. Whoever seats a player holds this lock while checking
    the player's other seats and balance, so that two sits of one user never both pass
    (docs/LADDER.md, "One table at a time"). Precondition: inside a transaction, after the
    table and seat locks (the lock order is Table → Hand → Seats → ladder rows)."""
    return _profiles_locked(user_ids)


def _profiles_locked(user_ids: Iterable[int]) -> dict[int, LadderProfile]:
    """Lock the users' profiles in id order, opening (with the grant) any that do not exist.

    Precondition: inside a transaction.
    """
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    LadderProfile.objects.bulk_create(
        [LadderProfile(user_id=user_id) for user_id in ids], ignore_conflicts=True
    )
    profiles = {
        profile.user_id: profile
        for profile in LadderProfile.objects.select_for_update()
        .filter(user_id__in=ids)
        .order_by("user_id")
    }
    grant = settings.LADDER_SIGNUP_GRANT
    if grant > 0:
        granted = set(
            LedgerEntry.objects.filter(user_id__in=ids, kind=Kind.GRANT).values_list(
                "user_id", flat=True
            )
        )
        to_grant = [user_id for user_id in ids if user_id not in granted]
        now = timezone.now()
        LedgerEntry.objects.bulk_create(
            [_entry(profiles[pk], kind=Kind.GRANT, amount=grant, now=now) for pk in to_grant]
        )
        for user_id in to_grant:
            profiles[user_id].save(update_fields=["balance"])
    return profiles


def _entry(
    profile: LadderProfile,
    *,
    kind: str,
    amount: int,
    now: datetime,
    hand_id: int | None = None,
    reason: str = "",
    by: User | None = None,
) -> LedgerEntry:
    """A ledger row for `profile`, moving the profile's balance with it (not yet saved)."""
    if kind in LedgerEntry.TITLE_KINDS:
        account = Account.TITLE
        profile.title_points += amount
        after = profile.title_points
    else:
        account = Account.TABLE
        profile.balance += amount
        after = profile.balance
    return LedgerEntry(
        user_id=profile.user_id,
        hand_id=hand_id,
        kind=kind,
        account=account,
        amount=amount,
        balance_after=after,
        reason=reason,
        created_by=by,
        created_at=now,
    )


@transaction.atomic
def ladder_profile_set_listed(*, user: User, listed: bool) -> LadderProfile:
    """Show or hide the user on the leaderboards (hidden while banned)."""
    profile = _profiles_locked([user.pk])[user.pk]
    if profile.listed != listed:
        profile.listed = listed
        profile.save(update_fields=["listed"])
    return profile


# ---------------------------------------------------------------------------------------------
# Adjustments


@transaction.atomic
def ladder_points_adjust(
    *, user: User, account: str, amount: int, reason: str, by: User | None
) -> LedgerEntry:
    """Move a user's table points (`account="table"`) or title points (`"title"`) by a ledger
    entry with a reason; never below 0. The only way staff change a balance."""
    reason = reason.strip()
    if not reason:
        raise ApplicationError("reason_required", _("an adjustment needs a reason"))
    if amount == 0:
        raise ApplicationError("amount_zero")
    if account not in (Account.TABLE, Account.TITLE):
        raise ApplicationError("account_invalid", _("no account '%(account)s'"), account=account)
    profile = _profiles_locked([user.pk])[user.pk]
    current = profile.balance if account == Account.TABLE else profile.title_points
    if current + amount < 0:
        raise ApplicationError(
            "balance_negative",
            _("%(balance)s %(points)s cannot go down by %(down)s"),
            balance=current,
            points=Account(account).label,
            down=-amount,
        )
    kind = Kind.ADMIN_ADJUST if account == Account.TABLE else Kind.TITLE_ADJUST
    entry = _entry(profile, kind=kind, amount=amount, now=timezone.now(), reason=reason, by=by)
    entry.save()
    profile.save(update_fields=["balance", "title_points"])
    return entry


# ---------------------------------------------------------------------------------------------
# The daily relief grant (救济)


# pg_advisory_xact_lock(RELIEF_ADDRESS_LOCK, hashtext(network)): the relief claims from one
# network address run one at a time, so the count of that address's claims today is exact.
RELIEF_ADDRESS_LOCK = 0x52454C  # "REL"; the two-key lock space is not the accounts' one-key one


@transaction.atomic
def ladder_relief_claim(*, user: User, address: str | None = None) -> LedgerEntry:
    """Give the user the daily relief grant: what tops their balance up to
    `LADDER_RELIEF_THRESHOLD` (at most `LADDER_RELIEF_AMOUNT`), when their balance is below
    it, at most `LADDER_RELIEF_PER_DAY` times a day (the site's day, `TIME_ZONE`), and to the
    accounts of one client ``address`` at most `SHENGJI_RELIEF_PER_IP_PER_DAY` times a day
    (docs/LADDER.md, "Relief per address"). Every claim a client makes passes its address
    (`accounts.client_address.client_ip`); None is a grant with no client (staff, the shell).

    A `relief` ledger row and its `ReliefClaim`. The address's lock, then the profile lock,
    make claims at once count each other, from one account or many. A refusal changes
    nothing."""
    if not user.is_active:
        raise ApplicationError("account_inactive")
    network = "" if address is None else client_address.network_of(address)
    if network:
        _relief_address_lock(network)
    profile = _profiles_locked([user.pk])[user.pk]
    threshold = settings.LADDER_RELIEF_THRESHOLD
    if profile.balance >= threshold:
        raise ApplicationError(
            "relief_not_needed",
            _("relief is for balances below %(threshold)s table points"),
            balance=profile.balance,
            threshold=threshold,
        )
    limit = settings.LADDER_RELIEF_PER_DAY
    if relief_claimed_today(user_id=user.pk) >= limit:
        raise ApplicationError(
            "relief_limit",
            _("relief is given at most %(limit)s times a day: come back tomorrow"),
            limit=limit,
        )
    per_address = settings.SHENGJI_RELIEF_PER_IP_PER_DAY
    if network and relief_claimed_today_from(network=network) >= per_address:
        raise ApplicationError(
            "relief_address_limit",
            _(
                "relief is given at most %(limit)s times a day to the accounts of one network "
                "address, and it has been claimed from yours today: come back tomorrow"
            ),
            limit=per_address,
        )
    # Up to the threshold, not a fixed sum: whoever held less before relief never holds more
    # after it (docs/LADDER.md, "Relief never rewards an escape").
    amount = relief_amount(profile.balance)
    now = timezone.now()
    entry = _entry(profile, kind=Kind.RELIEF, amount=amount, now=now)
    entry.save()
    ReliefClaim.objects.create(entry=entry, address=network, day=timezone.localdate(now))
    profile.save(update_fields=["balance"])
    return entry


def _relief_address_lock(network: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [RELIEF_ADDRESS_LOCK, network]
        )


# ---------------------------------------------------------------------------------------------
# Quick-match no-shows


def ladder_no_show_charge(*, user_id: int, table_id: int, stake: int) -> LedgerEntry | None:
    """Charge a player quick match seated at ``table_id`` who never came: `no_show_fee` (one
    stake) as a `no_show` row, to no one (docs/LADDER.md, "Quick-match no-shows"). None when
    they hold nothing. Precondition: inside a transaction, after the table and seat locks."""
    profile = _profiles_locked([user_id])[user_id]
    fee = no_show_fee(stake, profile.balance)
    if not fee:
        return None
    entry = _entry(
        profile,
        kind=Kind.NO_SHOW,
        amount=-fee,
        now=timezone.now(),
        reason=f"quick match table {table_id}",
    )
    entry.save()
    profile.save(update_fields=["balance"])
    return entry


# ---------------------------------------------------------------------------------------------
# Settlement


@transaction.atomic
def ladder_settle_hand(*, hand: FinishedHand) -> SettlementResult:
    """Settle a finished hand: ledger rows, balances, title points, ratings, counters.

    Precondition: the caller holds the hand's row lock, in the transaction that records the
    hand's result (`games.services.wrap_up`): that lock makes the check for an earlier
    settlement exact. Idempotent: a hand settled before is left as it is and the call writes
    nothing (`created` False). A hand with a bot seated at its start (a seat without a user)
    is practice: marked settled (`practice`), nothing else written. A hand of another shape
    than four players, two decks, tractor (RULES-SPEC.md §9.5) is settled as at a casual table
    whatever the table says: no title points, no rating, escape penalties to the house (ranked
    tables are only that shape; docs/LADDER.md, "Bigger tables").
    """
    hand_id = hand.hand_id
    if HandSettlement.objects.filter(hand_id=hand_id).exists():
        return SettlementResult(
            hand_id=hand_id,
            created=False,
            entries=list(LedgerEntry.objects.filter(hand_id=hand_id).order_by("id")),
            rating_changes=list(RatingChange.objects.filter(hand_id=hand_id).order_by("id")),
        )
    with settlement_refusals():
        options = rule_options(hand.ruleset)
        seat_count, _decks, _mode = record_shape(hand.result or {}, options)
    players = _players_by_seat(hand, seat_count)
    with settlement_refusals():
        outcome = outcome_from_record(
            status=hand.status,
            result=hand.result,
            ruleset=hand.ruleset,
            stake=hand.stake,
            dealer=hand.dealer,
            hand_levels=hand.levels,
            hand_wrapped=hand.wrapped,
            escaped_seats=[p.seat for p in players.values() if p.escaped],
            absent_seats=[p.seat for p in players.values() if p.absent_at_end],
            fees=fee_schedule(),
            ranked=hand.ranked,
        )
    ranked = hand.ranked and outcome.is_classic
    now = timezone.now()
    if any(p.user_id is None for p in players.values()):
        HandSettlement.objects.create(
            hand_id=hand_id,
            outcome=outcome_as_json(outcome),
            ranked=ranked,
            practice=True,
            settled_at=now,
        )
        return SettlementResult(hand_id=hand_id, created=True, entries=[], rating_changes=[])
    profiles = _profiles_locked(p.user_id for p in players.values() if p.user_id)
    with settlement_refusals():
        lines = settle_hand(outcome, _seat_states(players, profiles))
    if not ranked:
        lines = [line for line in lines if not line.is_title]
    entries = _entries_for(lines, hand_id, players, profiles, now)
    LedgerEntry.objects.bulk_create(entries)
    changes = _apply_ratings(outcome, hand_id, players, profiles, now) if ranked else []
    RatingChange.objects.bulk_create(changes)
    _count_hand(outcome, players, profiles, now)
    for profile in profiles.values():
        profile.save()
    HandSettlement.objects.create(
        hand_id=hand_id, outcome=outcome_as_json(outcome), ranked=ranked, settled_at=now
    )
    return SettlementResult(hand_id=hand_id, created=True, entries=entries, rating_changes=changes)


def _players_by_seat(hand: FinishedHand, seat_count: int) -> dict[int, FinishedSeat]:
    """The hand's players by seat: exactly seats 0 … seat_count − 1, each user once."""
    players = {p.seat: p for p in hand.seats}
    if len(players) != len(hand.seats) or sorted(players) != list(range(seat_count)):
        seats = sorted(p.seat for p in hand.seats)
        raise ApplicationError(
            "seats_incomplete", f"hand {hand.hand_id} has seats {seats}", hand_id=hand.hand_id
        )
    users = [p.user_id for p in players.values() if p.user_id]
    if len(users) != len(set(users)):
        raise ApplicationError(
            "duplicate_player",
            f"a user holds two seats of hand {hand.hand_id}",
            hand_id=hand.hand_id,
        )
    return players


def _seat_states(
    players: dict[int, FinishedSeat], profiles: dict[int, LadderProfile]
) -> dict[int, SeatState]:
    states = {}
    for seat, player in players.items():
        if player.user_id is None:
            states[seat] = SeatState(human=False)
        else:
            profile = profiles[player.user_id]
            states[seat] = SeatState(
                human=True,
                balance=profile.balance,
                title_points=profile.title_points,
                bot_played=rating_math.bot_played(player.turns, player.auto_turns),
            )
    return states


def _entries_for(
    lines: list[Line],
    hand_id: int,
    players: dict[int, FinishedSeat],
    profiles: dict[int, LadderProfile],
    now: datetime,
) -> list[LedgerEntry]:
    entries = []
    for line in lines:
        if line.seat is None:
            entries.append(
                LedgerEntry(
                    user=None,
                    hand_id=hand_id,
                    kind=line.kind,
                    account=Account.TITLE if line.is_title else Account.TABLE,
                    amount=line.amount,
                    created_at=now,
                )
            )
        else:
            profile = profiles[players[line.seat].user_id]  # type: ignore[index]
            entries.append(
                _entry(profile, kind=line.kind, amount=line.amount, now=now, hand_id=hand_id)
            )
    return entries


def _apply_ratings(
    outcome: HandOutcome,
    hand_id: int,
    players: dict[int, FinishedSeat],
    profiles: dict[int, LadderProfile],
    now: datetime,
) -> list[RatingChange]:
    if outcome.kind == "void":
        return []
    seats = {}
    for seat, player in players.items():
        profile = profiles.get(player.user_id) if player.user_id else None
        seats[seat] = rating_math.RatedSeat(
            rating=None
            if profile is None
            else rating_math.Rating(profile.rating_mu, profile.rating_sigma),
            bot_played=rating_math.bot_played(player.turns, player.auto_turns),
        )
    if outcome.kind == "normal":
        moved = rating_math.rate_hand(seats, outcome.winner_side or 0)
    else:
        moved = rating_math.rate_escape(seats, outcome.escaper_seat or 0)
    changes = []
    threshold = settings.LADDER_RATING_PROVISIONAL_SIGMA
    for seat, new in sorted(moved.items()):
        profile = profiles[players[seat].user_id]  # type: ignore[index]
        changes.append(
            RatingChange(
                user_id=profile.user_id,
                hand_id=hand_id,
                mu_before=profile.rating_mu,
                sigma_before=profile.rating_sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                ordinal_after=new.ordinal,
                created_at=now,
            )
        )
        profile.rating_mu = new.mu
        profile.rating_sigma = new.sigma
        profile.rating_ordinal = new.ordinal
        profile.rating_provisional = rating_math.is_provisional(new.sigma, threshold)
        profile.rated_hands += 1
    return changes


def _count_hand(
    outcome: HandOutcome,
    players: dict[int, FinishedSeat],
    profiles: dict[int, LadderProfile],
    now: datetime,
) -> None:
    """Hands played and won count hands played to the end; escapes count the escaper and the
    players absent at the end (charged as escapers)."""
    if outcome.kind == "void":
        return
    for seat, player in players.items():
        if player.user_id is None:
            continue
        profile = profiles[player.user_id]
        profile.last_played_at = now
        if outcome.kind == "normal":
            profile.hands_played += 1
            if seat in outcome.winners:
                profile.hands_won += 1
            if seat in outcome.absent_seats:
                profile.escapes += 1
        elif seat == outcome.escaper_seat:
            profile.escapes += 1
