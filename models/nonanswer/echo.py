"""Non-answers that echo the question: ``restatement`` as a heading (Q "布洛芬的副作用" -> A "布洛芬的副作用及注意
事项", Q "how to boil an egg" -> A "How to Boil an Egg: A Guide") and ``tautology`` (a clause that says again what
the question or the answer already said: "幸福就是感到幸福", "…因人而异，需要一定的力气", "It takes as long as
it takes").

Features, not a model: how much of the answer is the question's own words (characters in Chinese), what the
rest is made of (heading words such as 方法 / 注意事项 / tips / guide; vague words such as 一定 / 需要 / certain /
amount), whether it has a sentence end, and its length. An answer that names something the question did not (a
figure, a quoted span, a word in Latin letters) or fills its asking word ("杨超越是一线明星" to "杨超越是几线明星")
is never an echo: real chatbots answer terse questions in exactly their words.
"""

from __future__ import annotations

import re

from models.nonanswer.plain import CLAUSE
from models.nonanswer.tokens import has_figure, new_figures, stems
from schemas.text import lang_space as _key

_CJK = re.compile(r"[\u4e00-\u9fff]")

# words a heading is made of besides its topic
_HEADING_ZH = (
    "注意事项 注意 事项 须知 方法 办法 解决办法 解决方法 方式 表达方式 表达 说法 介绍 简介 详解 解析 分析 攻略 指南 教程 大全 "
    "汇总 推荐 技巧 小技巧 窍门 步骤 流程 原因 作用 功效 区别 用法 特点 意义 含义 生平 作品 历史 由来 来源 情况 相关信息 信息 "
    "知识 常识 禁忌 饮食禁忌 要点 总结 盘点 对比 比较 建议 做法 家常做法 处理 几种 常见 主要 详细 完整 全面 最新 景点 好玩 "
    "地方 患者 用药 子女 有哪些 是什么 怎么办 如何 关于 相关 问题 "
    "定义 概念 起源 发展 危害 影响 前兆 症状 特征 成就 创作 事件 种类 类型 分类 现状 前景 优缺点 利弊 评价").split()
_HEADING_EN = frozenset(
    "side effect precaution way ways express expression tip tips method guide top thing things common "
    "reason reasons cause causes fix fixes best overview explained process health benefit benefits introduction "
    "basics step steps information facts complete ultimate everything know key main history life work works "
    "study foods food should avoid how why what when where recipe easy simple quick beginner list".split())
_TOPIC_GLUE_ZH = frozenset("的及与和中之等以或")
_SENTENCE_END = re.compile(r"[。！？!?；;，,]|\.(\s|$)")
# a yes-or-no or a choice question: an answer made of its own words picks ("猫更适合上班族" to "猫和狗哪个更适合
# 上班族"), it does not restate
_PICKS_FROM_QUESTION = re.compile(r"(吗|么|是不是|能不能|可不可以|有没有)[？?]?\s*$|哪个|哪种|哪一|哪家|哪里|哪儿|还是|谁"
                                  r"|([\u4e00-\u9fff])不\2|有没有|吗[？?，,。！!\s]"  # 明天是不是七夕节, …吗？请说明理由
                                  r"|^\s*(is|are|can|do|does|did|will|should|was|were)\b"
                                  r"|\b(which|or|who|where)\b", re.I)

# The asking word of a question whose answer, said in the question's own words, fills it: a figure for 几 / 多少
# ("2022年有365天", "杨超越是一线明星"), a name or any new word for 谁 / 哪 ("连胜被Uzi终结")
_ASKING_ZH = re.compile(r"几|多少|谁|哪[个位家种里儿一年天]?")
_NUMERAL = re.compile(r"[\d一二两三四五六七八九十百千万亿半]")
_PARTICLES = re.compile(r"[了吗呢呀啊吧？?！!。，,\s]+$")
# a span in quotation marks: "粉丝名是“少年团粉”" names something; it is new unless the question holds it whole
_QUOTED = re.compile(r"[\"“「『《']([^\"”」』》']{1,40})[\"”」』》']")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")

# what takes a side in an answer to a yes-or-no question, beyond the question's own words
_STANCE_ZH = re.compile(r"[不没非否]|可以|应该|应当|适合")

_YES_NO_ANSWER = re.compile(r"^\s*(yes|no|yeah|nope|是的?|对|不是|可以|不可以|能|不能|会|不会|要|不要|需要|不需要|有|没有)"
                            r"(?:[，,。.!！\s]|$)", re.I)

# words that add nothing: "需要一定的力气", "a certain amount of effort"
_VAGUE_ZH = re.compile(r"(因人而异|因个人而异|取决于个人|看个人|视情况而定|视个人情况|有一定的?|需要一定的?|要一定的?|一定的|"
                       r"需要一段|需要一些|一段时间|各不相同)")
_VAGUE_EN = re.compile(r"(varies from person to person|depends on the person|a certain (amount|level|degree) of|"
                       r"some (effort|time)|\bas (long|much|many|far|often) as (it takes|you need|needed|necessary|"
                       r"its \w+ lasts?)|what you pay)", re.I)
