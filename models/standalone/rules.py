"""``rules``: does a question name what it asks about? No model: word lists (models.standalone.words).

A question is scanned into asking words (question words, particles, everyday verbs, evaluative predicates,
attribute nouns such as 门票 / price) and content (everything else: names, topic nouns, numbers). It cannot stand
alone when nothing is left as content, which covers three cues, each named in the details:

- ``bare_predicate``: a predicate with no subject ("多少钱", "要门票吗", "how long does it take?", "is it safe?");
- ``deictic``: 这个 / 那个 / 它 / this / that / it pointing at nothing named (a noun after a pointing word and
  its classifier is still unnamed: "这首歌叫什么", "who sings this song"): "iPhone 15 它防水吗" names its referent,
  so it has content and stands;
- ``follow_up``: a turn that continues another ("那北京呢", "上海呢", "what about London?", "and in winter?"), flagged
  even though it names something, because the predicate it asks is the previous turn's.

Greetings, thanks and questions about the assistant or the clock ("你是谁", "现在几点", "what time is it") stand alone
although made of asking words; they are chit-chat (the intent scorer's judgement), never ``no_subject``.
"""

from __future__ import annotations

import re

from models.standalone.words import (EN_ATTRIBUTES, EN_AUDIENCE, EN_DEICTIC, EN_FOLLOW_UP, EN_FUNCTION,
                                     EN_PREDICATES, ZH_ASKED_UNITS, ZH_ATTRIBUTES, ZH_AUDIENCE, ZH_AUDIENCE_THEN,
                                     ZH_CLASSIFIERS, ZH_DEICTIC, ZH_FOLLOW_UP_OPENERS, ZH_FUNCTION, ZH_NUMERALS,
                                     ZH_PREDICATES, ZH_RISKY_SINGLES)
from schemas.judgement import Judgement
from schemas.text import reads_as_chinese

REASON = "no_subject"
NO_CONTENT = 0.9  # nothing but asking words: a short question
NO_CONTENT_LONG = 0.6  # the same in a longer question (more room for a topic the lists call generic)
FOLLOW_UP = 0.8  # a continuation naming only what changes ("那北京呢")
LONG_ZH = 12  # characters
LONG_EN = 8  # words
FOLLOW_UP_MAX_ZH = 6  # characters between the opener and 呢
FOLLOW_UP_MAX_EN = 6  # words in all

_PUNCT = re.compile(r"[\s\u3000？?！!。.，,、；;：:~～…\"'“”‘’《》()（）\[\]【】-]+")
_LATIN = re.compile(r"[A-Za-z0-9]+")

# ---- Chinese --------------------------------------------------------------------------------------

_ZH_SAFE = frozenset(ZH_FUNCTION) | frozenset(ZH_PREDICATES) | frozenset(ZH_ATTRIBUTES) | frozenset(ZH_DEICTIC)
_ZH_LONGEST = max(len(w) for w in _ZH_SAFE)
_ZH_POINTERS = ("这些", "那些", "这", "那")  # may take a classifier and a noun: 这首歌, 那部电影, 这些年
_ZH_ASKS = re.compile(r"(什么|啥|怎|为何|如何|多少|哪|谁|几|吗|是不是|有没有|能不能|会不会|要不要)")
_ZH_PARTICLES = re.compile("[吗呢吧啊呀嘛么了的哦嗯哈]")
_ZH_MORE = re.compile("继续|接着|详细|解释|举个?例|例子|换一个|再来|还有|然后|简单点|展开")  # asks for more of a reply
_ZH_CHITCHAT = re.compile(
    r"(你好|您好|你好吗|在吗|在不在|在么|你是谁|你叫什么(名字)?|你能(做|干)什么|你会(做|干)?什么|你有什么(用|功能)|"
    r"你(多大|几岁)(了)?|我是谁|吃了吗|(现在)?几点(了)?|今天(几号|星期几|周几|礼拜几)|好的|好吧|是的|是吗|对|行|可以|嗯+|哦+|哈+|谢谢.*)[呢呀哦啊吧]?")


