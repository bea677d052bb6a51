"""File text: one file's bytes as lines of text, for the readers of line-based formats (JSONL, JSON arrays, CSV).

A file's bytes become text in one place, :class:`FileText`, streamed line by line: decompressed by their magic
bytes (gzip, bzip2, xz, whatever the file is called), decoded by their byte-order mark (UTF-8 by default; UTF-8
with a BOM, UTF-16 and UTF-32 with one). What cannot be read becomes a fault of its line or of the file, with a
reason, never an abort and never a silent change: a line that is not UTF-8 (``invalid_utf8``, with the byte and its
offset), NUL bytes (``undecodable_text``: UTF-16 without a BOM), a line over the limit it is given
(``line_too_long``), and a stream that breaks off (``unreadable_file``: truncated or corrupt compressed data;
every line before the break is read, the fault names the line it stopped at). The parsers
(:mod:`pipelines.logfiles.formats`) turn those faults into rejects.

Kept apart from the parsers because it knows nothing of records: only bytes, encodings and line breaks.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from schemas.text import lone_surrogate, preview

# Byte-order marks, UTF-32 before UTF-16 (FF FE 00 00 starts with the UTF-16 LE mark)
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\xef\xbb\xbf", "utf-8"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))
# Magic numbers, none of which can start a text file (an empty bzip2 stream has its end marker at once)
_GZIP_MAGIC = re.compile(rb"\x1f\x8b")
_BZIP2_MAGIC = re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)")
_XZ_MAGIC = re.compile(rb"\xfd7zXZ\x00")
_COMPRESSIONS = (("gzip", _GZIP_MAGIC, lambda f: gzip.GzipFile(fileobj=f, mode="rb")),
                 ("bzip2", _BZIP2_MAGIC, bz2.BZ2File),
                 ("xz", _XZ_MAGIC, lzma.LZMAFile))
# What a compressed log's name may end with: its format is told by the name before it (logs.jsonl.bz2 is JSONL).
# gzip, bzip2 and xz are read by their content whatever the name; zstd and deflate by these names (Beam)
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd", ".deflate")
# Beam decompresses these by file name, as before (deflate has no magic number to sniff)
_BEAM_ONLY_COMPRESSIONS = (CompressionTypes.DEFLATE, CompressionTypes.ZSTD)
# What reading a stream can raise when the file itself is bad: I/O errors and bad gzip/bzip2 data (OSError),
# a truncated stream (EOFError), corrupt deflate or xz data, UTF-16/32 text that breaks off mid-character
_STREAM_FAULTS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error, lzma.LZMAError,
                                                    UnicodeDecodeError)
try:  # what Beam's zstd reader raises
    import zstandard

    _STREAM_FAULTS += (zstandard.ZstdError,)
except ImportError:  # pragma: no cover
    pass


class _Prefixed(io.RawIOBase):
    """A byte stream whose first bytes were read ahead (to sniff a magic number or a byte-order mark) and are
    given back first."""

    def __init__(self, head: bytes, rest: Any):
        super().__init__()
        self._head = head
        # read1: what the stream has now. A decompressor's read(n) gathers n bytes first, and loses them to
        # the error when its data breaks off before n: read1 hands on every byte before the break
        self._read = getattr(rest, "read1", rest.read)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _read_ahead(stream: Any, size: int) -> tuple[bytes, io.BufferedReader]:
    """(the first ``size`` bytes of ``stream`` or fewer at its end, the whole stream again)."""
    head = b""
    while len(head) < size:
        more = stream.read(size - len(head))
        if not more:
            break
        head += more
    return head, io.BufferedReader(_Prefixed(head, stream), buffer_size=1 << 16)


def _skip_rest_of_line(stream: Any, chunk: int) -> int:
    """Read on to the end of the line without keeping it; the size skipped."""
    skipped = 0
    while True:
        piece = stream.readline(chunk)
        skipped += len(piece)
        if not piece or piece.endswith(b"\n" if isinstance(piece, bytes) else "\n"):
            return skipped


class TextLine(NamedTuple):
    """One line of a file's text (with its line break)."""

    number: int  # 1-based
    text: str  # a line that is not text: its bytes written as \\xNN escapes, for previews
    fault: tuple[str, str] | None = None  # (reason, detail) when the line is not text


