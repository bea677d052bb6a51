"""The offline pattern recognisers: each finds one kind of personal data in a text and returns findings
(kind, span, score), as a Presidio recogniser would; :mod:`schemas.privacy.redactor` resolves overlaps and
replaces. Patterns find candidates; checks (Luhn, the ID check digit, a real birth date, octet ranges, a
context word) decide.

Every recogniser reads the *match view* of a text (:func:`match_view`): full-width digits, letters and
punctuation, and the other spaces and dashes, folded to ASCII one character for one, and invisible characters
(:func:`schemas.text.is_invisible`) dropped, so a value split by zero-width spaces reads as the value it shows. The
view keeps where each of its characters stands in the original, so the redactor replaces the original span (the
invisible characters inside a value go with it). In Python's ``re`` a Han character is a word character, so ``\\b``
never separates "电话" from "138...": numbers are bounded by look-arounds on digits instead.
"""

from __future__ import annotations

import re
from functools import partial
from collections.abc import Callable, Iterator
from typing import NamedTuple

from schemas.privacy.checks import cn_id15_valid, cn_id18_valid, luhn_valid
from schemas.text import has_invisible, is_invisible

EMAIL, PHONE, ID_NUMBER, CARD, IP, PASSPORT, URL = "EMAIL", "PHONE", "ID_NUMBER", "CARD", "IP", "PASSPORT", "URL"
KINDS = (URL, EMAIL, ID_NUMBER, CARD, PHONE, IP, PASSPORT)

