"""Read: JSONL (also .gz), CSV and Parquet logs, single-turn pairs and chat-style records.

Pure functions turn one file's records into :class:`RawRow` or :class:`Reject`; the
:class:`ReadLogs` PTransform runs them over files through Beam's FileSystems, so
local paths, gs:// and s3:// work the same on any runner.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, Union

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from pipelines.stages.split import split_rejects
from schemas.config import InputConfig, LimitsConfig
from schemas.errors import InputError
from schemas.records import RawRow, Reject
from schemas.text import truncate

STAGE = "read"
USER_ROLES = frozenset({"user", "human", "customer", "question", "用户"})
ASSISTANT_ROLES = frozenset({"assistant", "gpt", "bot", "ai", "model", "chatbot", "answer", "助手"})

Parsed = Union[RawRow, Reject]


def file_format(path: str, forced: str = "auto") -> str:
    if forced != "auto":
        return forced
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext, fmt in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"),
                     (".csv", "csv"), (".tsv", "csv"), (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(ext):
            return fmt
    raise InputError(f"input: cannot tell the format of {path} (use .jsonl, .jsonl.gz, .csv or .parquet, "
                     f"or set input.format)")


def _known_format(path: str) -> bool:
    try:
        file_format(path)
        return True
    except InputError:
        return False


def expand_inputs(patterns: Iterable[str], forced_format: str = "auto") -> list[dict[str, Any]]:
    """Resolve paths and globs to a sorted list of files with sizes; fail fast if any matches nothing."""
    files: dict[str, int] = {}
    for pattern in patterns:
        from_dir = False
        if os.path.isdir(pattern):  # a local folder: every log file directly inside it
            pattern, from_dir = os.path.join(pattern, "*"), True
        try:
            result = FileSystems.match([pattern])[0]
            matched = [(m.path, m.size_in_bytes) for m in result.metadata_list]
        except Exception as exc:  # Beam raises BeamIOError with nested detail
            raise InputError(f"input: cannot read {pattern}: {type(exc).__name__}") from None
        matched = [(p, s) for p, s in matched if not FileSystems.split(p)[1].startswith(".")]
        if from_dir:
            matched = [(p, s) for p, s in matched if _known_format(p) and not os.path.isdir(p)]
        if not matched:
            raise InputError(f"input: no such file or no files match: {pattern}")
        for path, size in matched:
            files[path] = size
    out = []
    for path in sorted(files):
        out.append({"path": path, "size": files[path], "format": file_format(path, forced_format)})
    return out


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
    return truncate(text, limits.raw_preview_chars)


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
    """One parsed record (a dict from JSON, CSV or Parquet) to rows or a reject."""
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


def parse_jsonl(lines: Iterable[str], source: str, cfg: InputConfig, limits: LimitsConfig) -> Iterator[Parsed]:
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            yield Reject(STAGE, "malformed_json", source, lineno, truncate(line.rstrip("\n"), limits.raw_preview_chars),
                         getattr(exc, "msg", str(exc)))
            continue
        yield from rows_from_record(record, source, lineno, cfg, limits)


def parse_csv(stream: Iterable[str], source: str, cfg: InputConfig, limits: LimitsConfig) -> Iterator[Parsed]:
    delimiter = "\t" if source.lower().removesuffix(".gz").endswith(".tsv") else cfg.csv_delimiter
    reader = csv.reader(stream, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        yield Reject(STAGE, "malformed_csv", source, 0, "", str(exc))
        return
    position = 0
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            position += 1
            yield Reject(STAGE, "malformed_csv", source, position, "", str(exc))
            continue
        position += 1
        if not values or all(not v.strip() for v in values):
            position -= 1
            continue
        if len(values) != len(header):
            yield Reject(STAGE, "csv_bad_field_count", source, position,
                         truncate(delimiter.join(values), limits.raw_preview_chars),
                         f"expected {len(header)} fields, got {len(values)}")
            continue
        yield from rows_from_record(dict(zip(header, values)), source, position, cfg, limits)


def parse_parquet(handle: Any, source: str, cfg: InputConfig, limits: LimitsConfig,
                  batch_rows: int = 8192) -> Iterator[Parsed]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(handle)
    except Exception as exc:
        yield Reject(STAGE, "unreadable_parquet", source, 0, "", f"{type(exc).__name__}: {exc}"[:300])
        return
    position = 0
    for batch in pf.iter_batches(batch_size=batch_rows):
        for record in batch.to_pylist():
            position += 1
            yield from rows_from_record(record, source, position, cfg, limits)


def parse_file(path: str, fmt: str, cfg: InputConfig, limits: LimitsConfig) -> Iterator[Parsed]:
    """Every row or reject of one file, streamed."""
    if fmt == "parquet":
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            data = io.BytesIO(handle.read()) if not hasattr(handle, "seek") else handle
            yield from parse_parquet(data, path, cfg, limits)
        return
    with FileSystems.open(path, compression_type=CompressionTypes.AUTO) as raw:
        # Beam's CompressedFile is not a full io object: read it line by line ourselves
        text = (line.decode("utf-8", errors="replace") for line in iter(raw.readline, b""))
        if fmt == "csv":
            yield from parse_csv(text, path, cfg, limits)
        else:
            yield from parse_jsonl(text, path, cfg, limits)


class ParseFileFn(beam.DoFn):
    """file -> its rows and its rejects, in one output (split by type downstream: pipelines.stages.split)."""

    def __init__(self, cfg: InputConfig, limits: LimitsConfig):
        self._cfg = cfg
        self._limits = limits

    def process(self, file_info: dict):
        from pipelines.stages.metering import StageMeter

        meter = StageMeter("read")
        try:
            for item in meter.timed_iter(parse_file(file_info["path"], file_info["format"], self._cfg,
                                                    self._limits)):
                yield item
        except (OSError, UnicodeError, EOFError) as exc:
            # a truncated .gz or an unreadable file: what was read stays, the rest is one reject
            yield Reject(STAGE, "unreadable_file", file_info["path"], -1, "", f"{type(exc).__name__}: {exc}"[:300])
        meter.done()


class ReadOutput(NamedTuple):
    rows: beam.PCollection  # RawRow
    rejected: beam.PCollection  # Reject


class ReadLogs(beam.PTransform):
    """files (list of dicts from :func:`expand_inputs`) -> ``{"rows": RawRows, "rejected": Rejects}``."""

    def __init__(self, files: list[dict], cfg: InputConfig, limits: LimitsConfig):
        super().__init__()
        self._files = files
        self._cfg = cfg
        self._limits = limits

    def expand(self, pbegin):
        parsed = (pbegin
                  | "ListFiles" >> beam.Create(self._files)
                  | "SpreadFiles" >> beam.Reshuffle()
                  | "ParseFiles" >> beam.ParDo(ParseFileFn(self._cfg, self._limits)))
        return ReadOutput(*split_rejects(parsed))
