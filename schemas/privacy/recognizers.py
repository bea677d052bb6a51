"""The offline pattern recognisers: each finds one kind of personal data in a text and returns findings
(kind, span, score), as a Presidio recogniser would; :mod:`schemas.privacy.redactor` resolves overlaps and
replaces. Patterns find candidates; checks (Luhn, the ID check digit, a real birth date, octet ranges, a
context word) decide.

Every recogniser reads the *match view* of a text (:func:`match_view`): full-width digits, letters and
punctuation folded to ASCII one character for one, so spans stay those of the original. In Python's ``re``
a Han character is a word character, so ``\\b`` never separates "电话" from "138...": numbers are bounded by
look-arounds on digits instead.
"""

from __future__ import annotations

import re
from functools import partial
from collections.abc import Callable, Iterator
from typing import NamedTuple

from schemas.privacy.checks import cn_id15_valid, cn_id18_valid, luhn_valid

EMAIL, PHONE, ID_NUMBER, CARD, IP, PASSPORT, URL = "EMAIL", "PHONE", "ID_NUMBER", "CARD", "IP", "PASSPORT", "URL"
KINDS = (URL, EMAIL, ID_NUMBER, CARD, PHONE, IP, PASSPORT)

# full-width ASCII (U+FF01..U+FF5E) and the ideographic space, one character for one
_FOLD = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


class Finding(NamedTuple):
    kind: str
    start: int
    end: int
    score: float


_FOLDED = re.compile("[\uff01-\uff5e\u3000]")


def match_view(text: str) -> str:
    return text.translate(_FOLD) if _FOLDED.search(text) else text


class PatternRecognizer:
    """One kind: a regex for candidates, an optional check of the matched text, an optional context word that
    must stand just before (within ``window`` characters)."""

    def __init__(self, kind: str, pattern: str, score: float, check: Callable[[str], bool] | None = None,
                 context: str | None = None, window: int = 16, flags: int = 0, veto: str | None = None,
                 trigger: str | None = None):
        self.kind = kind
        self.regex = re.compile(pattern, flags)
        self.score = score
        self.check = check
        self.context = re.compile(context, re.IGNORECASE) if context else None
        self.window = window
        self.veto = re.compile(veto, re.IGNORECASE) if veto else None
        # what a text must hold for the pattern to have a chance (a cheap search first: most text holds no number)
        # (case-sensitive: a trigger that needs otherwise says so inline, (?i:...), so the redactor can join them
        # into one case-sensitive search, which is faster)
        self.trigger = re.compile(trigger) if trigger else None

    def find(self, view: str) -> Iterator[Finding]:
        """Findings in ``view`` (the trigger is only a shortcut: a text it misses has no finding either)."""
        for m in self.regex.finditer(view):
            value = m.group()
            if self.check is not None and not self.check(value):
                continue
            if self.context is not None and not self.context.search(view, max(0, m.start() - self.window),
                                                                     m.start()):
                continue
            if self.veto is not None and self.veto.search(view, max(0, m.start() - 12), m.start()):
                continue
            yield Finding(self.kind, m.start(), m.end(), self.score)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _id18(value: str) -> bool:
    return cn_id18_valid(value.replace(" ", ""))


def _id_shaped(digits: str) -> bool:
    return bool(re.fullmatch(r"\d{6}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]", digits))


def _card(value: str) -> bool:
    """13 to 19 digits, grouped plainly (one separator kind), an issuer's first digits, and Luhn."""
    digits = _digits(value)
    seps = set(re.sub(r"\d", "", value))
    if len(seps) > 1 or not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    # 17 and 18 digits: UnionPay's lengths only, and never an ID number's shape (a birth date at 7-14)
    if len(digits) in (17, 18) and (not digits.startswith("62") or _id_shaped(digits)):
        return False
    if seps and min(len(g) for g in re.split(r"[ -]", value)) < 3:
        return False
    lengths = next((n for prefix, n in _ISSUERS if prefix.match(digits)), ())
    return len(digits) in lengths and luhn_valid(digits)


# issuers' first digits and their numbers' lengths: Visa, Mastercard (51-55, 2221-2720), Amex, Diners, JCB,
# Discover, UnionPay
_ISSUERS = tuple((re.compile(p), n) for p, n in (
    (r"4", (13, 16, 19)), (r"5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)", (16,)), (r"3[47]", (15,)),
    (r"3(?:0[0-5]|[68])", (14, 16)), (r"35", (16, 17, 18, 19)), (r"6(?:011|4[4-9]|5)", (16, 19)),
    (r"62|81", (16, 17, 18, 19))))


def _digits_between(lo: int, hi: int, value: str) -> bool:
    return lo <= len(_digits(value)) <= hi


_SECRET_IN_QUERY = re.compile(
    r"[?&#;](?:[\w.-]*(?:token|key|secret|session|sid|sig|signature|auth|passw(?:or)?d|pwd|code|ticket|email|mail|"
    r"phone|mobile|tel|user(?:name)?|uid)[\w.-]*)=[^&#\s]{4,}|@|%40", re.IGNORECASE)


def _url_carries_secret(value: str) -> bool:
    return bool(_SECRET_IN_QUERY.search(value))


def _ipv4(value: str) -> bool:
    parts = value.split(".")
    return all(p == "0" or not p.startswith("0") for p in parts) and any(len(p) > 1 for p in parts)


def _ipv6(value: str) -> bool:
    groups = value.split(":")
    if "::" in value:
        return value.count("::") == 1 and len([g for g in groups if g]) <= 7
    return len(groups) == 8


