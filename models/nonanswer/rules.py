"""``rules``: non-answers by what they say (refusals, no real-time data, not knowing, sending the user
elsewhere, asking back, dodging, restating the question), unless the answer goes on to say something.

Each pattern family is a reason. A matched answer is a non-answer only if, once the matched clauses
are taken out, little content is left: "I can't give today's exact figure, but Tokyo had about 14
million residents" keeps 5+ content words and a number, so it is an answer (reason "", a low score).
"""

from __future__ import annotations

import re

from models.nonanswer.base import score_answers
from models.nonanswer.tokens import content_tokens
from schemas.judgement import Judgement

# (reason, English pattern, Chinese pattern); order matters only for the reason reported
_FAMILIES = (
    ("refusal",
     r"\b(i'?m sorry,? but i can'?t|i can(?:'?t|not) (?:help|assist|do|provide|give|answer|write|predict)|i'?m (?:not able|unable) to|"
     r"i am (?:not able|unable) to|i won'?t be able to|as an ai\b|as a language model|i'?m (?:just )?an ai|"
     r"i am (?:just )?an ai|i(?:'?m| am) not a (?:doctor|lawyer|financial advis[oe]r)|cannot (?:give|provide) "
     r"(?:medical|legal|financial) advice)",
     r"(作为一个?(?:AI|人工智能|语言模型)|我(?:不能|无法)(?:帮|替|为)|无法为你|不能提供(?:医疗|法律|投资)|无法(?:预测|回答)|"
     r"我不是医生|抱歉，?我(?:不能|无法))"),
    ("no_realtime",
     r"(real[- ]time|up[- ]to[- ]date information|current (?:information|date|prices?)|knowledge cut-?off|"
     r"(?:don'?t|do not) have (?:access|information) (?:to|about)|can'?t (?:browse|check|access)|"
     r"future product releases|changes? constantly)",
     r"(实时|最新(?:的)?(?:信息|数据|消息|播出)|无法获取|知识(?:有)?截止|无法提供具体(?:价格|数字|日期)|政策可能有变化)"),
    ("uncertain",
     r"(\bi don'?t know\b|\bi'?m not (?:sure|certain)\b|\bnot enough information\b|\bcan'?t say for sure\b)",
     r"(无法确定|不确定|不太清楚|我也不知道|不知道|无法确认)"),
    ("redirect",
     r"(please (?:contact|reach out|consult|check|see)|reach out to|contact (?:customer )?support|"
     r"i recommend (?:hiring|contacting|consulting)|consult a)",
     r"(请(?:联系|咨询|查询|查看|关注)|建议(?:您)?(?:咨询|联系|关注|查看)|及时就医|请及时|"
     # "具体时间请以官方通知为准。" as the whole sentence (after an answer it is a caveat, not a dodge)
     r"^\s*[^，,。]{0,6}以[^，,。]{0,12}(?:官方|官网|通知|公告|规定|实际)[^，,。]{0,6}为准[。！!.]?\s*$)"),
    ("clarify",
     r"(could you (?:rephrase|clarify|repeat)|didn'?t understand|what do you need help with|can you be more specific)",
     r"(没有理解|能再说一遍|请再说一遍|能具体说说|请问您是指)"),
    ("evasive",
     r"(^it depends\b|there are many opinions|that'?s a (?:deep|great|good) question|people have debated|"
     r"depends on (?:your|many|personal)|no single (?:best|answer))",
     r"(因人而异|取决于个人|很难一概而论|每个人的情况不同|这是一个好问题|是很多人关心的问题)"),
)
_COMPILED = [(reason, re.compile(en, re.I), re.compile(zh)) for reason, en, zh in _FAMILIES]
# clauses: sentences, and the part after "but" / "但" / "不过" (a caveat, then the answer)
_CLAUSE = re.compile(r"(?:[^.!?;。！？；\n,，]|,(?! but\b)|，(?!但|不过))+[.!?;。！？；,，]?")
_NUMBER = re.compile(r"\d")
# what is left once the matched clauses are out: at least this many content tokens (words / characters)
_ENOUGH = {"en": 5, "zh": 8}


def _is_zh(lang: str) -> bool:
    return lang in ("zh", "mixed")


def _restates(question: str, answer: str, lang: str) -> bool:
    """The answer adds (almost) nothing to the question's own words."""
    if _NUMBER.search(answer) and not _NUMBER.search(question):
        return False  # it states a figure the question did not
    qa, aa = content_tokens(question), content_tokens(answer)
    new = aa - qa
    return bool(aa) and not new and len(aa & qa) >= max(1, len(qa) // 2)


class RuleNonAnswer:
    """The default :class:`models.nonanswer.base.NonAnswerDetector`."""

    model_id = "nonanswer-rules-v1"
    threshold = 0.5

    def judge(self, question: str, answer: str, lang: str) -> tuple[float, str]:
        key = "zh" if _is_zh(lang) else "en"
        clauses = _CLAUSE.findall(answer) or [answer]
        reason, kept = "", []
        for clause in clauses:
            hit = next((r for r, en, zh in _COMPILED if (zh if key == "zh" else en).search(clause)), "")
            if hit:
                reason = reason or hit
            else:
                kept.append(clause)
        rest = " ".join(kept)
        substance = len(content_tokens(rest) - content_tokens(question))
        if reason:
            if substance >= _ENOUGH[key] or (_NUMBER.search(rest) and substance >= 2):
                return 0.2, ""  # a caveat, then an answer
            return 0.9, reason
        if _restates(question, answer, key):
            return 0.8, "restatement"
        return 0.05, ""

    def own_threshold(self, lang: str) -> float:
        return self.threshold

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        return [Judgement(*self.judge(q, a, lang)) for q, a, lang in items]

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items)
