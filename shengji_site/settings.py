"""Settings for the Shengji site, configured from the environment.

Without DATABASE_URL / REDIS_URL the site talks to the embedded PostgreSQL and Redis that
`manage.py serve` (and the test suite) start on loopback ports of their own.
"""

import ipaddress
import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


VAR_DIR = Path(os.environ.get("SHENGJI_VAR_DIR") or BASE_DIR / "var")
EMBEDDED_PG_PORT = int(os.environ.get("EMBEDDED_PG_PORT") or 5499)
EMBEDDED_REDIS_PORT = int(os.environ.get("EMBEDDED_REDIS_PORT") or 6390)
USE_EMBEDDED_POSTGRES = not os.environ.get("DATABASE_URL")
USE_EMBEDDED_REDIS = not os.environ.get("REDIS_URL")

DEBUG = env_bool("DEBUG", False)
# HTTPS-only cookies, redirect and HSTS: on by default in production; `serve` turns them off
# for a site on loopback, and `serve --lan` for a site phones on a home network open, both
# served over plain HTTP (`serve --lan` also names the machine's network addresses in
# ALLOWED_HOSTS and their http:// origins in CSRF_TRUSTED_ORIGINS: shengji_site/launcher.py).
HTTPS = env_bool("HTTPS", not DEBUG)


def _secret_key() -> str:
    configured = os.environ.get("SECRET_KEY")
    if configured:
        return configured
    if DEBUG:
        return "dev-only-secret-key-not-for-production-use-0123456789abcdef"
    # One machine without SECRET_KEY: a random key kept under var/ so sessions survive restarts.
    key_file = VAR_DIR / "secret_key"
    if key_file.exists():
        return key_file.read_text().strip()
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(60)
    key_file.write_text(key)
    key_file.chmod(0o600)
    return key


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The proxies in front of daphne, as addresses or networks ("10.0.0.5,10.1.0.0/16"): only a
# request or socket whose peer is one of them has its X-Forwarded-For read (from the right) and
# its X-Forwarded-Proto believed (shengji_site/asgi.py, accounts.client_address.client_ip). None by
# default: the client's address is the peer's, and those headers are dropped.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    ipaddress.ip_network(_proxy, strict=False)  # a typo stops the site, not the limits

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's and ReDoc's files, served as static files
    "shengji_site",
    "accounts",
    "games",
    "ladder",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "shengji_site.middleware.ContentSecurityPolicyMiddleware",
    "accounts.suspension.SuspendedNoticeMiddleware",  # a suspended account's old session
]

ROOT_URLCONF = "shengji_site.urls"
ASGI_APPLICATION = "shengji_site.asgi.application"
WSGI_APPLICATION = "shengji_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = (
    os.environ.get("DATABASE_URL") or f"postgres://postgres@127.0.0.1:{EMBEDDED_PG_PORT}/shengji"
)
# Persistent connections: opening one costs PostgreSQL a process and daphne a round of
# authentication on every socket message (docs/proof/LOAD.md, *Other choices*); health checks
# drop a broken one.
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE") or 300),
        conn_health_checks=True,
    )
}
DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}"}

REDIS_URL = os.environ.get("REDIS_URL") or f"redis://127.0.0.1:{EMBEDDED_REDIS_PORT}/0"

