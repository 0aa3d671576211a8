"""Ladder titles (等級) by title points (RULES-SPEC.md §6, seed 004)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import pgettext_lazy


@dataclass(frozen=True)
class Title:
    code: str
    name: str  # the seed's own name: the key stored and given by the API, never shown as is
    english: str
    min_points: int

    @property
    def label(self) -> str:
        """The title as the reader's language writes it: 菜鸟 in 简体, 菜鳥 in 繁體, Rookie."""
        return str(LABELS[self.code])


TITLES: tuple[Title, ...] = (
    Title("cainiao", "菜鳥", "Rookie", 0),
    Title("pingfan", "平凡", "Ordinary", 40),
    Title("nuli", "努力", "Diligent", 80),
    Title("pinming", "拼命", "Relentless", 130),
    Title("xingyun", "幸運", "Lucky", 180),
    Title("yongshi", "勇士", "Warrior", 230),
    Title("gaoshou", "高手", "Expert", 290),
    Title("qiangzhe", "強者", "Strong", 360),
    Title("wangpai", "王牌", "Ace", 440),
    Title("chaoren", "超人", "Superhuman", 540),
    Title("gaoji", "高級", "Senior", 660),
    Title("dingji", "頂級", "Top", 820),
    Title("chaoji", "超級", "Super", 1000),
)


# msgctxt "title": the msgids are the English names; zh_Hans and zh_Hant write them in their
# own script (the seed writes Traditional).
LABELS = {
    "cainiao": pgettext_lazy("title", "Rookie"),
    "pingfan": pgettext_lazy("title", "Ordinary"),
    "nuli": pgettext_lazy("title", "Diligent"),
    "pinming": pgettext_lazy("title", "Relentless"),
    "xingyun": pgettext_lazy("title", "Lucky"),
    "yongshi": pgettext_lazy("title", "Warrior"),
    "gaoshou": pgettext_lazy("title", "Expert"),
    "qiangzhe": pgettext_lazy("title", "Strong"),
    "wangpai": pgettext_lazy("title", "Ace"),
    "chaoren": pgettext_lazy("title", "Superhuman"),
    "gaoji": pgettext_lazy("title", "Senior"),
    "dingji": pgettext_lazy("title", "Top"),
    "chaoji": pgettext_lazy("title", "Super"),
}


def title_for(points: int) -> Title:
    """The highest title whose threshold `points` reaches (a threshold is reached at equality)."""
    current = TITLES[0]
    for title in TITLES:
        if points >= title.min_points:
            current = title
        else:
            break
    return current


def next_title(points: int) -> Title | None:
    """The next title up, or None at the top."""
    for title in TITLES:
        if title.min_points > points:
            return title
    return None
