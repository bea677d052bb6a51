"""``hf:/path``: any local Hugging Face sequence-classification directory whose labels (``config.id2label``)
name languages, e.g. a fine-tune in the style of papluca/xlm-roberta-base-language-detection (labels 'en',
'fr', 'zh', ...). Labels may be ISO 639-1 codes, tags ('fr-FR', 'zh_TW'), a few ISO 639-2/3 codes or English
names ('French'); labels that name one language add up. A label that names none is kept as it is (lowercased)
and so is never a language the build keeps, unless it keeps every language.

Each text runs on its own (no padding), so its language never depends on the other texts of a call.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from models.embedders.hf import dir_fingerprint
from schemas.errors import ModelLoadError
from schemas.text import language_code

PREFIX = "hf:"




def hf_identity(path: str | Path) -> str:
    path = Path(path)
    return f"lang-hf:{path.name}@{dir_fingerprint(path)}"


class HfLanguageModel:
    def __init__(self, path: str | Path, max_length: int = 128):
        path = Path(path)
        if not (path / "config.json").is_file():
            raise ModelLoadError(f"language: {path} is not a Hugging Face model directory (no config.json)")
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
            os.environ.setdefault(name, "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch
        import transformers

        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
        try:
            self._tok = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            self._model = transformers.AutoModelForSequenceClassification.from_pretrained(
                str(path), local_files_only=True).eval()
        except Exception as exc:
            raise ModelLoadError(f"language: cannot load {path} as a sequence-classification model: "
                                 f"{type(exc).__name__}: {exc}"[:400]) from None
        self._torch = torch
        id2label = self._model.config.id2label or {}
        self.labels = [str(id2label.get(i, f"LABEL_{i}")) for i in range(self._model.config.num_labels)]
        self.codes = [language_code(label) or label.strip().lower() for label in self.labels]
        self._max_length = max_length
        self.model_id = hf_identity(path)

    def probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        torch = self._torch
        out = []
        with torch.inference_mode():
            for text in texts:
                enc = self._tok(text, return_tensors="pt", truncation=True, max_length=self._max_length)
                probs = torch.softmax(self._model(**enc).logits[0].double(), dim=-1).tolist()
                dist: dict[str, float] = {}
                for code, p in zip(self.codes, probs):
                    dist[code] = dist.get(code, 0.0) + p
                out.append(dist)
        return out
