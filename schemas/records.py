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
    # when the row was logged, as a sortable string (timestamp if logged, then source and position): the
    # earliest over a question's rows names the entry a paraphrase group counts toward (see stages.paraphrase)
    seen: str = ""


class QuestionStats(NamedTuple):
    """A distinct question after counting."""

    key: str
    question: str  # most frequent surface form (ties: lexicographically smallest)
    frequency: int
    lang: str
    surface_forms: int
    first_seen: str = ""  # the smallest AcceptedRow.seen of its rows
    answers: tuple = ()  # its answers' signature (models.paraphrase.evidence.answer_signature)
    period: tuple = ("", "")  # (first, last) ISO dates of its rows' timestamps; "" where none had one


class ScoredQuestion(NamedTuple):
    """A distinct question with its filter scores. ``gec_score`` and ``intent_score`` are None while it is
    not scored: every question is placed and merged first, and only entries that can reach the top K are
    scored (pipelines.stages.frontier)."""

    key: str
    question: str
    frequency: int
    lang: str
    surface_forms: int
    gec_score: Optional[float]
    intent_score: Optional[float]
    # canonical JSON, as the score cache keeps them ("" while not scored); questions.parquet holds them typed
    # (schemas.details)
    gec_details: str
    intent_details: str
    passed_gec: bool
    passed_intent: bool
    # embeddings computed while scoring, by embedder id, so later stages can reuse them
    vectors: dict
    first_seen: str = ""
    answers: tuple = ()
    period: tuple = ("", "")
    # will its answers go stale (prices, this year's dates, the latest X, who holds an office now)? with
    # the detector's score and reason (the cue family); not judged (False) under time_sensitive.policy keep
    time_sensitive: bool = False
    time_score: float = 0.0
    time_reason: str = ""
    # the judgements (schemas.judgement.Judgement) of the question judges beyond GEC and intent, in their
    # wiring order (models.registry.JUDGES), and the reasons of those that flag it (it is dropped)
    judgements: tuple = ()
    flags: tuple = ()

    @property
    def passed(self) -> bool:
        """Passed every question judge (GEC, intent, and any other): may represent an entry."""
        return self.passed_gec and self.passed_intent and not self.flags


class Entry(NamedTuple):
    """One base entry candidate: distinct questions of one meaning (a paraphrase group, or one question).

    ``representative`` is the most asked member that passed both filters, with ``frequency`` and
    ``surface_forms`` summed over all members (None when no member passed: the entry cannot enter the
    base); ``members`` are every member, most asked first; ``links`` maps a merged member's key to
    (the key it was merged with, the judge's probability, the overlap of their answers).
    """

    qid: str
    representative: Optional[ScoredQuestion]
    members: tuple
    links: dict
    # a reviewer's overrides (schemas.review_outcome.EntryReview), None when no decision touches the entry
    review: object = None

    @property
    def key(self) -> str:
        return self.representative.key if self.representative is not None else self.members[0].key

    @property
    def asks(self) -> int:
        """Rows that asked any member: the entry's frequency, known before any member is scored."""
        return sum(m.frequency for m in self.members)

    @property
    def order_key(self) -> str:
        """The tie-break between entries asked equally often: the smallest member key. It does not depend on
        scores (unlike the representative), so the build can rank entries before scoring any."""
        return min(m.key for m in self.members)


class FormVectors(NamedTuple):
    """An entry's forms in its language space, for that space's index: rows = the entry's aliases in order,
    the representative first; ``embedder`` = the space's embedder id."""

    space: str  # "en" or "zh" (schemas.layout.LANGUAGE_SPACES)
    embedder: str
    vectors: object  # np.ndarray float32 (forms x dim), L2-normalised


class KeptQuestion(NamedTuple):
    """A question in the top K, with its index vector and type."""

    qid: str
    rank: int
    scored: ScoredQuestion
    vector: object  # np.ndarray float32, L2-normalised, from the index embedder
    qtype: str
    qtype_score: float
    # (question, count) of every form of the entry, the representative first (schemas.qa ALIAS)
    aliases: tuple = ()
    forms: FormVectors | None = None  # None: no language index for this entry
    review: object = None  # the entry's schemas.review_outcome.EntryReview, or None


class AnswerCount(NamedTuple):
    """One shown answer, judged. The judged fields after ``count`` are the columns the built-in answer judges
    declare (schemas.judgement.JudgeKind.columns: flag, score, reason), written by pipelines.stages.nonanswer."""

    answer_id: int  # 1..n, most frequent first
    text: str
    count: int
    # does it answer at all? (a refusal, "I cannot provide real-time information", a restatement: never a
    # vote nor a viewpoint); the detector's score and reason (its family: refusal, no_realtime, ...)
    non_answer: bool = False
    non_answer_score: float = 0.0
    non_answer_reason: str = ""
    # does it address the model that reads it? ("ignore previous instructions", "你现在是…", "<|im_start|>"):
    # under injection.policy exclude it never votes nor holds a viewpoint; the judge's score and reason
    instruction_like: bool = False
    instruction_score: float = 0.0
    instruction_reason: str = ""


NON_ANSWER = "non_answer"  # AnswerCount's flag that every answer judge without columns of its own sets


class AnswerGroup(NamedTuple):
    """The answers of one candidate entry, pooled over its forms and judged.

    ``answers``: the top ``grouping.max_answers`` distinct answers, numbered 1..n, each judged;
    ``total``/``distinct``: all answer rows / distinct answers; ``shares``: each member question's share of
    non-answer rows; ``period``: (first, last) dates of the entry's rows; ``shut_out``: the flags of AnswerCount
    (the answer judges' columns) that keep an answer from voting: ``non_answer`` always, ``instruction_like``
    under injection.policy exclude (models.factory.shut_out_flags).
    """

    answers: tuple
    total: int
    distinct: int
    shares: dict
    period: tuple = ("", "")
    shut_out: tuple = (NON_ANSWER, "instruction_like")

    def rows(self, flag: str) -> int:
        """Rows whose (judged) answer carries ``flag`` (an AnswerCount flag: ``non_answer``)."""
        return sum(a.count for a in self.answers if getattr(a, flag))

    @property
    def non_answer_rows(self) -> int:
        return self.rows(NON_ANSWER)

    @property
    def instruction_like_rows(self) -> int:
        return self.rows("instruction_like")

    @property
    def valid(self) -> tuple:
        """The answers that may vote and hold viewpoints: none of whose ``shut_out`` flags is set."""
        return tuple(a for a in self.answers if not any(getattr(a, flag) for flag in self.shut_out))

    @property
    def withheld_reason(self) -> str:
        """Why the entry leaves the base when no answer is valid: the first ``shut_out`` flag other than
        ``non_answer`` that an answer carries (``instruction_like``), else no_valid_answer; "" when it has a
        valid answer."""
        if self.valid:
            return ""
        shut = (flag for flag in self.shut_out if flag != NON_ANSWER and any(getattr(a, flag) for a in self.answers))
        return next(shut, "no_valid_answer")
