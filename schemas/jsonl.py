"""JSON-lines files for the command-line tools: one reader with one set of error messages, one writer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from schemas.errors import QabaseError


def read_text_input(path: Path, error: type[QabaseError] = QabaseError) -> str:
    """The text of a UTF-8 file a command was given; anything else is one readable ``error`` naming it: a missing
    path, something that is not a regular file (a FIFO or /dev/zero would never end), bytes that are not UTF-8."""
    from schemas.layout import not_a_regular_file

    what = not_a_regular_file(path)
    if what is not None:
        raise error(f"input: no such file: {path}" if what == "not found"
                    else f"input: {path} is {what}, not a regular file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise error(f"input: {path} is not UTF-8 text (byte {exc.start}, line {line}); convert it, e.g. "
                    "`iconv -f latin1 -t utf-8`") from None
    except OSError as exc:
        raise error(f"input: cannot read {path}: {exc.strerror}") from None


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a missing file, bad JSON or a non-object is one
    readable QabaseError naming the file and line."""
    for n, line in enumerate(read_text_input(path).splitlines(), start=1):
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
