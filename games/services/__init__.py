"""Every state change of tables, seats and hands (docs/ARCHITECTURE.md, "One action, from the
socket to the views sent back").

Each service runs in one transaction with the rows it changes locked; whatever must be seen
outside (socket frames, deadline tasks) happens only after the commit, so every acknowledged
action is already in the database.

This is the package's face: callers import from here (``from games import services``). One
module per concern; the imports between them go one way, down this list, never up:

    moves        a player's move from a socket: the one statement, else the locking path
                                                       → hands, optimistic
    hands        acting in a hand, the hint            → wrap_up, autopilot, movefacts,
                                                         _moves, _common
    optimistic   the one-statement move (on the event loop)
                                                       → connections, movefacts, _moves,
                                                         deadline_rule, _common
    deadlines    what a deadline task does             → wrap_up, _moves, _common
    wrap_up      settling an ended hand                → start, _moves, _common
    practice     one click to practise against bots    → tables, _common
    tables       tables and seats                      → start, _common
    start        starting a hand, after the pause      → _moves, _common
    autopilot    托管: the bot plays for a present player → _moves, _common
    connections  sockets, grace periods, takeovers, the end of a user's sessions
                                                       → _moves, _common
    moderation   an admin closes a table, frees a seat → _moves, _common
    _moves       what every change of a hand goes through (log, deadline, views)
                                                       → chat, movefacts, deadline_rule,
                                                         _common
    deadline_rule
                 how long a step has, and whether the deadline task in flight serves the
                 new deadline: its Python (for _moves) and its SQL (for optimistic)
                                                       → _common
    movefacts    what this process knows of each table's hand, from the moves it makes
                 and the messages of the others'       → games.handstate
    chat         players' lines and system lines       → _common
    _common      numbers, the database's clock, row locks, shared seat writes

tests/foundation/test_import_graph.py fails on any circle.
"""

from games.services._common import MAX_STAKE, db_now
from games.services.autopilot import seat_autopilot
from games.services.chat import chat_post
from games.services.connections import (
    ACCOUNT_SUSPENDED,
    SESSION_ENDED,
    SessionEnd,
    connections_sweep,
    connections_touch,
    connections_touch_due,
    seat_connected,
    seat_disconnected,
    seat_takeover,
    seats_takeover_overdue,
    sessions_end,
    socket_opened,
    socket_ping,
    socket_session_check,
    socket_session_state,
    user_seats_vacate,
)
from games.services.deadlines import deadline_run, hands_overdue
from games.services.hands import hand_check, hand_leave, playing_hand_id, table_hint
from games.services.moderation import seat_remove, table_close
from games.services.movefacts import learn_change, warm_state
from games.services.moves import move
from games.services.optimistic import Mover
from games.services.practice import practice_start
from games.services.start import table_start_due, tables_start_overdue
from games.services.tables import (
    points_needed_for,
    points_needed_here,
    points_needed_to_create,
    ranked_table_open,
    seat_auto_ready,
    seat_fill_bot,
    seat_leave,
    seat_ready,
    seat_show_hand,
    seat_take,
    seated_elsewhere,
    table_create,
    table_create_seated,
    user_balance,
)
from games.services.wrap_up import hand_wrap_up, hands_awaiting_wrap_up

__all__ = [
    "ACCOUNT_SUSPENDED",
    "MAX_STAKE",
    "SESSION_ENDED",
    "Mover",
    "SessionEnd",
    "chat_post",
    "connections_sweep",
    "connections_touch",
    "connections_touch_due",
    "db_now",
    "deadline_run",
    "hand_check",
    "hand_leave",
    "hand_wrap_up",
    "hands_awaiting_wrap_up",
    "hands_overdue",
    "learn_change",
    "move",
    "playing_hand_id",
    "points_needed_for",
    "points_needed_here",
    "points_needed_to_create",
    "practice_start",
    "ranked_table_open",
    "seat_auto_ready",
    "seat_autopilot",
    "seat_connected",
    "seat_disconnected",
    "seat_fill_bot",
    "seat_leave",
    "seat_ready",
    "seat_remove",
    "seat_show_hand",
    "seat_take",
    "seat_takeover",
    "seated_elsewhere",
    "seats_takeover_overdue",
    "sessions_end",
    "socket_opened",
    "socket_ping",
    "socket_session_check",
    "socket_session_state",
    "table_close",
    "table_create",
    "table_create_seated",
    "table_hint",
    "table_start_due",
    "tables_start_overdue",
    "user_balance",
    "user_seats_vacate",
    "warm_state",
]