# one character for one: full-width ASCII (U+FF01..U+FF5E) and the ideographic space; the no-break, thin and other
# typographic spaces (a number copied from a web page is often grouped by them) and the hyphens, dashes and minus
# sign that stand where a keyboard's "-" would
_FOLD = ({cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
         | dict.fromkeys((0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F), 0x20)
         | dict.fromkeys((*range(0x2010, 0x2016), 0x2212), 0x2D))


class Finding(NamedTuple):
    kind: str
    start: int
    end: int
    score: float


_FOLDED = re.compile("[" + "".join(map(chr, _FOLD)) + "]")


def match_view(text: str) -> tuple[str, tuple[int, ...] | None]:
    """What the recognisers read, and where each of its characters stands in ``text`` (``None`` when nothing was
    dropped: then a span of the view is one of the text). A plain pair: this runs on every text."""
    if text.isascii():  # most texts: nothing to fold, nothing invisible
        return text, None
    if _FOLDED.search(text):
        text = text.translate(_FOLD)
    if not has_invisible(text):
        return text, None
    origin = tuple(i for i, ch in enumerate(text) if not is_invisible(ch))
    return "".join(text[i] for i in origin), origin


def in_text(finding: Finding, origin: tuple[int, ...]) -> Finding:
    """A finding of the view as a span of the text: from its first character's place to just after its last's, so
    the invisible characters between them are inside."""
    return finding._replace(start=origin[finding.start], end=origin[finding.end - 1] + 1)


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
        """Findings in ``view`` (the trigger is only a shortcut: a text it misses has no finding either). A candidate
        that is refused does not hide one that starts inside it ("me at john dot smith at gmail dot com": "me at
        john dot smith" is refused, "john dot smith at gmail dot com" is the address), so the search goes on from
        the character after the refused one's start."""
        at = 0
        while (m := self.regex.search(view, at)) is not None:
            if self._accepts(view, m):
                yield Finding(self.kind, m.start(), m.end(), self.score)
                at = max(m.end(), m.start() + 1)
            else:
                at = m.start() + 1

    def _accepts(self, view: str, m: re.Match) -> bool:
        if self.check is not None and not self.check(m.group()):
            return False
        if self.context is not None and not self.context.search(view, max(0, m.start() - self.window), m.start()):
            return False
        return self.veto is None or self.veto.search(view, max(0, m.start() - 12), m.start()) is None


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _groups(value: str) -> list[str]:
    return re.split(_SEP, value)


def _id18(value: str) -> bool:
    """A valid 18-character ID, however it is grouped, but not cut into ones and twos ("1 1 0 1 ...")."""
    groups = _groups(value)
    return (len(groups) == 1 or min(map(len, groups)) >= 2) and cn_id18_valid("".join(groups))


def _id15(value: str) -> bool:
    groups = _groups(value)
    return (len(groups) == 1 or min(map(len, groups)) >= 2) and cn_id15_valid("".join(groups))


def _id_shaped(digits: str) -> bool:
    return bool(re.fullmatch(r"\d{6}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]", digits))


def _card(value: str) -> bool:
    """13 to 19 digits, in groups of three or more (spaces, dashes or dots, mixed or not: a date, a price or a
    version beside a number leaves a shorter group), an issuer's first digits, and Luhn."""
    digits = _digits(value)
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    # 17 and 18 digits: UnionPay's lengths only, and never an ID number's shape (a birth date at 7-14)
    if len(digits) in (17, 18) and (not digits.startswith("62") or _id_shaped(digits)):
        return False
    if min(len(g) for g in _groups(value)) < 3:
        return False
    lengths = next((n for prefix, n in _ISSUERS if prefix.match(digits)), ())
    return len(digits) in lengths and luhn_valid(digits)


def _mobile(value: str) -> bool:
    """A dot is a separator only in a number grouped 3-4-4 at both places (137.7777.8888, 137.7777 8888);
    138.12345678 is a decimal."""
    if "." not in value:
        return True
    return len(_groups(re.sub(r"^(?:\(?\+86\)?|0086)[ \-.]?", "", value))) == 3


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
# what may stand between the groups of a number: a space, a dash or a dot, one at a time, of one kind or mixed
# (138-1234 5678, 137.7777.8888); zero-width characters are gone from the view, and the other spaces and dashes
# folded to these
_SEP = r"[ \-.]"
# URLs as written in text: ASCII only (a Han character ends one), trailing punctuation left outside
_URL_CHAR = r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]"
# a phone number is not the tail or head of a longer grouped digit run (a card, an account number), nor the digits
# after a letter (SF1234..., 1Z999AA1..., DD0232...: tracking and order numbers) or of a decimal below one
# (0.13812345678; "1.13812345678" is a list's first item)
_P0, _P1 = r"(?<![\dA-Za-z+])(?<!\d[ \-])(?<!0\.)", r"(?!\d)(?![ \-.]\d)"
# a mobile's 11 digits written together are no head of a grouped run: "13812345678 2点以后打" is the number and a time
_MOBILE_END = r"(?!\d)(?:(?<=\d{11})|(?![ \-.]\d))"
_VERSION_BEFORE = r"(?<![A-Za-z0-9.:/])(?<!v)(?<!V)"
# the trigger of every digit kind: a run of at least 8 digits, at most two separators apart (the shortest such value
# is an international number's 8 digits; "(010) 8888", "+44 (0)20" have two-character gaps). Most text holds no such
# run (years, prices, sizes), and then none of the nine digit patterns runs.
_LONG_DIGITS = r"\d(?:[ \-.()]{0,2}\d){7,}"

# --- e-mail addresses written so that a scraper misses them ----------------------------------------------------------
# "name [at] example [dot] com", "name(at)example(dot)com", "name AT example DOT com", "john dot smith at gmail dot
# com", "zhangsan艾特qq点com", "zhangsan#163.com" (Chinese sites write # for @ and say so), "john@example[dot]com".
# Full-width brackets and ＠ are folded by the view.
_OPEN, _CLOSE, _SP = r"[\[({<【]", r"[\])}>】]", r"[ \t]"
_OBF_AT = (_SP + "*" + _OPEN + _SP + r"*(?:[Aa][Tt]|@)" + _SP + "*" + _CLOSE + _SP + "*"  # [at] (at) {at} 【at】 [@]
           + "|" + _SP + r"*艾特" + _SP + "*"
           + "|" + _SP + r"+(?:at|AT)" + _SP + "+"
           + "|" + _SP + r"+@" + _SP + r"+|@|#")
_OBF_DOT = (_SP + "*" + _OPEN + _SP + r"*(?:[Dd][Oo][Tt]|\.|点|點)" + _SP + "*" + _CLOSE + _SP + "*"
            + "|" + _SP + r"+(?:dot|DOT)" + _SP + "+|" + _SP + r"*[点點]" + _SP + r"*|\.")
