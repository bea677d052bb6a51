"""After the Beam pipeline: the staged files in a deterministic row order, merged with the version this
build continues (its rejects and accepted-rows sample), so an increment equals a full rebuild."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.graph import ACCEPTED_SAMPLE_ROWS
from pipelines.stages.validate import sample_rank_of
from schemas import ACCEPTED_SAMPLE_SCHEMA, QUESTION_STATE_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA
from schemas.layout import ACCEPTED_SAMPLE_FILE, QUESTIONS_FILE, REJECTED_FILE, STATE_DIR


def smallest_sample_ranks(table: pa.Table) -> pa.Table:
    """The accepted-rows sample of all logs so far: the rows with the smallest sample ranks."""
    if table.num_rows <= ACCEPTED_SAMPLE_ROWS:
        return table
    ranks = [sample_rank_of(r) for r in table.column("row_id").to_pylist()]
    return table.take(sorted(sorted(range(table.num_rows), key=ranks.__getitem__)[:ACCEPTED_SAMPLE_ROWS]))


def sort_parquet(path: Path, keys: list[tuple[str, str]], schema, earlier: Path | None = None, select=None) -> int:
    """Rewrite a Beam-written Parquet file in a deterministic row order; returns its rows. ``earlier``: the
    same file of the version this build continues, whose rows (earlier logs) are merged in first;
    ``select``: a function choosing the rows to keep from the merged table."""
    table = pq.read_table(path, schema=schema)
    if earlier is not None and earlier.is_file():
        table = pa.concat_tables([pq.read_table(earlier, schema=schema), table])
    if select is not None:
        table = select(table)
    if table.num_rows:
        table = table.take(pc.sort_indices(table, sort_keys=keys))
    pq.write_table(table, path)
    return table.num_rows


def finalize_outputs(staging: Path, previous: Path | None) -> None:
    """Sort every Beam-written table of ``staging``; merge in ``previous``'s rejects and sample."""
    sort_parquet(staging / STATE_DIR / QUESTIONS_FILE, [("key", "ascending")], QUESTION_STATE_SCHEMA)
    sort_parquet(staging / QUESTIONS_FILE, [("frequency", "descending"), ("question_key", "ascending")],
                 QUESTIONS_SCHEMA)
    sort_parquet(staging / REJECTED_FILE,
                 [("source", "ascending"), ("position", "ascending"), ("stage", "ascending"),
                  ("reason", "ascending"), ("raw", "ascending")], REJECTED_SCHEMA,
                 earlier=previous / REJECTED_FILE if previous else None)
    sort_parquet(staging / ACCEPTED_SAMPLE_FILE, [("row_id", "ascending")], ACCEPTED_SAMPLE_SCHEMA,
                 earlier=previous / ACCEPTED_SAMPLE_FILE if previous else None, select=smallest_sample_ranks)
