"""What happens to an account, for the floors above to act on (docs/ARCHITECTURE.md, "Floors").

Accounts is a floor below the ladder and the games: it never calls them. Its services send
these signals inside their transaction, and the app that cares listens (the ladder opens a
profile, lists or hides it: ladder/receivers.py).

- ``account_opened``: a new account was saved (``user``);
- ``account_listed``: a ban hid the account from the leaderboards, an unban listed it again
  (``user``, ``listed``).
"""

from __future__ import annotations

from django.dispatch import Signal

account_opened = Signal()
account_listed = Signal()
