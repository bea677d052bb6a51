"""Generate large synthetic chatbot logs (JSONL: question, answer, id) for benchmarks.

    python benchmarks/generate_logs.py --rows 1000000 --out /tmp/logs_1m.jsonl [--seed 0]
        [--zh-share 0.3] [--questions Q] [--zipf 1.1]

Base questions are built from templates x slot values, in English and Chinese
("What is the {attribute} of {entity}?", "{entity}的{attribute}是多少？",
"Which is better, {a} or {b}?", "{a}和{b}哪个好？" ...), so there can be tens of
thousands of distinct ones. Each language's questions get Zipf-distributed
popularity. Every emitted row is, independently:

* the canonical question (most rows),
* a paraphrase or surface variant (case, punctuation, "please"/"请问" prefix, ...),
* a typo variant of the canonical question (a character swapped, dropped or doubled),
* or a noise row (gibberish, greeting, context-dependent follow-up).

Each base question has 2-5 templated answers with skewed weights: factual ones one
majority value (in one or two wordings) and minority wrong values, opinion ones 2-3
viewpoints. Rows are generated in chunks with numpy and streamed to disk, so memory
does not grow with the row count. The same arguments and seed give a byte-identical file.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
from itertools import permutations
from typing import Any, NamedTuple

import numpy as np

CHUNK = 100_000
VARIANT_P = 0.30
TYPO_P = 0.05
NOISE_P = 0.05
MAX_ANSWERS = 5

# --------------------------------------------------------------------------- slot data
# attribute: (name, low, high, format of the value)
EN_ATTRIBUTES = [
    ("population", 0.1, 40, "{:.1f} million"), ("area", 500, 900_000, "{:,.0f} km²"),
    ("average elevation", 5, 2500, "{:.0f} m"), ("average temperature", -5, 27, "{:.1f} °C"),
    ("GDP", 5, 3000, "${:,.0f} billion"), ("number of universities", 1, 150, "{:.0f}"),
    ("annual rainfall", 100, 2600, "{:,.0f} mm"), ("unemployment rate", 1, 15, "{:.1f}%"),
    ("median age", 18, 48, "{:.1f} years"), ("literacy rate", 60, 100, "{:.1f}%"),
]
EN_ENTITIES = [
    "France", "Germany", "Japan", "Brazil", "Canada", "Australia", "India", "Mexico", "Italy", "Spain",
    "Egypt", "Kenya", "Nigeria", "Argentina", "Chile", "Peru", "Norway", "Sweden", "Finland", "Poland",
    "Turkey", "Greece", "Portugal", "Ireland", "Vietnam", "Thailand", "Indonesia", "South Korea",
    "New Zealand", "South Africa", "Morocco", "Colombia", "Austria", "Switzerland", "Belgium",
    "the Netherlands", "Denmark", "Hungary", "Czechia", "Romania", "Ukraine", "Pakistan", "Malaysia",
    "the Philippines", "Saudi Arabia", "Iceland", "Paris", "London", "Tokyo", "New York", "Berlin",
    "Madrid", "Rome", "Toronto", "Sydney", "Mumbai", "Cairo", "Lagos", "Nairobi", "Lima", "Bogotá",
    "Seoul", "Bangkok", "Jakarta", "Istanbul", "Moscow", "Chicago", "Los Angeles", "Vancouver",
    "Melbourne", "Dublin", "Lisbon", "Vienna", "Prague", "Warsaw", "Stockholm", "Oslo", "Helsinki",
    "Copenhagen", "Amsterdam", "Brussels", "Zurich", "Athens", "Budapest", "Buenos Aires",
    "São Paulo", "Mexico City", "Singapore", "Dubai", "Hanoi", "Manila", "Kuala Lumpur", "Cape Town",
    "Casablanca", "Montreal", "Boston", "Seattle", "Miami", "Denver", "Houston",
]
EN_CITIES = EN_ENTITIES[EN_ENTITIES.index("Paris"):]
EN_ACTIONS = [
    "reset", "update", "cancel", "delete", "back up", "change", "recover", "verify", "export", "share",
    "lock", "unlock", "sync", "rename", "restore", "transfer", "upgrade", "pause", "renew", "link",
    "unlink", "clean", "set up", "configure", "deactivate",
]
EN_OBJECTS = [
    "password", "account", "subscription", "phone", "laptop", "router", "email address",
    "profile picture", "credit card", "printer", "username", "order", "photos", "contacts",
    "calendar", "browser history", "two-factor authentication", "Wi-Fi network", "smartwatch",
    "tablet", "backup", "payment method", "shipping address", "app", "voicemail", "cloud storage",
    "playlist", "notifications", "security questions", "phone number",
]
EN_PLATFORMS = ["iPhone", "Android", "Windows", "Mac", "Linux", "the website", "the app", "Chrome",
                "an iPad", "a Chromebook", "a smart TV", "Firefox"]
EN_SECTIONS = ["Security", "Account", "General", "Privacy", "Devices", "Billing"]
# conversion: (smaller unit, bigger unit singular, bigger unit plural, how many smaller per bigger)
EN_CONVERSIONS = [
    ("centimeters", "meter", "meters", 100), ("millimeters", "centimeter", "centimeters", 10),
    ("meters", "kilometer", "kilometers", 1000), ("grams", "kilogram", "kilograms", 1000),
    ("ounces", "pound", "pounds", 16), ("inches", "foot", "feet", 12), ("feet", "mile", "miles", 5280),
    ("seconds", "minute", "minutes", 60), ("minutes", "hour", "hours", 60), ("hours", "day", "days", 24),
    ("days", "week", "weeks", 7), ("milliliters", "liter", "liters", 1000),
    ("centimeters", "inch", "inches", 2.54), ("kilometers", "mile", "miles", 1.609344),
    ("pounds", "kilogram", "kilograms", 2.20462),
]
EN_OPINION_CATEGORIES = [
    ["tea", "coffee", "green tea", "matcha", "hot chocolate", "sparkling water", "orange juice"],
    ["Python", "JavaScript", "Java", "C++", "Go", "Rust", "TypeScript", "C#", "Kotlin", "Swift"],
    ["cats", "dogs", "rabbits", "hamsters", "parrots", "fish", "guinea pigs"],
    ["Windows", "macOS", "Linux", "ChromeOS"],
    ["iPhone", "Samsung Galaxy", "Google Pixel", "OnePlus", "Xiaomi"],
    ["VS Code", "Vim", "Emacs", "IntelliJ", "Sublime Text", "Notepad++"],
    ["PostgreSQL", "MySQL", "SQLite", "MongoDB", "Redis"],
    ["AWS", "Azure", "Google Cloud", "DigitalOcean"],
    ["a car", "a bike", "an e-bike", "public transport", "a scooter"],
    ["renting", "buying a home"],
    ["running", "swimming", "cycling", "yoga", "weightlifting", "tennis", "football"],
    ["online courses", "a bootcamp", "a university degree", "self-study with books"],
    ["Japan", "Italy", "Thailand", "Spain", "Mexico", "Iceland", "Greece"],
    ["spring", "summer", "autumn", "winter"],
]
EN_PURPOSES = [
    "beginners", "students", "families", "a small budget", "travel", "working from home",
    "long-term use", "professionals", "kids", "older people", "small businesses", "everyday use",
    "the winter", "a first job", "learning", "productivity", "health", "saving money", "having fun",
    "a weekend",
]
EN_REASONS = [
    "it is cheaper", "it is easier to get started with", "it lasts longer", "it has a bigger community",
    "it is more flexible", "it is healthier", "it is more reliable", "it is more fun", "it saves time",
    "it has better support",
]

ZH_ATTRIBUTES = [
    ("人口", 50, 3000, "{:.0f}万"), ("面积", 500, 200_000, "{:,.0f}平方公里"),
    ("平均海拔", 5, 3700, "{:.0f}米"), ("年平均气温", 2, 26, "{:.1f}℃"),
    ("GDP", 500, 40_000, "{:,.0f}亿元"), ("高校数量", 3, 100, "{:.0f}所"),
    ("地铁线路数量", 1, 30, "{:.0f}条"), ("森林覆盖率", 5, 70, "{:.1f}%"),
    ("年降水量", 80, 2200, "{:,.0f}毫米"), ("人均可支配收入", 20_000, 90_000, "{:,.0f}元"),
]
ZH_ENTITIES = [
    "北京", "上海", "广州", "深圳", "成都", "杭州", "重庆", "西安", "武汉", "南京", "天津", "苏州",
    "长沙", "郑州", "青岛", "沈阳", "大连", "厦门", "昆明", "哈尔滨", "济南", "合肥", "福州", "南昌",
    "贵阳", "南宁", "兰州", "太原", "石家庄", "乌鲁木齐", "拉萨", "呼和浩特", "银川", "西宁", "海口",
    "三亚", "无锡", "宁波", "佛山", "东莞", "广东", "江苏", "浙江", "山东", "河南", "四川", "湖北",
    "湖南", "河北", "福建", "云南", "陕西",
]
ZH_CITIES = ZH_ENTITIES[:ZH_ENTITIES.index("广东")]
ZH_ACTIONS = ["重置", "修改", "取消", "注销", "备份", "恢复", "更新", "绑定", "解绑", "设置", "删除",
              "导出", "同步", "清理", "升级", "找回", "开通", "关闭"]
ZH_OBJECTS = ["密码", "账号", "会员", "手机", "电脑", "路由器", "邮箱", "头像", "银行卡", "打印机",
              "微信", "支付宝", "快递地址", "发票", "订单", "自动续费", "蓝牙耳机", "输入法",
              "浏览器缓存", "手机号"]
ZH_PLATFORMS = ["苹果手机", "安卓手机", "电脑", "网页版", "小程序", "Windows", "Mac", "iPad"]
ZH_SECTIONS = ["账号与安全", "通用", "隐私", "设备管理", "支付设置", "我的"]
ZH_CONVERSIONS = [
    ("厘米", "米", "米", 100), ("毫米", "厘米", "厘米", 10), ("米", "公里", "公里", 1000),
    ("克", "公斤", "公斤", 1000), ("斤", "公斤", "公斤", 2), ("两", "斤", "斤", 10),
    ("秒", "分钟", "分钟", 60), ("分钟", "小时", "小时", 60), ("小时", "天", "天", 24),
    ("天", "周", "周", 7), ("毫升", "升", "升", 1000), ("厘米", "英寸", "英寸", 2.54),
    ("公里", "英里", "英里", 1.609344), ("平方米", "亩", "亩", 666.67),
]
ZH_OPINION_CATEGORIES = [
    ["茶", "咖啡", "奶茶", "果汁", "可乐", "豆浆"],
    ["Python", "Java", "C++", "Go", "JavaScript", "Rust"],
    ["猫", "狗", "兔子", "仓鼠", "鹦鹉"],
    ["iPhone", "华为", "小米", "OPPO", "vivo"],
    ["开车", "坐地铁", "骑电动车", "骑自行车", "打车"],
    ["北京", "上海", "深圳", "杭州", "成都", "广州"],
    ["跑步", "游泳", "骑行", "瑜伽", "健身", "羽毛球", "篮球"],
    ["网课", "培训班", "自学", "读研"],
    ["云南", "海南", "西藏", "日本", "泰国", "新疆"],
    ["买房", "租房"],
    ["豆浆油条", "包子", "煎饼果子", "面包牛奶", "粥"],
]
ZH_PURPOSES = ["新手", "学生", "上班族", "老人", "小孩", "家庭", "预算有限的人", "长期使用", "减肥",
               "旅行", "创业", "日常通勤", "冬天", "夏天", "周末"]
ZH_REASONS = ["更便宜", "更容易上手", "更耐用", "用的人多、资料多", "更灵活", "更健康", "更稳定",
              "更有意思", "更省时间", "售后更好"]


def _ordered_pairs(categories: list[list[str]]) -> list[tuple[str, str]]:
    return [pair for items in categories for pair in permutations(items, 2)]


def _city_pairs(cities: list[str]) -> list[tuple[str, str]]:
    return list(permutations(cities, 2))


SLOTS: dict[str, dict[str, list[Any]]] = {
    "en": {
        "attribute": EN_ATTRIBUTES, "entity": EN_ENTITIES, "year": list(range(1980, 2026)),
        "action": EN_ACTIONS, "object": EN_OBJECTS, "platform": EN_PLATFORMS,
        "conversion": EN_CONVERSIONS, "n": list(range(1, 201)), "route": _city_pairs(EN_CITIES),
        "pair": _ordered_pairs(EN_OPINION_CATEGORIES), "purpose": EN_PURPOSES,
    },
    "zh": {
        "attribute": ZH_ATTRIBUTES, "entity": ZH_ENTITIES, "year": list(range(1990, 2026)),
        "action": ZH_ACTIONS, "object": ZH_OBJECTS, "platform": ZH_PLATFORMS,
        "conversion": ZH_CONVERSIONS, "n": list(range(1, 201)), "route": _city_pairs(ZH_CITIES),
        "pair": _ordered_pairs(ZH_OPINION_CATEGORIES), "purpose": ZH_PURPOSES,
    },
}


class Template(NamedTuple):
    kind: str  # selects the answer builder
    qtype: str  # "factual" | "opinion"
    patterns: list[str]  # the first is canonical, the rest are paraphrases
    slots: tuple[str, ...]


TEMPLATES: dict[str, list[Template]] = {
    "en": [
        Template("attribute", "factual", ["What is the {attribute} of {entity}?",
                 "What's the {attribute} of {entity}?", "Tell me the {attribute} of {entity}."],
                 ("attribute", "entity")),
        Template("attribute", "factual", ["What was the {attribute} of {entity} in {year}?",
                 "In {year}, what was the {attribute} of {entity}?", "{entity} {attribute} in {year}?"],
                 ("attribute", "entity", "year")),
        Template("howto", "factual", ["How do I {action} my {object}?", "How can I {action} my {object}?",
                 "What's the way to {action} my {object}?"], ("action", "object")),
        Template("howto", "factual", ["How do I {action} my {object} on {platform}?",
                 "How can I {action} my {object} on {platform}?", "On {platform}, how do I {action} my {object}?"],
                 ("action", "object", "platform")),
        Template("convert", "factual", ["How many {small} are in {n} {big}?", "How many {small} is {n} {big}?",
                 "Convert {n} {big} to {small}."], ("conversion", "n")),
        Template("distance", "factual", ["How far is {a} from {b}?", "What's the distance between {a} and {b}?",
                 "Distance from {a} to {b}?"], ("route",)),
        Template("opinion", "opinion", ["Which is better, {a} or {b}?", "Is {a} better than {b}?",
                 "{a} or {b} - which one is better?"], ("pair",)),
        Template("opinion", "opinion", ["Which is better for {purpose}, {a} or {b}?",
                 "For {purpose}, is {a} better than {b}?", "{a} or {b} for {purpose}?"], ("pair", "purpose")),
    ],
    "zh": [
        Template("attribute", "factual", ["{entity}的{attribute}是多少？", "{entity}的{attribute}有多少",
                 "请告诉我{entity}的{attribute}"], ("attribute", "entity")),
        Template("attribute", "factual", ["{year}年{entity}的{attribute}是多少？",
                 "{entity}在{year}年的{attribute}是多少", "{year}年{entity}{attribute}多少？"],
                 ("attribute", "entity", "year")),
        Template("howto", "factual", ["{object}怎么{action}？", "如何{action}{object}？", "{object}应该怎么{action}"],
                 ("action", "object")),
        Template("howto", "factual", ["在{platform}上{object}怎么{action}？", "{platform}怎么{action}{object}？",
                 "用{platform}如何{action}{object}"], ("action", "object", "platform")),
        Template("convert", "factual", ["{n}{big}等于多少{small}？", "{n}{big}是多少{small}",
                 "{n}{big}换算成{small}是多少？"], ("conversion", "n")),
        Template("distance", "factual", ["{a}到{b}有多远？", "{a}离{b}多少公里？", "从{a}到{b}的距离是多少"],
                 ("route",)),
        Template("opinion", "opinion", ["{a}和{b}哪个好？", "{a}还是{b}？", "{a}和{b}比，哪个更好"], ("pair",)),
        Template("opinion", "opinion", ["对{purpose}来说，{a}和{b}哪个好？", "{purpose}选{a}还是{b}？",
                 "{a}和{b}哪个更适合{purpose}？"], ("pair", "purpose")),
    ],
}

NOISE: dict[str, dict[str, tuple[list[str], list[str]]]] = {
    # kind: (questions, replies)
    "en": {
        "greeting": (["hello", "hi", "hi there", "hey", "thanks", "thank you!", "ok", "good morning", "bye"],
                     ["Hello! How can I help?", "You're welcome!", "Hi! What can I do for you?"]),
        "followup": (["why?", "and the second one?", "continue", "what about the other one?",
                      "can you say that again?", "and then?", "more"],
                     ["Sure, here is more detail.", "As I said above, it depends on the first part."]),
        "gibberish": ([], ["Sorry, I didn't understand that. Could you rephrase?"]),
    },
    "zh": {
        "greeting": (["你好", "在吗", "谢谢", "哈哈哈", "好的", "嗯嗯", "早上好", "拜拜"],
                     ["你好！有什么可以帮您？", "不客气！", "在的，请问有什么问题？"]),
        "followup": (["继续", "那第二个呢？", "为什么？", "翻译一下上面的", "再说一遍", "然后呢"],
                     ["好的，接着上面的内容说。", "就像上面说的，要看具体情况。"]),
        "gibberish": ([], ["抱歉，我没有理解您的意思，可以换个说法吗？"]),
    },
}
_GIBBERISH_LETTERS = np.array(list("asdfghjklqwertyuiopzxcvbnm"))
_GIBBERISH_HANZI = np.array(list("的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会"))


# --------------------------------------------------------------------------- helpers
def _num(v: float) -> str:
    """A conversion result without float noise: 2.54 -> "2.54", 300.0 -> "300"."""
    text = f"{v:,.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _cap(s: str) -> str:
    """Capitalise the first letter unless the first word is already mixed-case (iPhone, macOS)."""
    word = s.split(" ", 1)[0]
    return s[0].upper() + s[1:] if s and word.islower() else s


def _lower_first(s: str) -> str:
    word = s.split(" ", 1)[0]
    return s[0].lower() + s[1:] if s and word[1:].islower() else s


def _surface_variants(s: str, lang: str) -> list[str]:
    if lang == "en":
        bare = s.rstrip("?.")
        return [s.lower(), bare, bare + " ?", "please " + _lower_first(s), bare + "??", "  " + s]
    bare = s.rstrip("？?。")
    return [bare, bare + "?", "请问" + s, bare + "？？", bare + "呢？", s.replace("的", " 的 ", 1)]


def _typo(s: str, op: int, where: float) -> str:
    """Swap a character with the next one, drop it, or double it."""
    if len(s) < 3:
        return s + s[-1:]
    i = min(int(where * (len(s) - 1)), len(s) - 2)
    if op == 0:
        return s[:i] + s[i + 1] + s[i] + s[i + 2:]
    if op == 1:
        return s[:i] + s[i + 1:]
    return s[:i + 1] + s[i:]


def _fields(lang: str, tmpl: Template, values: tuple[Any, ...]) -> dict[str, Any]:
    f: dict[str, Any] = {}
    for slot, value in zip(tmpl.slots, values):
        if slot == "attribute":
            f["attribute"], f["_lo"], f["_hi"], f["_fmt"] = value
        elif slot == "conversion":
            f["small"], big_one, big_many, f["_factor"] = value
        elif slot in ("route", "pair"):
            f["a"], f["b"] = value
        else:
            f[slot] = value
    if "n" in f:
        f["big"] = big_one if f["n"] == 1 else big_many
    return f


# --------------------------------------------------------------------------- answers
def _answers(lang: str, tmpl: Template, f: dict[str, Any], u: np.ndarray, n: int) -> list[str]:
    """n answers, most popular first; u holds 8 uniform floats that fix the values and wordings."""
    en = lang == "en"
    kind = tmpl.kind
    if kind == "opinion":
        first, second = (f["a"], f["b"]) if u[0] < 0.5 else (f["b"], f["a"])
        reasons = EN_REASONS if en else ZH_REASONS
        r1, r2 = reasons[int(u[1] * len(reasons))], reasons[int(u[2] * len(reasons))]
        purpose = f.get("purpose")
        if en:
            for_p = f" for {purpose}" if purpose else ""
            out = [f"{_cap(first)} is better{for_p}, because {r1}.", f"I'd go with {second}: {r2}.",
                   f"It depends on your needs - both {first} and {second} have their strengths.",
                   f"Definitely {first}; {r1}.", f"{_cap(second)}, since {r2}."]
        else:
            for_p = f"对{purpose}来说，" if purpose else ""
            out = [f"{for_p}{first}更好，因为{r1}。", f"我选{second}，{r2}。",
                   f"看个人需求，{first}和{second}各有优点。", f"当然是{first}，{r1}。", f"{second}吧，{r2}。"]
        return out[:n]

    def wrong(k: int) -> str:  # a wrong value, different from the right one
        return value_of((u[0] + 0.1 + 0.25 * k + 0.2 * u[3 + k]) % 1.0)

    if kind == "attribute":
        def value_of(x: float) -> str:
            return f["_fmt"].format(f["_lo"] + (f["_hi"] - f["_lo"]) * x)
        v, a, e, year = value_of(u[0]), f["attribute"], f["entity"], f.get("year")
        if en:
            when = f"In {year}, the" if year else "The"
            right = [f"{when} {a} of {e} {'was' if year else 'is'} {v}.", f"It's {v}." if not year else f"It was {v}."]
            wrongs = [f"{when} {a} of {e} {'was' if year else 'is'} {wrong(k)}." if k % 2 == 0 else f"About {wrong(k)}."
                      for k in range(3)]
        else:
            when = f"{year}年" if year else ""
            right = [f"{when}{e}的{a}约为{v}。", f"大约是{v}。"]
            wrongs = [f"{when}{e}的{a}是{wrong(k)}。" if k % 2 == 0 else f"大概{wrong(k)}吧。" for k in range(3)]
    elif kind == "convert":
        exact = f["n"] * f["_factor"]

        def value_of(x: float) -> str:
            v = exact * (0.5 + x) if abs(x - 0.5) > 0.05 else exact * 10
            return _num(round(v) if float(exact).is_integer() else v)
        v, small, big, count = _num(exact), f["small"], f["big"], f["n"]
        if en:
            right = [f"There are {v} {small} in {count} {big}.", f"{v} {small}."]
            wrongs = [f"{wrong(k)} {small}." for k in range(3)]
        else:
            right = [f"{count}{big}等于{v}{small}。", f"是{v}{small}。"]
            wrongs = [f"{count}{big}等于{wrong(k)}{small}。" for k in range(3)]
    elif kind == "distance":
        def value_of(x: float) -> str:
            return f"{50 + 9000 * x:,.0f}"
        v, a, b = value_of(u[0]), f["a"], f["b"]
        if en:
            right = [f"{a} is about {v} km from {b}.", f"Roughly {v} km."]
            wrongs = [f"About {wrong(k)} km." for k in range(3)]
        else:
            right = [f"{a}到{b}大约{v}公里。", f"直线距离约{v}公里。"]
            wrongs = [f"大概{wrong(k)}公里。" for k in range(3)]
    else:  # howto
        sections = EN_SECTIONS if en else ZH_SECTIONS
        s1, s2 = sections[int(u[0] * len(sections))], sections[int(u[1] * len(sections))]
        act, obj, plat = f["action"], f["object"], f.get("platform")
        if en:
            on = f"On {plat}, open" if plat else "Open"
            right = [f"{on} Settings > {s1} and choose \"{_cap(act)} {obj}\".",
                     f"Go to Settings, then {s1}, and tap \"{_cap(act)} {obj}\"."]
            wrongs = [f"You can't {act} your {obj} yourself; contact support.",
                      f"Open Settings > {s2} and choose \"{_cap(act)}\".",
                      f"Reinstall the app and your {obj} will {act} automatically."]
        else:
            on = f"在{plat}上打开" if plat else "打开"
            right = [f"{on}“设置”>“{s1}”，选择“{act}{obj}”即可。", f"进入设置里的“{s1}”，点“{act}{obj}”。"]
            wrongs = [f"{obj}不能自己{act}，需要联系客服。", f"在“{s2}”里找“{act}”。", f"重新安装应用就会自动{act}{obj}。"]
    # two correct wordings when there is room for them, then wrong values
    out = right[:1] + (right[1:2] if n >= 3 else []) + wrongs
    return out[:n]


# --------------------------------------------------------------------------- base questions
def _spread(n: int, sizes: np.ndarray) -> np.ndarray:
    """Split n questions over templates in proportion to sqrt(template size), none beyond its size."""
    counts = np.zeros(len(sizes), dtype=np.int64)
    open_ = np.ones(len(sizes), dtype=bool)
    left = n
    while left > 0:
        share = np.where(open_, np.sqrt(sizes), 0.0)
        want = np.floor(left * share / share.sum()).astype(np.int64)
        want[np.argmax(share)] += left - want.sum()  # rounding remainder
        counts = np.minimum(counts + want, sizes)
        open_ = counts < sizes
        left = n - int(counts.sum())
    return counts


class _Catalog:
    """The chosen base questions of one run, with their strings built (and JSON-encoded) on first use."""

    def __init__(self, rng: np.random.Generator, n_en: int, n_zh: int):
        self.langs: list[str] = []
        self.tmpl: list[np.ndarray] = []
        self.local: list[np.ndarray] = []
        for lang, n in (("en", n_en), ("zh", n_zh)):
            sizes = np.array([math.prod(len(SLOTS[lang][s]) for s in t.slots) for t in TEMPLATES[lang]])
            capacity = int(sizes.sum())
            if n > capacity:
                raise ValueError(f"{n} {lang} base questions asked for, but the templates make only {capacity}")
            per_template = _spread(n, sizes)
            t = np.repeat(np.arange(len(sizes)), per_template)
            local = np.concatenate([rng.choice(int(size), size=int(k), replace=False)
                                    for size, k in zip(sizes, per_template)]).astype(np.int64)
            order = rng.permutation(n)  # popularity rank is independent of the template
            self.langs.append(lang)
            self.tmpl.append(t[order])
            self.local.append(local[order])
        self.n_en, n = n_en, n_en + n_zh
        self.n_answers = rng.integers(2, MAX_ANSWERS + 1, size=n)
        self.u = rng.random((n, 8))
        decay = 0.15 + 0.4 * rng.random(n)  # weight of answer k is decay**k
        w = decay[:, None] ** np.arange(MAX_ANSWERS)[None, :]
        w[np.arange(MAX_ANSWERS)[None, :] >= self.n_answers[:, None]] = 0.0
        cum = np.cumsum(w, axis=1) / w.sum(axis=1, keepdims=True)
        cum[np.arange(MAX_ANSWERS)[None, :] >= self.n_answers[:, None] - 1] = 1.0
        self.cum_weights = cum
        self._cache: dict[int, tuple[list[str], list[str], str]] = {}

    @staticmethod
    def capacity(lang: str) -> int:
        return sum(math.prod(len(SLOTS[lang][s]) for s in t.slots) for t in TEMPLATES[lang])

    def get(self, qid: int) -> tuple[list[str], list[str], str]:
        """([canonical, variants...] JSON-encoded, answers JSON-encoded, canonical text)."""
        hit = self._cache.get(qid)
        if hit is not None:
            return hit
        li = 0 if qid < self.n_en else 1
        lang, pos = self.langs[li], qid - (0 if li == 0 else self.n_en)
        tmpl = TEMPLATES[lang][int(self.tmpl[li][pos])]
        local = int(self.local[li][pos])
        values = []
        for slot in reversed(tmpl.slots):  # mixed-radix decode, last slot fastest
            options = SLOTS[lang][slot]
            local, k = divmod(local, len(options))
            values.append(options[k])
        f = _fields(lang, tmpl, tuple(reversed(values)))
        texts = [_cap(p.format(**f)) for p in tmpl.patterns]
        canonical = texts[0]
        variants = [canonical]
        for v in texts[1:] + _surface_variants(canonical, lang):
            if v not in variants:
                variants.append(v)
        answers = _answers(lang, tmpl, f, self.u[qid], int(self.n_answers[qid]))
        hit = ([json.dumps(v, ensure_ascii=False) for v in variants],
               [json.dumps(a, ensure_ascii=False) for a in answers], canonical)
        self._cache[qid] = hit
        return hit


def _noise_pools(rng: np.random.Generator, lang: str, n_gibberish: int) -> tuple[list[tuple[str, str]], ...]:
    """(question JSON, answer JSON) pairs: greetings and follow-ups, and a pool of gibberish strings."""
    fixed = []
    for kind in ("greeting", "followup"):
        questions, replies = NOISE[lang][kind]
        fixed += [(q, replies[i % len(replies)]) for i, q in enumerate(questions)]
    chars = _GIBBERISH_LETTERS if lang == "en" else _GIBBERISH_HANZI
    lengths = rng.integers(3, 12, size=n_gibberish)
    picks = chars[rng.integers(0, len(chars), size=int(lengths.sum()))].tolist()
    reply = NOISE[lang]["gibberish"][1][0]
    gibberish, start = [], 0
    for length in lengths.tolist():
        word = "".join(picks[start:start + length])
        start += length
        if lang == "en" and length > 6:
            word = word[:length // 2] + " " + word[length // 2:]
        gibberish.append((word, reply))

    def encode(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(json.dumps(q, ensure_ascii=False), json.dumps(a, ensure_ascii=False)) for q, a in pairs]
    return encode(fixed), encode(gibberish)


def _zipf_cdf(n: int, exponent: float) -> np.ndarray:
    if n == 0:
        return np.ones(1)
    p = np.arange(1, n + 1, dtype=np.float64) ** -exponent
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    cdf[-1] = 1.0
    return cdf


def _catalog(rng: np.random.Generator, rows: int, zh_share: float, n_questions: int | None):
    """(catalog, English base questions, Chinese base questions): the first draws from ``rng``."""
    explicit = n_questions is not None
    if n_questions is None:
        n_questions = max(200, rows // 20)
    n_zh = int(round(n_questions * zh_share))
    if 0 < zh_share < 1:
        n_zh = min(max(n_zh, 1), n_questions - 1)
    n_en = n_questions - n_zh
    if not explicit:  # the default never asks for more than the templates can make
        n_en, n_zh = min(n_en, _Catalog.capacity("en")), min(n_zh, _Catalog.capacity("zh"))
    return _Catalog(rng, n_en, n_zh), n_en, n_zh


def base_question_forms(rows: int, seed: int = 0, zh_share: float = 0.3, n_questions: int | None = None
                        ) -> list[list[str]]:
    """Every base question's surface forms (canonical first) in the logs ``generate`` writes with the same
    arguments: the ground truth of which distinct questions mean the same (typo'd forms are not listed)."""
    catalog, n_en, n_zh = _catalog(np.random.default_rng(seed), rows, zh_share, n_questions)
    return [[json.loads(v) for v in catalog.get(q)[0]] for q in range(n_en + n_zh)]


# --------------------------------------------------------------------------- main entry
def generate(rows: int, out_path: str | pathlib.Path, seed: int = 0, zh_share: float = 0.3,
             n_questions: int | None = None, zipf_exponent: float = 1.1) -> dict[str, Any]:
    """Write ``rows`` JSONL rows (question, answer, id) to ``out_path``; return counts."""
    if rows < 0:
        raise ValueError("rows must be >= 0")
    if not 0.0 <= zh_share <= 1.0:
        raise ValueError("zh_share must be between 0 and 1")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    catalog, n_en, n_zh = _catalog(rng, rows, zh_share, n_questions)
    n_questions = n_en + n_zh
    n_gibberish = max(20, rows // 2000)
    noise = {lang: _noise_pools(rng, lang, n_gibberish) for lang in ("en", "zh")}
    cdf_en, cdf_zh = _zipf_cdf(n_en, zipf_exponent), _zipf_cdf(n_zh, zipf_exponent)
    seen = np.zeros(n_questions, dtype=bool)
    counts = {"noise": 0, "typo": 0, "variant": 0, "zh": 0}

    out = pathlib.Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for start in range(0, rows, CHUNK):
            size = min(CHUNK, rows - start)
            is_zh = rng.random(size) < zh_share
            u = rng.random(size)
            rank_en = np.minimum(np.searchsorted(cdf_en, u, side="right"), max(n_en - 1, 0))
            rank_zh = np.minimum(np.searchsorted(cdf_zh, u, side="right"), max(n_zh - 1, 0))
            qid = np.where(is_zh, n_en + rank_zh, rank_en)
            roll = rng.random(size)
            kind = np.select([roll < NOISE_P, roll < NOISE_P + TYPO_P, roll < NOISE_P + TYPO_P + VARIANT_P],
                             [3, 2, 1], 0)  # 0 canonical, 1 variant, 2 typo, 3 noise
            pick = rng.integers(0, 1 << 30, size=size)
            where = rng.random(size)
            u_answer = rng.random(size)
            answer = (u_answer[:, None] >= catalog.cum_weights[qid]).sum(axis=1)

            seen[qid[kind != 3]] = True
            counts["noise"] += int((kind == 3).sum())
            counts["typo"] += int((kind == 2).sum())
            counts["variant"] += int((kind == 1).sum())
            counts["zh"] += int(is_zh.sum())

            lines = []
            append = lines.append
            for j, (q, k, z, p, w, a) in enumerate(zip(qid.tolist(), kind.tolist(), is_zh.tolist(),
                                                     pick.tolist(), where.tolist(), answer.tolist())):
                if k == 3:
                    # a third gibberish, the rest greetings and follow-ups
                    pool = noise["zh" if z else "en"][1 if (p >> 16) % 3 == 0 else 0]
                    qj, aj = pool[p % len(pool)]
                else:
                    variants, answers, canonical = catalog.get(q)
                    if k == 0:
                        qj = variants[0]
                    elif k == 1:
                        qj = variants[1 + p % (len(variants) - 1)]
                    else:
                        qj = json.dumps(_typo(canonical, p % 3, w), ensure_ascii=False)
                    aj = answers[a]
                append(f'{{"question": {qj}, "answer": {aj}, "id": "gen-{start + j:09d}"}}\n')
            fh.write("".join(lines))

    return {
        "path": str(out), "rows": rows, "seed": seed, "base_questions": n_questions,
        "base_questions_en": n_en, "base_questions_zh": n_zh,
        "distinct_base_questions": int(seen.sum()), "noise_rows": counts["noise"],
        "typo_rows": counts["typo"], "variant_rows": counts["variant"], "zh_rows": counts["zh"],
        "seconds": round(time.perf_counter() - started, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, required=True, help="number of rows to write")
    parser.add_argument("--out", required=True, help="output .jsonl path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--zh-share", type=float, default=0.3, help="share of rows in Chinese (0-1)")
    parser.add_argument("--questions", type=int, default=None,
                        help="number of base questions (default: max(200, rows // 20))")
    parser.add_argument("--zipf", type=float, default=1.1, help="Zipf exponent of question popularity")
    args = parser.parse_args(argv)
    try:
        result = generate(args.rows, args.out, seed=args.seed, zh_share=args.zh_share,
                          n_questions=args.questions, zipf_exponent=args.zipf)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {result['rows']:,} rows, {result['distinct_base_questions']:,} distinct base questions "
          f"(of {result['base_questions']:,}), to {result['path']} in {result['seconds']:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
