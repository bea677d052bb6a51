"""What an answer says beyond its question: content tokens (words; characters in Chinese), no function words.

Kept apart from the paraphrase judge's tokens (models.paraphrase.evidence), which are tuned for
question pairs; model kinds do not import each other.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_\u3000-\u9fff]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_STOP = frozenset(
    "a an the is are was were be been am do does did i you he she it we they my your our their me us them to of "
    "in on at for by with from and or but if so as this that these those there here what which who how when "
    "where why can could should would will may might must please it's i'm that's".split())
_ZH_FUNCTION = frozenset("的了是在和与就都也把被对从向给让很吗呢吧啊么着过得地我你他她它这那个有请问一下呀哦嘛")


def content_tokens(text: str) -> frozenset[str]:
    low = text.lower()
    words = {w for w in _WORD.findall(low) if w not in _EN_STOP}
    return frozenset(words | {ch for ch in _CJK.findall(low) if ch not in _ZH_FUNCTION})


def new_tokens(question: str, answer: str) -> int:
    """How many content tokens the answer adds to the question's own."""
    return len(content_tokens(answer) - content_tokens(question))


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def new_specifics(question: str, answer: str) -> int:
    """Names (capitalised words after a sentence's first word) and figures the answer adds to its question:
    "Sam Altman is the CEO of OpenAI." names two the question did not; a refusal rarely names anything."""
    asked = {w.lower() for w in _NAME.findall(question)} | set(_FIGURE.findall(question))
    said = {w.lower() for w in _NAME.findall(answer)} | set(_FIGURE.findall(answer))
    return len(said - asked)


# Arabic digits, or a Chinese numeral with a unit ("三天", "十一分", "两到四周"): a figure is content
_ANY_FIGURE = re.compile(r"\d|[一二两三四五六七八九十百千万亿半][个年月日天周岁次元块分秒点米斤克号倍成层里]"
                         r"|[二两三四五六七八九十百千万亿]{2,}")
_ANY_FIGURE_RUN = re.compile(r"\d+(?:[.,]\d+)*|[一二两三四五六七八九十百千万亿半]+[个年月日天周岁次元块分秒点米斤克号倍成层里]"
                             r"|[二两三四五六七八九十百千万亿]{2,}")
_EN_SUFFIXES = ("ing", "ed", "es", "s", "e")


def has_figure(text: str) -> bool:
    return bool(_ANY_FIGURE.search(text))


def _stem(word: str) -> str:
    """A crude English stem, enough to see that "taking" and "take", "prices" and "price" are one word."""
    for suffix in _EN_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:4]


def stems(text: str) -> frozenset[str]:
    """Content tokens as stems: English words stemmed (:func:`_stem`; single letters left out: the "s" of
    "Shakespeare's"), Chinese characters as they are."""
    return frozenset(t if _CJK.fullmatch(t) else _stem(t) for t in content_tokens(text)
                     if len(t) > 1 or _CJK.fullmatch(t))


def new_figures(question: str, text: str) -> frozenset[str]:
    """The figures (digit runs, Chinese numerals with a unit) ``text`` has and ``question`` does not."""
    return frozenset(_ANY_FIGURE_RUN.findall(text)) - frozenset(_ANY_FIGURE_RUN.findall(question))
