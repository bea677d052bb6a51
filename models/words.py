"""Content words of a text, shared by the model kinds that compare or name texts by their words: English words
(stop words out) and Chinese characters with their bigrams (a bigram carries more than a character).

Used by the answer clusterer (models.aggregators.embedding: lexical distance, the question's topic words) and
by the topic namer (models.topics.naming: the words that tell a topic apart). Kinds never import each other,
so what both need lives here, below them.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[\u4e00-\u9fff]")
STOP = frozenset(
    "a an the is are was were be been it its it's this that these those of to in on at for by with from and or "
    "but if so as i you he she we they my your our their me him her us them do does did not no yes can could "
    "would should will just very really also there here what which who how when where why than then".split()
    + list("的了是在和与就都也把被对从向给让很吗呢吧啊么着过得地我你他她它这那个有"))


def content_tokens(text: str) -> frozenset[str]:
    toks = TOKEN.findall(text.lower())
    content = [t for t in toks if t not in STOP]
    out = set(content)
    # CJK: character bigrams carry more than single characters
    cjk = [t for t in toks if len(t) == 1 and "\u4e00" <= t <= "\u9fff" and t not in STOP]
    out.update(a + b for a, b in zip(cjk, cjk[1:]))
    return frozenset(out)
