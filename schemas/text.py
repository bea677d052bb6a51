"""Pure text helpers: normalised keys and language detection."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WS = re.compile(r"\s+")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # CJK Unified Ideographs
        or 0x3400 <= cp <= 0x4DBF  # Extension A
        or 0x20000 <= cp <= 0x2A6DF  # Extension B
        or 0xF900 <= cp <= 0xFAFF  # Compatibility Ideographs
    )


def normalize_key(text: str) -> str:
    """NFKC, whitespace collapsed, case-folded, trailing punctuation (ASCII and full-width) stripped."""
    s = unicodedata.normalize("NFKC", text)
    s = _WS.sub(" ", s).strip().casefold()
    end = len(s)
    while end > 0 and (unicodedata.category(s[end - 1]).startswith("P") or s[end - 1].isspace()):
        end -= 1
    return s[:end]


def clean_surface(text: str) -> str:
    """The logged form to show people: whitespace collapsed and trimmed, nothing else changed."""
    return _WS.sub(" ", text).strip()


def detect_lang(text: str) -> str:
    """'zh', 'en', 'mixed' (substantial CJK and Latin) or 'other'."""
    cjk = latin = 0
    for ch in text:
        if _is_cjk(ch):
            cjk += 1
        elif ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
            latin += 1
    if cjk == 0:
        return "en" if latin > 0 else "other"
    # a CJK character carries about as much as a 3-4 letter word
    latin_words_equiv = latin / 4.0
    if latin_words_equiv <= cjk * 0.5:
        return "zh"
    return "mixed"


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if _is_cjk(ch))


def question_id(key: str) -> str:
    """Stable id of a base question: the same key gives the same qid in every run."""
    return "q_" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