class FileText:
    """The text of one file, line by line: decompressed by its magic bytes, decoded by its byte-order mark.

    A fault that ends the file early (truncated or corrupt compressed data, an I/O error, UTF-16 text that
    breaks off) stops the lines; :attr:`fault` then holds (reason, detail) and :attr:`lines_read` the lines
    read before it, all of which were given out. A line longer than ``max_line_bytes`` (bytes of UTF-8 text,
    characters of other text) is skipped without being held, as one ``line_too_long`` line."""

    def __init__(self, binary: Any, reopen: Callable[[], Any], *, max_line_bytes: int):
        self._binary = binary
        self._reopen = reopen  # the file's bytes again, from the start: to check compressed data first
        self._max_line_bytes = max_line_bytes
        self.compression = ""
        self.encoding = "utf-8"
        self.lines_read = 0
        self.fault: tuple[str, str] | None = None
        self._stream: Any = None  # bytes (UTF-8) or str (a TextIOWrapper), once opened
        self._offset = 0  # bytes of (decompressed) UTF-8 text before the next line

    def lines(self) -> Iterator[TextLine]:
        try:
            if self._open():
                yield from (self._utf8_lines() if self.encoding == "utf-8" else self._decoded_lines())
        except _STREAM_FAULTS as exc:
            self.fault = self._describe(exc)

    def rest(self, limit: int) -> str | None:
        """The text after the lines given out so far (a JSON array's), or None when it is longer than ``limit``
        (bytes of UTF-8 text, characters of other text). Where the text breaks off, what came before it, with
        :attr:`fault` set."""
        pieces, size, lines_before = [], 0, self.lines_read
        try:
            while size <= limit:  # line by line: where the data breaks off, only the broken line is lost
                piece = self._stream.readline(limit + 1 - size)
                if not piece:
                    break
                pieces.append(piece)
                size += len(piece)
                self.lines_read += 1
        except _STREAM_FAULTS as exc:
            self.fault = self._describe(exc)
        if size > limit:
            return None
        if not pieces or isinstance(pieces[0], str):
            return "".join(pieces)
        data = b"".join(pieces)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            readable = data[:exc.start].decode("utf-8")
            self.lines_read = lines_before + readable.count("\n")  # the fault's line is the next
            self.fault = ("invalid_utf8", self._not_utf8(data, exc.start, self._offset + exc.start)
                          .replace(" of the line", " of the text") + "; the rest of the file is not read")
            return readable

    def _open(self) -> bool:
        """Sniff the compression and the encoding; False when there is nothing to read (:attr:`fault` says why)."""
        head, binary = _read_ahead(self._binary, 10)
        for name, magic, opener in _COMPRESSIONS:
            if magic.match(head):
                self.compression, binary = name, opener(binary)
                damage = self._damage(opener)
                if damage:
                    self.fault = ("unreadable_file", damage)
                    return False
                break
        head, binary = _read_ahead(binary, 4)
        bom = b""
        for mark, encoding in _BOMS:
            if head.startswith(mark):
                bom, self.encoding = mark, encoding
                break
        binary.read(len(bom))
        self._offset = len(bom)
        if self.encoding == "utf-8":
            self._stream = binary
        else:  # surrogatepass: a lone surrogate in UTF-16 becomes one line's reject, not the file's
            self._stream = io.TextIOWrapper(binary, encoding=self.encoding, errors="surrogatepass", newline="\n")
        return True

    def _damage(self, opener: Callable[[Any], Any]) -> str:
        """Why the compressed data is corrupt ("" if it is not, or is only cut short), found by decompressing
        it once, keeping nothing, before any line is read. Corrupt data decompresses to damaged text before the
        decompressor notices (gzip checks its CRC only at the end), so no line of it can be trusted; data that
        is only cut short is sound up to the cut, and is read. Costs one more decompression (and download):
        inflating runs several times faster than parsing (40 MB of JSONL: 0.03 s against 0.9 s)."""
        try:
            with self._reopen() as raw:
                stream = opener(raw)
                while stream.read1(1 << 20):
                    pass
        except EOFError:
            return ""
        except _STREAM_FAULTS as exc:
            return (f"corrupt {self.compression} data: {type(exc).__name__}: {exc}; no line is read (which lines "
                    f"are damaged cannot be told)")[:500]
        return ""

    def _too_long(self, first: Any) -> TextLine:
        size = len(first) + _skip_rest_of_line(self._stream, self._max_line_bytes)
        self._offset += size
        shown = first[:200].decode("utf-8", "backslashreplace") if isinstance(first, bytes) else first[:200]
        unit = "bytes" if isinstance(first, bytes) else "characters"
        return TextLine(self.lines_read, shown + "\n", (
            "line_too_long", f"{size:,} {unit} > {self._max_line_bytes:,} (a file without line breaks?); skipped"))

    def _utf8_lines(self) -> Iterator[TextLine]:
        while True:
            line = self._stream.readline(self._max_line_bytes + 1)
            if not line:
                return
            self.lines_read += 1
            if len(line) > self._max_line_bytes and not line.endswith(b"\n"):
                yield self._too_long(line)
                continue
            offset, self._offset = self._offset, self._offset + len(line)
            if b"\x00" in line:  # valid UTF-8, but no text has it: UTF-16/32 read as UTF-8
                yield TextLine(self.lines_read, line.decode("utf-8", "backslashreplace").replace("\x00", "\\x00"), (
                    "undecodable_text", "NUL bytes: UTF-16 or UTF-32 text without a byte-order mark? "
                                        "(save the file as UTF-8)"))
                continue
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:  # never replaced with U+FFFD: the row would change unseen
                yield TextLine(self.lines_read, line.decode("utf-8", "backslashreplace"),
                               ("invalid_utf8", self._not_utf8(line, exc.start, offset + exc.start)))
                continue
            yield TextLine(self.lines_read, text)

    def _not_utf8(self, data: bytes, at: int, file_offset: int) -> str:
        where = "decompressed " if self.compression else ""
        return (f"byte 0x{data[at]:02x} at byte {at} of the line (byte {file_offset} of the {where}file) is not "
                f"UTF-8 (save the file as UTF-8)")

    def _decoded_lines(self) -> Iterator[TextLine]:
        while True:
            line = self._stream.readline(self._max_line_bytes + 1)
            if not line:
                return
            self.lines_read += 1
            if len(line) > self._max_line_bytes and not line.endswith("\n"):
                yield self._too_long(line)
                continue
            at = lone_surrogate(line)
            if at < 0:
                yield TextLine(self.lines_read, line)
            else:
                yield TextLine(self.lines_read, preview(line, len(line)), (
                    "undecodable_text", f"{self.encoding}: lone surrogate U+{ord(line[at]):04X} at character {at} "
                                        f"of the line"))

    def _describe(self, exc: BaseException) -> tuple[str, str]:
        """(reason, detail) of a fault that ended the file at line ``lines_read + 1``."""
        kept = f"lines 1-{self.lines_read} were read" if self.lines_read else "no line was read"
        at = f"at line {self.lines_read + 1}"
        if isinstance(exc, UnicodeDecodeError):
            return "undecodable_text", f"{self.encoding} text breaks off {at}: {exc.reason}; {kept}"
        if isinstance(exc, EOFError):
            return "unreadable_file", (f"truncated: the {self.compression or 'compressed'} data ends {at}, before "
                                       f"its end marker; {kept}, the rest is lost")
        what = f"corrupt {self.compression} data" if self.compression else "read error"
        return "unreadable_file", f"{what} {at}: {type(exc).__name__}: {exc}; {kept}, the rest is lost"[:500]


def uncompressed_name(path: str) -> str:
    """``path`` in lower case without the suffix of a compression (what names its format)."""
    name = path.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def open_binary(path: str) -> Any:
    """The file's bytes: as stored (FileText sniffs gzip, bzip2 and xz), or decompressed by Beam for the
    compressions it knows by name only."""
    compression = CompressionTypes.detect_compression_type(path)
    if compression not in _BEAM_ONLY_COMPRESSIONS:
        compression = CompressionTypes.UNCOMPRESSED
    return FileSystems.open(path, compression_type=compression)
