"""One judgement contract for every judge (GEC, intent, non-answer, time-sensitivity, and judges to come).

A judge *scores*; it never decides. Per item it returns a :class:`Judgement` (a score in [0, 1], the reason the
item would carry if flagged, and details of which signals fired), and it exposes its own default threshold
(``own_threshold(lang)``: the packaged heads' calibrated thresholds) without applying it. Thresholds live in
the config and are applied here, in :func:`verdict`, by every stage and tool: one place decides keep / drop
(or flag), in the spirit of NeMo Curator's ``score_document`` / ``keep_document`` split.

Two directions, declared once per kind (:attr:`JudgeKind.flags_low`), never by a judge object: quality judges
(GEC, intent) flag an item whose score is *at or below* the threshold (it is kept iff its score is above it);
detectors (non-answer, time-sensitivity, and every judge declared without ``flags_low``) flag an item whose score
is *at or above* it. A config threshold of :data:`OWN_THRESHOLD` (-1) means "the judge's own".
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol, Sequence

OWN_THRESHOLD = -1.0  # a config threshold that means: the judge's own (calibrated) threshold
# The sure rules (Judgement.sure: they flag at any threshold) were written for, and measured on, single short
# questions as users type them (the labelled sets' longest is 86 characters). A longer text is a task or a passage
# ("Here are the top issues reported for a Scheduling system..."), whose words a narrow pattern misreads: there
# the sure rules stand aside and the heads judge alone.
SURE_RULES_MAX_QUESTION_CHARS = 90


def short_question(question: str) -> bool:
    """Whether the sure rules speak for this question (see SURE_RULES_MAX_QUESTION_CHARS)."""
    return len(question.strip()) <= SURE_RULES_MAX_QUESTION_CHARS


class Judgement(NamedTuple):
    """One item judged. ``reason``: what the item is called when the threshold flags it (a cue family such as
    ``refusal`` or ``price``, or the judge's name for it: ``low_gec``, ``too_long``); "" when nothing the judge
    saw can flag it, whatever the threshold. ``sure``: the judge's own evidence flags it at any threshold (a
    matched refusal pattern that the non-answer head vouches for)."""

    score: float
    reason: str
    details: dict = {}  # never mutated: shared default
    sure: bool = False


QUESTION, ANSWER, PAIR = "question", "answer", "pair"  # what a judge reads
LEVELS = (QUESTION, ANSWER, PAIR)


def enabled(section_cfg: Any) -> bool:
    """Whether a judge's config section turns it on: its ``enabled`` key, or on where it has none."""
    return getattr(section_cfg, "enabled", True)


def always(section_cfg: Any) -> bool:
    """True, whatever the config section says."""
    return True


class JudgeKind(NamedTuple):
    """A kind of judge, declared once by its folder (``models/<kind>/backends.py``: ``JUDGE``) and wired by one line
    in models.registry.JUDGES. ``section``: the name of its config section; ``config``: that section's dataclass,
    declared in the folder with schemas.config.key (``model``: a name in ``backends``; ``threshold``, -1: the judge's
    own; optionally ``enabled``; its own keys), joined to the build config by models.config_check; ``meaning``: the
    section's line on the reference page; ``level``: what it reads and where it is applied:

    - ``question`` (:class:`QuestionJudge`): where GEC and intent are (pipelines.stages.score); a question it
      flags is dropped with its reason (questions.parquet);
    - ``answer`` (:class:`AnswerJudge`): where non-answers are (pipelines.stages.nonanswer), every answer judge
      from one list; a built-in one writes its columns (schemas.records.AnswerCount's fields, qa.parquet's
      answers), one without columns shuts an answer it flags out as a non-answer is, with its reason;
    - ``pair`` (:class:`PairJudge`): on the paraphrase stage's candidate pairs; a pair it flags is never merged
      nor linked, whatever the paraphrase judge says."""

    section: str
    level: str
    backends: tuple  # schemas.backends.Backend rows
    config: type | None  # a frozen dataclass of schemas.config.key fields (None: see model_keys)
    meaning: str
    # the store columns its own stage writes (non_answer, time_sensitive, instruction_like): such a judge is built
    # in, applied where its stage applies it, and always recorded in the manifest ("off" when its section turns it
    # off). A judge without columns is applied by its level's stage in the order the config's ``judges.<level>``
    # lists it, its verdict recorded as the item's reason, and recorded in the manifest only when applied.
    columns: tuple[str, ...] = ()
    # whether a config section turns it on (default: its ``enabled`` key, where it has one)
    applies: Callable[[Any], bool] = enabled
    # the keys of the ``models`` section that name its models, for a judge whose models are chosen there and not in
    # a section of its own (GEC: gec_en and gec_zh, intent: intent; ``config`` None, thresholds in ``filter``):
    # each key's model is checked against ``backends``, loaded and identified from that table as a section's model
    # is (models.registry.model_key_model, model_key_identity), and recorded in the manifest under the key's name
    model_keys: tuple[str, ...] = ()
    # the reasons it gives an item it flags, for a judge without columns (its verdict is recorded as the item's
    # reason: questions.parquet's ``reason``, an answer's ``non_answer_reason``): the report counts them
    reasons: tuple[str, ...] = ()
    # its direction: True for a quality score (GEC, intent: an item is flagged at or below the threshold), False for
    # a detector (flagged at or above it). Declared here and nowhere else: the registry hands it out beside the
    # judge (:class:`Configured`), and every stage and tool that decides reads it from there or from the declaration
    flags_low: bool = False
    # for an answer judge with columns: whether an answer it flags is shut out (never votes nor holds a viewpoint)
    # under its config section (injection: ``policy: exclude``); where not, the answer votes and carries the flag
    excludes: Callable[[Any], bool] = always
    # the method of its model that the ledger of model calls counts (models.calls.MeteredModel), for a judge whose
    # model computes texts itself (GEC's ``score``); "" where the cost is counted already (intent's, in its
    # embedders) or not at all
    metered: str = ""

    @property
    def built_in(self) -> bool:
        return bool(self.columns)

    @property
    def has_section(self) -> bool:
        """Whether it has a config section of its own (``config``), joined to the build config."""
        return self.config is not None