# The channel layer (SHENGJI_CHANNEL_LAYER): `local`, the default, is channels-redis handing a
# group's messages straight to the members in the sending process (shengji_site/channel_layer.py);
# `core` is channels-redis as it comes, every message through Redis; `pubsub` swaps its queues
# and groups kept in Redis for Redis publish/subscribe (groups kept in each server process). It
# measured no faster per move (docs/proof/LOAD.md, *The channel layer*) and keeps no message for
# a socket that is not reading.
CHANNEL_LAYER_BACKENDS = {
    "local": "shengji_site.channel_layer.LocalFanoutChannelLayer",
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": CHANNEL_LAYER_BACKENDS[os.environ.get("SHENGJI_CHANNEL_LAYER") or "local"],
        "CONFIG": {
            # channels-redis waits on Redis in blocks of 5 s; redis-py 8 times reads out at 5 s
            # by default, which would close every socket quiet for 5 s.
            # At most this many connections a process, a call waiting for a free one
            # (shengji_site/channel_layer.py, POOL_SIZE).
            "hosts": [
                {
                    "address": REDIS_URL,
                    "socket_timeout": 30,
                    "max_connections": int(os.environ.get("SHENGJI_CHANNELS_POOL") or 32),
                }
            ],
            "prefix": os.environ.get("CHANNELS_PREFIX", "shengji"),
            # All the sockets of one server process share one inbox in Redis, and past
            # `capacity` waiting messages channels-redis drops new ones without a word. Its
            # default, 100, is a fraction of a second of frames for a few hundred sockets
            # (docs/proof/LOAD.md, *The channel layer*).
            "capacity": int(os.environ.get("CHANNELS_CAPACITY") or 10000),
        },
    },
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
# The exchange of the workers' control messages (the health check's ping): sites (or test runs)
# that share one Redis hear only their own workers.
CELERY_CONTROL_EXCHANGE = os.environ.get("CELERY_CONTROL_EXCHANGE", "celery")
# Celery's Django fixup closes the worker's database connection before and after every task
# unless this is set (then every 2 × N tasks): each deadline task opened a new PostgreSQL
# backend (tests/foundation/test_worker_connections.py). Between, Django's own rule
# (CONN_MAX_AGE, health checks) decides, as for a request (shengji_site/celery.py).
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX") or 10_000)

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("zh-hans", "简体中文"), ("zh-hant", "繁體中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    # Throttles count by REMOTE_ADDR, which shengji_site/asgi.py has set to the client's
    # address; DRF's own reading of X-Forwarded-For (its whole value) could be spoofed.
    "NUM_PROXIES": 0,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every refusal in the API's shape {"code", "message"} (shengji_site/errors.py).
    "EXCEPTION_HANDLER": "shengji_site.errors.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Shengji site API",
    "DESCRIPTION": "Profiles, leaderboards and hands of the Shengji (升级 / 拖拉机) site.",
    "VERSION": "0.1.0",
    # The docs pages load Swagger UI and ReDoc from the site's static files (the
    # drf-spectacular-sidecar package), not from a CDN: they work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend",
)

SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS") or (31536000 if HTTPS else 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
X_FRAME_OPTIONS = "DENY"
# 'self' covers the site's own ws:/wss: sockets (CSP level 3). shengji_site/middleware.py.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# The API's Swagger UI page (served by the site: drf-spectacular-sidecar, its script a file of
# its own) writes three lines of inline style: that page alone allows inline styles.
CONTENT_SECURITY_POLICY_BY_PATH = {
    "/api/docs/": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
        "frame-ancestors 'none'"
    ),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Accounts and the ladder (issue 6; docs/LADDER.md).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "accounts:me"
LOGOUT_REDIRECT_URL = "home"
# Table points given to every new account, once (a `grant` ledger row).
LADDER_SIGNUP_GRANT = int(os.environ.get("LADDER_SIGNUP_GRANT") or 1000)
# The daily relief grant (救济, a `relief` ledger row): AMOUNT table points to an account whose
# balance is below THRESHOLD, at most PER_DAY times a day (the site's day, TIME_ZONE).
LADDER_RELIEF_THRESHOLD = int(os.environ.get("LADDER_RELIEF_THRESHOLD") or 800)
LADDER_RELIEF_AMOUNT = int(os.environ.get("LADDER_RELIEF_AMOUNT") or 800)
LADDER_RELIEF_PER_DAY = int(os.environ.get("LADDER_RELIEF_PER_DAY") or 1)
# ratio: the fixed fee taken from each winner's gain (seed 004's 基本扣點).
LADDER_WINNER_FEE = int(os.environ.get("LADDER_WINNER_FEE") or 10)
# stake_steps: the fixed table fee and the service fee (% of the stake), per player per hand.
LADDER_TABLE_FEE = int(os.environ.get("LADDER_TABLE_FEE") or 10)
LADDER_SERVICE_FEE_PERCENT = int(os.environ.get("LADDER_SERVICE_FEE_PERCENT") or 10)
# fixed_40: what an escaper pays.
LADDER_FIXED_ESCAPE_PENALTY = 40
# A rating is provisional while its sigma is at or above this (about 20 hands from the start).
LADDER_RATING_PROVISIONAL_SIGMA = float(os.environ.get("LADDER_RATING_PROVISIONAL_SIGMA") or 6.0)
# The rating leaderboard lists players who played a hand in this many days.
LADDER_RATING_ACTIVE_DAYS = 30
LADDER_PAGE_SIZE = 50

