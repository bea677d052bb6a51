"""Read: JSONL, JSON arrays, CSV and Parquet logs, single-turn pairs and chat-style records.

The read stage: which files to read (:func:`expand_inputs`, each with its format, :func:`file_format`), and
every row or reject of one file (:func:`parse_file`). A file that cannot be read is a reject with a reason,
never an abort and never a silent change. The work is done in two modules below this one:

- :mod:`pipelines.logfiles.text`: a file's bytes as lines of text (:class:`FileText`: decompressed by their
  magic bytes, decoded by their byte-order mark; a line that is not text, a line over :data:`MAX_LINE_BYTES`,
  a stream that breaks off become faults with a reason);
- :mod:`pipelines.logfiles.formats`: pure functions that turn one file's records, in each format (JSONL,
  JSON arrays, CSV, Parquet), into :class:`RawRow` or :class:`Reject`, single-turn pairs and chat-style
  records alike.

The :class:`ReadLogs` PTransform runs :func:`parse_file` over files through Beam's FileSystems, so
local paths, gs:// and s3:// work the same on any runner.
"""

from __future__ import annotations

import glob
import io
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from pipelines.logfiles.text import COMPRESSION_SUFFIXES, FileText, TextLine, open_binary, uncompressed_name
from pipelines.logfiles.formats import (
    ASSISTANT_ROLES,
    STAGE,
    USER_ROLES,
    Parsed,
    chat_pairs,
    parse_csv,
    parse_json_array,
    parse_jsonl,
    parse_parquet,
    rows_from_record,
)
from pipelines.beam.split import split_rejects
from schemas.config import InputConfig, LimitsConfig
from schemas.errors import InputError
from schemas.layout import is_remote, not_a_regular_file
from schemas.records import Reject
from schemas.text import lone_surrogate

# This module's names and those it held before it was split into pipelines.logfiles.text and .formats
# (re-exported from them: no importer changes)
__all__ = ["ASSISTANT_ROLES", "MAX_JSON_ARRAY_BYTES", "MAX_LINE_BYTES", "STAGE", "USER_ROLES", "FileText",
           "ParseFileFn", "Parsed", "ReadLogs", "ReadOutput", "TextLine", "chat_pairs", "expand_inputs", "file_format",
           "parse_csv", "parse_file", "parse_json_array", "parse_jsonl", "parse_parquet", "rows_from_record"]

# The read's limits, looked up here each time a file is parsed and handed down (FileText, parse_jsonl).
# A file that is one JSON array is parsed whole, so it is bounded; a bigger one is one reject
# (``json_array_too_large``: write it as JSONL, one object per line).
MAX_JSON_ARRAY_BYTES = 64 * 1024 * 1024
# A line longer than this is a reject (``line_too_long``), skipped without being held: a file with no line
# breaks (a binary file, one giant record) must never be read into memory whole. Far above any real record,
# and as long as a JSON array may be: a minified array is one line.
MAX_LINE_BYTES = MAX_JSON_ARRAY_BYTES
LOG = logging.getLogger("qabase.read")


