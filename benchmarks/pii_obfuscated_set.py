"""A labelled set of personal data written to slip past a redactor, and of lookalikes that are not personal data,
in Chinese and English sentences: values split by zero-width characters, numbers grouped by dots or by mixed
separators, landlines whose local number starts with 0 or 1, e-mail addresses spelled out ([at], (at), AT, at ...
dot, 艾特, #); lookalikes that share their shapes (versions, dates, prices, order and tracking numbers, model
numbers, times, arithmetic, ISBNs, sentences where "at" and "dot" are words, years, percentages, sizes, coordinates,
near misses: an 11-digit number that is no mobile, a decimal, an ID number with a wrong check digit, a card number
failing Luhn, each written the same ways).

Everything here is written for this set, not taken from real logs: the values are drawn by the generators below
(valid ID check characters, Luhn-valid card numbers, mobile prefixes in use), the sentences are the hand-written
templates of :mod:`pii_set` and a few more below. The lookalike sentences about "at" and "dot" were written by the
same hand as the rule that tells them from addresses, so their figure is an upper bound.

    python benchmarks/pii_obfuscated_set.py       # writes benchmarks/pii_obfuscated.jsonl (seed 42, deterministic)
    python benchmarks/pii_obfuscated_eval.py      # recall and precision per kind and per form

One JSON object per line, as :mod:`pii_set` writes: ``text``, ``lang``, ``spans`` ([start, end, kind]: the whole
value, any invisible characters inside it included), ``decoys`` ([start, end, what]), ``template``; and ``form``
(how the value is written: ``PHONE/mobile-dots``, ``lookalike/version``, ...).
"""

from __future__ import annotations

import random
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import pii_set  # noqa: E402
from pii_set import AREA_CODES, MOBILE_PREFIXES, REGIONS, _digits, _luhn_complete, _not_luhn  # noqa: E402

OUT = ROOT / "benchmarks" / "pii_obfuscated.jsonl"
SEED = 42
PER_FORM = 24  # personal-data values of each form
PER_LOOKALIKE = 24  # lookalikes of each sort
# characters no font draws, as they turn up inside copied or deliberately split values: zero-width space (most),
# zero-width non-joiner and joiner, word joiner, BOM, soft hyphen
INVISIBLE = ["\u200b"] * 5 + ["\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


def _split(rng, value: str, at: list[int] | None = None) -> str:
    """``value`` with invisible characters inside it: at ``at`` (group boundaries), or at 1-4 random places, or
    between every two characters; never at either end."""
    if at is None:
        pick = rng.random()
        at = (list(range(1, len(value))) if pick < 0.2
              else sorted(rng.sample(range(1, len(value)), min(len(value) - 1, rng.randint(1, 4)))))
    out, last = [], 0
    for i in at:
        out += [value[last:i], rng.choice(INVISIBLE)]
        last = i
    return "".join(out) + value[last:]


def _mobile_number(rng) -> str:
    return rng.choice(MOBILE_PREFIXES) + _digits(rng, 8)


def _sep(rng, choices=" -.") -> str:
    return rng.choice(choices)


def _mixed(rng, groups: list[str], choices=" -.") -> str:
    """``groups`` joined by separators of at least two kinds (when there are two or more places)."""
    while True:
        seps = [_sep(rng, choices) for _ in groups[1:]]
        if len(set(seps)) > 1 or len(seps) < 2:
            break
    return groups[0] + "".join(s + g for s, g in zip(seps, groups[1:]))


def _id18(rng) -> str:
    y, m, d = pii_set._birth(rng)
    first = f"{rng.choice(REGIONS)}{y}{m:02d}{d:02d}{_digits(rng, 3)}"
    return first + pii_set.id_check_char(first)


def _card_number(rng) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("53", 16), ("55", 16), ("62", 16), ("62", 19),
                                 ("6222", 19), ("37", 15), ("35", 16), ("6011", 16)])
    return _luhn_complete(prefix, length, rng)


def _card_groups(number: str) -> list[str]:
    if len(number) == 15:
        return [number[:4], number[4:10], number[10:]]
    return [number[i:i + 4] for i in range(0, len(number), 4)]


