"""What the GEC and intent judges saw in a question: questions.parquet's ``gec_details`` and ``intent_details``.

Each backend reports its own signals (models/gec, models/intent). They are stored as one struct per judge
(:data:`GEC_DETAILS`, :data:`INTENT_DETAILS`, declared with the rest of questions.parquet's schema in
schemas/questions.py) whose fields are the union of what the built-in backends write, each typed and described;
a field a backend
does not write is null. So a reader asks ``gec_details.nll`` or ``intent_details.signals`` directly, with no
JSON to decode, and the shape does not change with the backend a build chose. Named numbers whose names vary
(the intent prototype's lexical signals, the intent head's top labels) are lists of ``{name, value}`` sorted by
name. A key no built-in backend writes (a new backend's) is kept in ``other`` as ``{name, value}`` with the
value as JSON text, so nothing is lost; declaring it in schemas/questions.py gives it a typed field.

The score stage and the score cache keep the judges' details as canonical JSON (models.gec.base.details_json);
:func:`details_value` turns that into the struct when questions.parquet is written, and readers of a base
written before format 3 (schemas.tables) do the same to its JSON strings.
"""

from __future__ import annotations

import json

import pyarrow as pa

from schemas.questions import GEC_DETAILS, INTENT_DETAILS  # noqa: F401 - declared with the schema they are in


class _Mismatch(ValueError):
    """A value that does not fit its declared field (kept in ``other`` instead)."""


def _fit(value, type_: pa.DataType):
    if value is None:
        return None
    if pa.types.is_floating(type_):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif pa.types.is_integer(type_):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif pa.types.is_boolean(type_):
        if isinstance(value, bool):
            return value
    elif pa.types.is_string(type_):
        if isinstance(value, str):
            return value
    elif pa.types.is_list(type_):
        item = type_.value_type
        if isinstance(value, dict) and pa.types.is_struct(item) and item.num_fields == 2:
            # named numbers ({name: value}): a list of {name, value}, by name
            return [_fit({item.field(0).name: k, item.field(1).name: v}, item) for k, v in sorted(value.items())]
        if isinstance(value, (list, tuple)):
            return [_fit(v, item) for v in value]
    elif pa.types.is_struct(type_):
        if isinstance(value, dict) and set(value) <= {f.name for f in type_}:
            return {f.name: _fit(value.get(f.name), f.type) for f in type_}
    raise _Mismatch(f"{value!r} is not {type_}")


def details_value(details, type_: pa.StructType) -> dict | None:
    """A judge's details (a dict, or its JSON text) as a value of ``type_`` (:data:`GEC_DETAILS` or
    :data:`INTENT_DETAILS`); None for a question never scored (no details: '' or None)."""
    if details is None or details == "":
        return None
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            details = {"text": details}
    if not isinstance(details, dict):
        details = {"details": details}
    declared = {f.name: f.type for f in type_ if f.name != "other"}
    out: dict = {name: None for name in declared}
    other = []
    for key in sorted(details):
        value = details[key]
        try:
            if key not in declared:
                raise _Mismatch(key)
            out[key] = _fit(value, declared[key])
        except _Mismatch:
            other.append({"name": key, "value": json.dumps(value, ensure_ascii=False, sort_keys=True)})
    out["other"] = other
    return out
