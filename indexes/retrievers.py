"""Tools over a published base: QuestionRetriever (top-k related base questions) and AnswerRetriever.

    QuestionRetriever(base_dir).search("how do i reset my password", k=5) -> [Hit(question, qid, score), ...]
    AnswerRetriever(base_dir).get("How do I reset my password?") -> Answer(found, answer, viewpoints, qid, message)

``base_dir`` is a build's output folder (its ``latest`` version is used) or one version
folder, loaded and verified by :mod:`indexes.loading` (a broken base raises
``BaseIntegrityError``; it is never answered from).

The query is embedded with the base's own embedder (recorded in the manifest).
AnswerRetriever tries the exact normalised key first (of a base question or any of its aliases: the
paraphrases merged into it); a question the logs asked but the base withholds (every answer was a
non-answer, or time-sensitive under policy drop) gets the no-information reply with the reason in
``withheld``; otherwise the nearest base question
whose cosine similarity reaches ``threshold``; otherwise it returns ``found = False``
and the fixed message that tells an agent to backtrack:
``调用AnswerRetriever查询{q}没有有效信息`` (Chinese queries) or
``AnswerRetriever found no valid information for {q}``.

A loaded base is shared by both tools and cached per version; searches are
thread-safe (the embedder runs under a lock, FAISS searches are read-only).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from indexes.loading import LoadedBase, load_base
from schemas.errors import QabaseError
from schemas.text import detect_lang, normalize_key

NO_INFO_ZH = "调用AnswerRetriever查询{q}没有有效信息"
NO_INFO_EN = "AnswerRetriever found no valid information for {q}"


class Hit(NamedTuple):
    question: str
    qid: str
    score: float


class Answer(NamedTuple):
    found: bool
    answer: str
    viewpoints: list[dict]
    qid: str
    message: str
    matched_question: str = ""
    score: float = 0.0
    # the answer may be stale (prices, this year's dates, the latest X, who holds an office now): check it
    # against the period of the logs it came from ({"first": date, "last": date}, or None: no timestamps)
    time_sensitive: bool = False
    logs_period: dict | None = None
    # why nothing was found when the logs did ask this question: no_valid_answer (every judged answer the
    # chatbot gave, its grouping.max_answers most given, was a non-answer) or time_sensitive (dropped by
    # policy); "" otherwise
    withheld: str = ""


def no_info_message(query: str) -> str:
    return (NO_INFO_ZH if detect_lang(query) in ("zh", "mixed") else NO_INFO_EN).format(q=query)


MODES = ("dense", "bm25", "hybrid")


class QuestionRetriever:
    """``mode``: ``dense`` (the base's embedder, default), ``bm25`` (words / Chinese characters and bigrams),
    or ``hybrid`` (reciprocal-rank fusion of both top-``pool`` lists; scores are then RRF scores)."""

    def __init__(self, base_dir: str | Path, embedder=None, mode: str = "dense", pool: int = 50):
        if mode not in MODES:
            raise QabaseError(f"retrieval mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.base = base_dir if isinstance(base_dir, LoadedBase) else load_base(base_dir, embedder)
        self.mode = mode
        self.pool = pool

    def search_batch(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        b = self.base
        if not queries:
            return []
        if k < 1:
            raise QabaseError("k must be at least 1")
        if not b.questions:
            return [[] for _ in queries]
        kk = min(k, len(b.questions))
        if self.mode == "bm25":
            scores, ids = b.bm25.search(queries, kk)
        elif self.mode == "dense":
            scores, ids = b.index.search(b.embed(queries), kk)
        else:
            from indexes.bm25 import rrf

            depth = min(max(self.pool, kk), len(b.questions))
            _, dense_ids = b.index.search(b.embed(queries), depth)
            _, lex_ids = b.bm25.search(queries, depth)
            fused = [rrf([d, lx], kk) for d, lx in zip(dense_ids, lex_ids)]
            return [[Hit(b.questions[i], b.qids[i], s) for i, s in row] for row in fused]
        return [[Hit(b.questions[i], b.qids[i], round(float(s), 6)) for s, i in zip(srow, irow) if i >= 0]
                for srow, irow in zip(scores, ids)]

    def search(self, query: str, k: int = 5) -> list[Hit]:
        return self.search_batch([query], k)[0]


class AnswerRetriever:
    def __init__(self, base_dir: str | Path, threshold: float = 0.9, embedder=None):
        self.base = load_base(base_dir, embedder)
        self.threshold = threshold

    def _answer(self, row: int, score: float) -> Answer:
        b = self.base
        stale = bool(b.time_sensitive[row]) if b.time_sensitive else False
        period = b.periods[row] if b.periods else None
        return Answer(True, b.answers[row], b.viewpoints[row], b.qids[row], "", b.questions[row], round(score, 6),
                      stale, period)

    def get_batch(self, questions: list[str]) -> list[Answer]:
        b = self.base
        out: list[Answer | None] = [None] * len(questions)
        todo = []
        for i, q in enumerate(questions):
            key = normalize_key(q)
            row = b.key_to_row.get(key)
            if row is not None:
                out[i] = self._answer(row, 1.0)
            elif key in b.withheld:  # asked in the logs, never answered validly: no near neighbour stands in
                out[i] = Answer(False, "", [], "", no_info_message(q), withheld=b.withheld[key])
            else:
                todo.append(i)
        if todo and b.questions:
            scores, ids = b.index.search(b.embed([questions[i] for i in todo]), 1)
            for i, s, r in zip(todo, scores[:, 0], ids[:, 0]):
                if r >= 0 and s >= self.threshold:
                    out[i] = self._answer(int(r), float(s))
        return [a if a is not None else Answer(False, "", [], "", no_info_message(q))
                for a, q in zip(out, questions)]

    def get(self, question: str) -> Answer:
        return self.get_batch([question])[0]