_OBF_DOT_RE = re.compile(_OBF_DOT)
_LOCAL_WORD = r"[A-Za-z0-9](?:[A-Za-z0-9_%+\-]*[A-Za-z0-9])?"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
_OBF_LOCAL = rf"(?<![A-Za-z0-9._%+\-'’@#]){_LOCAL_WORD}(?:(?:{_OBF_DOT}){_LOCAL_WORD})*"
_OBF_DOMAIN = rf"{_LABEL}(?:(?:{_OBF_DOT}){_LABEL})*(?:{_OBF_DOT})[A-Za-z]{{2,24}}(?![A-Za-z0-9\-])"
_OBF_EMAIL = rf"(?P<local>{_OBF_LOCAL})(?P<at>{_OBF_AT})(?P<domain>{_OBF_DOMAIN})"
_OBF_EMAIL_RE = re.compile(_OBF_EMAIL)
# what a text must hold for a spelled-out address: an @, 艾特, # or a bracketed at; or " at " before a word and a dot
# of any kind (most English sentences hold an " at ", few an " at example." or " at example dot")
_SPELLED_AT = (r"@|艾特|#[A-Za-z0-9]|[\[({<【][ \t]*[Aa][Tt]"
               r"|[ \t](?:at|AT)[ \t]+[A-Za-z0-9][A-Za-z0-9\-]*(?:\.|[ \t]*[\[({<【点點]|[ \t]+(?:dot|DOT))")
# the pattern in three parts, for a search that starts from each at (SpelledOutEmailRecognizer.find): the at's
# core (spaces around it are added after), the local part read backwards (the text reversed, so it is matched from
# the at on: the pattern reversed, its dots too), the domain read on
_OBF_AT_CORE_RE = re.compile(r"[\[({<【][ \t]*(?:[Aa][Tt]|@)[ \t]*[\])}>】]|艾特|[ \t](?:at|AT)[ \t]|@|#")
_OBF_DOT_REVERSED = (_SP + "*" + _CLOSE + _SP + r"*(?:[Tt][Oo][Dd]|\.|点|點)" + _SP + "*" + _OPEN + _SP + "*"
                     + "|" + _SP + r"+(?:tod|TOD)" + _SP + "+|" + _SP + r"*[点點]" + _SP + r"*|\.")
_OBF_LOCAL_REVERSED_RE = re.compile(rf"{_LOCAL_WORD}(?:(?:{_OBF_DOT_REVERSED}){_LOCAL_WORD})*"
                                    r"(?![A-Za-z0-9._%+\-'’@#])")
_OBF_DOMAIN_RE = re.compile(_OBF_DOMAIN)
# the top-level domains a spelled-out address ends in (where "at"/"dot" are ordinary words, a made-up ending is not
# taken for one)
_TLDS = frozenset("""com net org edu gov mil int info biz io co me cn hk tw mo jp kr uk de fr ru au ca us in sg my
eu nl it es ch se no be at pl br mx nz ie tv cc ai app dev xyz top vip club online site tech email""".split())
# mail providers: "name at gmail.com" is an address even with a plain dot
_MAIL_PROVIDERS = frozenset("""gmail googlemail qq foxmail 163 126 yeah sina sohu aliyun 139 189 outlook hotmail live
msn yahoo icloud aol protonmail gmx yandex""".split())
# English words that stand before "at" in ordinary sentences ("I am at home", "look at this"): never the local part
# of a spelled-out address
_FUNCTION_WORDS = frozenset("""a an the this that these those it its i im me my mine we us our you your he him his
she her they them their is am are was were be been being do does did have has had will would can could should may
might must not no yes and or but so if then than also just only even still now here there where when what who which
all any some one each every both at in on up out off by of to for from with into onto over under about as""".split())
# and the places and times that follow it ("at home dot com", "at school", "at noon", "at least"): never the first
# name of its domain
_PLACE_WORDS = frozenset("""home work office school class college university church hospital night noon midnight
lunch dinner least most best first last once times""".split())
# and what else stands before "at" ("my account at gmail.com", "sign in at outlook.com", "contact support at
# outlook.com", "available at shop dot com", "he works at ..."): not a local part unless the address is written or
# said to be one (AT ... DOT, "my email is")
_BEFORE_AT_WORDS = _FUNCTION_WORDS | _PLACE_WORDS | frozenset("""look looking looked stare staring laugh laughing
point pointing arrive arrived arriving stay staying stayed meet meeting met live living lived sign signed signing log
logged logging login register registered account accounts email emails mail inbox address profile password support
help team service store shop shopping available sold buy bought order ordered find found visit visiting located based
listed hosted posted published works worked working online open free cheap cheaper more less info details""".split())
# words that say an address follows (in the 32 characters before it)
_ADDRESS_CUE = re.compile(r"(?i:e-?mail|mail|address|contact|reach|write|inbox)|邮箱|邮件|电邮|联系|地址|发到|发送到")


