"""REST API of the ladder (Django REST framework; schema by drf-spectacular at /api/schema/).
The API's reads of hands (a player's hands, one hand's record) are games/history_api.py, in the
same namespace `api-ladder` and with this module's error shape and serializers.

Thin views: parse, call a selector or service, serialise. Errors are `{"code", "message"}` with
a stable code. Session authentication serves the site, token authentication serves scripts
(`POST /api/auth/token/` with a user name and password returns the token).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import client_address, ratelimits
from accounts.models import User
from ladder import selectors
from ladder.errors import ApplicationError
from ladder.services import ladder_relief_claim
from ladder.titles import Title

NOT_FOUND_CODES = {"player_not_found", "hand_not_found", "board_unknown"}


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class TitleSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField(help_text="the title as seed 004 writes it (菜鳥 … 超級)")
    english = serializers.CharField()
    min_points = serializers.IntegerField()


class RanksSerializer(serializers.Serializer):
    title = serializers.IntegerField(allow_null=True)
    rating = serializers.IntegerField(
        allow_null=True, help_text="null while provisional or inactive for 30 days"
    )
    points = serializers.IntegerField(allow_null=True)


class PlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    date_joined = serializers.DateTimeField()
    title = TitleSerializer()
    title_points = serializers.IntegerField()
    table_points = serializers.IntegerField()
    rating = serializers.FloatField(help_text="OpenSkill ordinal: mu − 3 sigma")
    rating_mu = serializers.FloatField()
    rating_sigma = serializers.FloatField()
    rating_provisional = serializers.BooleanField()
    rated_hands = serializers.IntegerField()
    hands_played = serializers.IntegerField()
    hands_won = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True)
    escapes = serializers.IntegerField()
    ranks = RanksSerializer()


class BoardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    score = serializers.FloatField(help_text="the value the board ranks on")
    title = TitleSerializer()
    title_points = serializers.IntegerField()
    rating = serializers.FloatField()
    table_points = serializers.IntegerField(source="balance")


class ViewerSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    page = serializers.IntegerField()


class BoardPageSerializer(serializers.Serializer):
    board = serializers.ChoiceField(choices=sorted(selectors.BOARDS))
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    total = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    results = BoardRowSerializer(many=True, source="rows")
    viewer = ViewerSerializer(allow_null=True, help_text="the viewer's own rank, when listed")


class HandRowSerializer(serializers.Serializer):
    hand_id = serializers.IntegerField()
    table_name = serializers.CharField()
    preset = serializers.CharField()
    seat = serializers.IntegerField()
    status = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)
    won = serializers.BooleanField(allow_null=True)
    table_points = serializers.IntegerField(help_text="net table points of the hand")
    title_points = serializers.IntegerField()
    escaped = serializers.BooleanField()
    replay_url = serializers.CharField()


class HandListSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    results = HandRowSerializer(many=True)


class EntrySerializer(serializers.Serializer):
    username = serializers.CharField(allow_null=True, help_text="null: the house")
    kind = serializers.CharField()
    account = serializers.CharField()
    amount = serializers.IntegerField()
    balance_after = serializers.IntegerField(allow_null=True)


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True, help_text="null: a bot seat")
    escaped = serializers.BooleanField()
    absent_at_end = serializers.BooleanField()


class HandDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table_name = serializers.CharField()
    status = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)
    settled = serializers.BooleanField()
    outcome = serializers.JSONField(allow_null=True, help_text="every input of the settlement")
    seats = SeatSerializer(many=True)
    entries = EntrySerializer(many=True)


class LedgerEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    hand_id = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField()
    account = serializers.CharField()
    amount = serializers.IntegerField()
    balance_after = serializers.IntegerField()
    reason = serializers.CharField()


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


# ---------------------------------------------------------------------------------------------


class LadderAPIView(APIView):
    """Turns an `ApplicationError` into `{"code", "message"}` (404 for what does not exist)."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ApplicationError):
            code = status.HTTP_404_NOT_FOUND if exc.code in NOT_FOUND_CODES else 400
            return Response(exc.as_dict(), status=code)
        return super().handle_exception(exc)


def title_data(title: Title) -> dict[str, Any]:
    return {
        "code": title.code,
        "name": title.name,
        "english": title.english,
        "min_points": title.min_points,
    }


def player_data(user: User) -> dict[str, Any]:
    profile = selectors.player_profile(user=user)
    return {
        "username": user.username,
        "display_name": user.display_name or user.username,
        "date_joined": user.date_joined,
        "title": title_data(profile.title),
        "title_points": profile.title_points,
        "table_points": profile.balance,
        "rating": profile.rating_ordinal,
        "rating_mu": profile.rating_mu,
        "rating_sigma": profile.rating_sigma,
        "rating_provisional": profile.rating_provisional,
        "rated_hands": profile.rated_hands,
        "hands_played": profile.hands_played,
        "hands_won": profile.hands_won,
        "win_rate": profile.win_rate,
        "escapes": profile.escapes,
        "ranks": {
            board: selectors.leaderboard_rank(board=board, user=user) for board in selectors.BOARDS
        },
    }


