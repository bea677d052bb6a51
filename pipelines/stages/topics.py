"""Stage ``topics``: the published entries grouped into topics for review, each entry given its topic, and the
topics table (``topics.parquet``, schemas/topics.py) written beside the store.

Runs where the store is written (pipelines.stages.write.store_to: every published row and its index vector in
one place, rank order): the topic model (``topics.backend``, models/topics) groups the index vectors
(``models.embedder``'s: one space for every language), the namer names each topic by its entries' question
texts (the representative and its other forms), and each topic counts what a reviewer weighs: entries, asks,
flagged entries and least reliable entries. Deterministic: the same rows give the same topics.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from models.topics.base import UNASSIGNED
from models.topics.naming import topic_name, topic_words
from schemas.layout import TOPICS_FILE
from schemas.topics import TOPICS_SCHEMA

TOP_QUESTIONS = 3  # the most asked questions each topic row shows


def least_reliable(rows: list[dict], share: float) -> set[int]:
    """Indices of the ``share`` of ``rows`` with the lowest reliability (ties: the lower rank first)."""
    n = math.ceil(round(share * len(rows), 9))
    order = sorted(range(len(rows)), key=lambda i: (rows[i].get("reliability", 1.0), rows[i]["rank"]))
    return set(order[:n])


def topic_table(rows: list[dict], labels: np.ndarray, words: int, least_share: float) -> list[dict]:
    """One record per topic (schemas/topics.py) of ``rows`` labelled ``labels``: topics in id order, the
    unassigned last."""
    texts = [[r["question"]] + [a["question"] for a in r.get("aliases") or [] if a["question"] != r["question"]]
             for r in rows]
    named = topic_words(texts, [int(x) for x in labels], words)
    weak = least_reliable(rows, least_share)
    out = []
    for label in sorted(set(int(x) for x in labels), key=lambda x: (x == UNASSIGNED, x)):
        members = [i for i, x in enumerate(labels) if x == label]
        by_asks = sorted(members, key=lambda i: (-rows[i]["frequency"], rows[i]["rank"]))
        out.append({
            "topic": label, "name": topic_name(label, named.get(label, [])), "words": named.get(label, []),
            "size": len(members), "asks": int(sum(rows[i]["frequency"] for i in members)),
            "flagged": sum(1 for i in members if rows[i].get("flags")),
            "least_reliable": sum(1 for i in members if i in weak),
            "top_questions": [rows[i]["question"] for i in by_asks[:TOP_QUESTIONS]],
        })
    return out


def assign_topics(rows: list[dict], cfg, model=None) -> list[dict] | None:
    """Sets each row's ``topic`` (rows in rank order, each with its index ``vector``) and returns the topics
    table; None (each ``topic`` None) when ``cfg.enabled`` (topics.enabled) is false. ``model``: the topic model
    (default: the registry's for ``cfg``)."""
    if not cfg.enabled:
        for r in rows:
            r["topic"] = None
        return None
    if model is None:
        from models.registry import topic_model

        model = topic_model(cfg)
    vectors = np.stack([np.asarray(r["vector"], dtype=np.float32) for r in rows]) if rows else np.zeros((0, 1))
    labels = model.group(vectors) if rows else np.zeros(0, dtype=np.int64)
    for r, label in zip(rows, labels):
        r["topic"] = int(label)
    return topic_table(rows, labels, cfg.words, cfg.least_reliable_share)


def write_topics(table: list[dict], folder: str | Path) -> Path:
    path = Path(folder) / TOPICS_FILE
    pq.write_table(pa.Table.from_pylist(table, schema=TOPICS_SCHEMA), path)
    return path
