"""The aggregator interface and its results: one answer (majority vote) or viewpoints per question.

Backends: ``embedding`` (models.aggregators.embedding, the default) and ``llm`` (a local or HTTP LLM
that falls back to the embedding aggregator). ``models.registry`` maps config names to them.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from schemas.records import AnswerCount
from schemas.text import reads_as_chinese


class Viewpoint(NamedTuple):
    summary: str
    answer_ids: list[int]


class AggregateResult(NamedTuple):
    answer: str
    confidence: float
    vote_margin: float
    viewpoints: list[Viewpoint]
    method: str
    flags: list[str]


class Aggregator(Protocol):
    model_id: str

    def aggregate_many(self, groups: list[tuple[str, str, str, list[AnswerCount]]]) -> list[AggregateResult]:
        """groups: (question, qtype, lang, answers) each."""
        ...


def overall_summary(viewpoints: list[Viewpoint], lang: str) -> str:
    if reads_as_chinese(lang):
        # each summary's own closing mark gives way to the separator (never "。；")
        parts = [f"（{i}）{v.summary.rstrip('。；;！!？?. ')}" for i, v in enumerate(viewpoints, 1)]
        return f"共有{len(viewpoints)}种观点：" + "；".join(parts) + "。"
    parts = [f"({i}) {v.summary}" for i, v in enumerate(viewpoints, 1)]
    noun = "viewpoint" if len(viewpoints) == 1 else "viewpoints"
    return f"{len(viewpoints)} {noun}: " + " ".join(parts)
