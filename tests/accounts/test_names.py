"""Names that cannot pass for someone else's (accounts/names.py; docs/proof/SECURITY.md): NFKC,
no invisible or reordering character, one alphabet (or Latin beside Chinese, Japanese, Korean),
and no user name or display name confusable with another account's, at sign-up, in the
settings and in the admin's forms."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts import names
from accounts.models import User
from accounts.services import user_create, user_update_settings
from ladder.errors import ApplicationError
from tests.https import HTTPS

PASSWORD = "pw-long-enough-1"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make(username: str, display_name: str = "") -> User:
    user = User.objects.create_user(username, password=PASSWORD)
    if display_name:
        user.display_name = display_name
        user.save()
    return user


def code_of(call: Any) -> str:
    with pytest.raises(ApplicationError) as caught:
        call()
    return caught.value.code


# --- the rules on text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("paypal", "pаypal"),  # Cyrillic а
        ("alice", "AIice"),  # capital I for l
        ("alice", "ALICE"),
        ("bob", "b0b"),
        ("mary", "ｍａｒｙ"),  # full-width, folded by NFKC
        ("mary", "rnary"),
        ("ace", "асе"),  # all Cyrillic
        ("李雷", "李雷"),  # a compatibility ideograph and the unified one
    ],
)
def test_confusable_names_share_a_key(a: str, b: str) -> None:
    assert names.keys(a) & names.keys(b)


@pytest.mark.parametrize(
    ("a", "b"), [("李雷", "韩梅梅"), ("alice", "alicia"), ("xiaoming", "xiaohong")]
)
def test_different_names_do_not(a: str, b: str) -> None:
    assert not names.keys(a) & names.keys(b)


def test_normalising_folds_full_width_and_spaces() -> None:
    assert names.normalize("  ｍａｒｙ　 ｊａｎｅ ") == "mary jane"


@pytest.mark.parametrize(
    "text",
    [
        "ab\u202ecd",
        "a\u200bb",
        "a\u200db",
        "a\u2060b",
        "\ufeffab",
        "a\u2066b\u2069",
        "a\u200eb",
        "a\x07b",
    ],
)
def test_invisible_and_bidi_characters_are_refused(text: str) -> None:
    with pytest.raises(Exception) as caught:
        names.validate_name_text(text)
    assert getattr(caught.value, "code", None) == "name_characters"


@pytest.mark.parametrize(
    "text", ["李雷", "韩梅梅", "李lei", "かな漢字", "김민수", "Ivan", "Иван", "Αθηνά"]
)
def test_one_alphabet_or_latin_beside_cjk_is_fine(text: str) -> None:
    names.validate_name_text(text)


@pytest.mark.parametrize("text", ["pаypal", "Ivаn", "Αlice", "Иванα"])
def test_mixed_alphabets_are_refused(text: str) -> None:
    with pytest.raises(Exception) as caught:
        names.validate_name_text(text)
    assert getattr(caught.value, "code", None) == "name_mixed_scripts"


# --- sign-up, settings, admin ---------------------------------------------------------------------


@pytest.mark.django_db
def test_regression_cyrillic_look_alike_user_name_was_accepted() -> None:
    """A user name with a Cyrillic а among Latin letters passed Django's validator (it is a
    letter): now refused as mixed alphabets, and an all-Cyrillic look-alike of an existing
    name as taken."""
    make("paypal")
    assert code_of(lambda: user_create(username="pаypal", password=PASSWORD)) == (
        "username_invalid"
    )
    make("ace")
    assert code_of(lambda: user_create(username="асе", password=PASSWORD)) == "username_taken"
    assert code_of(lambda: user_create(username="ACE", password=PASSWORD)) == "username_taken"
    assert code_of(lambda: user_create(username="PAYPAI", password=PASSWORD)) == (
        "username_taken"  # a capital I for the l
    )
    assert not User.objects.filter(username__in=["pаypal", "асе"]).exists()


@pytest.mark.django_db
def test_regression_display_name_could_impersonate() -> None:
    """A display name could be another player's user name or display name, or hold U+202E or
    zero-width characters: all refused now."""
    make("xiaoming")
    make("someone", display_name="小红")
    me = make("me")
    for taken in ("xiaoming", "XiaoMing", "xiaorning", "ｘｉａｏｍｉｎｇ", "小红"):
        code = code_of(lambda t=taken: user_update_settings(user=me, display_name=t, language=""))
        assert code == "display_name_taken", taken
    for hidden in ("gnim\u202eoaix", "xiao\u200bming", "\u2066小明\u2069"):
        code = code_of(lambda h=hidden: user_update_settings(user=me, display_name=h, language=""))
        assert code == "display_name_invalid", hidden
    me.refresh_from_db()
    assert me.display_name == ""


@pytest.mark.django_db
def test_a_user_name_may_not_be_anothers_display_name() -> None:
    make("someone", display_name="Dragon")
    assert code_of(lambda: user_create(username="dragon", password=PASSWORD)) == "username_taken"
    assert code_of(lambda: user_create(username="DRAG0N", password=PASSWORD)) == "username_taken"


@pytest.mark.django_db
def test_chinese_names_and_own_names_keep_working() -> None:
    li = user_create(username="李雷", password=PASSWORD)
    han = user_create(username="韩梅梅", password=PASSWORD)
    user_update_settings(user=li, display_name="李雷", language="")  # its own user name
    user_update_settings(user=han, display_name="梅梅 ", language="zh-hans")
    user_update_settings(user=han, display_name="梅梅", language="en")  # unchanged: fine
    folded = user_create(username="ｍａｒｙ", password=PASSWORD)
    assert folded.username == "mary"
    han.refresh_from_db()
    assert (han.display_name, han.language) == ("梅梅", "en")


@pytest.mark.django_db
def test_an_account_with_an_old_bad_name_keeps_it_and_may_change_other_settings() -> None:
    """Names taken before the rules are left as they are (docs/proof/SECURITY.md); their
    holders can still save their settings while the name does not change."""
    make("twin")
    legacy = make("legacy")
    User.objects.filter(pk=legacy.pk).update(display_name="Twin")  # as before the rules
    legacy.refresh_from_db()
    user_update_settings(user=legacy, display_name="Twin", language="en")
    legacy.refresh_from_db()
    assert (legacy.display_name, legacy.language) == ("Twin", "en")


@pytest.mark.django_db
def test_the_sign_up_and_settings_pages_show_the_refusal() -> None:
    make("xiaoming")
    client = Client(**HTTPS)
    page = client.post(
        "/accounts/signup/",
        {"username": "xiaorning", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert page.status_code == 200 and not User.objects.filter(username="xiaorning").exists()
    assert "looks too much like" in page.content.decode()
    me = make("me")
    client.force_login(me)
    page = client.post("/accounts/settings/", {"display_name": "Xiaoming", "language": ""})
    assert page.status_code == 200
    me.refresh_from_db()
    assert me.display_name == ""


@pytest.mark.django_db
def test_the_admin_forms_keep_the_rules() -> None:
    make("xiaoming")
    victim = make("victim")
    boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    client = Client(**HTTPS)
    client.force_login(boss)
    added = client.post(
        "/admin/accounts/user/add/",
        {"username": "xiaorning", "password1": PASSWORD, "password2": PASSWORD,
         "usable_password": "true"},
    )  # fmt: skip
    assert added.status_code == 200 and not User.objects.filter(username="xiaorning").exists()
    change = client.get(f"/admin/accounts/user/{victim.pk}/change/")
    form = change.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in {"groups", "user_permissions", "password"}
    }
    data.update({"username": "victim", "display_name": "Xiaoming", "date_joined_0": "2026-01-01",
                 "date_joined_1": "00:00:00", "is_active": "on"})  # fmt: skip
    data.pop("date_joined", None)
    data.pop("last_login", None)
    for prefix in ("ban_records",):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    refused = client.post(f"/admin/accounts/user/{victim.pk}/change/", data)
    assert refused.status_code == 200
    assert "looks too much like" in refused.content.decode()
    data["display_name"] = "a\u202eb"
    refused = client.post(f"/admin/accounts/user/{victim.pk}/change/", data)
    assert refused.status_code == 200 and "invisible" in refused.content.decode()
    data["display_name"] = "受害者"
    saved = client.post(f"/admin/accounts/user/{victim.pk}/change/", data)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    victim.refresh_from_db()
    assert victim.display_name == "受害者"
    assert names.keys("受害者") <= set(victim.name_keys)
