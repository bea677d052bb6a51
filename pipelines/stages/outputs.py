"""The build's side outputs as Beam steps: Parquet sinks, the store write, and counts computed as data.

Counts go to ``stats.json`` as data (exact on every runner, unlike metrics); each is a
``(name, value)`` pair flattened into one list.
"""

from __future__ import annotations

import json
from pathlib import Path

import apache_beam as beam
from apache_beam.io.parquetio import WriteToParquet

from indexes.store import write_store
from pipelines.stages.metering import metered_call
from schemas.layout import STATS_FILE


def parquet_sink(folder: str, file_name: str, schema) -> WriteToParquet:
    """One Parquet file ``folder/file_name`` (a single shard, so the name is exact)."""
    return WriteToParquet(str(Path(folder) / file_name.removesuffix(".parquet")), schema=schema,
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
    (Path(staging) / STATS_FILE).write_text(json.dumps(dict(sorted(pairs)), indent=2), encoding="utf-8")


def write_stats_of(counts: list, staging: str):
    """``(name, value)`` pairs from several PCollections -> ``stats.json`` in ``staging``."""
    return (counts
            | "AllCounts" >> beam.Flatten()
            | "CollectCounts" >> beam.combiners.ToList()
            | "WriteStats" >> beam.Map(write_stats, staging=staging))


class WriteStore(beam.PTransform):
    """qa rows -> ``qa.parquet`` + the index in ``staging`` (one writer: row i = vector i needs one order)."""

    def __init__(self, staging: str, index_cfg):
        super().__init__()
        self._staging = staging
        self._index_cfg = index_cfg

    def expand(self, rows):
        return (rows
                | "CollectStore" >> beam.combiners.ToList()
                | "WriteStore" >> beam.Map(lambda r, s, c: metered_call("write", write_store, r, s, c),
                                           self._staging, self._index_cfg))
