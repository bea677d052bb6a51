"""Naming topics by their most telling words: class-based TF-IDF (c-TF-IDF, as BERTopic names its topics).

Each topic's texts are one document; a word's weight in a topic is its frequency there (per word of the topic)
times log(1 + A / f), A the mean number of words per topic and f the word's frequency over every topic: words
frequent in the topic and rare elsewhere name it. Ties go to the longer word, then the first in code-point order.

A topic is named in the language of its questions: the embedder puts every language in one space, so one topic
can hold "Is tea better than coffee?" and "咖啡好还是茶好？"; only the texts in the language most of its texts are
in (ties: the language of its first, most asked, text) give it words, so a name never mixes languages.

Words (:func:`naming_tokens`) are English words and Chinese characters with the bigrams of adjacent characters,
each counted once per text, less the words that say nothing about a topic: English stop words, Chinese function
characters (no bigram holding one is a word: "好还" out of "咖啡好还是茶好") and a short list of Chinese
question and time words ("什么", "多少", "今年": neither they nor a bigram reaching into one). The lists are
fixed here, so a name depends on the texts only.
Single Chinese characters name a topic only when it has too few other words, and never beside a chosen bigram
that holds them ("退款" rather than "退款 · 退 · 款").
"""

from __future__ import annotations

import math
import re
from collections import Counter

from models.topics.base import UNASSIGNED, UNASSIGNED_NAME
from models.words import STOP
from schemas.config import TopicsConfig

NAME_SEPARATOR = " · "

_WORD = re.compile(r"[a-z][a-z0-9]*(?:'[a-z]+)?|[0-9]+[a-z][a-z0-9]*")  # a word has a letter: "15" names nothing
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_LATIN = re.compile(r"[A-Za-z]")

# what questions say whatever they ask about, beyond models.words.STOP (which the answer clusterer also uses)
ENGLISH_STOP = STOP | frozenset(
    "about above after again all am any because before being below between both each few further had has have "
    "having into more most much many other own same some such only too under until up down over out off once nor "
    "i'm what's how's whats hows please tell know get gets got make need want like best better good way one use "
    "thing things someone something anyone anything people much many now today".split())
# Chinese characters that carry grammar, not a subject: neither a word alone nor part of a bigram
CHINESE_STOP_CHARS = frozenset("的了是在和与就都也把被对从向给让很吗呢吧啊么着过得地我你他她它这那个有"
                               "还好哪什怎多啥谁呀哦嗯又再才不没")
# Chinese question, quantity and time words that any topic's questions may hold
CHINESE_STOP_WORDS = frozenset(
    "什么 怎么 怎样 如何 为什么 为何 哪里 哪儿 哪个 哪些 可以 能否 是否 一个 一下 一些 一样 一点 这个 那个 这些 那些 "
    "还是 请问 我们 你们 他们 今年 明年 去年 今天 明天 昨天 现在 最近 时候 多少 几个 需要 想要 知道 告诉 应该 因为 "
    "所以 但是 如果 已经 就是 还有 没有 不是 自己 比较 非常 适合 值得 有意 意思".split())


def text_language(text: str) -> str:
    """"zh" when a text has at least as many Chinese characters as Latin letters / 4 (about a word each), else "en"."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    return "zh" if cjk and cjk >= len(_LATIN.findall(text)) / 4 else "en"


def naming_tokens(text: str) -> frozenset[str]:
    """The words of ``text`` that can name a topic (the module docstring)."""
    low = text.lower()
    out = {w for w in _WORD.findall(low) if len(w) > 1 and w not in ENGLISH_STOP}
    for run in _CJK_RUN.findall(low):
        # a stop word's characters end words as a stop character does: no bigram reaches into "今年" ("年高" out
        # of "今年高考")
        stopped = [ch in CHINESE_STOP_CHARS for ch in run]
        for i in range(len(run)):
            for n in (3, 2):
                if run[i:i + n] in CHINESE_STOP_WORDS:
                    stopped[i:i + n] = [True] * n
        out.update(ch for ch, s in zip(run, stopped) if not s)
        out.update(run[i:i + 2] for i in range(len(run) - 1) if not stopped[i] and not stopped[i + 1])
    return frozenset(out)


def _is_cjk_char(word: str) -> bool:
    return len(word) == 1 and "\u4e00" <= word <= "\u9fff"


def topic_language(texts: list[str]) -> str:
    """The language most of ``texts`` are in; a tie goes to the first text's."""
    langs = [text_language(t) for t in texts]
    counts = Counter(langs)
    return max(counts, key=lambda lang: (counts[lang], lang == langs[0])) if langs else "en"


def topic_words(texts: list[list[str]], labels: list[int], words: int = TopicsConfig.words) -> dict[int, list[str]]:
    """``texts[i]``: the texts of point i (an entry's question and its other forms), the most asked point first;
    ``labels[i]``: its topic. The ``words`` most telling words of every topic but ``UNASSIGNED`` (whose texts
    still count in f), in the topic's language, best first, ties in word order."""
    by_topic: dict[int, list[str]] = {}
    for point_texts, label in zip(texts, labels):
        by_topic.setdefault(int(label), []).extend(point_texts)
    counts: dict[int, Counter] = {}
    overall: Counter = Counter()
    for label, topic_texts in by_topic.items():
        lang = topic_language(topic_texts)
        c = counts.setdefault(label, Counter())
        for text in topic_texts:
            toks = naming_tokens(text)
            overall.update(toks)
            if label == UNASSIGNED or text_language(text) == lang:
                c.update(toks)
    if not counts:
        return {}
    mean_words = sum(sum(c.values()) for c in counts.values()) / len(counts)
    out = {}
    for label, c in sorted(counts.items()):
        if label == UNASSIGNED:
            continue
        total = sum(c.values()) or 1
        # a single Chinese character seldom tells a topic: one names it only when fewer than ``words`` other
        # words are there
        others = [w for w in c if not _is_cjk_char(w)]
        candidates = others if len(others) >= words else list(c)
        scored = sorted(candidates, key=lambda w: (-(c[w] / total) * math.log(1.0 + mean_words / overall[w]),
                                                   -len(w), w))
        chosen: list[str] = []
        for w in scored:
            if _is_cjk_char(w) and any(w in b for b in chosen if len(b) == 2):
                continue
            if len(w) == 2 and all(_is_cjk_char(ch) for ch in w):
                chosen = [x for x in chosen if not (_is_cjk_char(x) and x in w)]
            chosen.append(w)
            if len(chosen) == words:
                break
        out[label] = chosen[:words]
    return out


def topic_name(label: int, words: list[str]) -> str:
    if label == UNASSIGNED:
        return UNASSIGNED_NAME
    return NAME_SEPARATOR.join(words) if words else f"topic {label}"
