"""Validate and normalise: a raw row becomes an accepted row or a reject with a reason.

Each question also gets its language (a logged language tag wins when it names one; else
``models.language``): a language the build does not keep (``input.languages``) makes the row a reject,
``unsupported_language``, with the language and how it was found in the detail.

Personal data is redacted first (``privacy``: :mod:`schemas.privacy`): the question and answer are replaced by
their redacted forms before anything else reads them, so keys, counts, the state, caches, samples and rejects
never hold the raw values; every reject's preview (read's too, made before any field was known) is redacted
by :func:`redact_reject`.

Text that cannot be encoded (a lone surrogate, from a JSON ``\\ud800`` escape) is rejected here, ``invalid_unicode``,
in any field that goes on: nothing after this stage can then fail to store or key a row.
"""

from __future__ import annotations

import functools
import json
from typing import NamedTuple, Union

import apache_beam as beam

from pipelines.beam.split import split_rejects
from schemas.config import InputConfig, LimitsConfig, PrivacyConfig
from schemas.privacy.redactor import PLACEHOLDER, Redactor
from schemas.records import AcceptedRow, RawRow, Reject
from schemas.text import clean_surface, language_code, lone_surrogate, normalize_key, preview

STAGE = "validate"
UNSUPPORTED_LANGUAGE = "unsupported_language"
INVALID_UNICODE = "invalid_unicode"
# the logged fields besides question and answer that a row carries on (timestamp: into AcceptedRow.seen)
CARRIED_FIELDS = ("timestamp", "ext_id", "conversation_id", "lang_hint")
# the languages the scorers support; a row kept in any other goes on as 'other' (scored like English)
SCORED_LANGUAGES = ("en", "zh", "mixed", "other")


