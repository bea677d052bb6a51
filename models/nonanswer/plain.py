"""Non-answers that say so plainly, whatever the head thinks: ``inability`` ("无法查到张三的出生日期", "I couldn't
find her age"), ``deferral`` (the whole answer sends the user to a live or official source: "价格会随市场波动，请以
实时行情为准") and ``meta`` (the answer describes an answer instead of giving one: "直接给出该词的读音。",
"Here is an explanation of the theorem:").

Each decides on what is left once its phrases are taken out of the answer: a figure, a yes or no, or a few
content words the question did not already have, and it is an answer ("无法准确预测，近三年一本线在510到520分之
间", "Usually in mid-August; check with your exam board"). A phrase inside a condition ("如果无法确定…",
"if you can't find…") is advice, not an admission, and is never taken out.
"""

from __future__ import annotations

import re

from models.nonanswer.aspects import only_aspects
from models.nonanswer.tokens import has_figure, new_figures, stems
from schemas.text import lang_space as _key

# clauses: sentences and their comma-separated parts (a phrase is taken out of its own part only)
CLAUSE = re.compile(r"[^.!?;。！？；\n,，:：]+[.!?;。！？；,，:：]?")
_CONDITION = re.compile(r"(如果|若|假如|万一|一旦|要是|\bif\b|\bwhen\b|\bunless\b|\bin case\b)", re.I)
# a first clause that only names the topic ("关于报名时间，…", "As for the fees, …")
_TOPIC_CLAUSE = re.compile(r"^\s*(关于|对于|至于|as for|regarding|when it comes to)[^，,。.]{0,20}[，,]\s*$", re.I)
_YES_NO = {"en": re.compile(r"^\s*(yes|no|yeah|nope|sure)\b", re.I),
           "zh": re.compile(r"^\s*(是的?|对|不是|可以|不可以|能|不能|会|不会|要|不要|需要|不需要|免费|收费|有|没有|不用)"
                            r"(?:[，,。]|$)")}
# how many content tokens the question did not have must be left for the rest to be an answer
_LEFT = {"en": 3, "zh": 3}
# what an admission or a deferral names besides the topic ("…的具体发布时间", "reliable figures on…"): no content
_FILLER = {"zh": frozenset("目前暂时具体确切准确相关信息数据资料公开该此今年所需抱歉对不起很遗憾时间日期"),
           "en": stems("information info details data figures exact specific precise reliable current currently "
                       "about any sorry unfortunately right now at this time moment public official date yet")}

