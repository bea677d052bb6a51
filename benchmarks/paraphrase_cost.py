"""What the paraphrase stage costs at scale: synthetic logs -> every distinct question -> the stage alone.

    python benchmarks/paraphrase_cost.py --rows 100000 [--rows 1000000] [--seed 0]

The logs are benchmarks/generate_logs.py's (cached under benchmarks/data/). Rows are counted per
normalised question (forms, answers) as the build's count stage does; each distinct question is
embedded in its language's question space, which a build does once, while scoring intent (the
paraphrase stage reuses those vectors: their time is reported apart, as "embed (paid by scoring)");
then the stage itself (MergeParaphrases: k-NN candidates, the judge, grouping, entries) runs on
Beam's DirectRunner over all of them, and once more with merging off: the difference is the stage's cost
(creating the questions inside the pipeline costs the same either way). Prints one line per size and a
JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def distinct_questions(path: Path) -> list:
    """ScoredQuestion per normalised question of the logs (all passing the filters: the stage's worst case)."""
    from models.paraphrase.evidence import answer_signature
    from schemas.records import ScoredQuestion
    from schemas.text import detect_lang, normalize_key

    forms: dict[str, Counter] = {}
    answers: dict[str, dict[str, Counter]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            q, a = row.get("question"), row.get("answer")
            if not isinstance(q, str) or not isinstance(a, str):
                continue
            key = normalize_key(q)
            if not key:
                continue
            forms.setdefault(key, Counter())[q.strip()] += 1
            answers.setdefault(key, {}).setdefault(normalize_key(a) or a, Counter())[a] += 1
    out = []
    for key in sorted(forms):
        text = min(forms[key].items(), key=lambda kv: (-kv[1], kv[0]))[0]
        out.append(ScoredQuestion(key, text, sum(forms[key].values()), detect_lang(text), len(forms[key]), 1.0, 1.0,
                                  "{}", "{}", True, True, {}, "", answer_signature(answers[key])))
    return out


def merge_quality(groups: list[list[str]], rows: int, seed: int) -> dict:
    """Precision and recall of "same entry" against the generator's "same base question", over pairs of
    distinct questions whose base question is known (a listed surface form of exactly one base question)."""
    from generate_logs import base_question_forms
    from schemas.text import detect_lang, normalize_key

    base: dict[str, set] = {}
    for i, forms in enumerate(base_question_forms(rows, seed)):
        for f in forms:
            base.setdefault(normalize_key(f), set()).add(i)
    known = {k: next(iter(v)) for k, v in base.items() if len(v) == 1}
    entry_of = {k: gi for gi, g in enumerate(groups) for k in g}
    out = {}
    for lang in ("en", "zh"):
        keys = [k for k in entry_of if k in known and (detect_lang(k) == "zh") == (lang == "zh")]
        by_entry: dict[int, Counter] = {}
        by_base: dict[int, int] = Counter()
        for k in keys:
            by_entry.setdefault(entry_of[k], Counter())[known[k]] += 1
            by_base[known[k]] += 1
        pairs = lambda n: n * (n - 1) // 2  # noqa: E731
        tp = sum(pairs(n) for c in by_entry.values() for n in c.values())
        merged = sum(pairs(sum(c.values())) for c in by_entry.values())
        true = sum(pairs(n) for n in by_base.values())
        out[lang] = {"labelled_questions": len(keys), "true_pairs": true, "merged_pairs": merged,
                     "precision": round(tp / merged, 4) if merged else 1.0,
                     "recall": round(tp / true, 4) if true else 0.0}
    return {"quality": out}


def run_one(rows: int, seed: int, overrides: dict | None = None) -> dict:
    import apache_beam as beam

    from generate_logs import generate
    from models.factory import RegistryModels
    from pipelines.stages.paraphrase import MergeParaphrases, with_space_vectors
    from schemas.config import BuildConfig

    data = HERE / "data" / f"logs_{rows}_{seed}.jsonl"
    if not data.exists():
        data.parent.mkdir(parents=True, exist_ok=True)
        generate(rows, data, seed=seed)
    t = time.perf_counter()
    questions = distinct_questions(data)
    count_s = time.perf_counter() - t
    cfg = BuildConfig()
    if overrides:
        cfg = dataclasses.replace(cfg, paraphrase=dataclasses.replace(cfg.paraphrase, **overrides))
    cache = HERE / "data" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    factory = RegistryModels.of(cfg, str(cache))
    embedders = factory.paraphrase().embedders
    t = time.perf_counter()
    placed = []
    for i in range(0, len(questions), 512):
        placed += [q for q, _, _ in with_space_vectors(embedders, questions[i:i + 512])]
    embed_s = time.perf_counter() - t
    counts = Path(tempfile.mkdtemp(prefix="qabase-para-cost-"))

    def keep(n, name):  # the runner runs pickled copies of this: the count goes to a file
        (counts / name).write_text(str(n))

    seconds = {}
    # the same pipeline with merging off (every question its own entry) is the floor: creating the
    # questions in the pipeline and grouping them cost the same either way; the difference is the stage's
    for enabled in (False, True):
        t = time.perf_counter()
        with beam.Pipeline() as p:
            out = (p | beam.Create(placed, reshuffle=False)
                   | MergeParaphrases(factory, dataclasses.replace(cfg.paraphrase, enabled=enabled),
                                      cfg.models.batch_size))
            _ = (out["entries"] | "CountEntries" >> beam.combiners.Count.Globally()
                 | "KeepEntries" >> beam.Map(keep, "entries"))
            _ = (out["pairs"] | "CountPairs" >> beam.combiners.Count.Globally()
                 | "KeepPairs" >> beam.Map(keep, "pairs"))
            if enabled:
                _ = (out["entries"] | "Groups" >> beam.Map(lambda e: [m.key for m in e.members])
                     | "AllGroups" >> beam.combiners.ToList() | "KeepGroups" >> beam.Map(
                         lambda gs: (counts / "groups.json").write_text(json.dumps(gs, ensure_ascii=False))))
        seconds[enabled] = time.perf_counter() - t
    stage_s = seconds[True] - seconds[False]
    result = {name: int((counts / name).read_text()) for name in ("entries", "pairs")}
    result.update(merge_quality(json.loads((counts / "groups.json").read_text()), rows, seed))
    result["pipeline_merging_off_s"] = round(seconds[False], 1)
    result["pipeline_merging_on_s"] = round(seconds[True], 1)
    result.update({"rows": rows, "seed": seed, "distinct_questions": len(questions),
                   "merged_questions": len(questions) - result["entries"], "count_s": round(count_s, 1),
                   "embed_paid_by_scoring_s": round(embed_s, 1), "paraphrase_stage_s": round(stage_s, 1),
                   "questions_per_s": round(len(questions) / stage_s, 1)})
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, action="append", help="rows to generate (repeatable); default 100000")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=NUMBER",
                    help="a paraphrase setting, e.g. answers_min_overlap=0 (the judge alone)")
    args = ap.parse_args(argv)
    overrides = {k: float(v) if "." in v else int(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    for rows in args.rows or [100_000]:
        r = run_one(rows, args.seed, overrides)
        q = r["quality"]
        print(f"  merge decisions against the generator's base questions: en precision {q['en']['precision']}, "
              f"recall {q['en']['recall']}; zh precision {q['zh']['precision']}, recall {q['zh']['recall']}")
        print(f"{rows:,} rows: {r['distinct_questions']:,} distinct questions -> {r['entries']:,} entries "
              f"({r['merged_questions']:,} merged, {r['pairs']:,} judged pairs kept); paraphrase stage "
              f"{r['paraphrase_stage_s']}s ({r['questions_per_s']:,.0f} questions/s); embedding "
              f"{r['embed_paid_by_scoring_s']}s (paid by scoring in a build)", flush=True)
        print(json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
