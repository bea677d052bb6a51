"""``rules``: non-answers by what they say (refusals, no real-time data, not knowing, sending the user
elsewhere, asking back, dodging, restating the question), unless the answer goes on to say something.

Each pattern family is a reason. A matched answer is a non-answer only if, once the matched clauses
are taken out, little content is left: "I can't give today's exact figure, but Tokyo had about 14
million residents" keeps 5+ content words and a number, so it is an answer (reason "", a low score).

Decision order: first the families that are sure on their own (:data:`SURE_FAMILIES`: models.nonanswer.plain
and models.nonanswer.echo, measured on real-style chatbot answers, docs/measurements/non-answers.md); their
judgement is ``sure``, so it flags at any threshold and whatever a head scores. Then the older pattern families
and the plain restatement, which a head vouches for (models.nonanswer.embedding) or the threshold decides.
"""

from __future__ import annotations

import re

from models.nonanswer import echo, plain
from models.nonanswer.base import score_answers
from models.nonanswer.plain import unconditional
from models.nonanswer.tokens import content_tokens, new_figures
from schemas.judgement import Judgement, short_question
from schemas.text import reads_as_chinese as _is_zh

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


_PART = re.compile(r"[^,，]+[,，]?")


def _parts_outside(clause: str, spans: list[tuple[int, int]]) -> list[str]:
    """The comma-separated parts of a matched clause that no match touches: "目前无法预测，近两年国家线都在270分
    左右" keeps its second part; "抱歉，我无法提供帮助" keeps nothing (one match). Kept only when they state a
    figure: "As an AI, I don't have personal opinions" is one refusal, not a caveat and an answer."""
    out = []
    for m in _PART.finditer(clause):
        if not any(start < m.end() and m.start() < end for start, end in spans):
            out.append(m.group())
    return out


def _restates(question: str, answer: str, lang: str) -> bool:
    """The answer adds (almost) nothing to the question's own words."""
    if _NUMBER.search(answer) and not _NUMBER.search(question):
        return False  # it states a figure the question did not
    if echo.picks_from_question(question):
        return False  # "猫更适合上班族" to "猫和狗哪个更适合上班族" picks one
    if echo.answers_in_its_words(question, answer, lang):
        return False
    qa, aa = content_tokens(question), content_tokens(answer)
    new = aa - qa
    return bool(aa) and not new and len(aa & qa) >= max(1, len(qa) // 2)


# part of every non-answer judge's identity that applies these rules (cached verdicts of other rules are not reused)
RULES_VERSION = "v5"

# (reason, test) in the order tried: each precise enough on its own to flag whatever the head says
SURE_FAMILIES = (
    ("inability", plain.inability),
    ("deferral", plain.deferral),
    ("meta", plain.meta),
    ("restatement", echo.restatement),
    ("tautology", echo.tautology),
)
SURE_SCORE = 0.95


def sure_family(question: str, answer: str, lang: str) -> str:
    """The first of :data:`SURE_FAMILIES` that calls the answer a non-answer, or "" (always "" to a text longer
    than a question: schemas.judgement.short_question)."""
    if not short_question(question):
        return ""
    return next((reason for reason, test in SURE_FAMILIES if test(question, answer, lang)), "")


class RuleNonAnswer:
    """The pattern rules as a :class:`models.nonanswer.base.NonAnswerDetector` (``non_answer.model: rules``)."""

    model_id = f"nonanswer-rules-{RULES_VERSION}"
    threshold = 0.5
    per_item = True  # each answer judged alone, the same in any batch: the judgement cache may keep it

    def judgement(self, question: str, answer: str, lang: str) -> Judgement:
        """A sure family's judgement (``sure``: flagged at any threshold), else the pattern families' score."""
        family = sure_family(question, answer, lang)
        if family:
            return Judgement(SURE_SCORE, family, {"family": family, "sure_rule": True}, True)
        return Judgement(*self.judge_patterns(question, answer, lang))

    def judge(self, question: str, answer: str, lang: str) -> tuple[float, str]:
        """(score, reason) of :meth:`judgement`."""
        j = self.judgement(question, answer, lang)
        return j.score, j.reason

    def judge_patterns(self, question: str, answer: str, lang: str) -> tuple[float, str]:
        """The older pattern families and the plain restatement alone (no sure family)."""
        key = "zh" if _is_zh(lang) else "en"
        clauses = _CLAUSE.findall(answer) or [answer]
        reason, kept = "", []
        for clause in clauses:
            spans = [(r, m.span()) for r, en, zh in _COMPILED for m in unconditional(zh if key == "zh" else en, clause)]
            if spans:
                reason = reason or spans[0][0]
                outside = _parts_outside(clause, [span for _, span in spans])
                if new_figures(question, "".join(outside)):  # "无法预测，近两年都在270分左右": the figure stays
                    kept.extend(outside)
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
        return [self.judgement(q, a, lang) for q, a, lang in items]

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items)