_GENERIC_ZH = frozenset("需要一定段些点时间花费钱能力气感到觉样程度努情况具体东西事效果味道人个数量才会因为而异看取决于")
# a tautology says little beyond its question: at most this many informative tokens the question did not have
_AT_MOST_NEW = {"zh": 3, "en": 2}
_GENERIC_EN = frozenset(
    "need require certain amount some level degree effort time vary person people depend thing way kind good enough "
    "much many pay take lot whatever really quite just different differ factor matter result lasts last long "
    "being has have difficulty".split())
_PUNCT = re.compile(r"[\s。！？!?.，,；;]+")
_CONNECTOR_ZH = re.compile(r"(就是|是因为|取决于|要看|等于|即为)")
_CONNECTOR_EN = re.compile(r"\b(is|are|because|means|depends on|equals)\b", re.I)


def picks_from_question(question: str) -> bool:
    """Is it a yes-or-no or a choice question (so that an answer in its own words picks, not restates)?"""
    return bool(_PICKS_FROM_QUESTION.search(question))


def fills_the_slot(question: str, answer: str) -> bool:
    """Does a Chinese answer say the question again with its asking word filled? The two characters before the
    asking word, then what fills it, then the first character after it ("被谁终结了" -> "被Uzi终结")."""
    q = _PARTICLES.sub("", question)
    for m in _ASKING_ZH.finditer(q):
        left, right = q[max(0, m.start() - 2):m.start()], q[m.end():m.end() + 1]
        start = answer.find(left) if left else 0
        while start >= 0:
            begin = start + len(left)
            end = answer.find(right, begin) if right else min(len(answer), begin + 12)
            filler = answer[begin:end] if end > begin else ""
            if filler and len(filler) <= 12 and not _ASKING_ZH.search(filler):
                wanted = _NUMERAL if m.group().startswith(("几", "多少")) else None
                if (wanted.search(filler) if wanted else stems(filler) - stems(question)):
                    return True
            start = answer.find(left, start + 1) if left else -1
    return False


def names_something_new(question: str, answer: str, lang: str) -> bool:
    """A figure or a quoted span the question does not have ("八月有31天", "粉丝名是“少年团粉”"), or in a Chinese
    answer a word in Latin letters ("被Uzi终结"). An echo of the question names nothing."""
    asked = question.lower()
    return bool(new_figures(question, answer)
                or any(span.strip() and span.strip().lower() not in asked for span in _QUOTED.findall(answer))
                or (_key(lang) == "zh" and any(w.lower() not in asked for w in _LATIN_WORD.findall(answer))))


def answers_in_its_words(question: str, answer: str, lang: str) -> bool:
    """The answer uses the question's words to say something: it names something new, or (Chinese) fills the
    question's asking word. Neither a restatement nor a tautology, however much of the question it repeats."""
    return names_something_new(question, answer, lang) or (_key(lang) == "zh" and fills_the_slot(question, answer))


_GENERIC = {"zh": _GENERIC_ZH, "en": stems(" ".join(_GENERIC_EN))}
_HEADING_EN_STEMS = stems(" ".join(_HEADING_EN))


def _generic(key: str) -> frozenset[str]:
    return _GENERIC[key]


def _informative(tokens: frozenset[str], key: str) -> frozenset[str]:
    return tokens - _generic(key)


def _heading_cover_zh(answer: str, question: str) -> float:
    """Of the answer's characters the question does not have (topic glue aside), the share heading words cover."""
    covered = [False] * len(answer)
    i = 0
    while i < len(answer):
        word = max((w for w in _HEADING_ZH if answer.startswith(w, i)), key=len, default="")
        for j in range(i, i + len(word)):
            covered[j] = True
        i += len(word) or 1
    asked = set(question)
    rest = [k for k, ch in enumerate(answer) if _CJK.fullmatch(ch) and ch not in asked and ch not in _TOPIC_GLUE_ZH]
    return sum(covered[k] for k in rest) / len(rest) if rest else 1.0


def _heading_cover_en(answer: str, question: str) -> float:
    rest = stems(answer) - stems(question)
    return len(rest & _HEADING_EN_STEMS) / len(rest) if rest else 1.0


def restatement(question: str, answer: str, lang: str) -> bool:
    """A heading that names the question's topic and stops: short, no sentence end, no figure of its own, most
    of it the question's words and the rest heading words ("…及注意事项", "Tips for …")."""
    key = _key(lang)
    text = answer.strip()
    if answers_in_its_words(question, text, lang):
        return False
    colon = re.search("[:：]", text)
    head, tail = (text[:colon.start()], text[colon.end():]) if colon else (text, "")
    if tail.strip() and (key == "zh" or _heading_cover_en(tail, "") < 1.0):
        return False  # a heading, then content ("How to Boil an Egg: A Guide" is all heading)
    if _SENTENCE_END.search(head):  # (a figure the question lacks returned above: answers_in_its_words)
        return False
    size = len(head) if key == "zh" else len(head.split())
    if not 2 <= size <= (24 if key == "zh" else 12):
        return False
    shared = stems(head) & stems(question)
    if len(shared) < min(2 if key == "zh" else 1, len(stems(question))):
        return False
    if not stems(head) - stems(question) and picks_from_question(question):
        return False  # "孕妇能吃螃蟹" to "孕妇能吃螃蟹吗" says yes
    if key == "zh" and picks_from_question(question):
        new = "".join(ch for ch in head if _CJK.fullmatch(ch) and ch not in question and ch not in _TOPIC_GLUE_ZH)
        if not new or _STANCE_ZH.search(new):
            return False  # "李白是中国人" to "李白是外国人吗", "未成年人不建议吃…" to "…可以吃吗": it picks
    cover = _heading_cover_zh(head, question) if key == "zh" else _heading_cover_en(text, question)
    return cover >= 0.5


