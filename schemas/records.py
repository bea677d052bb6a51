"""Typed records that flow between stages.

NamedTuples: typed, immutable, cheap to pickle between Beam workers.
"""

from __future__ import annotations

from typing import NamedTuple, Optional


class RawRow(NamedTuple):
    """One (question, answer) pair as read, before validation."""

    source: str
    position: int  # 1-based line number (JSONL/CSV data line) or row index (Parquet)
    question: object
    answer: object
    ext_id: Optional[str] = None
    timestamp: Optional[str] = None
    conversation_id: Optional[str] = None
    lang_hint: Optional[str] = None
    turn: int = 0  # for chat records with chat_pairs=all: which user turn


class Reject(NamedTuple):
    """A row that did not make it, with the stage and the reason: data, never a silent drop."""

    stage: str
    reason: str
    source: str
    position: int
    raw: str
    detail: str = ""


class AcceptedRow(NamedTuple):
    key: str  # normalised question key
    question: str  # surface form as logged (whitespace-trimmed)
    answer: str
    answer_key: str
    lang: str
    row_id: str


class QuestionStats(NamedTuple):
    """A distinct question after counting."""

    key: str
    question: str  # most frequent surface form (ties: lexicographically smallest)
    frequency: int
    lang: str
    surface_forms: int


class ScoredQuestion(NamedTuple):
    key: str
    question: str
    frequency: int
    lang: str
    surface_forms: int
    gec_score: float
    intent_score: float
    gec_details: str  # JSON
    intent_details: str  # JSON
    passed_gec: bool
    passed_intent: bool
    # embeddings computed while scoring, by embedder id, so later stages can reuse them
    vectors: dict


class KeptQuestion(NamedTuple):
    """A question in the top K, with its index vector and type."""

    qid: str
    rank: int
    scored: ScoredQuestion
    vector: object  # np.ndarray float32, L2-normalised, from the index embedder
    qtype: str
    qtype_score: float


class AnswerCount(NamedTuple):
    answer_id: int  # 1..n, most frequent first
    text: str
    count: int