# Live tables (games/services/)
SHENGJI_BOT_DELAY_MS = int(os.environ.get("SHENGJI_BOT_DELAY_MS") or 800)
SHENGJI_DISCONNECT_GRACE_S = int(os.environ.get("SHENGJI_DISCONNECT_GRACE_S") or 30)
# How long a player seated by quick match has to open the table before the seat is freed.
SHENGJI_ARRIVAL_GRACE_S = int(
    os.environ.get("SHENGJI_ARRIVAL_GRACE_S") or SHENGJI_DISCONNECT_GRACE_S
)
# Auto-ready's next hand starts this long after the last one ended: time to see the result.
SHENGJI_NEXT_HAND_PAUSE_S = float(os.environ.get("SHENGJI_NEXT_HAND_PAUSE_S") or 8)
# In a server process, a table's change is read and sent this long after its commit, once for
# every change committed meanwhile (games/services/_common.py, "table changes"): a table's
# burst of changes (four sockets opening, four players pressing ready, the hand starting)
# costs a read or two, not one each. 0: each commit sends its own at once.
SHENGJI_TABLE_CHANGE_DELAY_MS = int(os.environ.get("SHENGJI_TABLE_CHANGE_DELAY_MS") or 50)
SHENGJI_CONNECTION_TIMEOUT_S = int(os.environ.get("SHENGJI_CONNECTION_TIMEOUT_S") or 90)
SHENGJI_SWEEP_EVERY_S = float(os.environ.get("SHENGJI_SWEEP_EVERY_S") or 3)
# How often each server process checks that Redis still holds its channel groups
# (games/groupwatch.py): a restart without its data closes the sockets, which reconnect.
SHENGJI_GROUPS_CHECK_S = float(os.environ.get("SHENGJI_GROUPS_CHECK_S") or 2)
# A process that has not said it is alive for this long is taken for dead: the sweep takes its
# channels out of their groups (games/groupwatch.py). Every check (above) says it again.
SHENGJI_CHANNELS_ALIVE_S = int(os.environ.get("SHENGJI_CHANNELS_ALIVE_S") or 600)
# Where each table's latest hand stands, kept in Redis for the pong (games/positions.py): the
# keys' prefix, and how long a key lives after it was last set (a stale key's longest life).
SHENGJI_POSITION_PREFIX = os.environ.get("CHANNELS_PREFIX", "shengji") + ":position"
SHENGJI_POSITION_TTL_S = float(os.environ.get("SHENGJI_POSITION_TTL_S") or 10)
CELERY_BEAT_SCHEDULE = {
    "sweep": {"task": "games.tasks.sweep", "schedule": SHENGJI_SWEEP_EVERY_S},
}

# Ranked quick match (games/matchmaking.py; issue 7). Four waiting players are seated together
# when max(rating) − min(rating) ≤ GAP_BASE + GAP_PER_S × (seconds waited by the longest waiter
# of the four), ratings being the ladder's rating ordinal (mu − 3·sigma; 0 for a new player).
SHENGJI_QUICK_MATCH_GAP_BASE = float(os.environ.get("SHENGJI_QUICK_MATCH_GAP_BASE") or 3.0)
SHENGJI_QUICK_MATCH_GAP_PER_S = float(os.environ.get("SHENGJI_QUICK_MATCH_GAP_PER_S") or 0.1)
# The table they are seated at: its stake, and the balance needed to join the queue (at least
# what one ranked hand at that stake can take: 790 at 50; docs/LADDER.md).
SHENGJI_QUICK_MATCH_STAKE = int(os.environ.get("SHENGJI_QUICK_MATCH_STAKE") or 50)
SHENGJI_QUICK_MATCH_MIN_BALANCE = int(os.environ.get("SHENGJI_QUICK_MATCH_MIN_BALANCE") or 100)
# A waiting player whose page has not asked for the queue in this long has gone: dropped.
SHENGJI_QUICK_MATCH_STALE_S = int(os.environ.get("SHENGJI_QUICK_MATCH_STALE_S") or 60)
# The expected wait shown: the median wait of the players of the last N quick matches.
SHENGJI_QUICK_MATCH_WAIT_SAMPLE = 20
# Matching runs on every join and from beat every few seconds (the gap widens with time).
SHENGJI_QUICK_MATCH_EVERY_S = float(os.environ.get("SHENGJI_QUICK_MATCH_EVERY_S") or 5)
CELERY_IMPORTS = ["games.matchmaking_tasks"]
CELERY_BEAT_SCHEDULE["quick-match"] = {
    "task": "games.matchmaking_tasks.quick_match_run",
    "schedule": SHENGJI_QUICK_MATCH_EVERY_S,
}