class QuestionJudge(Protocol):
    """A judge of questions alone, applied where GEC and intent are (pipelines.stages.score)."""

    model_id: str

    def own_threshold(self, lang: str) -> float:
        """The threshold it was calibrated for, for a question of language ``lang``."""

    def judgements(self, texts: list[str], langs: list[str]) -> list[Judgement]: ...


class AnswerJudge(Protocol):
    """A judge of an answer to its question, applied where non-answers are (pipelines.stages.nonanswer)."""

    model_id: str

    def own_threshold(self, lang: str) -> float: ...

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        """Per (question, answer, language) item, its judgement."""


class PairJudge(Protocol):
    """A judge of two questions as one: a flagged pair is kept apart (pipelines.stages.paraphrase)."""

    model_id: str

    def own_threshold(self, lang: str) -> float: ...

    def judgements(self, pairs: list[tuple[str, str]], langs: list[str]) -> list[Judgement]: ...


def effective_threshold(configured: float, own: float) -> float:
    """The threshold that applies: the config's, or the judge's own where the config says :data:`OWN_THRESHOLD`."""
    return own if configured < 0 else configured


def flagged(j: Judgement, threshold: float, flags_low: bool = False) -> bool:
    """The one decision: is the judged item flagged (dropped, or marked) at ``threshold``?"""
    if not j.reason:
        return False
    if j.sure:
        return True
    return j.score <= threshold if flags_low else j.score >= threshold


def verdict(j: Judgement, threshold: float, flags_low: bool = False) -> str:
    """The item's reason when :func:`flagged`, else "" (what the stages record)."""
    return j.reason if flagged(j, threshold, flags_low) else ""


def verdicts(judge: Any, judgements: Sequence[Judgement], langs: Sequence[str],
             configured: float = OWN_THRESHOLD, flags_low: bool = False) -> list[tuple[float, str]]:
    """(score rounded to 6 places, reason or "") per item: each judged at the effective threshold for its
    language (``judge.own_threshold(lang)`` where ``configured`` is -1), in the direction its kind declares
    (``flags_low``: JudgeKind.flags_low, which a :class:`Configured` judge carries). The form the detectors'
    ``score`` methods and the non-answer and time-sensitivity stages record."""
    return [(round(float(j.score), 6),
             verdict(j, effective_threshold(configured, judge.own_threshold(lang)), flags_low))
            for j, lang in zip(judgements, langs)]


def asked_items(priors: Sequence[float], asks_above: float) -> list[int]:
    """The items a judge that costs an encoder pass per item is asked of (its ``asks_above``, answer_match's
    ``ask_above``): those whose prior, the score the cheap judge before it gave, reaches it. Where the cheap
    judge is sure an item is fine, the costly one is not asked. The build's stage and the trainer's report both
    apply it, so what the report says a build does is what a build does."""
    return [i for i, p in enumerate(priors) if p >= asks_above]


class Configured:
    """A judge with the threshold its config section gives it and the direction its kind declares (what the
    registry hands out): ``own_threshold`` answers with the effective threshold, ``model_id`` is the identity the
    config names (thresholds are part of the non-answer and time-sensitivity identities) and ``flags_low`` is
    JudgeKind.flags_low; everything else is the judge's own."""

    def __init__(self, judge: Any, threshold: float, model_id: str, flags_low: bool):
        self.inner = judge
        self.threshold = threshold
        self.model_id = model_id
        self.flags_low = flags_low

    def own_threshold(self, lang: str) -> float:
        return effective_threshold(self.threshold, self.inner.own_threshold(lang))

    def decide(self, judgements: Sequence[Judgement], langs: Sequence[str]) -> list[tuple[float, str]]:
        """(score, reason or "") per item at this judge's threshold, in its kind's direction: how a stage or a
        tool decides with a judge the registry handed out (:func:`verdicts`)."""
        return verdicts(self, judgements, langs, OWN_THRESHOLD, self.flags_low)

    def __getattr__(self, name: str):
        if name == "inner":  # not yet set (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