# --- personal data, written to slip past -------------------------------------------------------------------------

def mobile_zero_width(rng):
    n = _mobile_number(rng)
    value = _split(rng, n, [3, 7] if rng.random() < 0.4 else None)
    return ("+86 " + value) if rng.random() < 0.15 else value


def mobile_dots(rng):
    n = _mobile_number(rng)
    value = f"{n[:3]}.{n[3:7]}.{n[7:]}"
    return rng.choice(["", "", "", "+86 ", "(+86)", "+86."]) + value


def mobile_mixed(rng):
    n = _mobile_number(rng)
    if rng.random() < 0.25:  # a web page's separators: no-break space, en dash, non-breaking hyphen
        sep = rng.choice(["\u00a0", "\u2013", "\u2011", "\u2009"])
        return f"{n[:3]}{sep}{n[3:7]}{sep}{n[7:]}"
    return _mixed(rng, [n[:3], n[3:7], n[7:]])


def landline_local_0_1(rng):
    return pii_set.written_landline(rng, "01", lambda area, local: _mixed(rng, [area, local[:-4], local[-4:]]))


def landline_separators(rng):
    area = rng.choice(AREA_CODES)
    local = rng.choice("2345678") + _digits(rng, 7 if len(area) == 3 else rng.choice((6, 7)))
    style = rng.randrange(4)
    if style == 0:
        return f"{area}.{local[:-4]}.{local[-4:]}"
    if style == 1:
        return _split(rng, area + local, [len(area)] if rng.random() < 0.5 else None)
    if style == 2:
        return f"({area}) {local[:-4]}-{local[-4:]}" if rng.random() < 0.5 else f"{area}.{local}"
    return _mixed(rng, [area, local[:-4], local[-4:]])


def international_separators(rng):
    a, b = _digits(rng, 4), _digits(rng, 4)
    style = rng.randrange(6)
    if style == 0:
        return f"+44 20.{a}-{b}"
    if style == 1:
        return f"+1 {rng.randint(201, 989)}.{rng.randint(200, 999)} {a}"
    if style == 2:
        return _split(rng, f"+852{rng.choice('5689')}{a[1:]}{b}", [4, 8])
    if style == 3:
        return f"+49 30.{a} {b}"
    if style == 4:
        return f"+65.{rng.choice('89')}{a[1:]}.{b}"
    return f"+81 3.{a}-{b}"


def id_zero_width(rng):
    number = _id18(rng)
    return _split(rng, number, [6, 14] if rng.random() < 0.4 else None)


def id_separators(rng):
    number = _id18(rng)
    style = rng.randrange(4)
    if style == 0:
        return f"{number[:6]}-{number[6:14]}-{number[14:]}"
    if style == 1:
        return f"{number[:6]}.{number[6:14]}.{number[14:]}"
    if style == 2:
        return " ".join(number[i:i + 4] for i in range(0, 18, 4))
    return _mixed(rng, [number[:6], number[6:10], number[10:14], number[14:]])


def card_zero_width(rng):
    number = _card_number(rng)
    groups = _card_groups(number)
    at = [sum(len(g) for g in groups[:i]) for i in range(1, len(groups))]
    return _split(rng, number, at if rng.random() < 0.5 else None)


def card_separators(rng):
    groups = _card_groups(_card_number(rng))
    return ".".join(groups) if rng.random() < 0.3 else _mixed(rng, groups)


FIRST = ["zhang", "li", "wang", "chen", "liu", "yang", "john", "mary", "alex", "sarah", "kevin", "emma", "tom",
         "lucy", "david", "anna", "mike", "jenny", "xiaoming", "lily"]
LAST = ["wei", "smith", "lee", "brown", "ming", "jones", "hua", "taylor"]
DOMAINS = ["example.com", "company.cn", "mail.example.org", "uni.edu.cn", "corp.co.uk", "startup.io", "shop.net"]
PROVIDERS = ["gmail.com", "qq.com", "163.com", "126.com", "outlook.com", "hotmail.com", "foxmail.com", "sina.com",
             "yahoo.com", "icloud.com", "vip.qq.com", "yeah.net"]