_INABILITY = {
    "zh": re.compile(
        r"((无法|不能|没法|未能|没能|难以)(准确|确切|具体)?(地)?(查到|查询到?|找到|检索到|搜到|获取|得知|获知|确定|确认|"
        r"预测|判断|提供|给出|计算|估计|知道|回答|告知|查明|追踪|跟踪)"
        r"|(没有|没|未|暂未|尚未|并未|还没有?)(能)?(查到|找到|查询到|检索到|搜到|搜索到)"
        r"|查不到|找不到|搜不到|查询不到|查不出|无从得知|不得而知|(暂|尚|还)不清楚"
        r"|(还|尚|暂)?(没有|未)(官方)?(确定|定论|消息|官方消息)"
        r"|暂无(相关|具体|确切|公开)?的?(信息|数据|资料|消息|记录|结果)"
        r"|(尚未|暂未|还未|还没有?)(正式)?(公布|公开|发布|披露|宣布)"
        r"|没有(相关|具体|公开|确切)的?(信息|数据|资料|记录|报道))"),
    "en": re.compile(
        r"((couldn'?t|could not|can'?t|cannot|unable to|wasn'?t able to|was not able to|not able to|no way of)\s+"
        r"(find|locate|determine|confirm|verify|predict|track|know|knowing|tell|be determined|be predicted|"
        r"be known|be confirmed|be found)\b"
        r"|\b(impossible|not possible)\s+to\s+(predict|know|say|determine|tell)"
        r"|\bnobody (can|could) (know|predict|say|tell)"
        r"|\bno (public |reliable )?(information|data|results|records|figures)\b"
        r"|\b(don'?t|do not) have (any )?(results|information|data|records|details) (on|about|for)\b"
        r"|\bnot aware of\b|\bno records? of\b"
        r"|\b(data|information|figures|details|results|records)\b[^.;,]{0,30}\b(is|are)\s+not\s+(publicly\s+)?available"
        r"|\b(hasn'?t|haven'?t|has not|have not) (yet )?been "
        r"(announced|released|published|confirmed|disclosed|made public)"
        r")", re.I),
}
# a live or official source: the deferral proper
_SOURCE = {
    "zh": re.compile(
        r"((?:(?:具体|详细|最终|实际|确切)[^，。；以请]{0,8})?(?:请|建议)?(?:您|你)?以[^，。；,]{0,20}为准"
        r"|(?:(?:具体|详细|最终|实际|确切)[^，。；以请]{0,8})?请(您|你)?(关注|留意|查看|查询|咨询|参考|参阅|登录|访问|拨打|联系|前往)[^，。；]{0,25}"
        r"|建议(您|你)?(关注|留意|查看|查询|咨询|参考|登录|访问|拨打|联系|前往|到)[^，。；]{0,25}"
        r"|可(以)?(登录|访问|拨打|前往|查看|关注|咨询)[^，。；]{0,15}(官网|官方|客服|热线|网站|公众号|APP|app|部门)[^，。；]{0,8}"
        r"|具体(请|需|要|可)?(咨询|查看|关注|联系)[^，。；]{0,20})"),
    "en": re.compile(
        r"((please\s+)?(check|refer to|consult|confirm with|contact|see|visit|follow|verify with|look at|"
        r"check with)\b[^.;]{0,60}\b(official|website|site|announcement|notice|office|bank|lender|board|"
        r"department|directly|provider|retailer|store|app|authorit\w*|agency|local|quote)\w*[^.;]{0,40}"
        r"|\bfor (the )?(latest|most up-to-date|current|exact|accurate) (information|prices|pricing|fares|rates|"
        r"details|dates?|times?|hours)\b|\bsubject to change\b)", re.I),
}
# "it varies": removed with the deferral; on its own a deferral only where an amount or a date was asked
# (varies_only); "因人而异" is a dodge of its own
_VARIES = {
    "zh": re.compile(
        r"((价格|费用|时间|标准|政策|票价|汇率|油价|金价|收费|比例|安排)?(会|将|可能|可能会)?(随|根据|因)(?!人)[^，。；]{0,14}"
        r"(波动|变化|浮动|变动|调整|不同|而异|差异)|(各地|不同地区|各个城市|不同城市|每年|各校|各个学校)[^，。；]{0,10}"
        r"(不同|不一|有差异|有所差异|有所不同|不一样|可能有所调整)|(可能|会)(会)?(有所)?(调整|变化|变动|不同|差异)"
        r"|实时(变动|更新|变化))"),
    "en": re.compile(
        r"(((opening |holiday )?(hours|prices|pricing|fees|fares|rates|deadlines|costs?|dates?|times?|schedules?|"
        r"tickets? prices?|gold prices)\s+)?(may |can |will |often )?\b(vary|varies|differ|differs|fluctuate|"
        r"fluctuates|change|changes)\b( constantly| frequently| often)?( by [^.;,]{0,30}| with [^.;,]{0,30}| "
        r"depending on[^.;,]{0,30})?|\b(rates?|prices?|it) depends? on [^.;,]{0,40})", re.I),
}
# a question that asks for an amount or a date: "it varies", and nothing else, leaves it unanswered
_ASKS_AMOUNT = {
    "zh": re.compile(r"多少|几[个天号点岁年月次]|多久|多长时间|多大|什么时候|何时|哪天|价格|价钱|工资|月薪|年薪|薪资|费用|收费"),
    "en": re.compile(r"\b(how (much|many|long|old)|when|what time|price|cost|salary|fee)\b", re.I),
}
_DEPENDS = {
    "zh": re.compile(r"[^，。；]{0,30}(取决于|受[^，。；]{0,20}影响|视[^，。；]{0,12}而定)[^。；]{0,60}"),
    "en": re.compile(r"[^,.;]{0,40}\b(depends? on|varies (by|with|from|depending on))\b[^.;]{0,60}", re.I),
}
# the list of factors after "it depends" ("…取决于多种因素，包括血统、品相等")
_FACTORS = re.compile(r"^\s*(包括但不限于|包括|例如|比如|诸如|including|such as)", re.I)
# a question that asks where or how to look something up: naming the source is its answer
_ASKS_WHERE = {
    "zh": re.compile(r"(怎么|如何|怎样|去哪里?|在哪里?|哪儿)(查询?|查看|查到)|查询(方式|方法|渠道|途径)"),
    "en": re.compile(r"\b(where|how) (can|do|should|to) (i |you |we )?(check|find|look up|track|verify)\b", re.I),
}
# the answer is an instruction to answer ("直接给出该词的读音。", "Provide the length of the Nile."): matched
# against the whole answer, and trusted only when it points at the question (:func:`meta`)
_META_INSTRUCTION = {
    "zh": re.compile(
        r"^\s*(?:(?:根据|针对)[^，。]{0,15}[，,]?|(?:该|这个|此)问题(?:需要|要)|本回答(?:将|会)?|(?:以下|下面)(?:将|会)?"
        r"(?:为[你您])?(?:详细)?|我(?:将|会|来)(?:为[你您])?|请|直接)?(?:直接)?(?:给出|提供|列出|说明|解释|介绍|回答|"
        r"告诉[你您]?|翻译|写出|讲解|描述)[^。！？]{0,30}的?(?:含义|意思|读音|发音|答案|长度|距离|方法|步骤|翻译|英文翻译|"
        r"定义|原因|作用|解释|原名|名字|建议|介绍|区别|读法|说法)(?:即可)?\s*[。！.：:]?\s*$"),
    "en": re.compile(
        r"^\s*(?:please\s+)?(?:give|provide|answer|explain|state|list|describe|tell|write|translate)\b[^.!?:]{0,60}"
        r"\bthe (?:answer|pronunciation|meaning|definition|explanation|translation|name|length|distance|steps)\b"
        r"[^.!?:]{0,40}\s*[.!:]?\s*$", re.I),
}
_POINTS_AT_QUESTION = {"zh": re.compile(r"^\s*(根据|针对|该问题|这个问题|此问题|本回答|以下|下面|我将|我会|我来|请|直接)|该|这个|此|其"),
                       "en": re.compile(r"\bthe (\w+ )?(word|phrase|term|question|answer|user)\b", re.I)}
