"""Naming topics by their most telling words: class-based TF-IDF (c-TF-IDF, as BERTopic names its topics).

Each topic's texts are one document; a word's weight in a topic is its frequency there (per word of the topic)
times log(1 + A / f), A the mean number of words per topic and f the word's frequency over every topic: words
frequent in the topic and rare elsewhere name it. Words are models.words.content_tokens (the answer clusterer's:
English words without stop words, Chinese characters and character bigrams), counted once per text. Single Chinese
characters name a topic only when it has too few other words, and never beside a chosen bigram that holds them
("退款" rather than "退款 · 退 · 款"); ties go to the longer word, then the first in code-point order.
"""

from __future__ import annotations

import math
from collections import Counter

from models.topics.base import UNASSIGNED, UNASSIGNED_NAME
from models.words import content_tokens
from schemas.config import TopicsConfig

NAME_SEPARATOR = " · "


def _is_cjk_char(word: str) -> bool:
    return len(word) == 1 and "\u4e00" <= word <= "\u9fff"


def topic_words(texts: list[list[str]], labels: list[int], words: int = TopicsConfig.words) -> dict[int, list[str]]:
    """``texts[i]``: the texts of point i (an entry's question and its other forms); ``labels[i]``: its topic.
    The ``words`` most telling words of every topic but ``UNASSIGNED`` (whose texts still count in f), best
    first, ties in word order."""
    counts: dict[int, Counter] = {}
    for point_texts, label in zip(texts, labels):
        c = counts.setdefault(int(label), Counter())
        for text in point_texts:
            c.update(content_tokens(text))
    overall: Counter = Counter()
    for c in counts.values():
        overall.update(c)
    if not counts:
        return {}
    mean_words = sum(sum(c.values()) for c in counts.values()) / len(counts)
    out = {}
    for label, c in sorted(counts.items()):
        if label == UNASSIGNED:
            continue
        total = sum(c.values()) or 1
        # a single Chinese character seldom tells a topic ("还", "哪"): one names it only when fewer than ``words``
        # other words are there
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
