"""Account pages of our own (namespace `accounts`)."""

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("me/", views.me, name="me"),
    path("settings/", views.account_settings, name="settings"),
    path("token/", views.api_token, name="token"),
]
