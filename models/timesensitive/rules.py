"""``rules``: time-sensitivity by cue families (price, exchange and stock rates, releases, this year's
dates, the latest X, lottery, who holds an office now, weather, rankings). Each family is a reason.

Decision order: a sure cue (models.timesensitive.cues: narrow patterns with their own guards) flags the
question at any threshold, with its family as the reason; otherwise the broad families below score it.

A cue is evidence, not proof: "How much did the Louisiana Purchase cost?" and "Who was the first
president?" name prices and offices but never change, so past tense and "first"/"founded"/"in <year>"
questions weaken a match; the ``embedding`` backend learns the rest from labelled questions.
"""

from __future__ import annotations

import re

from models.timesensitive.base import score_questions
from models.timesensitive.cues import CUES_VERSION, reads_fixed, reads_past, sure_cue
from schemas.judgement import Judgement
from schemas.text import reads_as_chinese as _is_zh

# (reason, English pattern, Chinese pattern)
FAMILIES = (
    ("price",
     r"\b(how much (?:is|are|does|do|will|would|should)\b|prices?\b|costs?\b|fees?\b|fares?\b|tuition\b|"
     r"rent\b|salary\b|worth\b)",
     r"(多少钱|价格|价钱|售价|报价|费用|价位|学费|票价|房价|油价|金价|工资|收费|多少元|几块钱)"),
    ("rate",
     r"\b(exchange rate|stock|shares?|bitcoin|btc|ethereum|crypto|dow jones|nasdaq|s&p|interest rates?|"
     r"mortgage rates?|inflation)\b",
     r"(汇率|股价|股票|比特币|以太坊|大盘|基金|利率|房贷利率|通胀|涨了吗|跌了吗)"),
    ("release",
     r"\b(release date|come out|coming out|be released|launch(?:es|ing)?\b|upcoming|next (?:season|episode|"
     r"version|generation|model|update|game|movie|album|book)|season \d+|pre-?order)",
     r"(什么时候(?:上映|发布|上市|出|开播|开售|更新|发售)|发布会|上市时间|新款|下一(?:代|季|部|集)|第[0-9一二三四五六七八九十]+季|"
     r"预售|首发|定档)"),
    ("this_year",
     r"\b(this (?:year|season|week|month|weekend|semester|term)|next (?:year|week|month)|tonight|today|"
     r"tomorrow|yesterday|upcoming)\b",
     r"(今年|明年|本周|这周|本月|这个月|今天|明天|今晚|昨天|近期|这几天|本学期|开学时间|放假安排|寒假|暑假|高考时间|考试时间|报名时间)"),
    ("latest",
     r"\b(latest|newest|most recent|recently|current(?:ly)?|right now|now\b|nowadays|these days|as of|"
     r"still (?:open|available|alive|playing|running)|anymore|so far)",
     r"(最新|目前|现在|当前|如今|眼下|最近|至今|还在|还有没有|更新到|最近一(?:期|集|次))"),
    ("lottery",
     r"\b(lottery|powerball|mega millions|winning numbers|jackpot|draw results)\b",
     r"(彩票|双色球|大乐透|福彩|体彩|开奖|中奖号码|七星彩)"),
    ("officeholder",
     r"\b(who (?:is|are) (?:the )?(?:current |new )?(?:president|prime minister|ceo|chairman|chair|head coach|"
     r"coach|mayor|governor|leader|champion|secretary|minister|manager|captain|owner|king|queen|pope)|"
     r"who (?:runs|leads|owns|coaches|manages)\b|reigning|incumbent)",
     r"(现任|谁是.{0,8}(?:总统|总理|主席|CEO|董事长|总裁|主教练|市长|冠军|部长|校长|首相|行长)|新任|接任)"),
    ("weather",
     r"\b(weather|forecast|temperature (?:today|tomorrow|now)|will it rain|air quality|traffic)\b",
     r"(天气|气温|下雨吗|下雪吗|空气质量|雾霾|路况|堵车)"),
    ("ranking",
     r"\b(best-?selling|top (?:\d+|ten|five)|most popular|ranking|ranked|standings|leaderboard|box office|"
     r"trending|charts?\b|number one|no\. ?1)",
     r"(排名|排行榜|票房|热搜|最火|最受欢迎|榜单|积分榜|第一名)"),
)
_COMPILED = [(reason, re.compile(en, re.I), re.compile(zh)) for reason, en, zh in FAMILIES]
# stable despite a cue: past events, firsts, founding, a year named as the past
_STABLE_EN = re.compile(r"\b(did|was|were|first|founded|invented|originally|history|historical|in (?:1[0-9]|200|201)\d\b|"
                        r"ancient|used to)\b", re.I)
_STABLE_ZH = re.compile(r"(历史上|第一(?:个|位|届|次)|最早|古代|当年|曾经|发明|成立于|是哪一年|哪年|哪一年|朝代|唐朝|宋朝|明朝|清朝)")
REASONS = tuple(r for r, _, _ in FAMILIES)


def cue_families(question: str, lang: str) -> list[str]:
    """The families whose cue the question holds (both languages' patterns for a mixed question)."""
    out = []
    for reason, en, zh in _COMPILED:
        if (zh.search(question) if _is_zh(lang) else en.search(question)) or (lang == "mixed" and en.search(question)):
            out.append(reason)
    return out


def looks_stable(question: str, lang: str) -> bool:
    return bool((_STABLE_ZH if _is_zh(lang) else _STABLE_EN).search(question))


SURE_SCORE = 0.95  # the rules' score for a sure cue (flagged at any threshold anyway: Judgement.sure)


class RuleTimeSensitivity:
    """Score: a sure cue 0.95 (flagged whatever the threshold); else 0.7 for one broad cue family, 0.85 for two
    or more, halved when the question reads as past or fixed (a definition, a how-to, a rule of thumb)."""

    model_id = f"timesensitive-rules-v1+{CUES_VERSION}"
    threshold = 0.5

    @staticmethod
    def space(lang: str) -> str:
        return "zh" if _is_zh(lang) else "en"

    def embedders(self) -> dict:
        return {}

    def own_threshold(self, lang: str) -> float:
        return self.threshold

    def judgements(self, questions, langs, vectors=None) -> list[Judgement]:
        out = []
        for q, lang in zip(questions, langs):
            cue = sure_cue(q, lang)
            if cue:
                out.append(Judgement(SURE_SCORE, cue, {"cue": cue}, True))
                continue
            fams = cue_families(q, lang)
            s = 0.0 if not fams else (0.7 if len(fams) == 1 else 0.85)
            if s and (looks_stable(q, lang) or reads_fixed(q, lang) or reads_past(q, lang)):
                s /= 2
            out.append(Judgement(s, fams[0] if fams else ""))
        return out

    def score(self, questions, langs, vectors=None):
        return score_questions(self, questions, langs, vectors)
