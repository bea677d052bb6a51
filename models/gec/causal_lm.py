"""``lm:/path``: fluency from a local Hugging Face causal LM's log-likelihood, as a GEC score."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np


class CausalLmGecScorer:
    """Any local causal LM directory (``lm:/path``): fluency from length-normalised log-likelihood.

    The mean negative log-likelihood per token is compared with the same model's
    values on fluent reference requests (the clear-request prototypes, both
    languages): ``z = (nll - mean_ref) / sd_ref``, ``score = sigmoid(1 - z)``. So a
    text as fluent as the references scores about 0.73, one standard deviation
    worse 0.5, three worse 0.12, whatever the model's own perplexity scale.
    """

    def __init__(self, path: str, batch_size: int = 16, max_length: int = 128):
        from pathlib import Path

        import torch

        from models.embedders.hf import load_hf_dir

        p = Path(path)
        self._tok, self._model, fingerprint = load_hf_dir(p, "AutoModelForCausalLM", "a causal LM")
        if self._tok.pad_token is None:
            self._tok.pad_token = self._tok.eos_token or self._tok.unk_token
        self._torch = torch
        self._batch_size = batch_size
        self._max_length = max_length
        self.model_id = causal_lm_identity(p, fingerprint)
        from models.prototypes import load_prototypes

        clear = load_prototypes()["intent"]["clear"]
        ref = np.asarray(self.nll(clear["en"] + clear["zh"]))
        self._ref_mean = float(ref.mean())
        self._ref_sd = float(max(ref.std(), 1e-3))

    def nll(self, texts: list[str]) -> list[float]:
        """Mean negative log-likelihood per predicted token of each text."""
        torch = self._torch
        out: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                chunk = texts[start:start + self._batch_size]
                enc = self._tok(chunk, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_length)
                logits = self._model(**enc).logits[:, :-1].float()
                target = enc["input_ids"][:, 1:]
                mask = enc["attention_mask"][:, 1:].float()
                logp = torch.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
                per_text = -(logp * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                out.extend(float(v) for v in per_text)
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text, value in zip(texts, self.nll(texts)):
            z = (value - self._ref_mean) / self._ref_sd
            score = float(1.0 / (1.0 + math.exp(-(1.0 - z))))
            results.append((score, {"nll": round(value, 4), "ref_mean": round(self._ref_mean, 4),
                                    "ref_sd": round(self._ref_sd, 4), "z": round(z, 3)}))
        return results


def causal_lm_identity(path: str | Path, fingerprint: str | None = None) -> str:
    from models.embedders.hf import dir_fingerprint

    return f"lm:{Path(path).name}@{fingerprint or dir_fingerprint(Path(path))}"
