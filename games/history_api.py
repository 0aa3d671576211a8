"""The REST API's reads of hands, in the namespace `api-ladder` beside the ladder's own API
(ladder/api.py, whose error shape, parameters and serializers they use): a player's settled
hands, and one hand's seats and settlement. They read hands, so they stand on the games floor
(docs/ARCHITECTURE.md, "Floors"); the site's URLconf puts them in the ladder's API namespace
(games/history_urls.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from games import history
from ladder.api import (
    HAND_PAGING,
    ErrorSerializer,
    HandDetailSerializer,
    HandListSerializer,
    LadderAPIView,
    int_param,
    player_named,
)


class PlayerHandsView(LadderAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A player's settled hands you may see, latest first",
        parameters=HAND_PAGING,
        responses={200: HandListSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, username: str) -> Response:
        user = player_named(username)
        limit = int_param(request, "limit", 20, 1, 100)
        offset = int_param(request, "offset", 0, 0, 10**9)
        rows = history.player_hands(user=user, viewer=request.user, limit=limit, offset=offset)
        data = {
            "count": history.player_hand_count(user=user, viewer=request.user),
            "limit": limit,
            "offset": offset,
            "results": [row.__dict__ for row in rows],
        }
        return Response(HandListSerializer(data).data)


class HandView(LadderAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A hand's seats and settlement, once it is over (a private table's or a practice "
        "hand only for its players)",
        responses={200: HandDetailSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, hand_id: int) -> Response:
        hand, entries = history.hand_settlement_lines(hand_id=hand_id, viewer=request.user)
        settlement = getattr(hand, "settlement", None)
        seats = [
            {
                "seat": p.seat,
                "username": p.user.username if p.user else None,
                "escaped": p.escaped,
                "absent_at_end": p.absent_at_end,
            }
            for p in hand.players.select_related("user").order_by("seat")
        ]
        data = {
            "id": hand.pk,
            "table_name": hand.match.table.name,
            "status": hand.status,
            "finished_at": hand.finished_at,
            "settled": settlement is not None,
            "outcome": settlement.outcome if settlement else None,
            "seats": seats,
            "entries": [
                {
                    "username": e.user.username if e.user else None,
                    "kind": e.kind,
                    "account": e.account,
                    "amount": e.amount,
                    "balance_after": e.balance_after,
                }
                for e in entries
            ],
        }
        return Response(HandDetailSerializer(data).data)