# the answer announces an answer that never comes ("以下是关于X的介绍：", "Here is an overview of X:")
_META_ANNOUNCE = {
    "zh": re.compile(
        r"^\s*(?:(?:以下|下面|如下)(?:是|为)[^。！？]{0,25}(?:介绍|信息|内容|答案|回答|解答|说明|步骤|解释|建议|方法)"
        r"|(?:为[您你])?(?:找到|整理|查到)了?(?:以下|如下)[^。]{0,8}"
        r"|(?:这个|该|此|您的)?问题的答案(?:如下|是)"
        r"|请?参考(?:以下|下面|如下)[^。]{0,8}"
        r"|这里是(?:对|关于)[^。]{0,25}的(?:解释|介绍|说明|回答|解答))"
        r"\s*[。！.：:]?\s*$"),
    "en": re.compile(
        r"^\s*(?:(?:here is|here's|here are|below is|below are|the following is|the following are)\b[^.!?:]{0,60}"
        r"|(?:this|the|my) (?:answer|response|reply)\b[^.!?:]{0,60}\b(?:explains?|describes?|states?|covers?|provides?|"
        r"gives?|lists?|answers?|is as follows|will|should)\b[^.!?:]{0,40}"
        r"|i will (?:now )?(?:describe|explain|list|show|walk you through|give|provide)\b[^.!?:]{0,60})"
        r"\s*[.!:]?\s*$", re.I),
}

# an answer that reports what an answer would do, with no subject: "提供了具体的年龄", "列举了多个由…组成的词语",
# "Listed the top ten phones." (a summary of an answer written in its place)
_META_REPORT = {
    "zh": re.compile(r"^\s*(?:已经?)?(?:提供|列举|列出|给出|罗列|整理)了"),
    "en": re.compile(r"^\s*(?:provided|listed|gave|compiled)\s+(?:a|an|the|some|several|many|\w+'s)\b", re.I),
}

