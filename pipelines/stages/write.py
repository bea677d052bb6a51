"""Stage ``write``: the published rows become the store (``qa.parquet`` and its indexes, row i = vector i) and,
with ``topics.*``, the entries' topics (pipelines.stages.topics) in qa.parquet and topics.parquet.

``staging`` is a local folder or, for a base on a store (``gs://``, ``s3://``, ...), the staging prefix
there: the store and its indexes are written into a local temporary folder by the worker, then copied up,
so workers on other machines write where the launcher reads.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import apache_beam as beam

from indexes.store import write_store
from pipelines.beam.metering import metered_call
from pipelines.stages.topics import assign_topics, write_topics
from schemas.config import TopicsConfig
from schemas.layout import as_url, is_remote, join, upload


def store_to(rows: list[dict], staging: str, index_cfg, topics_cfg=None) -> dict:
    """:func:`indexes.store.write_store` into ``staging``, with the entries' topics (``topics_cfg``:
    topics.*; None: none, as topics.enabled false) in qa.parquet and topics.parquet; a URL: into a local
    temporary folder, then each file copied to the staging prefix (FAISS writes local files only)."""
    staging = as_url(staging)
    if not is_remote(staging):
        return _store_with_topics(rows, staging, index_cfg, topics_cfg)
    with tempfile.TemporaryDirectory(prefix="qabase-store-") as tmp:
        facts = _store_with_topics(rows, tmp, index_cfg, topics_cfg)
        for f in sorted(Path(tmp).iterdir()):
            if f.is_file():
                upload(f, join(staging, f.name))
    return facts


def _store_with_topics(rows: list[dict], folder: str, index_cfg, topics_cfg) -> dict:
    """Topics first (they read the rows' index vectors, which write_store takes off), then the store."""
    rows = sorted(rows, key=lambda r: r["rank"])
    table = assign_topics(rows, topics_cfg or TopicsConfig(enabled=False))
    facts = write_store(rows, folder, index_cfg)
    if table is not None:
        write_topics(table, folder)
    return facts


class WriteStore(beam.PTransform):
    """qa rows -> ``qa.parquet`` + the index in ``staging`` (one writer: row i = vector i needs one order), and the
    entries' topics (``topics_cfg``; None: none)."""

    def __init__(self, staging: str, index_cfg, topics_cfg=None):
        super().__init__()
        self._staging = staging
        self._index_cfg = index_cfg
        self._topics_cfg = topics_cfg

    def expand(self, rows):
        return (rows
                | "CollectStore" >> beam.combiners.ToList()
                | "WriteStore" >> beam.Map(lambda r, s, c, t: metered_call("write", store_to, r, s, c, t),
                                           self._staging, self._index_cfg, self._topics_cfg))
