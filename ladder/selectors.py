"""Every read of the ladder: leaderboards and ranks, profiles, a user's histories of points and
rating, the ledger's checks of its own tables. Reads that join hands (a player's hands, one
hand's ledger lines, the checks that read seats) are in games/history.py, above the ladder.

Leaderboards read `LadderProfile` through partial indexes (`ladder_board_*`, listed users
only): a page is an index range (ORDER BY score DESC, user_id LIMIT/OFFSET) and a rank is one
plus the count of strictly better rows (competition ranking: equal scores share a rank).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import client_address
from accounts.models import User
from ladder.errors import ApplicationError, settlement_refusals
from ladder.escapes import escape_cost_now as escape_cost_now
from ladder.escapes import fee_schedule as fee_schedule
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange, ReliefClaim
from ladder.titles import Title, title_for
from shengji.settlement import (
    HOUSE_KINDS,
    SHORTFALL,
    FeeSchedule,
    escape_charge_range,
    max_hand_loss,
    relief_grant,
    rule_options,
)


def table_points_needed(*, ruleset: Mapping[str, Any], stake: int, min_balance: int = 0) -> int:
    """The table points every human at a table needs to sit and before every hand: the most one
    hand of these rules at this stake can take from a seat (`settlement.max_hand_loss`, fees
    in force, at the table's shape: a lone 找朋友 dealer pays more), and never less than the
    table's own minimum. `ruleset` is a rule set's `to_dict()` or a flat mapping of its
    options."""
    options = rule_options(ruleset)
    fees = fee_schedule()
    fees = FeeSchedule(
        winner_fee=fees.winner_fee,
        table_fee=int(options.get("table_fee", fees.table_fee)),
        service_percent=fees.service_percent,
        fixed_escape=fees.fixed_escape,
    )
    with settlement_refusals():
        most = max_hand_loss(
            settlement=str(options["settlement"]),
            escape_penalty=str(options["escape_penalty"]),
            stake=stake,
            fees=fees,
            players=int(options.get("players", 4)),
            mode=str(options.get("mode", "tractor")),
        )
    return max(most, min_balance)


def escape_cost(*, ruleset: Mapping[str, Any], stake: int) -> tuple[int, int]:
    """(least, most) table points an escaper (or a player away at the hand's end) pays at a
    table of these rules and stake, under the fees in force (RULES-SPEC.md §7)."""
    options = rule_options(ruleset)
    with settlement_refusals():
        return escape_charge_range(
            str(options["settlement"]), str(options["escape_penalty"]), stake, fee_schedule()
        )


def player_balance(*, user: User) -> int:
    """The user's table points (0 for a user without a ladder profile yet)."""
    balance = LadderProfile.objects.filter(user=user).values_list("balance", flat=True).first()
    return balance or 0


def balances_of(*, user_ids: list[int]) -> dict[int, int]:
    """The users' table points, read without a lock (a user without a ladder profile yet is
    not in it)."""
    rows = LadderProfile.objects.filter(user_id__in=user_ids).values_list("user_id", "balance")
    return dict(rows)


def relief_claimed_today(*, user_id: int) -> int:
    """How many relief grants the user has had since the start of today (the site's day)."""
    start = timezone.make_aware(datetime.combine(timezone.localdate(), time.min))
    kind = LedgerEntry.Kind.RELIEF
    return LedgerEntry.objects.filter(user_id=user_id, kind=kind, created_at__gte=start).count()


def relief_claimed_today_from(*, network: str) -> int:
    """How many relief grants the accounts of one network address (`client_address.network_of`)
    have had today (the site's day)."""
    return ReliefClaim.objects.filter(address=network, day=timezone.localdate()).count()


def relief_amount(balance: int) -> int:
    """What the daily relief grant gives to ``balance`` now: up to the threshold
    (`settlement.relief_grant`), 0 at or above it."""
    return relief_grant(balance, settings.LADDER_RELIEF_THRESHOLD, settings.LADDER_RELIEF_AMOUNT)


def next_relief_day() -> datetime:
    """When the site's next day starts (relief is counted per day, `TIME_ZONE`)."""
    tomorrow = timezone.localdate() + timedelta(days=1)
    return timezone.make_aware(datetime.combine(tomorrow, time.min))


def relief_status(*, user: User, address: str | None = None) -> dict[str, Any]:
    """Whether the user may claim the daily relief grant now, and its numbers: ``amount`` is
    what a claim gives now (it tops the balance up to ``threshold``); ``next_at`` when a
    claim is next possible (now, the start of the next day, or None above the threshold).
    With the client's ``address``, a claim refused for that address today
    (`SHENGJI_RELIEF_PER_IP_PER_DAY`) is not eligible either, and ``address_used`` says so."""
    balance = player_balance(user=user)
    claimed = relief_claimed_today(user_id=user.pk)
    threshold, per_day = settings.LADDER_RELIEF_THRESHOLD, settings.LADDER_RELIEF_PER_DAY
    below = balance < threshold
    address_used = address is not None and (
        relief_claimed_today_from(network=client_address.network_of(address))
        >= settings.SHENGJI_RELIEF_PER_IP_PER_DAY
    )
    eligible = below and claimed < per_day and not address_used
    return {
        "balance": balance,
        "threshold": threshold,
        "amount": relief_amount(balance),
        "per_day": per_day,
        "claimed_today": claimed,
        "eligible": eligible,
        "address_used": address_used,
        "next_at": timezone.now() if eligible else next_relief_day() if below else None,
    }


def quick_match_short_refusal(*, user: User, balance: int, needed: int) -> ApplicationError:
    """``insufficient_balance`` for quick match, saying exactly how to play again: the numbers,
    the daily relief grant (每日救济: claimable now, or from when, and what it brings the
    balance to), and the tables that need fewer table points (practice, casual at a lower
    stake). ``relief_url`` is the player's page, where relief is claimed."""
    relief = relief_status(user=user)
    fields: dict[str, Any] = {
        "needed": needed,
        "balance": balance,
        "floor": relief["threshold"],
        "relief_url": reverse("ladder:player", kwargs={"username": user.get_username()}),
    }
    if relief["eligible"]:
        text = _(
            "Quick match needs at least %(needed)s table points and you hold %(balance)s. "
            "Your daily relief is ready: claim it on your player page and it brings you to "
            "%(floor)s. Or play on now: practise against bots, or sit at a casual table with "
            "a lower stake."
        )
    elif relief["next_at"] is not None:
        fields["next"] = timezone.localtime(relief["next_at"]).strftime("%H:%M")
        text = _(
            "Quick match needs at least %(needed)s table points and you hold %(balance)s. "
            "You have had today's daily relief; the next is yours tomorrow from %(next)s, on "
            "your player page, and brings you to %(floor)s. Meanwhile play on: practise "
            "against bots, or sit at a casual table with a lower stake."
        )
    else:
        text = _(
            "Quick match needs at least %(needed)s table points and you hold %(balance)s. "
            "Play on meanwhile: practise against bots, or sit at a casual table with a lower "
            "stake."
        )
    return ApplicationError("insufficient_balance", text, **fields)


@dataclass(frozen=True)
class Board:
    code: str
    field: str  # the LadderProfile column ranked on, high first


BOARDS = {
    "title": Board("title", "title_points"),
    "rating": Board("rating", "rating_ordinal"),
    "points": Board("points", "balance"),
}


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    username: str
    display_name: str
    score: float | int
    title: Title
    title_points: int
    rating: float
    balance: int


@dataclass(frozen=True)
class BoardPage:
    board: str
    page: int
    page_size: int
    total: int
    rows: list[BoardRow]
    viewer_rank: int | None
    viewer_page: int | None

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def has_next(self) -> bool:
        return self.page < self.num_pages

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def board_get(code: str) -> Board:
    board = BOARDS.get(code)
    if board is None:
        raise ApplicationError(
            "board_unknown", _("no leaderboard '%(board)s' (title, rating, points)"), board=code
        )
    return board


def leaderboard_queryset(*, board: Board, now: datetime | None = None) -> QuerySet[LadderProfile]:
    """The profiles a board lists, matching its partial index's condition."""
    profiles = LadderProfile.objects.filter(listed=True)
    if board.code == "rating":
        now = now or timezone.now()
        since = now - timedelta(days=settings.LADDER_RATING_ACTIVE_DAYS)
        profiles = profiles.filter(rating_provisional=False, last_played_at__gte=since)
    return profiles


def leaderboard_page(
    *, board: str, page: int = 1, viewer: User | None = None, page_size: int | None = None
) -> BoardPage:
    """One page of a leaderboard, best first, with ranks, and the viewer's own rank and page."""
    spec = board_get(board)
    size = page_size or settings.LADDER_PAGE_SIZE
    now = timezone.now()
    listed = leaderboard_queryset(board=spec, now=now)
    total = listed.count()
    page = max(1, page)
    offset = (page - 1) * size
    # Two steps, so that a deep page costs an index-only scan of the board's index: the page's
    # (user id, score) in order, then those profiles and their users by primary key. Ranks come
    # from the scores of the first step, one snapshot.
    ranked = list(
        listed.order_by(f"-{spec.field}", "user_id").values_list("user_id", spec.field)[
            offset : offset + size
        ]
    )
    profiles = LadderProfile.objects.select_related("user").in_bulk([pk for pk, _rank in ranked])
    rows = _ranked_rows(spec, ranked, profiles, offset, listed)
    viewer_rank = viewer_page = None
    if viewer is not None and viewer.is_authenticated:
        position = _position(spec, listed, viewer.pk)
        if position is not None:
            viewer_rank, index = position
            viewer_page = index // size + 1
    return BoardPage(spec.code, page, size, total, rows, viewer_rank, viewer_page)


def _ranked_rows(
    spec: Board,
    ranked: list[tuple[int, Any]],
    profiles: dict[int, LadderProfile],
    offset: int,
    listed: QuerySet[LadderProfile],
) -> list[BoardRow]:
    """Competition ranks: a row's rank is 1 + the rows with a strictly better score. Within the
    page that is its position unless it ties the row above; the first row of a later page
    counts the better rows."""
    rows: list[BoardRow] = []
    previous: Any = None
    rank = 0
    for index, (user_id, score) in enumerate(ranked):
        if index == 0:
            rank = 1 + listed.filter(**{f"{spec.field}__gt": score}).count() if offset else 1
        elif score != previous:
            rank = offset + index + 1
        previous = score
        profile = profiles.get(user_id)
        if profile is None:  # gone between the two reads
            continue
        rows.append(
            BoardRow(
                rank=rank,
                user_id=user_id,
                username=profile.user.username,
                display_name=profile.user.display_name or profile.user.username,
                score=score,
                title=title_for(profile.title_points),
                title_points=profile.title_points,
                rating=profile.rating_ordinal,
                balance=profile.balance,
            )
        )
    return rows


def _position(spec: Board, listed: QuerySet[LadderProfile], user_id: int) -> tuple[int, int] | None:
    """(rank, 0-based index in the board's order) of a user, or None when not listed."""
    score = listed.filter(user_id=user_id).values_list(spec.field, flat=True).first()
    if score is None:
        return None
    better = listed.filter(**{f"{spec.field}__gt": score}).count()
    tied_before = listed.filter(**{spec.field: score, "user_id__lt": user_id}).count()
    return better + 1, better + tied_before


def leaderboard_viewer(
    *, board: str, user: User, page_size: int | None = None
) -> tuple[int, int] | None:
    """(rank, page) of the user on a board, or None when the board does not list them."""
    spec = board_get(board)
    size = page_size or settings.LADDER_PAGE_SIZE
    position = _position(spec, leaderboard_queryset(board=spec), user.pk)
    return None if position is None else (position[0], position[1] // size + 1)


def leaderboard_rank(*, board: str, user: User) -> int | None:
    """The user's rank on a board (1 = best; equal scores share a rank), None if not listed."""
    spec = board_get(board)
    position = _position(spec, leaderboard_queryset(board=spec), user.pk)
    return None if position is None else position[0]


# ---------------------------------------------------------------------------------------------
# Players


def player_get(*, username: str) -> User:
    user = User.objects.filter(username=username).select_related("ladder").first()
    if user is None or user.is_banned:
        raise ApplicationError("player_not_found", _("no player '%(username)s'"), username=username)
    return user


def player_profile(*, user: User) -> LadderProfile:
    """The user's ladder profile; an unsaved default one (no grant written) if they have none."""
    profile = LadderProfile.objects.filter(user=user).first()
    return profile or LadderProfile(user=user)


def seat_won(outcome: Mapping[str, Any], seat: int) -> bool | None:
    """Whether ``seat`` won the settled hand whose stored outcome this is (None: no winner, an
    escape or a void hand). A hand of another shape names its `winning_seats`; a classic one
    its `winner_side` (the even seats 0, the odd 1)."""
    if outcome.get("kind", "normal") != "normal":
        return None
    winning = outcome.get("winning_seats")
    if winning is not None:
        return seat in winning
    winner = outcome.get("winner_side")
    return None if winner is None else seat % 2 == winner


def hand_replay_url(hand_id: int) -> str:
    """The hand's replay page once the games app names one (`replay`), else its API record."""
    for name in ("games:replay", "replay"):
        try:
            return reverse(name, kwargs={"hand_id": hand_id})
        except NoReverseMatch:
            continue
    return reverse("api-ladder:hand", kwargs={"hand_id": hand_id})


@dataclass(frozen=True)
class HistoryPoint:
    at: datetime
    value: float


def player_title_history(*, user: User, limit: int = 200) -> list[HistoryPoint]:
    """Title points after each change, oldest first (the last `limit` changes)."""
    rows = list(
        LedgerEntry.objects.filter(user=user, account=LedgerEntry.Account.TITLE)
        .order_by("-id")
        .values_list("created_at", "balance_after")[:limit]
    )
    return [HistoryPoint(at, float(value or 0)) for at, value in reversed(rows)]


def player_rating_history(*, user: User, limit: int = 200) -> list[HistoryPoint]:
    """The rating ordinal after each rated hand, oldest first (the last `limit` hands)."""
    rows = list(
        RatingChange.objects.filter(user=user)
        .order_by("-id")
        .values_list("created_at", "ordinal_after")[:limit]
    )
    return [HistoryPoint(at, value) for at, value in reversed(rows)]


def player_ledger(*, user: User, limit: int = 50, offset: int = 0) -> list[LedgerEntry]:
    return list(
        LedgerEntry.objects.filter(user=user)
        .order_by("-id")
        .select_related("hand")[offset : offset + limit]
    )


# ---------------------------------------------------------------------------------------------
# The proof that balances are what the ledger sums to


@dataclass(frozen=True)
class LedgerProblem:
    user_id: int | None
    what: str


def ledger_problems_in_ladder(*, since_hand: int = 0) -> tuple[int, int, list[LedgerProblem]]:
    """(users checked, entries checked, problems): the invariants of docs/LADDER.md that the
    ladder's own tables show. Not all of them: `games.history.ledger_problems` adds those that
    read hands and seats (practice hands, rows of a user not in the hand, bigger tables), and
    is the check to call.

    - every profile's balance and title points equal its ledger sums, and none is negative;
    - every entry's balance_after equals the running sum of its account, and is not negative;
    - every hand's table-point entries (house included) sum to zero;
    - the house never pays: its rows on a hand are positive and only fees and escape penalties
      (no `bot_seat`, `waived`, `bonus` or `shortfall` row of the house);
    - no `shortfall` row at all: the check before every hand must keep it from being written;
    - nobody had the relief grant more often in a day than `LADDER_RELIEF_PER_DAY`, and no
      relief row gave more than the top-up to `LADDER_RELIEF_THRESHOLD` or more than
      `LADDER_RELIEF_AMOUNT`;
    - every relief row has its `ReliefClaim` (of its site day), and no network address had
      more claims in a day than `SHENGJI_RELIEF_PER_IP_PER_DAY`.

    The per-hand checks look at hands with an id above `since_hand` (history already reviewed).
    """
    problems: list[LedgerProblem] = []
    sums: dict[tuple[int, str], int] = {}
    for row in (
        LedgerEntry.objects.filter(user__isnull=False)
        .values("user_id", "account")
        .annotate(total=Sum("amount"))
    ):
        sums[(row["user_id"], row["account"])] = row["total"]
    users = 0
    for user_id, balance, title_points in LadderProfile.objects.values_list(
        "user_id", "balance", "title_points"
    ).iterator(chunk_size=5000):
        users += 1
        table_sum = sums.pop((user_id, LedgerEntry.Account.TABLE), 0)
        title_sum = sums.pop((user_id, LedgerEntry.Account.TITLE), 0)
        if balance != table_sum:
            problems.append(LedgerProblem(user_id, f"balance {balance} ≠ ledger sum {table_sum}"))
        if title_points != title_sum:
            problems.append(
                LedgerProblem(user_id, f"title points {title_points} ≠ ledger sum {title_sum}")
            )
        if balance < 0 or title_points < 0:
            problems.append(
                LedgerProblem(user_id, f"negative: balance {balance}, title points {title_points}")
            )
    for (user_id, account), total in sums.items():
        problems.append(LedgerProblem(user_id, f"{account} ledger sum {total} but no profile"))
    problems += _running_balance_problems()
    problems += _unbalanced_hands(since_hand)
    problems += _house_payments(since_hand)
    problems += _shortfalls(since_hand)
    problems += _relief_over_limit()
    problems += _relief_past_its_top_up()
    problems += _relief_without_its_claim()
    problems += _relief_over_the_address_limit()
    entries = LedgerEntry.objects.count()
    return users, entries, problems


def _running_balance_problems() -> list[LedgerProblem]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT user_id, id, balance_after, running FROM (
                SELECT user_id, id, balance_after,
                       SUM(amount) OVER (PARTITION BY user_id, account ORDER BY id) AS running
                FROM ladder_ledgerentry WHERE user_id IS NOT NULL
            ) AS chain
            WHERE balance_after <> running OR balance_after < 0
            ORDER BY id
            LIMIT 1000
            """
        )
        return [
            LedgerProblem(user_id, f"entry {entry_id}: balance_after {after} (running sum {run})")
            for user_id, entry_id, after, run in cursor.fetchall()
        ]


def _unbalanced_hands(since_hand: int) -> list[LedgerProblem]:
    unbalanced = (
        LedgerEntry.objects.filter(hand_id__gt=since_hand, account=LedgerEntry.Account.TABLE)
        .values("hand_id")
        .annotate(total=Sum("amount"))
        .filter(~Q(total=0))
        .values_list("hand_id", "total")[:1000]
    )
    return [
        LedgerProblem(None, f"hand {hand_id}: table-point entries sum to {total}, not 0")
        for hand_id, total in unbalanced
    ]


def _house_payments(since_hand: int) -> list[LedgerProblem]:
    """House rows that pay someone: negative, or of a kind the house never takes."""
    rows = (
        LedgerEntry.objects.filter(user__isnull=True, hand_id__gt=since_hand)
        .filter(Q(amount__lt=0) | ~Q(kind__in=sorted(HOUSE_KINDS)))
        .order_by("id")
        .values_list("hand_id", "kind", "amount")[:1000]
    )
    return [
        LedgerProblem(None, f"hand {hand_id}: the house pays ({kind} {amount:+d})")
        for hand_id, kind, amount in rows
    ]


def _shortfalls(since_hand: int) -> list[LedgerProblem]:
    """Any `shortfall` row: a seat owed more than it held (the check before the hand failed)."""
    rows = (
        LedgerEntry.objects.filter(kind=SHORTFALL, hand_id__gt=since_hand)
        .order_by("id")
        .values_list("hand_id", "user_id", "amount")[:1000]
    )
    return [
        LedgerProblem(user_id, f"hand {hand_id}: shortfall {amount:+d}")
        for hand_id, user_id, amount in rows
    ]


def _relief_over_limit() -> list[LedgerProblem]:
    limit = settings.LADDER_RELIEF_PER_DAY
    rows = (
        LedgerEntry.objects.filter(kind=LedgerEntry.Kind.RELIEF)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values("user_id", "day")
        .annotate(claims=Count("id"))
        .filter(claims__gt=limit)
        .values_list("user_id", "day", "claims")[:1000]
    )
    return [
        LedgerProblem(user_id, f"{claims} relief grants on {day} (limit {limit})")
        for user_id, day, claims in rows
    ]


def _relief_past_its_top_up() -> list[LedgerProblem]:
    """Relief rows that left a balance above the threshold (relief tops up to it and no
    further: docs/LADDER.md, "Relief never rewards an escape"), gave more than the most one
    relief gives (the database refuses one that gives nothing or takes)."""
    threshold, most = settings.LADDER_RELIEF_THRESHOLD, settings.LADDER_RELIEF_AMOUNT
    rows = (
        LedgerEntry.objects.filter(kind=LedgerEntry.Kind.RELIEF)
        .filter(Q(balance_after__gt=threshold) | Q(amount__gt=most))
        .values_list("user_id", "pk", "amount", "balance_after")[:1000]
    )
    return [
        LedgerProblem(
            user_id,
            f"relief row {pk} gave {amount}, to a balance of {after}"
            f" (relief tops up to {threshold}, at most {most} at a time)",
        )
        for user_id, pk, amount, after in rows
    ]


def _relief_without_its_claim() -> list[LedgerProblem]:
    """Relief rows with no `ReliefClaim`, or one of another day than the row's: a grant
    written around `ladder_relief_claim`, which the per-address limit would not see."""
    day = TruncDate("created_at", tzinfo=timezone.get_current_timezone())
    rows = (
        LedgerEntry.objects.filter(kind=LedgerEntry.Kind.RELIEF)
        .annotate(day=day)
        .exclude(Exists(ReliefClaim.objects.filter(entry=OuterRef("pk"), day=OuterRef("day"))))
        .values_list("user_id", "pk")[:1000]
    )
    return [
        LedgerProblem(user_id, f"relief row {pk} has no claim of its day (its address unknown)")
        for user_id, pk in rows
    ]


def _relief_over_the_address_limit() -> list[LedgerProblem]:
    """Network addresses whose accounts had more relief grants in a day than
    `SHENGJI_RELIEF_PER_IP_PER_DAY` (docs/LADDER.md, "Relief per address")."""
    limit = settings.SHENGJI_RELIEF_PER_IP_PER_DAY
    rows = (
        ReliefClaim.objects.exclude(address="")
        .values("address", "day")
        .annotate(claims=Count("entry"))
        .filter(claims__gt=limit)
        .order_by("day", "address")
        .values_list("address", "day", "claims")[:1000]
    )
    return [
        LedgerProblem(None, f"{claims} relief grants from {address} on {day} (limit {limit})")
        for address, day, claims in rows
    ]


def practice_hand(*, hand_id: int) -> bool:
    """Whether a settled hand was practice (a bot seated at its start)."""
    return HandSettlement.objects.filter(hand_id=hand_id, practice=True).exists()