_THEN_CONTENT = re.compile(r"[:：]\s*\S")  # "整理了以下几点：…": the report, then the answer itself


def asks_where(question: str, key: str) -> bool:
    """Does the question ask where or how to look something up (so that naming the source answers it)?"""
    return bool(_ASKS_WHERE[key].search(question))


def unconditional(pattern: re.Pattern, clause: str) -> list[re.Match]:
    """The pattern's matches in ``clause`` that no condition ("如果…", "if…") comes before."""
    out = []
    for m in pattern.finditer(clause):
        cond = _CONDITION.search(clause, 0, m.start())
        if not cond:
            out.append(m)
    return out


def _left(question: str, clauses: list[str], key: str) -> bool:
    """Is what is left an answer: a figure, a yes or no, or enough content tokens the question did not have?"""
    rest = "".join(clauses)
    if _YES_NO[key].search(rest) or new_figures(question, rest):
        return True
    return len(stems(rest) - stems(question) - _FILLER[key]) >= _LEFT[key]


def _strip(answer: str, patterns: list[re.Pattern]) -> tuple[list[str], int]:
    """(the clauses, each with the patterns' unconditional matches taken out; how many matches there were).
    A first clause that only names the topic is taken out too."""
    clauses = CLAUSE.findall(answer) or [answer]
    if len(clauses) > 1 and _TOPIC_CLAUSE.match(clauses[0]):
        clauses = clauses[1:]
    hits, kept = 0, []
    for clause in clauses:
        for pattern in patterns:
            for m in reversed(unconditional(pattern, clause)):
                clause = clause[:m.start()] + " " + clause[m.end():]
                hits += 1
        kept.append(clause)
    return kept, hits


def inability(question: str, answer: str, lang: str) -> bool:
    """It says it could not find, determine or predict what was asked, and gives nothing else."""
    key = _key(lang)
    kept, hits = _strip(answer, [_INABILITY[key]])
    return hits > 0 and not _left(question, kept, key)


def deferral(question: str, answer: str, lang: str) -> bool:
    """Nothing but "see the official source" (and "it varies"), or to an amount or a date asked, nothing but "it
    varies": decided on what is left without them."""
    key = _key(lang)
    if asks_where(question, key):
        return False
    _, sources = _strip(answer, [_SOURCE[key]])
    if not sources:
        return varies_only(question, answer, key)
    kept, _ = _strip(answer, [_SOURCE[key], _VARIES[key]])
    return not _left(question, kept, key)


def varies_only(question: str, answer: str, key: str) -> bool:
    """An amount or a date asked ("布偶猫多少钱"), and all the answer says is that it varies or depends
    ("价格因地区、血统等因素而有所不同"; "取决于多种因素，包括血统、品相等"), with no figure the question did not have."""
    if not _ASKS_AMOUNT[key].search(question) or new_figures(question, answer):
        return False
    kept, hits = _strip(answer, [_VARIES[key], _DEPENDS[key]])
    kept = [clause for clause in kept if not _FACTORS.match(clause)]  # the factors it depends on are no answer
    return hits > 0 and not _left(question, kept, key)


def meta(question: str, answer: str, lang: str) -> bool:
    """The whole answer describes an answer ("直接给出该词的读音。", "Here is an overview of X:"), reports what
    one would hold ("提供了具体的年龄"), or names only the aspects it would cover ("区别在于用途、材料和价格":
    models.nonanswer.aspects)."""
    key = _key(lang)
    if _META_REPORT[key].match(answer) and not _THEN_CONTENT.search(answer):
        return True
    if key == "zh" and only_aspects(answer):  # (its "三个方面" is the list's count, no figure of an answer)
        return True
    if has_figure(answer):
        return False
    if _META_ANNOUNCE[key].match(answer):
        return True
    # an instruction is an answer when it is advice ("提供身份证和户口本即可"): it must point at the question
    return bool(_META_INSTRUCTION[key].match(answer)) and bool(
        _POINTS_AT_QUESTION[key].search(answer) or len(stems(answer) & stems(question)) >= (2 if key == "zh" else 1))