# Limits on bad and excessive input (accounts/ratelimits.py, games/consumers.py; docs/PROTOCOL.md,
# docs/proof/BAD-INPUT.md). Counters other than the per-socket bucket are kept in Redis under
# this prefix, so every server process shares them.
SHENGJI_RATELIMIT_PREFIX = os.environ.get("CHANNELS_PREFIX", "shengji") + ":limits"
# Each table socket: a token bucket of BURST messages at once, refilled at RATE_PER_S.
SHENGJI_SOCKET_BURST = float(os.environ.get("SHENGJI_SOCKET_BURST") or 20)
SHENGJI_SOCKET_RATE_PER_S = float(os.environ.get("SHENGJI_SOCKET_RATE_PER_S") or 8)
# Past its bucket a socket's message is refused: the first of a run answered `rate_limited`, the
# rest dropped unanswered. OVERFLOW refused at once, then OVERFLOW_PER_S, and the socket is
# closed with 1008 (every socket route: table, lobby, echo; docs/PROTOCOL.md, "Limits").
SHENGJI_SOCKET_OVERFLOW = float(os.environ.get("SHENGJI_SOCKET_OVERFLOW") or 50)
SHENGJI_SOCKET_OVERFLOW_PER_S = float(os.environ.get("SHENGJI_SOCKET_OVERFLOW_PER_S") or 10)
# daphne's own bound on each WebSocket connection, before any socket code sees a frame
# (shengji_site/socketguard.py): FRAME_BURST frames at once then FRAMES_PER_S, and at most
# UNSENT_BYTES written but not yet taken by the client; past either it is dropped.
SHENGJI_WS_FRAME_BURST = float(os.environ.get("SHENGJI_WS_FRAME_BURST") or 200)
SHENGJI_WS_FRAMES_PER_S = float(os.environ.get("SHENGJI_WS_FRAMES_PER_S") or 100)
SHENGJI_WS_UNSENT_BYTES = int(os.environ.get("SHENGJI_WS_UNSENT_BYTES") or 1024 * 1024)
# The load benchmark's echo socket (/ws/echo/): routed only when on (the bench's site sets it,
# proof/echoclient.py), with sockets per address (per server process) and its own bucket.
SHENGJI_ECHO_SOCKET = os.environ.get("SHENGJI_ECHO_SOCKET") == "1"
SHENGJI_ECHO_SOCKETS_PER_IP = int(os.environ.get("SHENGJI_ECHO_SOCKETS_PER_IP") or 32)
SHENGJI_ECHO_BURST = float(os.environ.get("SHENGJI_ECHO_BURST") or 20)
SHENGJI_ECHO_RATE_PER_S = float(os.environ.get("SHENGJI_ECHO_RATE_PER_S") or 8)
# Open sockets at one table: per logged-in user, and per address for anonymous spectators.
SHENGJI_SOCKETS_PER_USER = int(os.environ.get("SHENGJI_SOCKETS_PER_USER") or 8)
SHENGJI_SOCKETS_PER_IP = int(os.environ.get("SHENGJI_SOCKETS_PER_IP") or 32)
# Open lobby sockets: per logged-in user, and per address (everyone's, logged in or not).
SHENGJI_LOBBY_SOCKETS_PER_USER = int(os.environ.get("SHENGJI_LOBBY_SOCKETS_PER_USER") or 8)
SHENGJI_LOBBY_SOCKETS_PER_IP = int(os.environ.get("SHENGJI_LOBBY_SOCKETS_PER_IP") or 64)
# Chat lines per user over all tables: BURST_LINES in BURST_S seconds and LINES in WINDOW_S.
SHENGJI_CHAT_BURST_LINES = int(os.environ.get("SHENGJI_CHAT_BURST_LINES") or 5)
SHENGJI_CHAT_BURST_S = float(os.environ.get("SHENGJI_CHAT_BURST_S") or 10)
SHENGJI_CHAT_LINES = int(os.environ.get("SHENGJI_CHAT_LINES") or 30)
SHENGJI_CHAT_WINDOW_S = float(os.environ.get("SHENGJI_CHAT_WINDOW_S") or 600)
# Per user over all tables and sockets, (count, seconds) windows of one kind of request, checked
# before any database read (accounts.ratelimits.action_check; docs/PROTOCOL.md).
SHENGJI_ACTION_LIMITS: dict[str, list[tuple[int, float]]] = {
    "autopilot": [(4, 10.0), (20, 600.0)],
    "hint": [(3, 3.0), (60, 600.0)],
    "quick_match": [(6, 60.0), (30, 3600.0)],
}
# 托管 lines of one seat within this many seconds are one line: the newest replaces the others.
SHENGJI_AUTOPILOT_LINE_MERGE_S = float(os.environ.get("SHENGJI_AUTOPILOT_LINE_MERGE_S") or 10)
# Failed log-ins before further tries are refused (HTTP 429), each failure counting until
# WINDOW_S seconds have passed without another: per user name from one client address, and per
# client address under any names. A user name alone is never locked, so failures sent from
# elsewhere cannot shut its owner out (django-axes; accounts.logins.LoginAttempts).
SHENGJI_LOGIN_FAILURES_PER_USER_IP = int(os.environ.get("SHENGJI_LOGIN_FAILURES_PER_USER_IP") or 5)
SHENGJI_LOGIN_FAILURES_PER_IP = int(os.environ.get("SHENGJI_LOGIN_FAILURES_PER_IP") or 20)
SHENGJI_LOGIN_WINDOW_S = float(os.environ.get("SHENGJI_LOGIN_WINDOW_S") or 900)
# Password-reset requests in WINDOW_S seconds: per e-mail address, and per client address.
SHENGJI_PASSWORD_RESETS_PER_EMAIL = int(os.environ.get("SHENGJI_PASSWORD_RESETS_PER_EMAIL") or 3)
SHENGJI_PASSWORD_RESETS_PER_IP = int(os.environ.get("SHENGJI_PASSWORD_RESETS_PER_IP") or 10)
SHENGJI_PASSWORD_RESET_WINDOW_S = float(os.environ.get("SHENGJI_PASSWORD_RESET_WINDOW_S") or 3600)
# Accounts made per client address: in any hour, and in any day (HTTP 429, form error
# `too_many_signups`). 8 an hour: a full 8-seat table of friends behind one home router signs
# up together; 10 a day bounds what new accounts bring in to 10 × the sign-up grant (1,000) a
# day per address (docs/proof/SECURITY.md, "Sign-ups per address").
SHENGJI_SIGNUPS_PER_IP_PER_HOUR = int(os.environ.get("SHENGJI_SIGNUPS_PER_IP_PER_HOUR") or 8)
SHENGJI_SIGNUPS_PER_IP_PER_DAY = int(os.environ.get("SHENGJI_SIGNUPS_PER_IP_PER_DAY") or 10)
# Daily relief grants to the accounts of one client address (an IPv6 address counts by its
# /64) in a day of the site (refused with `relief_address_limit`): 1, what one account may
# have, so that alts made over the days cannot each bring in relief for a main
# (docs/LADDER.md, "Relief per address").
SHENGJI_RELIEF_PER_IP_PER_DAY = int(os.environ.get("SHENGJI_RELIEF_PER_IP_PER_DAY") or 1)
# Every log-in passes the limits above; the plain ModelBackend stays for sessions it started.
# The first is accounts.logins' backend by the path the sessions store (games/ratelimits.py).
AUTHENTICATION_BACKENDS = [
    "games.ratelimits.RateLimitedModelBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# django-axes keeps the failed log-ins (table axes_accessattempt); accounts.logins holds the
# callables and the handler that give each lockout parameter its own limit.
AXES_HANDLER = "accounts.logins.LoginAttempts"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_FAILURE_LIMIT = "accounts.logins.login_failure_limit"
AXES_COOLOFF_TIME = "accounts.logins.login_cool_off"
AXES_CLIENT_IP_CALLABLE = "accounts.logins.login_client_ip"
AXES_USERNAME_CALLABLE = "accounts.logins.login_username"
# A log-in forgives its user name's failures from its address (LoginAttempts.reset_user_attempts).
AXES_RESET_ON_SUCCESS = True
# Tries refused while locked out are not counted: the lock-out ends on time.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# No row per successful log-in (kept for ever), no admin pages: unlock with
# `manage.py axes_reset_ip ADDRESS` or `axes_reset_ip_username ADDRESS NAME`.
AXES_DISABLE_ACCESS_LOG = True
AXES_ENABLE_ADMIN = False
# axes.W002 asks for AxesMiddleware, which would replace the site's own answer to a lock-out
# (the log-in page's form error and 429, the admin's message, the API's JSON) with axes' page.
SILENCED_SYSTEM_CHECKS = ["axes.W002"]