def player_named(username: str) -> User:
    """The player the URL names; a name with NUL in it (which PostgreSQL refuses in text) is
    nobody's."""
    if "\x00" in username:
        raise ApplicationError("player_not_found", username=username)
    return selectors.player_get(username=username)


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(request.query_params.get(name, default))
    except ValueError:
        raise ApplicationError(
            "parameter_invalid", gettext_lazy("%(field)s is not a number"), field=name
        ) from None
    return min(max(value, low), high)


class PlayerView(LadderAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A player's public profile",
        responses={200: PlayerSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, username: str) -> Response:
        user = player_named(username)
        return Response(PlayerSerializer(player_data(user)).data)


class MeView(LadderAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="The authenticated user's profile", responses={200: PlayerSerializer})
    def get(self, request: Request) -> Response:
        return Response(PlayerSerializer(player_data(request.user)).data)


HAND_PAGING = [
    OpenApiParameter("limit", OpenApiTypes.INT, description="1–100, default 20"),
    OpenApiParameter("offset", OpenApiTypes.INT, description="default 0"),
]


class LeaderboardView(LadderAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A leaderboard page: title (title points), rating (skill), points (table points)",
        parameters=[OpenApiParameter("page", OpenApiTypes.INT, description="from 1")],
        responses={200: BoardPageSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, board: str) -> Response:
        page = int_param(request, "page", 1, 1, 10**7)
        result = selectors.leaderboard_page(board=board, page=page, viewer=request.user)
        data = {
            "board": result.board,
            "page": result.page,
            "page_size": result.page_size,
            "total": result.total,
            "num_pages": result.num_pages,
            "rows": [{**row.__dict__, "title": title_data(row.title)} for row in result.rows],
            "viewer": None
            if result.viewer_rank is None
            else {"rank": result.viewer_rank, "page": result.viewer_page},
        }
        return Response(BoardPageSerializer(data).data)


class MyLedgerView(LadderAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="The authenticated user's ledger, latest first",
        parameters=HAND_PAGING,
        responses={200: LedgerEntrySerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        limit = int_param(request, "limit", 50, 1, 200)
        offset = int_param(request, "offset", 0, 0, 10**9)
        entries = selectors.player_ledger(user=request.user, limit=limit, offset=offset)
        return Response(LedgerEntrySerializer(entries, many=True).data)


class TokenThrottle(BaseThrottle):
    """``ratelimits.TOKEN_REQUESTS_PER_MINUTE`` per client address, counted in Redis so that
    every server process shares the count (DRF's own throttles count in each process's memory:
    behind N processes an address would get N times the tries)."""

    seconds = 0

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.seconds = ratelimits.token_request_wait(ip=client_address.client_ip(request._request))
        return self.seconds == 0

    def wait(self) -> float | None:
        return float(self.seconds) or None


class TokenView(LadderAPIView):
    """Token authentication for scripts: `Authorization: Token <token>`."""

    throttle_classes = [TokenThrottle]

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(
        summary="Get (or create) your API token with your user name and password",
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, 400: ErrorSerializer, 429: ErrorSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        form = TokenRequestSerializer(data=request.data)
        if not form.is_valid():
            raise ApplicationError("credentials_missing")
        user = authenticate(
            request._request,
            username=form.validated_data["username"],
            password=form.validated_data["password"],
        )
        if user is None:
            wait = getattr(request._request, "login_retry_after", None)
            if wait:  # refused by accounts.ratelimits.RateLimitedModelBackend
                return Response(
                    {
                        "code": "too_many_attempts",
                        "message": f"too many failed attempts: try again in {wait} s",
                        "retry_after": wait,
                    },
                    status=status.HTTP_429_TOO_MANY_REQUESTS,
                    headers={"Retry-After": str(wait)},
                )
            raise ApplicationError("credentials_invalid")
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})

    @extend_schema(
        summary="Revoke your API token",
        request=None,
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReliefSerializer(serializers.Serializer):
    balance = serializers.IntegerField(help_text="your table points")
    threshold = serializers.IntegerField(help_text="relief is for balances below this")
    amount = serializers.IntegerField(
        help_text="table points a claim gives now: it tops the balance up to the threshold"
    )
    per_day = serializers.IntegerField()
    claimed_today = serializers.IntegerField()
    eligible = serializers.BooleanField(
        help_text="a claim would be given now (false too when your network address has had "
        "today's relief for its accounts)"
    )
    next_at = serializers.DateTimeField(
        allow_null=True, help_text="when a claim is next possible (null: above the threshold)"
    )


class ReliefView(LadderAPIView):
    """The daily relief grant (救济): GET whether you may claim it, POST to claim it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(summary="The daily relief grant: may I claim it?", responses=ReliefSerializer)
    def get(self, request: Request) -> Response:
        status_now = selectors.relief_status(user=request.user, address=_client_ip(request))
        return Response(ReliefSerializer(status_now).data)

    @extend_schema(
        summary="Claim the daily relief grant",
        request=None,
        responses={201: ReliefSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        address = _client_ip(request)
        ladder_relief_claim(user=request.user, address=address)
        data = ReliefSerializer(selectors.relief_status(user=request.user, address=address)).data
        return Response(data, status=status.HTTP_201_CREATED)


def _client_ip(request: Request) -> str:
    """The client's address, as every per-address limit reads it (`client_address.client_ip`)."""
    return client_address.client_ip(request._request)
