"""Training a cross-encoder's adapters (models.cross_encoder) on labelled text pairs: what the pair
trainers share. The packaged layers below the adapted ones are run once per pair (:class:`PairStates`); each epoch
runs only the adapted layers; the epoch with the best tune AUC is kept. Seeded, in a fixed order, on ``device``
(the CPU, or a CUDA GPU where training takes minutes instead of hours; a GPU's sums are not bit-reproducible)."""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import numpy as np


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


class PairStates:
    """Each (a, b, label) pair's states entering the adapted layers (CrossEncoder.bottom), computed once (and kept
    in ``cache`` between runs), float16. ``order``: how a pair is put before the model (the judge's order)."""

    def __init__(self, model, tokenizer, pairs, cache: Path | None, label: str, order=None, device: str = "cpu"):
        from models.cross_encoder import batch_tensors

        canon = [order(a, b) if order else (a, b) for a, b, _ in pairs]
        self.keys = canon
        key = hashlib.sha256(("\n".join(f"{a}\t{b}" for a, b in canon) + f"|{model.lora_from}").encode()).hexdigest()
        path = cache / f"e5-pairs-{key[:16]}.npz" if cache else None
        self.y = np.array([y for _, _, y in pairs], dtype=np.float32)
        if path is not None and path.is_file():
            with np.load(path) as f:
                flat, offsets = f["flat"], f["offsets"]
            self.states = [flat[offsets[i]:offsets[i + 1]] for i in range(len(canon))]
            return
        import torch

        self.states = [None] * len(canon)
        order = sorted(range(len(canon)), key=lambda i: (len(canon[i][0]) + len(canon[i][1]), i))
        started = time.monotonic()
        with torch.inference_mode():
            for s in range(0, len(order), 64):
                rows = order[s:s + 64]
                x, mask = batch_tensors(tokenizer, [canon[i] for i in rows])
                h = model.bottom(x.to(device), mask.to(device)).float().cpu().numpy()
                for j, i in enumerate(rows):
                    self.states[i] = h[j, :int(mask[j].sum())].astype(np.float16)
                done = s + len(rows)
                if done % 2048 < 64 or done == len(order):
                    print(f"{label}: {done:,}/{len(order):,} pairs ({done / (time.monotonic() - started):.0f}/s)",
                          file=sys.stderr)
        if path is not None:
            cache.mkdir(parents=True, exist_ok=True)
            np.savez(path, flat=np.concatenate(self.states), offsets=np.cumsum([0] + [len(s) for s in self.states]))

    def subset(self, pairs, order=None) -> "PairStates":
        """The states of ``pairs`` (each one of this set's, in either order), with their own labels: folds of one
        set whose packaged layers ran once."""
        index = {k: i for i, k in enumerate(self.keys)}
        part = object.__new__(PairStates)
        part.keys = [order(a, b) if order else (a, b) for a, b, _ in pairs]
        part.states = [self.states[index[k]] for k in part.keys]
        part.y = np.array([y for _, _, y in pairs], dtype=np.float32)
        return part

    def batch(self, rows, device: str = "cpu"):
        import torch

        longest = max(len(self.states[i]) for i in rows)
        h = np.zeros((len(rows), longest, self.states[rows[0]].shape[1]), dtype=np.float32)
        mask = np.zeros((len(rows), longest), dtype=np.int64)
        for j, i in enumerate(rows):
            h[j, :len(self.states[i])] = self.states[i]
            mask[j, :len(self.states[i])] = 1
        return torch.from_numpy(h).to(device), torch.from_numpy(mask).to(device)

    def logits(self, model, batch: int = 128, device: str = "cpu") -> np.ndarray:
        import torch

        model.eval()
        out = []
        with torch.inference_mode():
            for s in range(0, len(self.states), batch):
                h, mask = self.batch(list(range(s, min(s + batch, len(self.states)))), device)
                out.append(model.top(h, mask).float().cpu().numpy().astype(np.float64))
        return np.concatenate(out)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / max(pos.sum() * (~pos).sum(), 1))


def train_adapters(model, train: PairStates, tune: PairStates | None, epochs: int, seed: int, batch: int = 32,
                   lr: float = 5e-4, device: str = "cpu", tune_logits: list | None = None):
    """The adapters after the epoch with the highest tune AUC, and that AUC per epoch. ``tune`` None: the adapters
    after the last epoch (the epoch count chosen elsewhere). ``tune_logits``: a list that receives the tune logits
    after each epoch (cross-fitting pools them over folds)."""
    import torch

    torch.manual_seed(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    rng = np.random.default_rng(seed)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    best, best_auc, aucs = None, -1.0, []
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(train.y))
        started, total = time.monotonic(), 0.0
        for s in range(0, len(order), batch):
            rows = order[s:s + batch].tolist()
            h, mask = train.batch(rows, device)
            loss = loss_fn(model.top(h, mask), torch.from_numpy(train.y[rows]).to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(rows)
            if (s // batch) % 100 == 0:
                print(f"epoch {epoch + 1}: {s + len(rows):,}/{len(order):,} pairs, loss {total / (s + len(rows)):.4f}"
                      f" ({(s + len(rows)) / (time.monotonic() - started):.0f} pairs/s)", file=sys.stderr)
        if tune is None:
            print(f"epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f} ({time.monotonic() - started:.0f} s)",
                  file=sys.stderr)
            continue
        logits = tune.logits(model, device=device)
        if tune_logits is not None:
            tune_logits.append(logits)
        tune_auc = auc(logits, tune.y)
        aucs.append(round(tune_auc, 4))
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}, tune AUC {tune_auc:.4f} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
        if tune_auc > best_auc:
            best_auc, best = tune_auc, {k: v.detach().clone() for k, v in model.trained().items()}
    if best is None:
        return model.eval(), aucs
    with torch.no_grad():
        for k, v in model.named_parameters():
            if k in best:
                v.copy_(best[k])
    return model.eval(), aucs
