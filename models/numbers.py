"""The numbers an answer states, as values, for number-aware majority voting.

Arabic numbers with thousands separators and decimals ("21,196", "100.0"), scaled by a
magnitude word that follows (万 10^4, 亿 10^8, 千 10^3, thousand, million, billion:
"2.1万" = 21,000; but 千米 is a kilometre, 千克 a kilogram), and Chinese numerals of two or more characters ("两万一千" = 21,000,
"一万" = 10,000, "三十" = 30; single characters such as the 一 in 一个 are words, not
numbers). Years are skipped: a number followed by 年, or "in"/"since" + a four-digit
number from 1000 to 2199. Two values agree when they are within 2% of each other.
"""

from __future__ import annotations

import re

_ARABIC = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(万|亿|千(?![米克瓦卡焦帕])|thousand\b|million\b|billion\b)?", re.I)
_HAN_NUM = re.compile(r"[零〇一二两三四五六七八九十百千万亿]{2,}")
_YEAR_EN = re.compile(r"\b(?:in|since|from|until|by)\s+(1\d{3}|2[01]\d{2})\b", re.I)
_SCALE = {"万": 1e4, "亿": 1e8, "千": 1e3, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
TOLERANCE = 0.02


def han_value(s: str) -> float | None:
    """A Chinese numeral's value (一万 = 10000, 两万一千 = 21000, 三十五 = 35), or None."""
    total, section, digit = 0.0, 0.0, None
    for ch in s:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch in _UNITS:
            section += (digit if digit is not None else 1) * _UNITS[ch]
            digit = None
        elif ch in ("万", "亿"):
            section += digit or 0
            total = (total + section) * (1e4 if ch == "万" else 1e8)
            section, digit = 0.0, None
        else:
            return None
    value = total + section + (digit or 0)
    return value if value > 0 else None


def number_values(text: str) -> list[float]:
    """The values stated, in order of appearance (years skipped)."""
    years = {m.start(1) for m in _YEAR_EN.finditer(text)}
    found: list[tuple[int, float]] = []
    for m in _ARABIC.finditer(text):
        after = text[m.end():m.end() + 1]
        if after == "年" or m.start(1) in years:
            continue
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if m.group(3):
            value *= _SCALE[m.group(3).lower()]
        found.append((m.start(), value))
    for m in _HAN_NUM.finditer(text):
        if text[m.end():m.end() + 1] == "年":
            continue
        v = han_value(m.group(0))
        if v is not None:
            found.append((m.start(), v))
    return [v for _, v in sorted(found)]


def agree(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def any_agree(xs: list[float], ys: list[float]) -> bool:
    return any(agree(x, y) for x in xs for y in ys)