def file_format(path: str, forced: str = "auto") -> str:
    if forced != "auto":
        return forced
    name = uncompressed_name(path)
    for ext, fmt in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"),
                     (".csv", "csv"), (".tsv", "csv"), (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(ext):
            return fmt
    raise InputError(f"input: cannot tell the format of {path} (use .jsonl, .csv or .parquet, compressed or not: "
                     f"{', '.join(COMPRESSION_SUFFIXES)}; or set input.format)")


def _known_format(path: str) -> bool:
    try:
        file_format(path)
        return True
    except InputError:
        return False


def _utf8_name(path: str) -> str:
    """``path``, if it can be stored: a name that is not UTF-8 (Python keeps its bytes as lone surrogates) would
    break every record that names its file."""
    if lone_surrogate(path) >= 0:
        raise InputError(f"input: a file name that is not UTF-8: {ascii(path)[1:-1]} (rename the file)")
    return path


def _not_regular(path: str) -> str | None:
    """What a local path is when it is not a regular file (None: a regular file, or a path in a store): a FIFO,
    a device (/dev/zero, /dev/urandom) or a socket would be hashed, then read, forever."""
    if is_remote(path):
        return None
    what = not_a_regular_file(path)
    return "a dangling link" if what == "missing" else what


def _has_glob(pattern: str) -> bool:
    return glob.has_magic(pattern)


def _match(pattern: str) -> list[tuple[str, int]]:
    """(path, size) of every file ``pattern`` names. A path that exists is that file, whatever characters it
    holds (``x[1].jsonl``: a literal name wins over a glob); else ``pattern`` is a glob, through Beam's
    FileSystems (local paths and stores alike)."""
    if not is_remote(pattern) and os.path.lexists(pattern):
        try:
            return [(pattern, os.stat(pattern).st_size)]
        except OSError:  # a dangling link: said by _not_regular, as "cannot be read"
            return [(pattern, 0)]
    bare = not is_remote(pattern) and not os.path.dirname(pattern)  # Beam matches '*.jsonl' only as './*.jsonl'
    try:
        result = FileSystems.match([os.path.join(".", pattern) if bare else pattern])[0]
        matched = [(m.path, m.size_in_bytes) for m in result.metadata_list]
    except Exception as exc:  # Beam raises BeamIOError with nested detail
        raise InputError(f"input: cannot read {pattern}: {type(exc).__name__}") from None
    return [(p[2:] if bare and p.startswith("./") else p, s) for p, s in matched]


def expand_inputs(patterns: Iterable[str], forced_format: str = "auto") -> list[dict[str, Any]]:
    """Resolve paths and globs to a sorted list of files with sizes; fail fast if any matches nothing.

    Only regular files are read: a path named on its own that is anything else (a FIFO, /dev/zero, a socket)
    is an InputError; one that a folder or a glob turned up is skipped with a warning naming it."""
    files: dict[str, int] = {}
    for pattern in patterns:
        from_dir = os.path.isdir(pattern)  # a local folder: every log file directly inside it
        if from_dir:
            matched = [(os.path.join(pattern, name), 0) for name in sorted(os.listdir(pattern))]
            matched = [(p, s) for p, s in matched if _known_format(p) and not os.path.isdir(p)]
            pattern = os.path.join(pattern, "*")
        else:
            matched = _match(pattern)
        named = not from_dir and (not _has_glob(pattern) or (not is_remote(pattern) and os.path.lexists(pattern)))
        matched = [(p, s) for p, s in matched if not FileSystems.split(p)[1].startswith(".")]
        if not matched:
            raise InputError(f"input: no such file or no files match: {pattern}")
        regular = []
        for path, size in matched:
            what = _not_regular(path)
            if what is None:
                regular.append((path, os.stat(path).st_size if from_dir else size))
            elif named:
                raise InputError(f"input: {path} is {what}, not a regular file: only log files are read")
            else:
                LOG.warning("input: %s is %s, not a regular file: skipped (matched by %s)", path, what, pattern)
        if not regular:
            raise InputError(f"input: {pattern} matches no regular file (only FIFOs, devices, sockets or folders)")
        for path, size in regular:
            files[_utf8_name(path)] = size
    out = []
    for path in sorted(files):
        out.append({"path": path, "size": files[path], "format": file_format(path, forced_format)})
    return out

def parse_file(path: str, fmt: str, cfg: InputConfig, limits: LimitsConfig,
               opened: Callable[[Any], None] | None = None) -> Iterator[Parsed]:
    """Every row or reject of one file, streamed. A file that cannot be opened is one reject; one that breaks
    off (truncated, corrupt) gives its rows up to the break, then one reject naming the line and why.
    ``opened``: called with the file's stored bytes as opened (progress reads how far they are read)."""
    try:
        handle = (FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) if fmt == "parquet"
                  else open_binary(path))
    except OSError as exc:  # gone or unreadable since it was listed (Beam's BeamIOError is an OSError)
        yield Reject(STAGE, "unreadable_file", path, 0, "", f"cannot open: {type(exc).__name__}: {exc}"[:500])
        return
    if opened is not None:
        opened(handle)
    with handle:
        if fmt == "parquet":
            data = io.BytesIO(handle.read()) if not hasattr(handle, "seek") else handle
            yield from parse_parquet(data, path, cfg, limits)
            return
        text = FileText(handle, reopen=lambda: open_binary(path), max_line_bytes=MAX_LINE_BYTES)
        if fmt == "csv":
            yield from parse_csv(text, path, cfg, limits)
        else:
            yield from parse_jsonl(text, path, cfg, limits, max_array_bytes=MAX_JSON_ARRAY_BYTES)
        if text.fault is not None:
            yield Reject(STAGE, text.fault[0], path, text.lines_read + 1, "", text.fault[1])


class ParseFileFn(beam.DoFn):
    """file -> its rows and its rejects, in one output (split by type downstream: pipelines.beam.split).

    Progress is in the files' stored bytes (``total_bytes``: all the files', known before the graph runs): the
    files done and how far into the current one its reader is."""

    def __init__(self, cfg: InputConfig, limits: LimitsConfig, total_bytes: int | None = None):
        self._cfg = cfg
        self._limits = limits
        self._total_bytes = total_bytes

    def setup(self):
        self._meter = None
        self._bytes_done = 0  # of the files this worker has read to their end
        self._handle = None
        self._size = 0  # of the file being read

    def _position(self) -> float:
        """Bytes of the stored files read: those done, and how far into the current one its reader is (at most
        its size: a reader reads ahead)."""
        try:
            current = self._handle.tell() if self._handle is not None else 0
        except (OSError, ValueError, AttributeError):  # closed, or a stream that cannot tell
            current = 0
        return self._bytes_done + min(current, self._size)

    def _opened(self, handle) -> None:
        from apache_beam.io.filesystem import CompressedFile

        # a file Beam decompresses (deflate, zstd) tells where it is in the decompressed bytes; its stored file
        # tells how far into the stored bytes, which the total counts
        self._handle = getattr(handle, "_file", handle) if isinstance(handle, CompressedFile) else handle

    def process(self, file_info: dict):
        from pipelines.beam.metering import StageMeter

        if self._meter is None:
            self._meter = StageMeter("read", self._total_bytes or None, position=self._position, unit="MB")
        self._size = file_info["size"]
        # parse_file turns every fault of the file into rejects: nothing to catch here
        yield from self._meter.timed_iter(parse_file(file_info["path"], file_info["format"], self._cfg,
                                                     self._limits, self._opened))
        self._handle = None
        self._bytes_done += file_info["size"]
        self._meter.check()

    def finish_bundle(self):
        if self._meter is not None:
            self._meter.done()


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
                  | "ParseFiles" >> beam.ParDo(ParseFileFn(self._cfg, self._limits,
                                                           sum(f["size"] for f in self._files))))
        return ReadOutput(*split_rejects(parsed))