def _local(rng, dot=".") -> str:
    first = rng.choice(FIRST)
    return rng.choice([first, f"{first}{dot}{rng.choice(LAST)}", f"{first}{rng.randint(1, 9999)}",
                       f"{first}_{rng.choice(LAST)}", _digits(rng, rng.randint(6, 10)) if dot == "." else first])


def _domain(rng, dot=".", providers=0.5) -> str:
    return rng.choice(PROVIDERS if rng.random() < providers else DOMAINS).replace(".", dot)


def email_zero_width(rng):
    local, domain = _local(rng), _domain(rng)
    value = f"{local}@{domain}"
    cut = rng.choice(["local", "domain", "both", "at"])
    if cut == "at":
        return _split(rng, value, [len(local)] if rng.random() < 0.5 else [len(local), len(local) + 1])
    if cut in ("local", "both") and len(local) > 1:
        local = _split(rng, local)
    if cut in ("domain", "both"):
        domain = _split(rng, domain)
    return f"{local}@{domain}"


def email_brackets(rng):
    at = rng.choice(["[at]", "(at)", "{at}", "<at>", "【at】", "［at］", "（at）", "[@]", "(@)", "[AT]", "(AT)"])
    dot = rng.choice([".", ".", "[dot]", "(dot)", "{dot}", "[.]", "(.)", "［dot］", "（dot）"])
    space = " " if rng.random() < 0.5 else ""
    dot = f"{space}{dot}{space}" if dot != "." else dot
    return f"{_local(rng)}{space}{at}{space}{_domain(rng, dot)}"


def email_upper_at(rng):
    dot = rng.choice([" DOT ", " DOT ", "."])
    value = f"{_local(rng)} AT {_domain(rng, dot)}"
    return value.upper() if dot != "." and rng.random() < 0.2 else value


def email_lower_at(rng):
    if rng.random() < 0.35:  # a mail provider's domain, plain dots
        return f"{_local(rng)} at {_domain(rng, providers=1.0)}"
    local = _local(rng, " dot ") if rng.random() < 0.5 else _local(rng)
    return f"{local} at {_domain(rng, ' dot ')}"


def email_chinese(rng):
    local = _local(rng)
    style = rng.randrange(5)
    if style == 0:
        return f"{local}艾特{_domain(rng, '点')}"
    if style == 1:
        return f"{local} 艾特 {_domain(rng)}"
    if style == 2:
        return f"{local}#{_domain(rng, providers=1.0)}"
    if style == 3:
        return f"{local}@{_domain(rng, '点')}"
    return f"{local} at {_domain(rng, ' dot ')}"


FORMS = {
    "PHONE/mobile-zero-width": mobile_zero_width, "PHONE/mobile-dots": mobile_dots,
    "PHONE/mobile-mixed": mobile_mixed, "PHONE/landline-local-0-1": landline_local_0_1,
    "PHONE/landline-separators": landline_separators, "PHONE/international-separators": international_separators,
    "ID_NUMBER/zero-width": id_zero_width, "ID_NUMBER/separators": id_separators,
    "CARD/zero-width": card_zero_width, "CARD/separators": card_separators,
    "EMAIL/zero-width": email_zero_width, "EMAIL/brackets": email_brackets, "EMAIL/AT": email_upper_at,
    "EMAIL/at-dot": email_lower_at, "EMAIL/chinese": email_chinese,
}

# templates that say the value was written to be hard to scrape, beside pii_set's ordinary ones
EXTRA_TEMPLATES = {
    "PHONE": ["为了防骚扰，号码写成{X}，有事打我", "加我微信或打电话{X}（防爬虫）", "my number (spaced to dodge bots): {X}"],
    "EMAIL": ["为防爬虫，我的邮箱写成{X}", "邮箱：{X}（请自行替换）", "email (anti-spam): {X}", "reach me at {X} anytime",
              "contact: {X} — replace the obvious bits"],
    "ID_NUMBER": ["身份证号（分开写）{X}", "ID no. {X}, spaced so it's readable"],
    "CARD": ["卡号分开写：{X}", "card {X}, grouped for readability"],
}