def _safe_at(text: str, i: int) -> int:
    """Length of the longest safe asking word (multi-character, or a single that never forms a topic word
    with another asking character) starting at ``i``; 0 if none."""
    for n in range(min(_ZH_LONGEST, len(text) - i), 0, -1):
        if text[i:i + n] in _ZH_SAFE:
            return n
    return 0


def _counted_at(text: str, i: int) -> int:
    """Length of a numeral + classifier (一箱, 两个, 第二个) starting at ``i``; 0 if none."""
    for asked in ("多少", "几"):
        if text.startswith(asked, i) and i + len(asked) < len(text) and text[i + len(asked)] in ZH_ASKED_UNITS:
            return len(asked) + 1
    j = i + 1 if text.startswith("第", i) else i
    k = j
    while k < len(text) and text[k] in ZH_NUMERALS:
        k += 1
    if k > j and k < len(text) and text[k] in ZH_CLASSIFIERS:
        return k + 1 - i
    return 0


def _audience_at(text: str, i: int) -> int:
    """Length of who something is for, followed by a modal (孕妇能…, 小孩可以…): the thing itself is left out."""
    for who in ZH_AUDIENCE:
        if text.startswith(who, i) and text.startswith(ZH_AUDIENCE_THEN, i + len(who)):
            return len(who)
    return 0


def _pointed_at(text: str, i: int) -> int:
    """Length of a pointing noun phrase starting at ``i`` (这首歌, 那部电影, 这两个, 这些年): the pointer, a
    classifier, and up to two characters of the noun it counts, which stays unnamed."""
    pointer = next((p for p in _ZH_POINTERS if text.startswith(p, i)), None)
    if pointer is None:
        return 0
    j = i + len(pointer)
    counted = _counted_at(text, j)
    if counted:
        j += counted
    elif j < len(text) and text[j] in ZH_CLASSIFIERS:
        j += 1
    elif len(pointer) == 1:
        return 0  # 那英, 这样: no classifier, no noun phrase (the word lists judge them)
    head = 0
    while head < 2 and j < len(text) and not _safe_at(text, j) and text[j] not in ZH_RISKY_SINGLES \
            and not _LATIN.match(text, j):
        j += 1
        head += 1
    return j - i


def zh_content(text: str) -> tuple[str, bool]:
    """(the content characters of a Chinese question, whether it points at something), Latin runs included."""
    spans = []  # (kind, text): "safe", "risky", "content"
    pointed = False
    i = 0
    while i < len(text):
        latin = _LATIN.match(text, i)
        if latin:
            spans.append(("content", latin.group()))
            i = latin.end()
            continue
        n = _pointed_at(text, i)
        if n:
            pointed = True
        else:
            n = _counted_at(text, i) or _audience_at(text, i) or _safe_at(text, i)
            if n and text[i:i + n] in ZH_DEICTIC:
                pointed = True
        if n:
            spans.append(("safe", text[i:i + n]))
            i += n
        else:
            spans.append(("risky" if text[i] in ZH_RISKY_SINGLES else "content", text[i]))
            i += 1
    content = []
    for k, (kind, piece) in enumerate(spans):
        if kind == "risky":
            before = spans[k - 1][0] if k else "safe"
            after = spans[k + 1][0] if k + 1 < len(spans) else "safe"
            if before == "safe" and after == "safe":
                continue
        if kind != "safe":
            content.append(piece)
    return "".join(content), pointed


def zh_follow_up(text: str) -> bool:
    """那北京呢, 上海呢, 还有呢, 那如果下雨呢: a short continuation ending in 呢 that asks nothing itself."""
    if not text.endswith("呢"):
        return False
    body = text[:-1]
    for opener in ZH_FOLLOW_UP_OPENERS:
        if body.startswith(opener):
            body = body[len(opener):]
            break
    return len(body) <= FOLLOW_UP_MAX_ZH and not _ZH_ASKS.search(body)


