"""Arrow fields that say what they hold.

Every column of qa.parquet and questions.parquet, and every field of their nested values, carries its
description in the field's metadata under :data:`DESCRIPTION` (declared in schemas/qa.py and
schemas/questions.py, which the package re-exports and which therefore import nothing of ours: each has its
own two-line field helper). The Parquet file keeps it (pyarrow stores the
Arrow schema beside the Parquet one), so whoever reads a published version (pyarrow, polars, datasets, pandas)
finds what a column means without this repository. The tables of columns in docs/reference/outputs.md are
generated from the same declarations (``python -m schemas.documents``).
"""

from __future__ import annotations

import pyarrow as pa

DESCRIPTION = b"description"


def description(field: pa.Field) -> str:
    """The description a field carries ('' when it has none)."""
    return ((field.metadata or {}).get(DESCRIPTION) or b"").decode("utf-8")


def nested_fields(type_: pa.DataType, prefix: str) -> list[tuple[str, pa.Field]]:
    """(dotted path, field) of every field nested in a struct or list type (a list's item adds nothing to the
    path: ``answers.text``), depth first."""
    out: list[tuple[str, pa.Field]] = []
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        return nested_fields(type_.value_type, prefix)
    if pa.types.is_struct(type_):
        for f in type_:
            path = f"{prefix}.{f.name}"
            out.append((path, f))
            out.extend(nested_fields(f.type, path))
    return out


def every_field(schema: pa.Schema) -> list[tuple[str, pa.Field]]:
    """(path, field) of every column of ``schema`` and every field nested in them, in schema order."""
    out: list[tuple[str, pa.Field]] = []
    for f in schema:
        out.append((f.name, f))
        out.extend(nested_fields(f.type, f.name))
    return out


def type_text(type_: pa.DataType) -> str:
    """A short name of an Arrow type for the docs: ``list<struct>``, ``date32``, ``string``."""
    if pa.types.is_list(type_):
        return f"list<{type_text(type_.value_type)}>"
    if pa.types.is_struct(type_):
        return "struct"
    return str(type_).replace("[day]", "")


def columns_table(schema: pa.Schema) -> str:
    """The markdown table of ``schema``'s columns and nested fields: path, type, null allowed, description."""
    rows = ["| column | type | null | what it holds |", "|---|---|---|---|"]
    for path, f in every_field(schema):
        text = description(f).replace("|", "\\|")
        rows.append(f"| `{path}` | {type_text(f.type)} | {'yes' if f.nullable else ''} | {text} |")
    return "\n".join(rows)
