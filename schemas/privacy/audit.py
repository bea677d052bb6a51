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


def _values(rows: list, path: list[str]) -> Iterator[str]:
    for row in rows:
        value = row.get(path[0]) if isinstance(row, dict) else None
        if len(path) == 1:
            if isinstance(value, str):
                yield value
        elif isinstance(value, list):
            yield from _values(value, path[1:])


def texts(folder: Path, file: str, column: str) -> Iterator[str]:
    """Every string at ``column`` (dotted) of ``folder/file`` (nothing if the file or column is absent)."""
    import pyarrow.parquet as pq

    path = folder / file
    top = column.split(".")
    if not path.is_file() or top[0] not in pq.read_schema(path).names:
        return
    table = pq.read_table(path, columns=[top[0]])
    for batch in table.to_batches(max_chunksize=10000):
        yield from _values(batch.to_pylist(), top)


def personal_data_counts(folder: Path, redactor: Redactor) -> dict[str, int]:
    """``"file:column" -> values in which the redactor finds something`` over :data:`PUBLISHED_TEXT`."""
    out = {}
    for file, column in PUBLISHED_TEXT:
        if (folder / file).is_file():
            out[f"{file}:{column}"] = sum(1 for t in texts(folder, file, column) if redactor.matches(t))
    return out