def _preview(row: RawRow, limits: LimitsConfig) -> str:
    payload = {"question": row.question, "answer": row.answer}
    try:
        text = json.dumps(payload, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(payload)
    return preview(text, limits.raw_preview_chars)


def _surrogate_detail(what: str, value: str) -> str:
    at = lone_surrogate(value)
    return "" if at < 0 else f"{what}: lone surrogate U+{ord(value[at]):04X} at character {at} (a broken \\u escape?)"


def _broken_carried_field(row: RawRow) -> str:
    """The detail of the first carried field holding text that cannot be encoded ("" if none)."""
    for name in CARRIED_FIELDS:
        value = getattr(row, name)
        broken = _surrogate_detail(name, value) if isinstance(value, str) else ""
        if broken:
            return broken
    return ""


def _check_text(value: object, what: str, limit: int) -> tuple[str | None, str, str]:
    """(cleaned text or None, reason, detail)."""
    if value is None:
        return None, f"missing_{what}", ""
    if not isinstance(value, str):
        return None, f"{what}_not_string", f"got {type(value).__name__}"
    broken = _surrogate_detail(what, value)
    if broken:
        return None, INVALID_UNICODE, broken
    cleaned = clean_surface(value)
    if not cleaned:
        return None, f"empty_{what}", ""
    if len(cleaned) > limit:
        return None, f"{what}_too_long", f"{len(cleaned)} chars > limit {limit}"
    return cleaned, "", ""


class LanguageGate:
    """The language of a question, and whether the build keeps it (``input.languages``, ``input.language_detector``).

    Picklable: the detector is loaded on first use, once per process (``models.language.detector.shared_detector``)."""

    def __init__(self, languages: tuple[str, ...] = InputConfig.languages,
                 detector: str = InputConfig.language_detector):
        self.keep_all = not languages or "all" in languages
        self.languages = tuple(languages)
        self.detector_spec = detector

    @classmethod
    def of(cls, cfg: InputConfig) -> "LanguageGate":
        return cls(cfg.languages, cfg.language_detector)

    def __getstate__(self):
        return {"keep_all": self.keep_all, "languages": self.languages, "detector_spec": self.detector_spec}

    @property
    def detector(self):
        det = self.__dict__.get("_detector")
        if det is None:
            from models.language.detector import shared_detector

            det = self.__dict__["_detector"] = shared_detector(self.detector_spec)
        return det

    def judge(self, question: str, hint: object = None) -> tuple[str, str]:
        """(language, how: 'logged lang ...' or 'detected, p=...')."""
        logged = language_code(hint)
        if logged is not None:
            return logged, f"logged lang {hint!r}"
        lang, score = self.detector.detect_one(question)
        return lang, f"detected, p={score:.2f}"

    def keeps(self, lang: str) -> bool:
        return lang == "other" or self.keep_all or lang in self.languages


@functools.lru_cache(maxsize=1)
def default_gate() -> LanguageGate:
    return LanguageGate()


@functools.lru_cache(maxsize=1)
def default_redactor() -> Redactor:
    return PrivacyConfig().redactor()


def redact_value(value: object, redactor: Redactor) -> object:
    """A question or answer redacted (a field that is not text is left for the checks)."""
    return redactor.redact_text(value) if redactor.active and isinstance(value, str) else value


def redact_reject(reject: Reject, redactor: Redactor) -> Reject:
    """A reject with personal data gone from its raw preview and its detail (a record rejected before its fields
    were known, bad JSON say, is redacted as one string; a value cut by the preview's end goes too)."""
    if not redactor.active:
        return reject
    return reject._replace(raw=redactor.redact_preview(reject.raw), detail=redactor.redact_text(reject.detail))


def redaction_kinds(row: AcceptedRow, kinds: tuple[str, ...]) -> list[str]:
    """The kind of every placeholder of ``kinds`` in an accepted row (the stats' ``redactions``)."""
    found = PLACEHOLDER.findall(row.question) + PLACEHOLDER.findall(row.answer)
    return [p[1:-1] for p in found if p[1:-1] in kinds]


class TextFacts(NamedTuple):
    """What validation makes of one question or answer text: its redacted form, the cleaned text (None: a
    reject, with reason and detail) and its key."""

    redacted: object
    cleaned: str | None
    reason: str
    detail: str
    key: str


def text_facts(value: object, what: str, limit: int, redactor: Redactor) -> TextFacts:
    redacted = redact_value(value, redactor)
    cleaned, reason, detail = _check_text(redacted, what, limit)
    return TextFacts(redacted, cleaned, reason, detail, normalize_key(cleaned) if cleaned is not None else "")


class TextMemo:
    """A worker's memo of :func:`text_facts`: logs repeat their texts (a popular question, a chatbot's stock
    answer, the same long answer pasted under many rows), and redacting a 1,600-character answer costs more
    than everything else validation does to it. Exact (the facts depend on the text alone); bounded by the
    characters it holds (emptied when full, so a log of texts that never repeat costs only the lookups)."""

    def __init__(self, max_chars: int = 50_000_000):
        self.max_chars = max_chars
        self._facts: dict[tuple[str, str], TextFacts] = {}
        self._chars = 0

    def facts(self, value: object, what: str, limit: int, redactor: Redactor) -> TextFacts:
        if not isinstance(value, str):
            return text_facts(value, what, limit, redactor)
        found = self._facts.get((what, value))
        if found is None:
            found = text_facts(value, what, limit, redactor)
            if self._chars + len(value) > self.max_chars:
                self._facts.clear()
                self._chars = 0
            self._facts[(what, value)] = found
            self._chars += len(value)
        return found


def validate_row(row: RawRow, limits: LimitsConfig, gate: LanguageGate | None = None,
                 redactor: Redactor | None = None, memo: TextMemo | None = None) -> Union[AcceptedRow, Reject]:
    redactor = default_redactor() if redactor is None else redactor
    facts = memo.facts if memo is not None else text_facts
    q = facts(row.question, "question", limits.max_question_chars, redactor)
    a = facts(row.answer, "answer", limits.max_answer_chars, redactor)
    row = row._replace(question=q.redacted, answer=a.redacted)
    question, reason, detail = q.cleaned, q.reason, q.detail
    if question is None:
        return Reject(STAGE, reason, row.source, row.position, _preview(row, limits), detail)
    answer, reason, detail = a.cleaned, a.reason, a.detail
    if answer is None:
        return Reject(STAGE, reason, row.source, row.position, _preview(row, limits), detail)
    broken = _broken_carried_field(row)
    if broken:
        return Reject(STAGE, INVALID_UNICODE, row.source, row.position, _preview(row, limits), broken)
    key = q.key
    if not key:
        return Reject(STAGE, "empty_question_key", row.source, row.position, _preview(row, limits),
                      "nothing left after normalisation")
    gate = gate or default_gate()
    lang, how = gate.judge(question, row.lang_hint)
    if not gate.keeps(lang):
        return Reject(STAGE, UNSUPPORTED_LANGUAGE, row.source, row.position, _preview(row, limits),
                      f"{lang} ({how}); input.languages: {', '.join(gate.languages)}")
    if lang not in SCORED_LANGUAGES:
        lang = "other"
    answer_key = a.key or answer
    row_id = f"{row.source}:{row.position}" + (f":{row.turn}" if row.turn else "")
    return AcceptedRow(key, question, answer, answer_key, lang, row_id, seen_order(row))


def seen_order(row: RawRow) -> str:
    """A string that sorts rows by when they were logged: the logged timestamp (as text) if any, then file and
    position (a day's file read in an increment or in a full rebuild gives the same string)."""
    stamp = "" if row.timestamp is None else str(row.timestamp)
    return f"{stamp}\x1f{row.source}\x1f{row.position:012d}\x1f{row.turn:04d}"


class ValidateFn(beam.DoFn):
    """row -> an AcceptedRow or a Reject, in one output (split by type: pipelines.beam.split)."""

    def __init__(self, limits: LimitsConfig, gate: LanguageGate | None = None, redactor: Redactor | None = None):
        self._limits = limits
        self._gate = gate or LanguageGate()
        self._redactor = default_redactor() if redactor is None else redactor

    def setup(self):
        from pipelines.beam.metering import StageMeter

        self._gate.detector  # load it once per worker process, before the first bundle
        self._memo = TextMemo()
        # runs fused with read, row by row: its total is the rows read, estimated from the share of the input
        # read so far until read has ended
        self._meter = StageMeter(STAGE, follows="read")

    def process(self, row: RawRow):
        with self._meter.timing(1):
            out = validate_row(row, self._limits, self._gate, self._redactor, self._memo)
        yield out

    def finish_bundle(self):
        self._meter.finish()


class ValidateOutput(NamedTuple):
    accepted: beam.PCollection  # AcceptedRow
    rejected: beam.PCollection  # Reject


class ValidateRows(beam.PTransform):
    def __init__(self, limits: LimitsConfig, inputs: InputConfig | None = None, redactor: Redactor | None = None):
        super().__init__()
        self._limits = limits
        self._gate = LanguageGate.of(inputs or InputConfig())
        self._redactor = default_redactor() if redactor is None else redactor

    def expand(self, rows):
        return ValidateOutput(*split_rejects(rows | "ValidateRows" >> beam.ParDo(
            ValidateFn(self._limits, self._gate, self._redactor))))


def sample_rank_of(row_id: str) -> bytes:
    """A stable pseudo-random rank for the accepted-rows sample (same rows on every run and runner)."""
    import hashlib

    return hashlib.blake2b(row_id.encode("utf-8"), digest_size=8).digest()


def sample_rank(row: AcceptedRow) -> bytes:
    return sample_rank_of(row.row_id)


def sample_record(row: AcceptedRow) -> dict:
    return {"row_id": row.row_id, "question": row.question, "answer": row.answer, "key": row.key, "lang": row.lang}


class AcceptedProfileFn(beam.CombineFn):
    """Exact figures over every accepted row (count, length range, empty keys), for the quality gate."""

    FIELDS = ("rows", "question_chars_min", "question_chars_max", "answer_chars_min", "answer_chars_max",
              "empty_key")

    def create_accumulator(self):
        return [0, None, None, None, None, 0]

    def add_input(self, acc, row: AcceptedRow):
        q, a = len(row.question.strip()), len(row.answer.strip())
        acc[0] += 1
        acc[1] = q if acc[1] is None else min(acc[1], q)
        acc[2] = q if acc[2] is None else max(acc[2], q)
        acc[3] = a if acc[3] is None else min(acc[3], a)
        acc[4] = a if acc[4] is None else max(acc[4], a)
        acc[5] += not row.key
        return acc

    def merge_accumulators(self, accs):
        out = self.create_accumulator()
        for acc in accs:
            out[0] += acc[0]
            for i, pick in ((1, min), (2, max), (3, min), (4, max)):
                if acc[i] is not None:
                    out[i] = acc[i] if out[i] is None else pick(out[i], acc[i])
            out[5] += acc[5]
        return out

    def extract_output(self, acc):
        return dict(zip(self.FIELDS, acc))
