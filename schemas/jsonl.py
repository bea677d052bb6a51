"""JSON-lines files for the command-line tools: one reader with one set of error messages, one writer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from schemas.errors import QabaseError


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a missing file, bad JSON or a non-object is one
    readable QabaseError naming the file and line."""
    if not path.is_file():
        raise QabaseError(f"input: no such file: {path}")
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QabaseError(f"input: {path}:{n} is not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise QabaseError(f"input: {path}:{n} is not a JSON object")
        yield n, obj


def write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count