# --- lookalikes --------------------------------------------------------------------------------------------------


def _near_miss(rng):
    pick = rng.randrange(9)
    if pick == 0:  # 11 digits, no mobile prefix, split by invisible characters
        return _split(rng, rng.choice(["10", "11", "12", "20", "50", "86"]) + _digits(rng, 9), [3, 7])
    if pick == 1:  # a decimal with a mobile's digits
        return f"{rng.choice(MOBILE_PREFIXES)}.{_digits(rng, 8)}"
    if pick == 2:  # one digit too many, dotted
        n = _mobile_number(rng) + _digits(rng, 1)
        return f"{n[:3]}.{n[3:7]}.{n[7:]}"
    if pick == 3:  # an ID number with a wrong check character, split
        return _split(rng, pii_set.bad_id(rng), [6, 14])
    if pick == 4:  # a card number failing Luhn, mixed separators
        return _mixed(rng, _card_groups(_not_luhn(_card_number(rng))))
    if pick == 5:  # a landline's area code and too short a number
        return f"{rng.choice(AREA_CODES)}-{rng.choice('01')}{_digits(rng, 4)}"
    if pick == 6:  # a decimal before a mobile's digits
        return f"0.{_mobile_number(rng)}"
    if pick == 7:  # an e-mail with its @ missing
        return f"{_local(rng)}{_domain(rng)}"
    return f"{rng.randint(1, 9)}.{_digits(rng, 3)}.{_digits(rng, 3)}.{_digits(rng, 3)}"


def _r(rng, lo, hi, width=0) -> str:
    return f"{rng.randint(lo, hi):0{width}d}"


def version(rng):
    return rng.choice([
        f"{_r(rng, 1, 9)}.{_r(rng, 0, 9)}.{_r(rng, 0, 9)}.{_r(rng, 0, 9)}",
        f"v{_r(rng, 10, 19)}.{_r(rng, 0, 9)}.{_digits(rng, 4)}",
        f"v{_r(rng, 1, 5)}.{_r(rng, 10, 20)}.{_digits(rng, 4)}",
        f"10.0.{_r(rng, 10000, 22631)}.{_r(rng, 100, 4000)}",
        f"{_r(rng, 120, 139)}.0.{_r(rng, 6000, 7199)}.{_r(rng, 10, 199)}",
        f"3.{_r(rng, 6, 13)}.{_r(rng, 0, 15)}",
        f"build {_r(rng, 2019, 2026)}.{_r(rng, 1, 12)}.{_r(rng, 1, 28)}.{_r(rng, 1, 9)}"])


def _ymd(rng, sep) -> str:
    return sep.join((_r(rng, 2000, 2030), _r(rng, 1, 12, 2), _r(rng, 1, 28, 2)))


def date(rng):
    return rng.choice([
        _ymd(rng, "."), _ymd(rng, "-"), f"{_r(rng, 1, 28, 2)}.{_r(rng, 1, 12, 2)}.{_r(rng, 2000, 2030)}",
        f"{_ymd(rng, '.')}-{_ymd(rng, '.')}", f"{_ymd(rng, '.')} {_r(rng, 0, 23, 2)}:{_r(rng, 0, 59, 2)}"])


def price(rng):
    return rng.choice([
        f"¥{_r(rng, 1, 99)},{_r(rng, 0, 999, 3)}.{_r(rng, 0, 99, 2)}",
        f"${_r(rng, 1, 9)},{_r(rng, 0, 999, 3)}.{_r(rng, 0, 99, 2)}",
        f"{_r(rng, 100, 999)}.{_r(rng, 0, 99, 2)}元", f"€ {_r(rng, 1, 9)}.{_r(rng, 0, 999, 3)},{_r(rng, 0, 99, 2)}",
        f"{_r(rng, 1000, 9999)}.{_r(rng, 0, 99, 2)} USD"])


