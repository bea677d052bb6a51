"""A local Hugging Face sequence-classification directory as a yes/no judge (the ``hf:/path`` backend of
the non-answer and time-sensitivity judgements, for teams with their own classifier).

The positive label is the one whose name (``config.id2label``) is among the judgement's names, any case;
a two-label model without such a name takes label 1. The score is its softmax probability.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError


class HfYesNo:
    def __init__(self, path: str | Path, positive_names: frozenset[str], what: str, batch_size: int = 32,
                 max_length: int = 256):
        import torch

        from models.embedders.hf import load_hf_dir

        path = Path(path)
        self._tok, self._model, fingerprint = load_hf_dir(path, "AutoModelForSequenceClassification",
                                                          f"a {what} classifier")
        self._torch = torch
        id2label = self._model.config.id2label or {}
        self.labels = [str(id2label.get(i, f"LABEL_{i}")) for i in range(self._model.config.num_labels)]
        named = [i for i, name in enumerate(self.labels) if name.lower() in positive_names]
        if named:
            self.positive = named[0]
        elif len(self.labels) == 2:
            self.positive = 1
        else:
            raise ModelLoadError(f"model: {path}: no label names a {what} (labels: {', '.join(self.labels)}; "
                                 f"name one of {', '.join(sorted(positive_names))})")
        self._batch_size = batch_size
        self._max_length = max_length
        self.fingerprint = fingerprint

    def probabilities(self, texts: list[str], pairs: list[str] | None = None) -> np.ndarray:
        """P(positive) per text (with ``pairs``: per (text, pair) as a sentence pair)."""
        torch = self._torch
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                first = texts[start:start + self._batch_size]
                second = pairs[start:start + self._batch_size] if pairs is not None else None
                enc = self._tok(first, second, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_length)
                logits = self._model(**enc).logits.double()
                out.append(torch.softmax(logits, dim=-1)[:, self.positive].numpy())
        return np.concatenate(out) if out else np.zeros(0)
