"""qa.parquet and questions.parquet of any base format, read as the current format.

Base format 3 gave three kinds of column a typed shape: questions.parquet's ``reason`` (one string, its reasons
joined with "+") became ``reasons`` (a list of strings); its ``gec_details`` and ``intent_details`` (JSON text,
"" when not scored) became structs (schemas.details; null when not scored); qa.parquet's ``logs_period``
(``{first, last}`` as ISO date strings) became dates. Every reader of a published version (indexes.loading, the
report and the browse page, the review tools) reads these files through :func:`read_questions` and
:func:`read_qa`, so a version an older format wrote loads as a current one: columns under their current names
and types, each carrying its description. A column the file does not have (a version built before it existed)
is left out, as the readers expect.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schemas.dates import period_text, period_value
from schemas.details import details_value
from schemas.layout import QA_FILE, QUESTIONS_FILE
from schemas.qa import QA_SCHEMA
from schemas.questions import QUESTIONS_SCHEMA

# a current column -> its name before base format 3
FORMER_NAMES = {"reasons": "reason"}


def _stored_columns(path: Path, columns: list[str] | None, schema: pa.Schema) -> list[str]:
    names = pq.read_schema(path).names
    wanted = list(columns) if columns is not None else schema.names
    out = []
    for name in wanted:
        if name in names:
            out.append(name)
        elif FORMER_NAMES.get(name) in names:
            out.append(FORMER_NAMES[name])
    return out


def _as_current(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the current schema's fields (types, nullability, descriptions) for the columns it has."""
    fields, arrays = [], []
    for name in table.column_names:
        stored, array = table.schema.field(name), table.column(name)
        field = schema.field(name) if name in schema.names else stored
        if stored.type.equals(field.type):  # as stored (a list's item named as Parquet names it), described
            field = field.with_type(stored.type)
        fields.append(field)
        arrays.append(array.cast(field.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, table.schema.metadata))


def _reasons(joined: pa.ChunkedArray) -> pa.Array:
    """A format-2 ``reason`` ("low_gec+low_intent", "" when kept) as a list of reasons ([] when kept)."""
    return pa.array([r.split("+") if r else [] for r in joined.to_pylist()], pa.list_(pa.string()))


def upgraded_questions(table: pa.Table) -> pa.Table:
    """Columns of questions.parquet as a format-2 base wrote them, in the current format (a current table is
    returned as it is, with its fields' descriptions)."""
    for name in ("gec_details", "intent_details"):
        if name in table.column_names and pa.types.is_string(table.schema.field(name).type):
            type_ = QUESTIONS_SCHEMA.field(name).type
            values = [details_value(v, type_) for v in table.column(name).to_pylist()]
            table = table.set_column(table.column_names.index(name), name, pa.array(values, type_))
    if "reason" in table.column_names and "reasons" not in table.column_names:
        table = table.set_column(table.column_names.index("reason"), "reasons", _reasons(table.column("reason")))
    return _as_current(table, QUESTIONS_SCHEMA)


def upgraded_qa(table: pa.Table) -> pa.Table:
    """Columns of qa.parquet as a format-2 base wrote them, in the current format."""
    if "logs_period" in table.column_names:
        t = table.schema.field("logs_period").type
        if pa.types.is_struct(t) and any(pa.types.is_string(f.type) for f in t):
            type_ = QA_SCHEMA.field("logs_period").type
            values = pa.array([period_value(((p or {}).get("first") or "", (p or {}).get("last") or ""))
                               for p in table.column("logs_period").to_pylist()], type_)
            table = table.set_column(table.column_names.index("logs_period"), "logs_period", values)
    return _as_current(table, QA_SCHEMA)


def read_questions(path: Path | str, columns: list[str] | None = None) -> pa.Table:
    """questions.parquet at ``path`` (its ``columns`` under their current names; None: all) in the current
    format, whichever format wrote it."""
    return upgraded_questions(pq.read_table(path, columns=_stored_columns(Path(path), columns, QUESTIONS_SCHEMA)))


def read_qa(path: Path | str, columns: list[str] | None = None) -> pa.Table:
    """qa.parquet at ``path`` (its ``columns``; None: all) in the current format, whichever format wrote it."""
    return upgraded_qa(pq.read_table(path, columns=_stored_columns(Path(path), columns, QA_SCHEMA)))


def joined_reasons(reasons) -> str:
    """A question's reasons as one label, "+" between them ("" when kept): how the report and the browse page
    group dropped questions."""
    return "+".join(reasons or ())


def has_reason(table: pa.Table, wanted) -> pa.Array:
    """Per row of a current-format questions table: does its ``reasons`` hold any of ``wanted``? (in Arrow: a
    base holds millions of questions)"""
    reasons = table.column("reasons").combine_chunks()
    hit = pc.filter(pc.list_parent_indices(reasons),
                    pc.is_in(pc.list_flatten(reasons), value_set=pa.array(list(wanted), pa.string())))
    return pc.is_in(pa.array(range(table.num_rows), pa.int64()), value_set=pc.unique(hit).cast(pa.int64()))


def rows_as_shown(path: Path | str, columns: list[str]) -> list[dict]:
    """Rows of a version's Parquet file as the report and the browse page show them, with the ``columns`` the
    file has (a version built before a column existed lacks it: left out of the rows). qa.parquet and
    questions.parquet are read in any base format: the question's reasons as one label under ``reason``
    (:func:`joined_reasons`; the pages group dropped questions by it), ``logs_period`` as ISO date strings (they
    are embedded as JSON)."""
    path = Path(path)
    if path.name not in (QA_FILE, QUESTIONS_FILE):
        names = set(pq.read_schema(path).names)
        return pq.read_table(path, columns=[c for c in columns if c in names]).to_pylist()
    read = read_qa if path.name == QA_FILE else read_questions
    rows = read(path, ["reasons" if c == "reason" else c for c in columns]).to_pylist()
    for r in rows:
        if "reasons" in r and "reason" in columns:
            r["reason"] = joined_reasons(r.pop("reasons"))
        if "logs_period" in r:
            r["logs_period"] = period_text(r["logs_period"])
    return rows