def _says_it_again(text: str, asked: frozenset[str], key: str) -> bool:
    """At some connector ("就是", "because", "is"), the part after shares a word with the part before and adds
    nothing informative to it and the question."""
    for m in (_CONNECTOR_ZH if key == "zh" else _CONNECTOR_EN).finditer(text):
        subject, said = text[:m.start()].strip(), _PUNCT.sub("", text[m.end():])
        if key == "zh" and subject and said.endswith(subject) and len(said) - len(subject) <= 2:
            return True  # "成功就是获得成功": the subject again, one verb before it
        left, right = stems(text[:m.start()]), stems(text[m.end():])
        if left & (right - _generic(key)) and not _informative(right - left - asked, key):
            return True
    return False


def _only_the_question(question: str, answer: str, key: str) -> bool:
    """A sentence of four or more content words, all of them the question's or vague ones ("You need the skills
    required to run a marathon."), to a question that is neither a yes-or-no nor a choice one."""
    said = stems(answer)
    picks = picks_from_question(question) and _informative(said & stems(question), key)  # in the question's words
    return (len(said) >= 4 and not _informative(said - stems(question), key)
            and not picks and not _YES_NO_ANSWER.search(answer))


# "544024是一个数字或整数" to "544024什么意思": a figure asked about, called a figure
_WHAT_IS = {"zh": re.compile(r"^\s*(?P<x>\S+?)\s*(是什么意思|什么意思|是啥意思|啥意思|是什么|是啥|代表什么|指什么)"
                             r"[？?。!！\s]*$"),
            "en": re.compile(r"^\s*what\s+(does|is)\s+(?P<x>\S+?)\s*(mean|stand for)?\s*[?.!]*\s*$", re.I)}
_FIGURE_ONLY = re.compile(r"^[\d.,:/+-]+$")
_NUMBER_KINDS = {"zh": re.compile(r"(数字|整数|自然数|正整数|浮点数|小数|数|编号|序列号|号码|代码|数值)"),
                 "en": re.compile(r"\b(number|integer|digit|numeral|float|decimal|code|sequence|value)s?\b", re.I)}
_NUMBER_GLUE = {"zh": re.compile(r"是|一个|一种|一串|个|或者|或|和|、|，|,|。|具体(含义|意思)?取决于(上下文|语境)|\s"),
                "en": re.compile(r"\b(is|it's|it|a|an|or|and|just|simply|some|kind|of|the)\b|[,.!\s]", re.I)}


def calls_a_figure_a_figure(question: str, answer: str, lang: str) -> bool:
    """A question about what a bare figure means, answered that it is a number (and nothing else)."""
    key = _key(lang)
    m = _WHAT_IS[key].match(question)
    if not m or not _FIGURE_ONLY.match(m.group("x")):
        return False
    x = m.group("x")
    rest = answer.strip()
    if not rest.lower().startswith(x.lower()):
        return False
    rest = _NUMBER_GLUE[key].sub(" ", _NUMBER_KINDS[key].sub(" ", rest[len(x):]))
    return bool(_NUMBER_KINDS[key].search(answer[len(x):])) and not rest.strip()


def tautology(question: str, answer: str, lang: str) -> bool:
    """It says again what was already said: "A 就是 A", "A because A"; a vague answer whose other words all
    come from the question ("考研有一定的难度，需要一定的努力"); a vague clause, then one that repeats it; or a
    figure asked about, called a figure ("12306是一个整数")."""
    key = _key(lang)
    if calls_a_figure_a_figure(question, answer, lang):
        return True
    if has_figure(answer) or answers_in_its_words(question, answer, lang):
        return False
    asked = stems(question)
    if len(_informative(stems(answer) - asked, key)) > _AT_MOST_NEW[key]:
        return False  # "…将二氧化碳和水转化为葡萄糖和氧气，这就是光合作用。" says a lot before saying it again
    vague = _VAGUE_ZH if key == "zh" else _VAGUE_EN
    if _says_it_again(answer, asked, key):
        return True
    if vague.search(answer) and not _informative(stems(vague.sub(" ", answer)) - asked, key):
        return True
    if _only_the_question(question, answer, key):
        return True
    clauses = [c for c in CLAUSE.findall(answer) if stems(c)]
    if len(clauses) >= 2 and vague.search(clauses[0]):
        said = asked | stems(clauses[0])
        for clause in clauses[1:]:
            if _informative(stems(clause) - said, key):
                return False
            said |= stems(clause)
        return True
    return False