def order(rng):
    return rng.choice([
        f"{_r(rng, 2020, 2026)}-{_r(rng, 1, 12, 2)}{_r(rng, 1, 28, 2)}-{_digits(rng, 4)}-{_digits(rng, 4)}",
        f"{_r(rng, 100, 999)}-{_digits(rng, 7)}-{_digits(rng, 7)}", f"DD{_r(rng, 2020, 2026)}{_digits(rng, 10)}",
        f"#{_r(rng, 1000, 9999)}-{_digits(rng, 4)}-{_digits(rng, 4)}",
        f"E{_r(rng, 2020, 2026)}.{_digits(rng, 4)}.{_digits(rng, 4)}"])


def tracking(rng):
    return rng.choice([
        f"SF {_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 4)} {_digits(rng, 1)}", f"YT{_digits(rng, 13)}",
        f"1Z 999 AA1 {_digits(rng, 2)} {_digits(rng, 4)} {_digits(rng, 4)}", f"JT{_digits(rng, 13)}",
        f"ZTO-7{_digits(rng, 3)}-{_digits(rng, 4)}-{_digits(rng, 4)}"])


def time(rng):
    return rng.choice([
        f"{_r(rng, 0, 23, 2)}:{_r(rng, 0, 59, 2)}:{_r(rng, 0, 59, 2)}", f"{_r(rng, 7, 11)}:30-{_r(rng, 13, 22)}:30",
        f"{_r(rng, 0, 23)}.{_r(rng, 0, 59, 2)}", f"{_r(rng, 1, 12)}:{_r(rng, 0, 59, 2)} PM",
        f"{_ymd(rng, '-')} {_r(rng, 0, 23, 2)}:{_r(rng, 0, 59, 2)}:{_r(rng, 0, 59, 2)}"])


def math(rng):
    return rng.choice([
        f"{_r(rng, 100, 199)} + {_digits(rng, 4)} = {_r(rng, 1000, 9999)}",
        f"{_r(rng, 10, 99)} * {_r(rng, 10, 99)} = {_r(rng, 100, 9801)}",
        f"{_digits(rng, 4)} - {_digits(rng, 4)}",
        f"3.{_digits(rng, 8)} × 2",
        f"{_r(rng, 100, 199)}.{_digits(rng, 4)} + {_digits(rng, 4)}",
        f"{_r(rng, 10, 99)}÷{_r(rng, 2, 9)}={_r(rng, 1, 49)}"])


def year(rng):
    return rng.choice([f"{_r(rng, 1949, 2030)}年",
                       f"in {_r(rng, 1900, 2030)}",
                       f"{_r(rng, 1980, 2020)}-{_r(rng, 2021, 2035)}",
                       f"{_r(rng, 1990, 2024)}.{_r(rng, 1, 12)}"])


def percentage(rng):
    return rng.choice([f"{_r(rng, 1, 99)}.{_r(rng, 0, 99)}%",
                       f"0.{_digits(rng, 3)}%",
                       f"{_r(rng, 100, 199)}.{_digits(rng, 4)}%",
                       f"百分之{_r(rng, 1, 99)}.{_r(rng, 1, 9)}"])


def size(rng):
    return rng.choice([f"{rng.choice([1280, 1920, 2560, 3840])}x{rng.choice([720, 1080, 1440, 2160])}",
                       f"{_r(rng, 100, 199)}.{_r(rng, 1, 9)} x {_r(rng, 60, 80)}.{_r(rng, 1, 9)} x "
                       f"{_r(rng, 7, 9)}.{_digits(rng, 2)} mm",
                       f"{_r(rng, 5, 17)}.{_r(rng, 1, 9)}英寸",
                       f"{rng.choice([64, 128, 256, 512])}GB",
                       f"{_r(rng, 1, 9)}.{_digits(rng, 2)} MB"])


def coordinates(rng):
    lat, lon = f"{_r(rng, 20, 45)}.{_digits(rng, 4)}", f"{_r(rng, 100, 135)}.{_digits(rng, 4)}"
    return rng.choice([f"{lat}, {lon}", f"{_r(rng, 130, 139)}.{_digits(rng, 8)}", f"N {lat}°, E {lon}°"])


