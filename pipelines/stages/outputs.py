"""The build's side outputs as Beam steps: Parquet sinks, the store write, and counts computed as data.

Counts go to ``stats.json`` as data (exact on every runner, unlike metrics); each is a
``(name, value)`` pair flattened into one list.

``staging`` is a local folder or, for a base on a store (``gs://``, ``s3://``, ...), the staging prefix
there: every file goes through Beam FileSystems (the store and its indexes are written into a local
temporary folder by the worker, then copied up), so workers on other machines write where the launcher
reads.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import apache_beam as beam
from apache_beam.io.parquetio import WriteToParquet

from indexes.store import write_store
from pipelines.stages.metering import metered_call
from pipelines.stages.topics import assign_topics, write_topics
from schemas.config import TopicsConfig
from schemas.layout import STATS_FILE, as_url, is_remote, join, upload, write_bytes


def parquet_sink(folder: str, file_name: str, schema) -> WriteToParquet:
    """One Parquet file ``folder/file_name`` (a single shard, so the name is exact); ``folder`` may be a URL."""
    return WriteToParquet(join(folder, file_name.removesuffix(".parquet")), schema=schema,
                          file_name_suffix=".parquet", num_shards=1, shard_name_template="")


def count(pcoll, name: str):
    return (pcoll
            | f"Count_{name}" >> beam.combiners.Count.Globally()
            | f"Name_{name}" >> beam.Map(lambda n, k=name: (k, n)))


def count_by(pcoll, name: str, fn):
    return (pcoll
            | f"Key_{name}" >> beam.Map(fn)
            | f"CountPer_{name}" >> beam.combiners.Count.PerElement()
            | f"ToList_{name}" >> beam.combiners.ToDict()
            | f"Name_{name}" >> beam.Map(lambda d, k=name: (k, dict(sorted(d.items())))))


def named(pcoll, name: str, combine):
    """One value combined from ``pcoll`` (``beam.CombineGlobally(combine)``), as ``(name, value)``."""
    return (pcoll
            | f"Combine_{name}" >> beam.CombineGlobally(combine)
            | f"Name_{name}" >> beam.Map(lambda v, k=name: (k, v)))


def write_stats(pairs, staging: str) -> None:
    text = json.dumps(dict(sorted(pairs)), indent=2)
    if is_remote(as_url(staging)):
        write_bytes(join(staging, STATS_FILE), text.encode("utf-8"))
    else:
        (Path(staging) / STATS_FILE).write_text(text, encoding="utf-8")


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


def write_stats_of(counts: list, staging: str):
    """``(name, value)`` pairs from several PCollections -> ``stats.json`` in ``staging``."""
    return (counts
            | "AllCounts" >> beam.Flatten()
            | "CollectCounts" >> beam.combiners.ToList()
            | "WriteStats" >> beam.Map(write_stats, staging=staging))


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
