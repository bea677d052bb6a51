"""Log formats: the records of one file as rows, for the read stage (:mod:`pipelines.stages.read`).

Pure functions turn one file's records into :class:`RawRow` or :class:`Reject`: JSONL and JSON arrays and CSV
from the file's text (:class:`~pipelines.logfiles.text.FileText`, whose faults become rejects here), Parquet
from its bytes. Every record, whatever its format, becomes rows in :func:`rows_from_record`: a single-turn pair
(question and answer fields) or a chat-style record (a list of messages, paired by their roles). A record that
cannot be read is a reject with a reason, never an abort.
"""

from __future__ import annotations

import csv
import json
import re
from collections import deque
from collections.abc import Iterator
from typing import Any, NamedTuple, Union

from pipelines.logfiles.text import FileText, TextLine, uncompressed_name
from schemas.config import InputConfig, LimitsConfig
from schemas.records import RawRow, Reject
from schemas.text import preview

STAGE = "read"  # the stage whose rejects these are (pipelines.stages.read re-exports it)
USER_ROLES = frozenset({"user", "human", "customer", "question", "用户"})
ASSISTANT_ROLES = frozenset({"assistant", "gpt", "bot", "ai", "model", "chatbot", "answer", "助手"})

Parsed = Union[RawRow, Reject]

# A record nested deeper than this is one reject (``too_deep``): the values of a row cross processes pickled, and
# pickling a value nested a few hundred levels deep overflows the stack and aborts the whole build. No log
# record comes near it (a chat record with tool calls nests about 10 levels).
MAX_NESTING = 100
TOO_DEEP = "too_deep"
DUPLICATE_KEY = "duplicate_key"
# A Parquet page whose bytes differ from the CRC its writer stored beside it: the file was damaged after writing,
# and its values cannot be trusted (an uncompressed page still decodes, to other values)
CHECKSUM_MISMATCH = "parquet_checksum_mismatch"