# sentences where "at" and "dot" are words (written with the rule that tells them from addresses in view: an upper
# bound)
AT_DOT_WORDS = ["meet me at example.com", "I'm at home dot com", "look at this dot com bubble",
                "my account at gmail.com", "sign in at outlook.com", "I was at school dot", "we are at work dot com",
                "log in at qq.com", "available at amazon.com", "laugh at this dot com", "stay at home dot org",
                "I signed up at 163.com", "Tom at the office dot", "arrived at noon dot", "point at the dot",
                "polka dot dress at Zara", "the meeting at 10 dot 30", "register at yahoo.com", "I am at home dot com",
                "she's at work dot net", "AT&T at 5pm", "at least 3 dots", "look at example dot com",
                "buy it at taobao.com"]
MODELS = ["SM-G9980", "RTX 4090", "A2849", "ThinkPad T14 Gen 3", "Mate 60 Pro+", "XPS 13 9310", "M1 Pro 10.2",
          "Redmi Note 13.5", "HP LaserJet 1020", "Canon EOS R6 Mark II", "DJI Mini 4 Pro", "GT-I9300"]
ISBNS = ["978-7-111-54742-6", "ISBN 0-306-40615-2", "978.7.5327.5468.3", "978-1-4028-9462-6", "ISBN 978 7 115 42802 8",
         "9787020002207"]
HOTLINES = ["95555", "10086", "12306", "95588", "12345", "110", "4008-123-123", "800 810 8888"]

LOOKALIKES = {
    "version": version, "date": date, "price": price, "order": order, "tracking": tracking,
    "model": lambda rng: rng.choice(MODELS), "time": time, "math": math, "isbn": lambda rng: rng.choice(ISBNS),
    "at-dot-words": lambda rng: rng.choice(AT_DOT_WORDS), "year": year, "percentage": percentage, "size": size,
    "coordinates": coordinates, "near-miss": _near_miss, "hotline": lambda rng: rng.choice(HOTLINES),
}

LOOKALIKE_TEMPLATES = {
    "zh": ["这个数{D}是什么意思", "请问{D}对吗", "我看到{D}，不太明白", "{D}这个是啥", "帮我查一下{D}", "记一下：{D}",
           "为什么显示{D}？", "刚才说的是{D}吧"],
    "en": ["what does {D} mean?", "is {D} right?", "I saw {D} and got confused", "please check {D}", "note: {D}",
           "why does it show {D}?", "it says {D} now", "can you explain {D}"],
}


def _row(template: str, value: str, span_kind: str | None, what: str | None, form: str, lang: str) -> dict:
    text, span, dspan = pii_set._fill(template, value, (what, value) if what else None)
    return {"text": text, "lang": "zh" if any("\u4e00" <= c <= "\u9fff" for c in template) else "en",
            "spans": [[*span, span_kind]] if span_kind else [], "decoys": [[*dspan, what]] if what else [],
            "template": f"{form}:{lang}:{template}", "form": form}


def items(rng: random.Random) -> list[dict]:
    out = []
    for form, make in FORMS.items():
        kind = form.split("/")[0]
        pool = [(lang, t) for lang in ("zh", "en", "bot") for t in pii_set.PII_TEMPLATES[kind][lang]
                if "{D}" not in t] + [("extra", t) for t in EXTRA_TEMPLATES[kind]]
        for _ in range(PER_FORM):
            lang, template = rng.choice(pool)
            out.append(_row(template, make(rng), kind, None, form, lang))
    pool = [(lang, t) for lang in ("zh", "en") for t in LOOKALIKE_TEMPLATES[lang]]
    for what, make in LOOKALIKES.items():
        for _ in range(PER_LOOKALIKE):
            lang, template = rng.choice(pool)
            out.append(_row(template, make(rng), None, what, f"lookalike/{what}", lang))
    return out


def main(argv: list[str] | None = None) -> int:
    return pii_set.write_set(items, SEED, OUT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
