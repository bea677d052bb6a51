"""Write the QA store with its index: ``qa.parquet`` in rank order and the FAISS index, row i = vector i.

The index is built by :class:`indexes.builder.FaissIndexBuilder`; its facts (type, recall@10 against
exact search, nprobe) go to ``index_infos.json`` and into the manifest.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from indexes.builder import FaissIndexBuilder, IndexBuilder
from schemas import QA_SCHEMA
from schemas.config import IndexConfig
from schemas.errors import PublishError
from schemas.layout import INDEX_FILE, INDEX_INFOS_FILE, QA_FILE


def write_store(rows: list[dict], staging: str, index_cfg: IndexConfig, builder: IndexBuilder | None = None) -> dict:
    """qa.parquet (rank order) + index (row i = vector i) + index_infos.json; returns index facts.
    ``builder``: the index builder (default: FAISS as ``index_cfg`` says)."""
    out = Path(staging)
    rows = sorted(rows, key=lambda r: r["rank"])
    dim = len(rows[0]["vector"]) if rows else 384
    vectors = np.stack([np.asarray(r.pop("vector"), dtype=np.float32) for r in rows]) if rows \
        else np.zeros((0, dim), np.float32)
    table = pa.Table.from_pylist(rows, schema=QA_SCHEMA)
    pq.write_table(table, out / QA_FILE)
    builder = builder or FaissIndexBuilder(index_cfg.factory, index_cfg.metric, index_cfg.flat_max,
                                           index_cfg.memory_budget_mb, index_cfg.recall_floor, index_cfg.use_gpu)
    facts = builder.build(vectors, out / INDEX_FILE)
    facts["qa_rows"] = len(rows)
    (out / INDEX_INFOS_FILE).write_text(json.dumps(facts, indent=2), encoding="utf-8")
    return facts


def enforce_recall_floor(facts: dict, floor: float) -> None:
    if facts["recall_at_10"] < floor:
        raise PublishError(f"index: recall@10 {facts['recall_at_10']:.3f} of {facts['factory']} (nprobe "
                           f"{facts.get('nprobe', '-')}) is below index.recall_floor {floor}; "
                           "raise index.memory_budget_mb, choose another index.factory, or lower the floor")