def _mail_provider(labels: list[str]) -> bool:
    """Whether a domain's labels name a mail provider: gmail.com, qq.com, vip.163.com, hotmail.co.uk."""
    return any(label in _MAIL_PROVIDERS and labels[i + 1:] and all(t in _TLDS for t in labels[i + 1:])
               for i, label in enumerate(labels))


def _spelled_out_email(value: str, before: str = "") -> bool:
    """Whether a candidate written with [at], AT, at, 艾特, #, or obfuscated dots is an address (``before``: the
    text just before it). A bracketed at ([at], (at), 【at】) or 艾特 is written that way on purpose: always. An
    unspaced @ with an obfuscated dot (john@example[dot]com): always (with plain dots it is the plain recogniser's).
    The other forms are words and signs that ordinary sentences use too: see :func:`_words_make_an_address`."""
    m = _OBF_EMAIL_RE.fullmatch(value)
    if m is None:
        return False
    at = m["at"].strip(" \t")
    obfuscated = any(d != "." for d in _OBF_DOT_RE.findall(m["local"] + m["domain"]))
    if at == "@" and m["at"] == "@":
        return obfuscated
    if at == "艾特" or at[0] in "[({<【":
        return True
    return _words_make_an_address(m["local"], at, m["domain"], obfuscated, _ADDRESS_CUE.search(before) is not None)


def _words_make_an_address(local: str, at: str, domain: str, obfuscated: bool, cued: bool) -> bool:
    """Whether an address written with " at ", " AT ", " @ " or "#" is one. These stand in sentences too, so it must
    be unambiguous:
    - its local part no word that stands before "at" in a sentence (I am at ..., look at ..., my account at
      gmail.com); only function words count when the address is written as one on purpose (AT ... DOT) or said
      to be one ("my email is ...");
    - its domain not starting with a place or a function word (at home dot com, at this dot com) unless a mail
      provider's, nor, after a lowercase " at ", with a capitalised name (works at Google dot com, available at
      Walmart dot com: a company's site); its ending a real top-level domain;
    - then " @ " (spaced) as it is; " AT " with an obfuscated dot, or a plain one after a local part not in
      capitals (MEET JOHN AT EXAMPLE.COM is shouting); lowercase " at " only with an obfuscated dot (name at
      example dot com) or a mail provider's domain (name at gmail.com: "meet me at example.com" is a website); #
      only before a mail provider's domain (zhangsan#qq.com, as Chinese sites write it).
    """
    words = [w.lower() for w in _OBF_DOT_RE.split(local)]
    names = _OBF_DOT_RE.split(domain)
    labels = [n.lower() for n in names]
    provider = _mail_provider(labels)
    plain = _FUNCTION_WORDS if cued or (at == "AT" and obfuscated) else _BEFORE_AT_WORDS
    if plain.intersection(words):
        return False
    if not provider and (labels[0] in _FUNCTION_WORDS or labels[0] in _PLACE_WORDS
                         or (at == "at" and not cued and names[0].istitle())):
        return False
    if at == "#":
        return provider
    if labels[-1] not in _TLDS:
        return False
    if at == "@":
        return True
    if at == "AT":
        return obfuscated or not local.isupper()
    return obfuscated or provider


