"""User names and display names that cannot pass for someone else's (docs/proof/SECURITY.md).

Every name is NFKC-normalised (full-width Latin folds to plain Latin, a compatibility ideograph
to the unified one) and must hold no character that is invisible or reorders the text around
it: no control (Cc), format (Cf: the bidi controls U+202A–U+202E, U+2066–U+2069, U+200E/F, the
zero-width U+200B–U+200D, U+2060, U+FEFF, the soft hyphen …), private-use, surrogate,
unassigned or line/paragraph-separator character. A name may use one script, or Latin with the
scripts written beside it in Chinese, Japanese and Korean (Unicode TR39's "highly restrictive"
level): 李雷, 韩梅梅, 李lei, かな漢字 are fine; a Latin name with a Cyrillic or Greek letter in it
is not.

Two names collide when their confusable skeletons are equal (TR39 §4: each character mapped to
the prototype it is confusable with, from the Unicode confusables data that the
confusable-homoglyphs package ships), compared without regard to case. No account may take a
user name or display name that collides with another account's user name or display name.
Accounts that held such names before these rules keep them (docs/proof/SECURITY.md).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from confusable_homoglyphs import categories, confusables  # type: ignore[import-untyped]
from django.core.exceptions import ValidationError
from django.utils.functional import lazy
from django.utils.translation import gettext as _now
from django.utils.translation import gettext_lazy as _

# General categories no name may hold: invisible, reordering or meaningless characters.
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
# Named for the record (all are Cf, so refused by category already).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
# Scripts that mix with any other: punctuation, digits, combining marks.
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
# The script sets a name may mix (TR39 §5.2, highly restrictive).
MIXABLE_SCRIPTS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


def normalize(name: str) -> str:
    """NFKC, spaces at the ends removed and every run of white space made one space."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def forbidden_characters(name: str) -> list[str]:
    return [c for c in name if unicodedata.category(c) in FORBIDDEN_CATEGORIES]


def scripts(name: str) -> set[str]:
    return {categories.alias(c) for c in name} - NEUTRAL_SCRIPTS


def mixes_scripts(name: str) -> bool:
    """More than one script, but for Latin with Han, kana, Bopomofo or Hangul."""
    used = scripts(name)
    return len(used) > 1 and not any(used <= allowed for allowed in MIXABLE_SCRIPTS)


def _strip_marks(text: str) -> str:
    # The data wraps right-to-left characters in U+200E for display.
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (TR39's confusables.txt: source → prototype).

    confusable-homoglyphs keeps the mapping both ways (every character lists those it may be
    confused with), so the direction is read back: a source (one code point) lists only its
    prototype; a prototype lists its sources. Where two characters list only each other, either
    may be the prototype, and the smaller stands for both: a skeleton is only ever compared."""
    data: dict[str, list[dict[str, str]]] = confusables.confusables_data
    graph = {_strip_marks(k): [_strip_marks(d["c"]) for d in v] for k, v in data.items()}
    mapping: dict[str, str] = {}
    for source, targets in graph.items():
        if len(source) != 1 or len(targets) != 1:
            continue
        target = targets[0]
        if len(target) == 1 and graph.get(target) == [source]:
            mapping[source] = min(source, target)
        else:
            mapping[source] = target
    return mapping


def skeleton(name: str) -> str:
    """TR39's skeleton: NFD, each character replaced by its prototype, NFD again (repeated
    until nothing changes: a prototype read back from the data may hold a source)."""
    prototypes = _prototypes()
    text = unicodedata.normalize("NFD", name)
    for _round in range(4):
        mapped = unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))
        if mapped == text:
            break
        text = mapped
    return text


def keys(name: str) -> set[str]:
    """What a name collides on: its skeleton without case, both ways round (a capital I is
    confusable with l, its small i is not; so the skeleton of the name as written and of the
    name case-folded are both kept)."""
    name = normalize(name)
    if not name:
        return set()
    return {skeleton(name).casefold(), skeleton(name.casefold()).casefold()}


def keys_of(names: Iterable[str]) -> list[str]:
    found: set[str] = set()
    for name in names:
        found |= keys(name)
    return sorted(found)


# --- validators (model fields, forms, services) ----------------------------------------------


def _check_characters(name: str) -> None:
    bad = forbidden_characters(name)
    if bad:
        codes = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(bad))
        raise ValidationError(
            _("A name may not hold invisible or control characters (%(codes)s)."),
            code="name_characters",
            params={"codes": codes},
        )


# The scripts a refusal names, in the reader's words (others by their Unicode name).
SCRIPT_NAMES = {
    "LATIN": _("Latin"),
    "CYRILLIC": _("Cyrillic"),
    "GREEK": _("Greek"),
    "HAN": _("Han"),
    "HIRAGANA": _("Hiragana"),
    "KATAKANA": _("Katakana"),
    "BOPOMOFO": _("Bopomofo"),
    "HANGUL": _("Hangul"),
    "ARABIC": _("Arabic"),
    "HEBREW": _("Hebrew"),
    "ARMENIAN": _("Armenian"),
    "GEORGIAN": _("Georgian"),
    "THAI": _("Thai"),
    "DEVANAGARI": _("Devanagari"),
}


def _script_list(used: frozenset[str]) -> str:
    # Translators: between the names of scripts in a list ("Latin, Cyrillic").
    separator = _now(", ")
    return separator.join(str(SCRIPT_NAMES.get(s, s.title())) for s in sorted(used))


# The list is put in words when the refusal is read, in the reader's language.
script_list = lazy(_script_list, str)


def _check_scripts(name: str) -> None:
    if mixes_scripts(name):
        raise ValidationError(
            _("A name may not mix alphabets (%(scripts)s): use one."),
            code="name_mixed_scripts",
            params={"scripts": script_list(frozenset(scripts(name)))},
        )


def validate_name_text(value: str) -> None:
    """The rules every name keeps, on the name as given (a field validator)."""
    _check_characters(value)
    _check_scripts(normalize(value))
