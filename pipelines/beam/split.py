"""One PCollection of records and rejects -> two, by type: how a stage hands on its rejects.

Why not a multi-output ParDo (``with_outputs``): Beam's Dask runner keys a step's result by its producing
transform, so the main and tagged outputs of one ParDo reach every consumer mixed together (rows
arrive where rejects are expected). Two filters over one single-output step mean the same thing on every
runner.
"""

from __future__ import annotations

import apache_beam as beam

from schemas.records import Reject


def _is_reject(item) -> bool:
    return isinstance(item, Reject)


def _is_record(item) -> bool:
    return not isinstance(item, Reject)


def split_rejects(mixed) -> tuple:
    """(the records, the Reject records) of ``mixed``."""
    return mixed | "KeepRecords" >> beam.Filter(_is_record), mixed | "KeepRejected" >> beam.Filter(_is_reject)
