"""Where personal data could be published, and how much of it a redactor still finds there: the quality gate's
check that a version holds no value of an enabled kind (counts only, never the values)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from schemas.layout import ACCEPTED_SAMPLE_FILE, QA_FILE, QUESTIONS_FILE, REJECTED_FILE
from schemas.privacy.redactor import Redactor

# (file, dotted column path) of every published text a person typed or an answer was built from; a dot goes into
# a list of structs (answers.text: the text of every answer of every entry)
PUBLISHED_TEXT = (
    *((QA_FILE, c) for c in ("question", "question_key", "answer", "aliases.question", "answers.text",
                             "viewpoints.summary")),
    (QUESTIONS_FILE, "question"), (QUESTIONS_FILE, "question_key"),
    (ACCEPTED_SAMPLE_FILE, "question"), (ACCEPTED_SAMPLE_FILE, "answer"), (ACCEPTED_SAMPLE_FILE, "key"),
    (REJECTED_FILE, "raw"), (REJECTED_FILE, "detail"),
)


def texts(folder: Path, file: str, column: str) -> Iterator[str]:
    """Every string at ``column`` (dotted) of ``folder/file`` (nothing if the file or column is absent). Taken
    from the column's Arrow data: only the strings become Python objects, not each row's list of structs."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = folder / file
    top, *inner = column.split(".")
    if not path.is_file() or top not in pq.read_schema(path).names:
        return
    values = pq.read_table(path, columns=[top]).column(top)
    for name in inner:  # a dot goes into a list of structs: the field of every element of every row's list
        item = values.type.value_type if pa.types.is_list(values.type) else None
        field = item.get_field_index(name) if item is not None and pa.types.is_struct(item) else -1
        if field < 0:
            return
        values = pc.struct_field(pc.list_flatten(values), [field])
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        yield from (v for v in values.to_pylist() if v is not None)


def personal_data_counts(folder: Path, redactor: Redactor) -> dict[str, int]:
    """``"file:column" -> values in which the redactor finds something`` over :data:`PUBLISHED_TEXT`."""
    found: dict[str, bool] = {}  # a text read again (a question beside its key, an answer in two files) once

    def matches(text: str) -> bool:
        hit = found.get(text)
        if hit is None:
            hit = found[text] = redactor.matches(text)
        return hit

    out = {}
    for file, column in PUBLISHED_TEXT:
        if (folder / file).is_file():
            out[f"{file}:{column}"] = sum(1 for t in texts(folder, file, column) if matches(t))
    return out
