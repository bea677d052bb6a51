"""The build's side outputs as Beam steps: Parquet sinks, and counts computed as data (``stats.json``).

Counts go to ``stats.json`` as data (exact on every runner, unlike metrics); each is a
``(name, value)`` pair flattened into one list. The store and its indexes are the write stage's
(pipelines.stages.write).

``staging`` is a local folder or, for a base on a store (``gs://``, ``s3://``, ...), the staging prefix
there: every file goes through Beam FileSystems, so workers on other machines write where the launcher
reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import apache_beam as beam
from apache_beam.io.parquetio import WriteToParquet

from schemas.layout import STATS_FILE, as_url, is_remote, join, write_bytes


def parquet_sink(folder: str, file_name: str, schema) -> WriteToParquet:
    """One Parquet file ``folder/file_name`` (a single shard, so the name is exact); ``folder`` may be a URL."""
    return WriteToParquet(join(folder, file_name.removesuffix(".parquet")), schema=schema,
                          file_name_suffix=".parquet", num_shards=1, shard_name_template="")


class Stat(NamedTuple):
    """One figure of stats.json computed from a PCollection's elements: ``kind`` ``count`` (the elements ``fn``
    holds for; None: all), ``sum`` (of ``fn``), ``by`` (how many elements per key ``fn``, a dict sorted by key),
    ``by_each`` (the same over every key of the list ``fn`` gives) or ``combine`` (``fn``: a CombineFn)."""

    name: str
    kind: str
    fn: Callable | None = None


def count(name: str, holds: Callable | None = None) -> Stat:
    return Stat(name, "count", holds)


def total(name: str, value: Callable) -> Stat:
    return Stat(name, "sum", value)


def count_by(name: str, key: Callable) -> Stat:
    return Stat(name, "by", key)


def count_by_each(name: str, keys: Callable) -> Stat:
    return Stat(name, "by_each", keys)


def combined(name: str, fn: beam.CombineFn) -> Stat:
    return Stat(name, "combine", fn)


class StatsFn(beam.CombineFn):
    """Every :class:`Stat` of one PCollection in one pass: the build graph had a combine (8-12 transforms) per
    figure, over half of its ~600 transforms, each a pass over its PCollection (the accepted rows four times)
    and each translated and set up on every build, an increment's included. Output: ``[(name, value)]``."""

    def __init__(self, stats: tuple[Stat, ...]):
        self._stats = stats

    def create_accumulator(self):
        return [s.fn.create_accumulator() if s.kind == "combine" else {} if s.kind in ("by", "by_each") else 0
                for s in self._stats]

    def add_input(self, acc, x):
        for i, s in enumerate(self._stats):
            if s.kind == "count":
                acc[i] += 1 if s.fn is None or s.fn(x) else 0
            elif s.kind == "sum":
                acc[i] += s.fn(x)
            elif s.kind == "combine":
                acc[i] = s.fn.add_input(acc[i], x)
            else:
                for key in (s.fn(x),) if s.kind == "by" else s.fn(x):
                    acc[i][key] = acc[i].get(key, 0) + 1
        return acc

    def merge_accumulators(self, accs):
        accs = list(accs)
        out = self.create_accumulator()
        for i, s in enumerate(self._stats):
            if s.kind == "combine":
                out[i] = s.fn.merge_accumulators([a[i] for a in accs])
            elif s.kind in ("by", "by_each"):
                for a in accs:
                    for key, n in a[i].items():
                        out[i][key] = out[i].get(key, 0) + n
            else:
                out[i] = sum(a[i] for a in accs)
        return out

    def extract_output(self, acc):
        out = []
        for s, value in zip(self._stats, acc):
            if s.kind == "combine":
                value = s.fn.extract_output(value)
            elif s.kind in ("by", "by_each"):
                value = dict(sorted(value.items()))
            out.append((s.name, value))
        return out


def stats_of(pcoll, label: str, *stats: Stat):
    """``(name, value)`` of every figure in ``stats`` over ``pcoll``, in one combine (empty: the zero values)."""
    return (pcoll
            | f"Stats_{label}" >> beam.CombineGlobally(StatsFn(stats))
            | f"Figures_{label}" >> beam.FlatMap(lambda pairs: pairs))


def write_stats(pairs, staging: str) -> None:
    text = json.dumps(dict(sorted(pairs)), indent=2)
    if is_remote(as_url(staging)):
        write_bytes(join(staging, STATS_FILE), text.encode("utf-8"))
    else:
        (Path(staging) / STATS_FILE).write_text(text, encoding="utf-8")


def write_stats_of(counts: list, staging: str):
    """``(name, value)`` pairs from several PCollections -> ``stats.json`` in ``staging``."""
    return (counts
            | "AllCounts" >> beam.Flatten()
            | "CollectCounts" >> beam.combiners.ToList()
            | "WriteStats" >> beam.Map(write_stats, staging=staging))