class SpelledOutEmailRecognizer(PatternRecognizer):
    """Addresses spelled out so that a scraper misses them; the words just before a candidate count too ("my email
    is first dot last at company dot com"). Its pattern is that of an address, but the search starts from each at
    (each " at ", [at], 艾特, @, #) and reads the local part back from it and the domain on from it: run from every
    word of an English sentence, the whole pattern made a text with an " at " five times as slow to redact."""

    def find(self, view: str) -> Iterator[Finding]:
        done = 0
        for core in _OBF_AT_CORE_RE.finditer(view):
            left, right = _spaced(view, core.start(), core.end())
            if left < done:
                continue
            local = _OBF_LOCAL_REVERSED_RE.match(view[max(done, left - 96):left][::-1])
            domain = _OBF_DOMAIN_RE.match(view, right) if local is not None else None
            if domain is None:
                continue
            start, end = left - local.end(), domain.end()
            if _spelled_out_email(view[start:end], view[max(0, start - 32):start]):
                yield Finding(self.kind, start, end, self.score)
                done = end


def _spaced(view: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened over the spaces and tabs on either side."""
    while start > 0 and view[start - 1] in " \t":
        start -= 1
    while end < len(view) and view[end] in " \t":
        end += 1
    return start, end


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
    # an address spelled out so that a scraper misses it (name [at] example [dot] com, name at gmail.com, 艾特)
    SpelledOutEmailRecognizer(EMAIL, _OBF_EMAIL, 0.9, trigger=_SPELLED_AT),
    # 18 characters (the last may be X), grouped in any way (6-8-4, fours, mixed separators); a real birth date and
    # the MOD 11-2 check
    PatternRecognizer(ID_NUMBER, _D0 + r"[1-9](?:" + _SEP + r"?\d){16}" + _SEP + r"?[\dXx](?![\dA-Za-z])", 0.95,
                      check=_id18, trigger=_LONG_DIGITS),
    # the 15-digit form has no check digit: only after a word that names it
    PatternRecognizer(ID_NUMBER, _D0 + r"[1-9](?:" + _SEP + r"?\d){14}" + _D1, 0.7, check=_id15,
                      context=r"身份证|身份證|证件|證件|\bID\b|identity|id card|id number|id no", window=20,
                      trigger=_LONG_DIGITS),
    PatternRecognizer(CARD, r"(?<![\dA-Za-z])(?<!\d[.\-])\d(?:" + _SEP + r"?\d){12,18}" + _D1, 0.85, check=_card,
                      trigger=_LONG_DIGITS),
    # Chinese mobiles: 1[3-9] and 9 digits, optionally +86/0086/(+86), grouped 3-4-4
    PatternRecognizer(PHONE, _P0 + r"(?:(?:\(?\+86\)?|0086)" + _SEP + r"?)?1[3-9]\d(?:" + _SEP + r"?\d{4}){2}"
                      + _MOBILE_END, 0.9, check=_mobile, trigger=_LONG_DIGITS),
    # Chinese landlines: area code 0[1-9]x(x), bracketed or not, a 7-8 digit number, an optional extension. The local
    # number may start with any digit (0755-0..., 010-1...: a number in a phone's shape is taken for one rather than
    # published)
    PatternRecognizer(PHONE, _P0 + r"(?:\(0[1-9]\d{1,2}\)|0[1-9]\d{1,2})" + _SEP + r"?\d{3,4}" + _SEP + r"?"
                             r"\d{4}(?:(?:-| ?ext\.? ?| ?转 ?)\d{1,5})?" + _P1, 0.75,
                      check=partial(_digits_between, 10, 17), trigger=_LONG_DIGITS),
    # international: +country code, then groups (one may be bracketed) separated by spaces, dashes or dots
    PatternRecognizer(PHONE, r"(?<![A-Za-z0-9+])\+\d{1,3}(?:" + _SEP + r"?\(\d{1,4}\))?(?:" + _SEP + r"?\d{1,5}){1,5}"
                      + _P1, 0.85, check=partial(_digits_between, 8, 15), trigger=_LONG_DIGITS),
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
