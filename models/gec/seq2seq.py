"""``seq2seq:/path``: a local T5/BART-style GEC model; the score follows the edit distance to its correction."""

from __future__ import annotations

from pathlib import Path

from models.gec.base import score_from_weights
from models.gec.quire import _WORD
from schemas.text import cjk_count


def char_edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over characters (two-row dynamic programme)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


class Seq2SeqGecScorer:
    """Any local seq2seq corrector directory (``seq2seq:/path``, T5/BART style).

    The model rewrites the text; the score is ``exp(-3.5 × edits / units)`` with
    edits = character edit distance between input and correction divided by the
    average word length (4 characters; 1 per CJK character), units = words (or
    CJK characters / 4), the same scale as the other GEC scores.
    """

    def __init__(self, path: str, batch_size: int = 16, max_length: int = 128, num_beams: int = 1):
        from pathlib import Path

        import torch

        from models.embedders.hf import load_hf_dir

        p = Path(path)
        self._tok, self._model, fingerprint = load_hf_dir(p, "AutoModelForSeq2SeqLM", "a seq2seq model")
        self._torch = torch
        self._batch_size = batch_size
        self._max_length = max_length
        self._num_beams = num_beams
        self.model_id = seq2seq_identity(p, fingerprint)

    def _max_new_tokens(self) -> int:
        limit = getattr(self._model.config, "max_position_embeddings", None) or self._max_length
        return max(1, min(self._max_length, limit - 2))

    def correct(self, texts: list[str]) -> list[str]:
        out: list[str] = []
        with self._torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                chunk = texts[start:start + self._batch_size]
                enc = self._tok(chunk, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_length)
                # only what every seq2seq model takes (a BERT-style tokenizer adds token_type_ids)
                gen = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                           max_new_tokens=self._max_new_tokens(), num_beams=self._num_beams,
                                           do_sample=False)
                out.extend(self._tok.batch_decode(gen, skip_special_tokens=True))
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text, fixed in zip(texts, self.correct(texts)):
            n_cjk = cjk_count(text)
            units = max(len(_WORD.findall(text)) + n_cjk / 4.0, 1.0)
            per_edit = 1.0 if n_cjk > len(text) / 2 else 4.0
            edits = char_edit_distance(text.strip(), fixed.strip()) / per_edit
            results.append((score_from_weights([edits], units), {"correction": fixed, "edits": round(edits, 3)}))
        return results


def seq2seq_identity(path: str | Path, fingerprint: str | None = None) -> str:
    from models.embedders.hf import dir_fingerprint

    return f"seq2seq:{Path(path).name}@{fingerprint or dir_fingerprint(Path(path))}"
