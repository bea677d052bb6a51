"""The numbers an answer states, as values, for number-aware majority voting.

Arabic numbers with thousands separators, decimals and a sign ("21,196", "100.0", "-5"), scaled by a
magnitude word that follows (万 10^4, 亿 10^8, 千 10^3, 千万, 百万, 万亿, thousand, million, billion:
"2.1万" = 21,000, "30多万" = 300,000, "14亿1千万" = 1,410,000,000; but 千米 is a kilometre, 千克 a
kilogram), and Chinese numerals of two or more characters ("两万一千" = 21,000, "一亿五千万" =
150,000,000, "一千零五" = 1005, "三点五" = 3.5, "负五" = -5, "一〇五" = 105; single characters such
as the 一 in 一个 are words, not numbers). Words made of numeral characters are not numbers: 千万 and
万一 (starting with a unit other than 十), 一一 and 三四 (digits side by side: an idiom or a range),
几十万 and 数十万 (a vague amount). Years are skipped: a number followed by 年, or "in"/"since" + a
four-digit number from 1000 to 2199. Two values agree when they are within 2% of each other.
"""

from __future__ import annotations

import re

_ARABIC = re.compile(
    r"(?:(?<![A-Za-z0-9_.])([-−负]))?(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
    r"(?:\s*[多余]?(千万|百万|千亿|百亿|万亿|亿|万|千(?![米克瓦卡焦帕])|thousand\b|million\b|billion\b|trillion\b))?",
    re.I)
# 两 is a digit only before a unit (两百, 两万); elsewhere it is the measure word (三两 = three taels).
# A decimal followed by 十/百/千 is a clock time (三点五十 = 3:50), not 3.5.
_HAN_NUM = re.compile(
    r"(?<!几)(?!(?<=数)十)(负?(?:[零〇一二三四五六七八九十百千万亿]|两(?=[百千万亿]))+"
    r"(?:点[零〇一二三四五六七八九]+(?![零〇一二三四五六七八九十百千])[万亿]*)?)(?:[多余]([万亿]+))?")
