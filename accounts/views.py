"""Account pages: sign up, log in (Django's view, plus the language cookie), settings, API token.

Password change and reset are Django's own views with our templates (templates/registration/).
"""

from __future__ import annotations

import math

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import resolve, reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from accounts import ratelimits
from accounts.client_address import client_ip
from accounts.errors import ApplicationError
from accounts.forms import LoginForm, SettingsForm, SignupForm, too_many_attempts
from accounts.models import User
from accounts.services import user_create, user_update_settings


def remember_language(response: HttpResponseBase, language: str) -> None:
    """The user's language in Django's language cookie, read by LocaleMiddleware."""
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)


def too_many_signups(wait_s: int) -> forms.ValidationError:
    """Refused by the sign-up limit per address (accounts.ratelimits.signup_take)."""
    minutes = max(1, math.ceil(wait_s / 60))
    if minutes <= 90:
        return forms.ValidationError(
            _("Too many new accounts from your address: try again in %(minutes)s min."),
            code="too_many_signups",
            params={"minutes": minutes},
        )
    return forms.ValidationError(
        _("Too many new accounts from your address: try again in %(hours)s h."),
        code="too_many_signups",
        params={"hours": math.ceil(wait_s / 3600)},
    )


def _next_page(request: HttpRequest) -> str | None:
    """Where the visitor was going (``?next=``, kept through the form), if it is this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if wanted and safe else None


def _play_after_login(request: HttpRequest, target: str | None) -> HttpResponse | None:
    """A play button pressed before logging in (快速匹配, 和电脑练习: each a POST) sent the
    visitor to log in or sign up with ``?next=`` its address: the log-in's (or sign-up's) own
    POST, made by the player, then does it, so they land in the queue or at the practice table
    rather than back where they started. ``None`` for any other ``next``."""
    plays = {reverse("games:quick_join"), reverse("games:practice")}
    if target not in plays:
        return None
    response: HttpResponse = resolve(target).func(request)  # the games' view, by its address
    return response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account, logged in, sent to a game: where ``?next=`` says (the table they came to
    join, a play button pressed before: ``_play_after_login``), else the home page's quick
    match and practice. Each client address may make only so many
    (``SHENGJI_SIGNUPS_PER_IP_PER_HOUR``, ``_PER_DAY``): past that 429 and a form error."""
    if request.user.is_authenticated:
        return redirect("accounts:me")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        ip = client_ip(request)
        wait, receipt = ratelimits.signup_take(ip=ip)
        if wait:
            form.add_error(None, too_many_signups(wait))
            response = render(request, "accounts/signup.html", {"form": form})
            return too_many_requests(response, wait)
        try:
            user = user_create(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data["email"],
            )
        except ApplicationError as error:
            ratelimits.signup_give_back(ip=ip, receipt=receipt)
            form.add_service_error(error)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome! Your table points are waiting for you."))
            target = _next_page(request)
            return _play_after_login(request, target) or redirect(target or "home")
    return render(request, "accounts/signup.html", {"form": form})


def too_many_requests(response: HttpResponse, wait_s: int) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(wait_s)
    return response


class LoginView(auth_views.LoginView):
    redirect_authenticated_user = True
    form_class = LoginForm

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        response = super().form_valid(form)
        response = _play_after_login(self.request, self.get_redirect_url()) or response
        language = form.get_user().language
        if language:
            remember_language(response, language)
        return response

    def form_invalid(self, form):  # type: ignore[no-untyped-def]
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "too_many_attempts"):
            return too_many_requests(response, getattr(self.request, "login_retry_after", 60))
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset form, limited per e-mail address and per client address."""

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        wait = ratelimits.password_reset_wait(
            email=form.cleaned_data["email"], ip=client_ip(self.request)
        )
        if wait:
            form.add_error(None, too_many_attempts(wait))
            return too_many_requests(self.form_invalid(form), wait)
        return super().form_valid(form)


@login_required
def me(request: HttpRequest) -> HttpResponse:
    return redirect("ladder:player", username=request.user.get_username())


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    initial = {"display_name": user.display_name, "language": user.language}
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            user_update_settings(
                user=user,
                display_name=form.cleaned_data["display_name"],
                language=form.cleaned_data["language"],
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            if user.language:
                translation.activate(user.language)
            messages.success(request, _("Your settings are saved."))
            response = redirect("accounts:settings")
            remember_language(response, user.language)
            return response
    return render(request, "accounts/settings.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token; POST creates it, or replaces it with a new one."""
    token = Token.objects.filter(user=request.user).first()
    if request.method == "POST":
        if token is not None:
            token.delete()
        token = Token.objects.create(user=request.user)
        messages.success(request, _("A new API token is ready; the old one no longer works."))
        return redirect("accounts:token")
    return render(request, "accounts/token.html", {"token": token})
