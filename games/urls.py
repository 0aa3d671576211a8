"""Lobby, table and replay pages (namespace `games`); the sockets are in shengji_site/routing.py."""

from django.urls import path

from games import views

app_name = "games"

urlpatterns = [
    path("tables/", views.lobby, name="lobby"),
    path("tables/status/", views.lobby_status, name="lobby_status"),
    path("tables/new/", views.table_new, name="table_new"),
    path("tables/new/needed/", views.table_needed, name="table_needed"),
    path("tables/quick/join/", views.quick_join, name="quick_join"),
    path("tables/quick/leave/", views.quick_leave, name="quick_leave"),
    path("tables/practice/", views.practice, name="practice"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/sit/", views.seat_take, name="seat_take"),
    path("tables/<int:table_id>/leave/", views.seat_leave, name="seat_leave"),
    path("tables/<int:table_id>/ready/", views.seat_ready, name="seat_ready"),
    path("tables/<int:table_id>/bot/", views.seat_bot, name="seat_bot"),
    # A private table's invite link: this session may see the table (games.selectors).
    path("t/<slug:invite_code>/", views.table_invite, name="invite"),
    # Replays of hands that are over (a hand in progress is 404: nobody sees live hands).
    path("hands/<int:hand_id>/", views.replay_page, name="replay"),
    path("hands/<int:hand_id>/record.json", views.replay_record, name="replay_record"),
    path("hands/<int:hand_id>/ledger.json", views.hand_ledger, name="hand_ledger"),
]