_D0, _D1 = r"(?<!\d)", r"(?!\d)"
# URLs as written in text: ASCII only (a Han character ends one), trailing punctuation left outside
_URL_CHAR = r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]"
# a phone number is not the tail or head of a longer spaced digit run (a card, an account number)
# nor the digits after a letter (SF1234..., 1Z999AA1..., DD0232...: tracking and order numbers)
_P0, _P1 = r"(?<![\dA-Za-z+])(?<!\d[ \-])", r"(?!\d)(?![ \-]\d)"
_VERSION_BEFORE = r"(?<![A-Za-z0-9.:/])(?<!v)(?<!V)"
# the trigger of every digit kind: a run of at least 8 digits, at most two separators apart (the shortest such value
# is an international number's 8 digits; "(010) 8888", "+44 (0)20" have two-character gaps). Most text holds no such
# run (years, prices, sizes), and then none of the nine digit patterns runs.
_LONG_DIGITS = r"\d(?:[ \-.()]{0,2}\d){7,}"

_IPV4 = (_VERSION_BEFORE + r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
         r"(?![\d.]|\.\d)")
_NOT_IP = r"version|版本|\bver\b|\bv$|build|release|firmware|固件|系统"

RECOGNIZERS: tuple[PatternRecognizer, ...] = (
    # a URL that carries a token, key, session, signature, password or an e-mail in its query or fragment
    PatternRecognizer(URL, r"(?:https?://|www\.)" + _URL_CHAR + r"*[?#&]" + _URL_CHAR + r"*(?<![.,;:!?()\[\]])",
                      0.9, check=_url_carries_secret, trigger=r"://|www\."),
    PatternRecognizer(EMAIL, r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9](?:[A-Za-z0-9\-]*"
                             r"[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}"
                             r"(?![A-Za-z0-9\-])", 0.95, trigger="@"),
    # 18 characters (the last may be X), optionally spaced 6-8-4; a real birth date and the MOD 11-2 check
    PatternRecognizer(ID_NUMBER, _D0 + r"[1-9]\d{5} ?(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]) ?"
                                       r"\d{3}[\dXx](?![\dA-Za-z])", 0.95, check=_id18,
                      trigger=_LONG_DIGITS),
    # the 15-digit form has no check digit: only after a word that names it
    PatternRecognizer(ID_NUMBER, _D0 + r"[1-9]\d{14}" + _D1, 0.7, check=cn_id15_valid,
                      context=r"身份证|身份證|证件|證件|\bID\b|identity|id card|id number|id no", window=20,
                      trigger=_LONG_DIGITS),
    PatternRecognizer(CARD, r"(?<![\dA-Za-z])\d(?:[ \-]?\d){12,18}" + _D1, 0.85, check=_card, trigger=_LONG_DIGITS),
    # Chinese mobiles: 1[3-9] and 9 digits, optionally +86/0086/(+86), grouped 3-4-4
    PatternRecognizer(PHONE, _P0 + r"(?:(?:\(?\+86\)?|0086)[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}" + _P1, 0.9,
                      trigger=_LONG_DIGITS),
    # Chinese landlines: area code 0[1-9]x(x), bracketed or not, a 7-8 digit number, an optional extension
    PatternRecognizer(PHONE, _P0 + r"(?:\(0[1-9]\d{1,2}\)|（0[1-9]\d{1,2}）|0[1-9]\d{1,2})[ \-]?[2-9]\d{2,3}[ \-]?"
                             r"\d{4}(?:(?:-| ?ext\.? ?| ?转 ?)\d{1,5})?" + _P1, 0.75,
                      check=partial(_digits_between, 10, 17), trigger=_LONG_DIGITS),
    # international: +country code, then groups (one may be bracketed) separated by spaces, dashes or dots
    PatternRecognizer(PHONE, r"(?<![A-Za-z0-9+])\+\d{1,3}(?:[ \-.]?\(\d{1,4}\))?(?:[ \-.]?\d{1,5}){1,5}" + _P1, 0.85,
                      check=partial(_digits_between, 8, 15), trigger=_LONG_DIGITS),
    # North American: (415) 555-0132, 415-555-0132, 1-800-555-0199, 415.555.0132
    PatternRecognizer(PHONE, r"(?<![\d\-.])(?:1[ \-.])?(?:\(\d{3}\) ?|\d{3}[\-.])\d{3}[\-.]\d{4}" + _P1, 0.75,
                      trigger=_LONG_DIGITS),
    PatternRecognizer(IP, _IPV4, 0.8, check=_ipv4, veto=_NOT_IP, trigger=r"\d\.\d"),
    # four single digits (1.2.3.4) are as often a version: an address only beside a word that says so
    PatternRecognizer(IP, _VERSION_BEFORE + r"\d\.\d\.\d\.\d(?![\d.]|\.\d)", 0.7, veto=_NOT_IP,
                      context=r"\bIP|address|server|host|ping|dns|gateway|router|地址|服务器|网关|主机|路由", window=20,
                      trigger=r"\d\.\d"),
    PatternRecognizer(IP, r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){1,7}(?::|(?::[0-9A-Fa-f]{1,4}){1,7}|"
                          r"[0-9A-Fa-f]{1,4})(?![0-9A-Fa-f:])", 0.8, check=_ipv6, trigger=r"[0-9A-Fa-f]:[0-9A-Fa-f:]"),
    # passports: a letter or two and 7-8 digits (China, most of Europe), or 9 digits (US), after the word
    PatternRecognizer(PASSPORT, r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,2}\d{7,8}|\d{9})(?![A-Za-z0-9])", 0.8,
                      context=r"passport|护照|護照", window=24, trigger=r"(?i:passport)|护照|護照"),
)


def builtin_recognizers(kinds: tuple[str, ...] = KINDS) -> tuple[PatternRecognizer, ...]:
    return tuple(r for r in RECOGNIZERS if r.kind in kinds)