def nesting_over(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels deep (looked at level by level, without
    recursion: any depth is safe to ask about)."""
    level = [value] if isinstance(value, (dict, list, tuple)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, (dict, list, tuple))]
    return False


def _brackets_over(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether JSON text holds more opening brackets than :data:`MAX_NESTING`: a record nested deeper needs
    that many, so a record with fewer needs no walk (counting is C-fast; walking every record is not)."""
    return text.count("[", start, end) + text.count("{", start, end) > MAX_NESTING


def _too_deep(record: Any, source: str, position: int) -> Reject | None:
    """The ``too_deep`` reject of a record nested over :data:`MAX_NESTING` levels (None: it is not)."""
    if not nesting_over(record):
        return None
    return Reject(STAGE, TOO_DEEP, source, position, "",
                  f"the record nests lists or objects more than {MAX_NESTING} levels deep")


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _raw_preview(record: Any, limits: LimitsConfig) -> str:
    if isinstance(record, str):
        text = record
    else:
        try:
            text = json.dumps(record, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(record)
    return preview(text, limits.raw_preview_chars)


def _role(message: dict) -> str:
    role = message.get("role", message.get("from", ""))
    return str(role).strip().lower() if role is not None else ""


def _content(message: dict) -> Any:
    return message.get("content", message.get("value"))


def chat_pairs(messages: Any, mode: str) -> list[tuple[int, Any, Any]] | str:
    """(turn, user content, assistant content) pairs, or a reject reason string."""
    if not isinstance(messages, list):
        return "chat_messages_not_a_list"
    if not all(isinstance(m, dict) for m in messages):
        return "chat_message_not_an_object"
    pairs: list[tuple[int, Any, Any]] = []
    turn = 0
    for i, msg in enumerate(messages):
        if _role(msg) not in USER_ROLES:
            continue
        turn += 1
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        if nxt is not None and _role(nxt) in ASSISTANT_ROLES:
            pairs.append((turn, _content(msg), _content(nxt)))
            if mode == "first":
                break
        elif mode == "first":
            return "chat_no_assistant_reply"
    if not pairs:
        return "chat_no_user_turn" if turn == 0 else "chat_no_assistant_reply"
    return pairs


def rows_from_record(record: Any, source: str, position: int, cfg: InputConfig,
                     limits: LimitsConfig) -> Iterator[Parsed]:
    """One parsed record (a dict from JSON, CSV or Parquet) to rows or a reject. Its readers have refused a
    record nested too deep (:func:`_too_deep`) before: a preview of it would recurse as deep."""
    if not isinstance(record, dict):
        yield Reject(STAGE, "not_an_object", source, position, _raw_preview(record, limits),
                     f"expected a JSON object, got {type(record).__name__}")
        return
    extra = dict(
        ext_id=_opt_str(record.get(cfg.id_field)),
        timestamp=_opt_str(record.get(cfg.timestamp_field)),
        conversation_id=_opt_str(record.get(cfg.conversation_field)),
        lang_hint=_opt_str(record.get(cfg.lang_field)),
    )
    messages_field = next((f for f in cfg.messages_fields if record.get(f) is not None), None)
    if messages_field is not None and cfg.question_field not in record:
        pairs = chat_pairs(record[messages_field], cfg.chat_pairs)
        if isinstance(pairs, str):
            yield Reject(STAGE, pairs, source, position, _raw_preview(record, limits),
                         f"field '{messages_field}'")
            return
        for turn, question, answer in pairs:
            yield RawRow(source, position, question, answer, turn=turn, **extra)
        return
    yield RawRow(source, position, record.get(cfg.question_field), record.get(cfg.answer_field), **extra)


# --- JSONL and JSON arrays ---------------------------------------------------------------------------------

_JSON_SPACE = re.compile(r"[ \t\n\r]*")
# a JSON string or a bracket: what finding the end of a value too deep to parse needs to see
_JSON_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class DuplicateKeyError(ValueError):
    """One JSON object names a key twice: Python's json keeps the last value, a silent change."""

    def __init__(self, key: str):
        super().__init__(f"key {preview(key, 80)!r} appears twice in one object (which value is meant cannot be "
                         f"told)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return record


# every JSON object of a log is read through this decoder: a duplicate key is a reject, never last-wins
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _json_fault(exc: ValueError | RecursionError) -> tuple[str, str]:
    """(reason, detail) of a JSON text that does not parse."""
    if isinstance(exc, DuplicateKeyError):
        return DUPLICATE_KEY, str(exc)
    if isinstance(exc, RecursionError):
        return TOO_DEEP, "nested too deeply to parse"
    if isinstance(exc, json.JSONDecodeError):
        return "malformed_json", exc.msg
    return "malformed_json", str(exc).split(";")[0]  # Python's digit limit: "Exceeds the limit (4300 digits)..."


def _value_end(text: str, pos: int) -> int:
    """Where the JSON object or array starting at ``pos`` ends (-1: it does not), found without parsing it."""
    depth = 0
    for match in _JSON_STRING_OR_BRACKET.finditer(text, pos):
        token = match.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
            if depth == 0:
                return match.end()
    return -1


def parse_jsonl(text: FileText, source: str, cfg: InputConfig, limits: LimitsConfig, *,
                max_array_bytes: int) -> Iterator[Parsed]:
    """One JSON object per line; a file whose first non-blank character is ``[`` is one JSON array, of at most
    ``max_array_bytes`` (a bigger one is one ``json_array_too_large`` reject)."""
    first = True
    for line in text.lines():
        if line.fault is not None:
            first = False
            yield Reject(STAGE, line.fault[0], source, line.number,
                         preview(line.text.rstrip("\n"), limits.raw_preview_chars), line.fault[1])
            continue
        body = line.text[1:] if line.text.startswith("\ufeff") else line.text  # files concatenated with their BOMs
        if not body.strip():
            continue
        if first and body.lstrip(" \t\r\n").startswith("["):
            yield from _parse_array_file(body, line.number, text, source, cfg, limits, max_array_bytes)
            return
        first = False
        try:
            record = _DECODER.decode(body)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, a duplicate key, too deep, an int's digits
            reason, detail = _json_fault(exc)
            yield Reject(STAGE, reason, source, line.number, preview(body.rstrip("\n"), limits.raw_preview_chars),
                         detail)
            continue
        deep = _too_deep(record, source, line.number) if _brackets_over(body) else None
        if deep is not None:
            yield deep
            continue
        yield from rows_from_record(record, source, line.number, cfg, limits)


def _parse_array_file(first_line: str, line_number: int, text: FileText, source: str, cfg: InputConfig,
                      limits: LimitsConfig, max_array_bytes: int) -> Iterator[Parsed]:
    rest = text.rest(max(max_array_bytes - len(first_line), 0))
    if rest is None:
        yield Reject(STAGE, "json_array_too_large", source, line_number,
                     preview(first_line.rstrip("\n"), limits.raw_preview_chars),
                     f"one JSON array of more than {max_array_bytes:,} bytes: write it as JSONL "
                     f"(one object per line)")
        return
    yield from parse_json_array(first_line + rest, line_number, source, cfg, limits,
                                cut_short=text.fault is not None)


def parse_json_array(text: str, first_line: int, source: str, cfg: InputConfig, limits: LimitsConfig,
                     cut_short: bool = False) -> Iterator[Parsed]:
    """The records of one JSON array (``text`` starts with ``[``, on line ``first_line`` of its file), each
    positioned by its index (1-based), parsed one at a time. The first element that does not parse ends it:
    the elements before it are rows, the rest one ``malformed_json`` reject (none when the text was
    ``cut_short``: the file's own fault says why it ends). An element that is well-formed but refused (a
    ``duplicate_key``, ``too_deep`` to parse) is its own reject, and the elements after it are read."""
    decoder = _DECODER
    pos = _JSON_SPACE.match(text, _JSON_SPACE.match(text).end() + 1).end()  # after "["
    index = 1
    closed = text.startswith("]", pos)
    while not closed:
        try:
            record, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, a duplicate key, too deep, an int's digits
            reason, detail = _json_fault(exc)
            end = _value_end(text, pos) if reason != "malformed_json" else -1
            if end < 0:  # the element does not parse: where the next one starts cannot be told
                if not cut_short:
                    yield _array_reject(text, getattr(exc, "pos", pos), index, first_line, source, limits, detail)
                return
            # well-formed but refused (a duplicate key, too deep to parse): the element's reject, then the rest
            yield Reject(STAGE, reason, source, index, preview(text[pos:pos + limits.raw_preview_chars],
                                                               limits.raw_preview_chars), detail)
        else:
            deep = _too_deep(record, source, index) if _brackets_over(text, pos, end) else None
            if deep is not None:
                yield deep
            else:
                yield from rows_from_record(record, source, index, cfg, limits)
        index += 1
        pos = _JSON_SPACE.match(text, end).end()
        if text.startswith(",", pos):
            pos = _JSON_SPACE.match(text, pos + 1).end()
        elif text.startswith("]", pos):
            closed = True
        else:
            if not cut_short:
                yield _array_reject(text, pos, index, first_line, source, limits, "expecting ',' or ']'")
            return
    after = _JSON_SPACE.match(text, pos + 1).end()
    if after < len(text):
        yield _array_reject(text, after, index, first_line, source, limits, "text after the end of the array")


def _array_reject(text: str, at: int, index: int, first_line: int, source: str, limits: LimitsConfig,
                  why: str) -> Reject:
    line = first_line + text.count("\n", 0, at)
    column = at - text.rfind("\n", 0, at)
    return Reject(STAGE, "malformed_json", source, index, preview(text[at:at + limits.raw_preview_chars],
                                                                  limits.raw_preview_chars),
                  f"JSON array element {index} (line {line}, column {column}): {why}; the rest of the array "
                  f"is not read")


# --- CSV ---------------------------------------------------------------------------------------------------

class _CsvRecord(NamedTuple):
    values: list[str] | None  # None: the csv module could not parse it (``error``)
    lines: list[TextLine]  # the lines it was read from
    error: str = ""

    @property
    def fault(self) -> tuple[str, str] | None:
        """The first of its lines that is not text: (reason, detail naming the line)."""
        for line in self.lines:
            if line.fault is not None:
                return line.fault[0], f"line {line.number}: {line.fault[1]}"
        return None

    def is_blank(self) -> bool:
        return self.values is not None and not "".join(self.values).strip() and self.fault is None


class _CsvRecords:
    """A file's CSV records, each with the lines it was read from. Lines handed back (:meth:`read_again`) are
    parsed again, as records of their own, before the rest of the file."""

    def __init__(self, lines: Iterator[TextLine], delimiter: str):
        self._lines = lines
        self._delimiter = delimiter
        self._again: deque[TextLine] = deque()
        self._taken: list[TextLine] = []
        self._reader = self._new_reader()

    def _new_reader(self) -> Iterator[list[str]]:
        # strict: a quote that closes and runs on into text ('"a,b\n"c",d') is an error, not a field that
        # swallowed a line break and the next row; a record on one line is read leniently again (_one_line)
        return csv.reader(self._feed(), delimiter=self._delimiter, strict=True)

    def _one_line(self, line: TextLine) -> _CsvRecord:
        """A record of one line that strict reading refused, read as leniently as before ('"a"b' is 'ab')."""
        try:
            return _CsvRecord(next(csv.reader([line.text], delimiter=self._delimiter)), [line])
        except (csv.Error, StopIteration) as exc:
            return _CsvRecord(None, [line], str(exc) or "no record")

    def _feed(self) -> Iterator[str]:
        while True:
            line = self._again.popleft() if self._again else next(self._lines, None)
            if line is None:
                return
            self._taken.append(line)
            yield line.text

    def __iter__(self) -> Iterator[_CsvRecord]:
        while True:
            self._taken = []  # the csv module reads exactly one record's lines per call, never ahead
            try:
                values = next(self._reader)
            except StopIteration:
                return
            except csv.Error as exc:
                taken = self._taken
                yield self._one_line(taken[0]) if len(taken) == 1 else _CsvRecord(None, taken, str(exc))
                continue
            yield _CsvRecord(values, self._taken)

    def read_again(self, lines: list[TextLine]) -> None:
        self._again.extendleft(reversed(lines))
        self._reader = self._new_reader()  # at a record boundary: a fresh reader reads the same


def _runs_on(record: _CsvRecord, fields: int | None) -> bool:
    """Is ``record`` a quote left open that ran on over the next lines? Read from several lines and still no
    row of ``fields`` values (None: any number, for a header), which a field holding line breaks would be."""
    broken = record.values is None or (fields is not None and len(record.values) != fields)
    return broken and len(record.lines) > 1


def _unclosed_quote(record: _CsvRecord) -> tuple[str, str]:
    first, rest = record.lines[0], record.lines[1:]
    again = (f"line {rest[0].number} is read again as a row" if len(rest) == 1
             else f"lines {rest[0].number}-{rest[-1].number} are read again as rows")
    return "csv_unclosed_quote", f"line {first.number}: a quote opened here does not close where the row ends; {again}"


def _csv_problem(record: _CsvRecord, fields: int | None) -> tuple[str, str] | None:
    """(reason, detail) when ``record``, read from one line, is no row of ``fields`` values (None: any)."""
    if record.fault is not None:
        return record.fault
    if record.values is None:
        return "malformed_csv", f"line {record.lines[-1].number}: {record.error}"
    if fields is not None and len(record.values) != fields:
        return "csv_bad_field_count", f"expected {fields} fields, got {len(record.values)}"
    return None


def _csv_preview(record: _CsvRecord, reason: str, delimiter: str, limits: LimitsConfig) -> str:
    if reason == "csv_bad_field_count":
        text = delimiter.join(record.values)
    elif reason == "csv_unclosed_quote":
        text = record.lines[0].text
    else:
        text = "".join(line.text for line in record.lines)
    return preview(text.rstrip("\r\n"), limits.raw_preview_chars)


def _names_the_fields(header: list[str], cfg: InputConfig) -> bool:
    return cfg.question_field in header or any(f in header for f in cfg.messages_fields)


def _duplicated(names: list[str]) -> str | None:
    """The first name that appears twice in ``names`` (None: each appears once)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def parse_csv(text: FileText, source: str, cfg: InputConfig, limits: LimitsConfig) -> Iterator[Parsed]:
    """CSV rows under a header row (row 0) that names the question field (or a chat messages field); rows
    are positioned by their index (1-based, blank rows skipped). A first row that names neither is no header,
    and no row of the file can be read: each (that row too) is a ``csv_no_header`` reject. A header that names
    a column twice cannot tell which value is meant (a dict keeps the last, a silent change): each row (the
    header too) is a ``csv_duplicate_header`` reject."""
    delimiter = "\t" if uncompressed_name(source).endswith(".tsv") else cfg.csv_delimiter
    records = _CsvRecords(text.lines(), delimiter)
    header: list[str] | None = None
    no_header: tuple[str, str] | None = None  # why the file has no header to read its rows by
    position = -1
    for record in records:
        if record.is_blank():
            continue
        position += 1
        fields = None if header is None else len(header)
        if _runs_on(record, fields):  # its first line is the reject; the lines it swallowed are rows again
            records.read_again(record.lines[1:])
            problem = _unclosed_quote(record)
        else:
            problem = _csv_problem(record, fields)
        if position == 0:
            twice = _duplicated(record.values) if problem is None else None
            if problem is None and twice is not None:
                problem = ("csv_duplicate_header", f"the header row names column {preview(twice, 80)!r} twice "
                                                   f"(which value is meant cannot be told): rename one")
                no_header = (problem[0], f"no row is read: {problem[1]}")
            elif problem is None and _names_the_fields(record.values, cfg):
                header = record.values
                continue
            else:
                problem = problem or ("csv_no_header", f"the first row names no '{cfg.question_field}' column "
                                                       f"(input.question_field): a CSV file needs a header row")
                no_header = ("csv_no_header", f"no header row to read it by (row 0: {problem[0]})")
        elif no_header and problem is None:
            problem = no_header
        if problem is not None:
            yield Reject(STAGE, problem[0], source, position, _csv_preview(record, problem[0], delimiter, limits),
                         problem[1])
            continue
        yield from rows_from_record(dict(zip(header, record.values)), source, position, cfg, limits)


# --- Parquet -----------------------------------------------------------------------------------------------

def _duplicated_field(schema: Any) -> str | None:
    """The first column (or field of a struct column, dotted) named twice in a Parquet schema."""
    import pyarrow as pa

    stack = [("", list(schema))]
    while stack:
        prefix, fields = stack.pop()
        twice = _duplicated([f.name for f in fields])
        if twice is not None:
            return prefix + twice
        for f in fields:
            typ = f.type
            while pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
                typ = typ.value_type
            if pa.types.is_struct(typ):
                stack.append((f"{prefix}{f.name}.", [typ.field(i) for i in range(typ.num_fields)]))
    return None


def _type_depth(schema: Any) -> int:
    """How deep a Parquet schema's values can nest (a row: 1; a list column in it: 2; ...), without recursion."""
    import pyarrow as pa

    deepest, stack = 1, [(f.type, 2) for f in schema]
    while stack:
        typ, depth = stack.pop()
        if pa.types.is_struct(typ):
            stack.extend((typ.field(i).type, depth + 1) for i in range(typ.num_fields))
        elif pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
            stack.append((typ.value_type, depth + 1))
        elif pa.types.is_map(typ):
            stack.extend(((typ.key_type, depth + 2), (typ.item_type, depth + 2)))
        else:
            continue
        deepest = max(deepest, depth)
    return deepest


def _page_fault(exc: Exception) -> str:
    """The reason of a fault met reading a Parquet file's pages: a failed page checksum, or any other break.
    pyarrow raises both as the same OSError; only its message tells them apart."""
    return CHECKSUM_MISMATCH if "checksum verification failed" in str(exc).lower() else "unreadable_parquet"


def _row_group_rows(parquet: Any, group: int, first: int, source: str, cfg: InputConfig, limits: LimitsConfig,
                    batch_rows: int, may_be_deep: bool) -> Iterator[Parsed]:
    """The rows of one row group, positioned from ``first`` + 1. A fault (a corrupt page, a failed checksum,
    text that is not UTF-8) is one reject standing for the group's rows not yet read, after those read before it."""
    import pyarrow as pa

    faults = (pa.ArrowException, OSError, ValueError)  # ArrowInvalid is a ValueError; bad UTF-8 a UnicodeError
    last = first + parquet.metadata.row_group(group).num_rows
    position = first
    # batches of this group only: one that ran on into the next group would take that group's intact rows down
    # with a fault of its own (pyarrow reads them lazily: the faults come from next())
    batches = parquet.iter_batches(batch_size=batch_rows, row_groups=[group])
    while True:
        try:
            batch = next(batches, None)
            records = [] if batch is None else batch.to_pylist()
        except faults as exc:
            yield Reject(STAGE, _page_fault(exc), source, position + 1, "",
                         f"row group {group + 1} of {parquet.num_row_groups}: rows {position + 1}-{last} not read: "
                         f"{type(exc).__name__}: {exc}"[:300])
            return
        if batch is None:
            return
        for record in records:
            position += 1
            deep = _too_deep(record, source, position) if may_be_deep else None
            if deep is not None:
                yield deep
            else:
                yield from rows_from_record(record, source, position, cfg, limits)


def parse_parquet(handle: Any, source: str, cfg: InputConfig, limits: LimitsConfig,
                  batch_rows: int = 8192) -> Iterator[Parsed]:
    """Parquet rows, positioned by their index (1-based), row group by row group. A row group that breaks off (a
    corrupt page, text that is not UTF-8) is one ``unreadable_parquet`` reject after the rows read before it, and
    one whose page differs from the checksum written with it one :data:`CHECKSUM_MISMATCH` reject; the row groups
    after it are read (each is stored apart, from offsets in the file's footer). Pages written without a checksum
    are read unchecked."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        # a damaged page with no compression to fail decodes to other values, silently: only its checksum
        # (when the writer stored one) tells, and pyarrow checks it only when asked
        parquet = pq.ParquetFile(handle, page_checksum_verification=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        yield Reject(STAGE, "unreadable_parquet", source, 0, "", f"{type(exc).__name__}: {exc}"[:300])
        return
    may_be_deep = _type_depth(parquet.schema_arrow) > MAX_NESTING  # a row nests at most as deep as its schema
    twice = _duplicated_field(parquet.schema_arrow)
    if twice is not None:  # each row would keep the last column of the name: a silent change
        yield Reject(STAGE, DUPLICATE_KEY, source, 0, "", f"the file has two columns named {preview(twice, 80)!r} "
                                                          f"(which value is meant cannot be told); no row is read")
        return
    first = 0
    for group in range(parquet.num_row_groups):
        yield from _row_group_rows(parquet, group, first, source, cfg, limits, batch_rows, may_be_deep)
        first += parquet.metadata.row_group(group).num_rows
