"""What a long answer goes on to say, once the opening it shares with the others is set aside.

A chatbot's long answers to one question often open alike: a restatement of the question, the topic's
definition, "there is no single answer to this". The aggregator embeds an answer's opening (its first
``embed_max_chars`` characters, so the non-answer stage's vectors serve it), and where every opening is that same
preamble the vectors are near-duplicates and every answer joins one viewpoint, however different the points they
go on to make (origin, customs, meaning today). Here such answers are read from their first sentence that says
something the group does not all say.

Only long answers (longer than their embedded opening) whose opening vector is a near-duplicate of another long
answer's are looked at: there the openings cannot tell the answers apart. Of them only those whose first sentence
is such preamble are re-read, each embedded a second time (its gist); an answer that opens with a point of its
own keeps its opening, and nothing else changes. On real long LLM answers (arena prompts, three models) most
openings differ already, and re-reading every long answer cost a second embedding of most of them.
"""

from __future__ import annotations

from models.words import content_tokens

COMMON_SHARE = 0.5  # a word at least this share of the group's answers use is the group's, not one answer's
PREAMBLE_SHARE = 0.7  # a sentence whose content words are at least this share the group's says nothing of its own


def group_words(question: str, texts: list[str]) -> frozenset[str]:
    """The question's content words and every content word used by at least COMMON_SHARE of the answers."""
    toks = [content_tokens(t) for t in texts]
    counts: dict[str, int] = {}
    for t in toks:
        for w in t:
            counts[w] = counts.get(w, 0) + 1
    need = COMMON_SHARE * len(texts)
    return frozenset(w for w, c in counts.items() if c >= need) | content_tokens(question)


def gist(text: str, common: frozenset[str], sentences) -> str:
    """``text`` from its first sentence whose content words are not mostly ``common`` (``sentences``: how a
    text is cut into sentences); the whole text when every sentence is preamble."""
    parts = sentences(text)
    for i, sentence in enumerate(parts):
        words = content_tokens(sentence)
        if words and len(words & common) < PREAMBLE_SHARE * len(words):
            if i == 0:  # it opens with a point of its own: its opening already says it
                return text
            return "".join(parts[i:]) if _no_spaces(text) else " ".join(parts[i:])
    return text


def _no_spaces(text: str) -> bool:
    # Chinese sentences are joined as they were written, without a space between them
    return " " not in text.strip()