_YEAR_EN = re.compile(r"\b(?:in|since|from|until|by)\s+(1\d{3}|2[01]\d{2})\b", re.I)
_SCALE = {"万": 1e4, "亿": 1e8, "千": 1e3, "千万": 1e7, "百万": 1e6, "千亿": 1e11, "百亿": 1e10, "万亿": 1e12,
          "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZEROS = "零〇"
_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = (("亿", 10**8), ("万", 10**4))
_DECIMAL = re.compile(r"([零〇一二三四五六七八九]+)([万亿]*)")
TOLERANCE = 0.02


def _section(s: str) -> int | None:
    """A numeral below 10^4 written with 十百千 (三千零五, 十五, 一百一 = 110), or None when malformed."""
    value, last_unit, digit, after_zero = 0, 10_000, None, False
    for i, ch in enumerate(s):
        if ch in _UNITS:
            unit = _UNITS[ch]
            if unit >= last_unit:
                return None  # units go down: 十百 is no numeral
            if digit is None:
                if unit != 10 or not (i == 0 or after_zero):
                    return None  # only 十 stands without its digit, and only first: 十五, 一百零十
                digit = 1
            value += digit * unit
            last_unit, digit, after_zero = unit, None, False
        elif ch in _ZEROS:
            if digit is not None:
                return None
            after_zero = True
        elif ch in _DIGITS:
            if digit is not None:
                return None  # two digits side by side: a range (三四个) or an idiom (一一)
            digit = _DIGITS[ch]
        else:
            return None
    if digit is not None:
        # 一百一 is 110 and 一千二 is 1200: a last digit right after a unit counts in the next unit down
        value += digit if after_zero or last_unit in (10, 10_000) else digit * last_unit // 10
    return value


def _scaled(s: str) -> int | None:
    """A numeral with sections split by 亿 and 万 (一亿五千万, 三万亿, 十亿零一万), or None."""
    for char, scale in _BIG_UNITS:
        i = s.rfind(char)
        if i < 0:
            continue
        # the last 亿 splits the numeral: what stands before it counts the 亿s (一万亿 = 10^12, 五千万亿)
        high = _scaled(s[:i]) if i else None
        if not high:
            return None
        low_text = s[i + 1:]
        if len(low_text) == 1 and low_text in _DIGITS and low_text not in _ZEROS:
            low = _DIGITS[low_text] * scale // 10  # 一万二 is 12000, 三亿五 is 350 million
        else:
            low = _scaled(low_text.lstrip(_ZEROS)) if low_text.lstrip(_ZEROS) else 0
        if low is None or low >= scale:
            return None
        return high * scale + low
    return _section(s)


def _integer(s: str) -> int | None:
    if not s:
        return None
    if any(ch in _UNITS or ch in "万亿" for ch in s):
        return _scaled(s)
    if len(s) == 1:
        return _DIGITS.get(s)
    if len(s) >= 4 or any(ch in _ZEROS for ch in s):
        # digit by digit, as room numbers and years are written: 一〇五, 一九八四
        return int("".join(str(_DIGITS[ch]) for ch in s)) if all(ch in _DIGITS for ch in s) else None
    return None  # 一一, 三四, 一二三: an idiom, a range, a count


def han_value(s: str) -> float | None:
    """A Chinese numeral's value (一万 = 10000, 两万一千 = 21000, 一亿五千万 = 1.5e8, 三点五 = 3.5,
    负五 = -5), or None when the characters are not a numeral."""
    sign = -1 if s.startswith("负") else 1
    s = s[1:] if sign < 0 else s
    if not s or s[0] in "百千万亿" or re.search("两(?![百千万亿])", s):
        return None  # 千万 (by all means) and 万一 (in case) are words
    whole, point, fraction = s.partition("点")
    value = _integer(whole)
    if value is None:
        return None
    if not point:
        return float(sign * value)
    m = _DECIMAL.fullmatch(fraction)
    if m is None:
        return None
    digits = "".join(str(_DIGITS[ch]) for ch in m.group(1))
    result = sign * float(f"{value}.{digits}")  # parsed from its decimal text, so 十二点零五 == 12.05 exactly
    for ch in m.group(2):
        result *= 10**8 if ch == "亿" else 10**4
    return result


def _arabic_values(text: str, years: set[int]) -> list[tuple[int, int, float, float]]:
    """(start, end, value, scale) of each Arabic number, a number that continues a 万/亿 one joined to
    it: 14亿1千万 is one number, 1.41e9; 3万5千 is 35000."""
    found: list[tuple[int, int, float, float]] = []
    for m in _ARABIC.finditer(text):
        if text[m.end():m.end() + 1] == "年" or m.start(2) in years:
            continue
        value = float(m.group(2).replace(",", "") + (m.group(3) or ""))
        scale = _SCALE[m.group(4).lower()] if m.group(4) else 1.0
        value *= scale
        if m.group(1):
            value = -value
        if found and not m.group(1) and found[-1][1] == m.start() and found[-1][3] >= 1e4 and found[-1][3] > abs(value):
            start, _, before, before_scale = found.pop()
            if scale == 1.0 and not m.group(3) and len(m.group(2)) == 1 and before_scale in (1e4, 1e8):
                value *= before_scale / 10  # 1万2 is 12000, as 一万二 is
            found.append((start, m.end(), before + value if before >= 0 else before - value, min(before_scale, scale)))
            continue
        found.append((m.start(), m.end(), value, scale))
    return found


def number_values(text: str) -> list[float]:
    """The values stated, in order of appearance (years skipped)."""
    years = {m.start(1) for m in _YEAR_EN.finditer(text)}
    arabic = _arabic_values(text, years)
    found = [(start, value) for start, _, value, _ in arabic]
    for m in _HAN_NUM.finditer(text):
        numeral, more = m.group(1), m.group(2)
        if text[m.end():m.end() + 1] == "年" or (len(numeral) < 2 and not more):
            continue
        if any(start <= m.start() < end for start, end, _, _ in arabic):
            continue  # the 千万 of 3千万 is the Arabic number's scale
        v = han_value(numeral)
        if v is not None:
            for ch in more or "":
                v *= 1e8 if ch == "亿" else 1e4  # 三十多万: over 300,000
            found.append((m.start(), v))
    return [v for _, v in sorted(found)]


def agree(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def any_agree(xs: list[float], ys: list[float]) -> bool:
    return any(agree(x, y) for x in xs for y in ys)
