"""The models a build's stages ask for: :class:`ModelFactory` (what a stage calls on each worker, in
``load_model()``; tests give small fakes) and :class:`RegistryModels` (the factory of every real build: the models a
config names, loaded through models.registry), and which judges a config wires and applies at each level."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from models import registry
from models.aggregators.base import Aggregator
from models.embedders.base import Embedder
from models.qtype import QuestionTypeClassifier
from models.registry import (ParaphraseModels, ScoringModels, aggregator, configured_judges, embedder, judge_model,
                             model_identities, paraphrase_models, qtype_classifier, scoring_models)
from schemas.config import AggregationConfig, BuildConfig, FilterConfig, InputConfig, ModelsConfig, ParaphraseConfig
from schemas.judgement import ANSWER, PAIR, QUESTION, Judgement, verdict


class ModelFactory(Protocol):
    """What a build's stages ask for, on each worker, in ``load_model()``. Must pickle (Beam ships it)."""

    def scoring(self) -> ScoringModels: ...

    def index_embedder(self) -> Embedder: ...

    def qtype(self) -> QuestionTypeClassifier: ...

    def aggregator(self) -> Aggregator: ...

    def paraphrase(self) -> ParaphraseModels: ...

    def time_sensitivity(self): ...

    def answer_judges(self) -> tuple:
        """(JudgeKind, judge) of every answer judge a build applies (schemas.judgement.AnswerJudge, each at its
        config threshold in its kind's direction: schemas.judgement.Configured): the built-in ones in wiring order
        (models.registry.JUDGES), those their sections turn off left out, then the config's ``judges.answer``."""

    def pair_judges(self) -> tuple:
        """The wired pair-level judges (schemas.judgement.PairJudge), each at its config threshold."""

    def identities(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class RegistryModels:
    """The models a config names, from this registry; ``cache_dir``: the vector cache's folder (or None)."""

    models: ModelsConfig
    aggregation: AggregationConfig
    cache_dir: str | None = None
    para: ParaphraseConfig = ParaphraseConfig()
    language_detector: str = InputConfig.language_detector  # validation loads it: models.language
    # (section, its config) of every wired judge (models.registry.JUDGES): the built-in ones' sections are read here
    judges: tuple = ()
    # (section, its config) of each applied judge without columns of its own, per level, in the config's order
    questions: tuple = ()
    answers: tuple = ()
    pairs: tuple = ()

    @classmethod
    def of(cls, cfg: BuildConfig, cache_dir: str | None = None) -> "RegistryModels":
        return cls(cfg.models, cfg.aggregation, cache_dir, cfg.paraphrase, cfg.input.language_detector,
                   wired_sections(cfg), question_sections(cfg), judge_sections(cfg, ANSWER), judge_sections(cfg, PAIR))

    def section(self, name: str):
        """The config of the wired judge ``name`` (its defaults where this factory was made without it)."""
        return dict(self.judges).get(name) or registry.judge_kind(name).config()

    def scoring(self) -> ScoringModels:
        return scoring_models(self.models, self.cache_dir, self.questions)

    def index_embedder(self) -> Embedder:
        return embedder(self.models.embedder, self.models, self.cache_dir)

    def qtype(self) -> QuestionTypeClassifier:
        return qtype_classifier(self.models, self.cache_dir)

    def aggregator(self) -> Aggregator:
        return aggregator(self.models, self.aggregation, self.cache_dir)

    def paraphrase(self) -> ParaphraseModels:
        return paraphrase_models(self.models, self.para, self.cache_dir)

    def time_sensitivity(self):
        return judge_model("time_sensitive", self.section("time_sensitive"), self.models, self.cache_dir)

    def answer_judges(self) -> tuple:
        built_in = tuple((j.section, self.section(j.section)) for j in registry.JUDGES
                         if j.level == ANSWER and j.built_in and j.applies(self.section(j.section)))
        sections = built_in + self.answers
        return tuple(zip((registry.judge_kind(s) for s, _ in sections),
                         configured_judges(sections, self.models, self.cache_dir)))

    def pair_judges(self) -> tuple:
        return configured_judges(self.pairs, self.models, self.cache_dir)

    def identities(self) -> dict[str, str]:
        from models.language.detector import detector_identity

        builtin = tuple((j.section, self.section(j.section)) for j in registry.JUDGES if j.built_in and j.has_section)
        ids = model_identities(self.models, self.aggregation, self.para,
                               builtin + self.questions + self.answers + self.pairs)
        return dict(ids, language=detector_identity(self.language_detector))


def wired_sections(cfg: BuildConfig, level: str | None = None) -> tuple:
    """(section, its config) of every wired judge with a section (models.registry.JUDGES), or of those at ``level``: the config's
    section (models.config_check joins each judge's to the build config), or the judge's defaults where ``cfg`` is
    a BuildConfig without it."""
    return tuple((j.section, getattr(cfg, j.section, None) or j.config()) for j in registry.JUDGES
                 if j.has_section and level in (None, j.level))


def judge_sections(cfg: BuildConfig, level: str) -> tuple:
    """(section, its config) of the judges without columns of their own at ``level`` that a build applies (the
    built-in ones are applied by their own stages), in order: those the config's ``judges.<level>`` lists (default,
    or where ``cfg`` has no such section: every wired one, in wiring order) whose section does not turn them off."""
    wired = dict(wired_sections(cfg, level))
    listed = getattr(getattr(cfg, "judges", None), level, None)
    if listed is None:
        listed = tuple(j.section for j in registry.judges_at(level))
    return tuple((section, wired[section]) for section in listed
                 if section in wired and registry.judge_kind(section).applies(wired[section]))


def question_sections(cfg: BuildConfig) -> tuple:
    return judge_sections(cfg, QUESTION)


def shut_out_flags(cfg: BuildConfig) -> tuple[str, ...]:
    """The flags (each the first of its kind's columns) of the built-in answer judges whose sections shut out an
    answer they flag (JudgeKind.excludes: non_answer always, injection under ``policy: exclude``), in wiring order:
    such an answer never votes nor holds a viewpoint (schemas.records.AnswerGroup.shut_out)."""
    sections = dict(wired_sections(cfg, ANSWER))
    return tuple(j.columns[0] for j in registry.JUDGES
                 if j.level == ANSWER and j.built_in and j.excludes(sections[j.section]))


def filter_verdicts(gec: Judgement, intent: Judgement, filt: FilterConfig) -> tuple[str, str]:
    """GEC's and intent's verdicts on a question (``low_gec``, ``low_intent``, or "" where kept) at
    ``filter.gec_threshold`` and ``filter.intent_threshold``, in the directions their kinds declare: the score
    stage's decision, which the tools (models.tools.judge_all) reach through the same call."""
    return (verdict(gec, filt.gec_threshold, registry.model_key_judge("gec_en").flags_low),
            verdict(intent, filt.intent_threshold, registry.model_key_judge("intent").flags_low))