def judge_zh(question: str) -> Judgement:
    text = _PUNCT.sub("", question)
    if not text or _ZH_CHITCHAT.fullmatch(text):
        return Judgement(0.0, "")
    if text.startswith("什么是") and len(text) > 3:  # a definition names its topic: 什么是副作用
        return Judgement(0.0, "", {"content": text[3:]})
    if zh_follow_up(text):
        return Judgement(FOLLOW_UP, REASON, {"cue": "follow_up"})
    content, pointed = zh_content(text)
    if content:
        return Judgement(0.0, "", {"content": content})
    if not _ZH_PARTICLES.sub("", text):
        return Judgement(0.0, "")  # 啊啊啊, 嗯嗯: asks nothing at all (noise, the GEC and intent scorers' call)
    cue = ("follow_up" if _ZH_MORE.search(text) else "deictic" if pointed else "bare_predicate")
    return Judgement(NO_CONTENT_LONG if len(text) >= LONG_ZH else NO_CONTENT, REASON, {"cue": cue})


# ---- English --------------------------------------------------------------------------------------

_EN_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_EN_ASKING = EN_FUNCTION | EN_PREDICATES | EN_ATTRIBUTES | EN_DEICTIC
_EN_ORDINALS = frozenset("first second third last next other previous".split())
_EN_POINTERS = frozenset("this that these those".split())
_EN_POINTED_MAX = 7  # words: in a longer question "that" is more often a conjunction than a pointer
_EN_MORE = frozenset("continue more else example another simpler shorter detail details again".split())
_EN_CHITCHAT = re.compile(
    r"(who|what) are you|who am i|what(s| is) your name|how are you.*|how old are you|where are you from|"
    r"what can you do|what do you do|what time is it( now)?|what(s| is) the time( now)?|what day is (it|today)( today)?|are you (there|ok|okay|real)|thanks?( you)?.*|"
    r"(hi|hello|hey)( there)?|ok(ay)?|yes|no|sure")


def en_words(question: str) -> list[str]:
    return _EN_WORD.findall(question.lower().replace("’", "'"))


def en_content(words: list[str]) -> tuple[list[str], bool]:
    """(the content words of an English question, whether it points at something): a noun after
    this / these / those / that in a short question is still unnamed ("who sings this song")."""
    content, pointed, skip = [], False, False
    for k, w in enumerate(words):
        if skip:
            skip = False
            continue
        if w in EN_DEICTIC:
            pointed = True
            nxt = words[k + 1] if k + 1 < len(words) else ""
            if (w in _EN_POINTERS and nxt and nxt not in _EN_ASKING and nxt not in _EN_ORDINALS
                    and len(words) <= _EN_POINTED_MAX and not nxt.isdigit()):
                skip = True
            continue
        if w in _EN_ASKING or w in _EN_ORDINALS or (w in EN_AUDIENCE and k and words[k - 1] == "for"):
            continue
        content.append(w)
    return content, pointed


def judge_en(question: str) -> Judgement:
    words = en_words(question)
    if not words or _EN_CHITCHAT.fullmatch(" ".join(words).replace("'", "")):
        return Judgement(0.0, "")
    text = " ".join(words)
    if len(words) <= FOLLOW_UP_MAX_EN and any(text == f or text.startswith(f + " ") for f in EN_FOLLOW_UP):
        return Judgement(FOLLOW_UP, REASON, {"cue": "follow_up"})
    content, pointed = en_content(words)
    if not content and (words[:1] == ["define"] or words[:3] in (["what", "is", "a"], ["what", "is", "an"])
                        or (len(words) == 3 and words[:2] in (["what", "is"], ["what", "are"])
                            and words[2] not in EN_DEICTIC)):
        content = words[2:]  # a definition names its topic: "what is a side effect", "what is time"
    if content:
        return Judgement(0.0, "", {"content": " ".join(content)})
    cue = ("follow_up" if _EN_MORE & set(words) or words[0] in ("go", "tell", "say")
           else "deictic" if pointed else "bare_predicate")
    return Judgement(NO_CONTENT_LONG if len(words) >= LONG_EN else NO_CONTENT, REASON, {"cue": cue})


class RuleStandalone:
    """Score 0.9 for a question with no content word (0.6 when it is long), 0.8 for a follow-up turn, else 0
    (reason ``no_subject``; details: which cue)."""

    model_id = "standalone-rules-v1"
    threshold = 0.5

    def own_threshold(self, lang: str) -> float:
        return self.threshold

    def judgements(self, texts: list[str], langs: list[str]) -> list[Judgement]:
        return [judge_zh(t) if reads_as_chinese(lang) else judge_en(t) for t, lang in zip(texts, langs)]
