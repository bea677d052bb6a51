"""The build config as a build reads it: schemas.config's sections and each wired judge's own (declared in its folder,
:func:`config_class`), its model names checked against the kinds' backend tables (every name one its kind knows,
every model directory and parameters file it names there, the fitted heads' embedding spaces those the config
names). ``load_config`` is what the command-line tools call (schemas.config does the structural checks alone)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from models import registry
from models.aggregators import backends as aggregators
from models.embedders import backends as embedders
from models.factory import wired_sections
from models.paraphrase import backends as paraphrase
from models.topics import backends as topics
from schemas.backends import Backend, choices, resolve
from schemas.config import BuildConfig, key, shown, with_sections
from schemas.config import config_from_dict as structural_config_from_dict
from schemas.config import load_config as structural_load_config
from schemas.errors import ConfigError
from schemas.judgement import ANSWER, LEVELS, PAIR, QUESTION, JudgeKind

_CLASSES: dict[tuple, type] = {}

JUDGES_MEANING = ("Which judges each level's stage applies, and in what order (like a filter chain): per level, the "
                  "config sections of the judges without store columns of their own (the built-in non_answer, "
                  "time_sensitive and injection judges are set in their own sections). A judge is applied when it "
                  "is listed here and its section does not say `enabled: false`. The order is that of a question's "
                  "reasons (questions.parquet's `reasons` list), and an answer that several flag carries the "
                  "first one's reason.")
_LEVEL_MEANINGS = {QUESTION: "questions, where GEC and intent are (their reasons: questions.parquet's `reasons`)",
                   ANSWER: "answers, after the non-answer judge (an answer one flags is shut out as a non-answer is)",
                   PAIR: "the paraphrase stage's candidate pairs (a pair one flags is never merged)"}


def _known_judges(level: str, choices: tuple[str, ...]):
    def check(path: str, names: tuple[str, ...]) -> None:
        for name in names:
            if name not in choices:
                known = f"choices: {', '.join(choices)}" if choices else f"no {level} judge is wired"
                a = "an" if level[0] in "aeiou" else "a"
                raise ConfigError(f"config: {path}: {shown(name)} is not {a} {level} judge ({known})")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ConfigError(f"config: {path} lists {shown(twice[0])} twice")
    return check


def judges_section(judges: tuple[JudgeKind, ...], name: str) -> type:
    """The ``judges`` section: a list per level (schemas.judgement.LEVELS) of the config sections of ``judges``
    without store columns at that level, its default all of them in wiring order."""
    fields = []
    for level in LEVELS:
        choices = tuple(j.section for j in judges if j.level == level and not j.built_in)
        fields.append((level, tuple[str, ...], key(choices, f"The judges of {_LEVEL_MEANINGS[level]}, in order "
                                                          f"(any of: {', '.join(choices) or 'none is wired'}).",
                                                   check=_known_judges(level, choices))))
    cls = dataclasses.make_dataclass(name, fields, frozen=True)
    cls.__module__ = __name__
    globals()[name] = cls
    return cls


def config_class(judges: tuple[JudgeKind, ...] | None = None) -> type:
    """BuildConfig with the ``judges`` section (:func:`judges_section`) and a section for each judge of ``judges``
    (default: models.registry.JUDGES), in wiring order after its own: a judge's keys are declared once, in its
    folder (``JudgeKind.config``)."""
    judges = registry.JUDGES if judges is None else judges
    if judges not in _CLASSES:
        # found by name where it is unpickled: the first (the wired judges', made on import) is Config, others
        # (tests wiring further judges) get a numbered name
        n = f"{len(_CLASSES)}" if _CLASSES else ""
        sections = ((("judges", judges_section(judges, f"Judges{n}"), JUDGES_MEANING),)
                    + tuple((j.section, j.config, j.meaning) for j in judges if j.has_section))
        _CLASSES[judges] = cls = with_sections(BuildConfig, sections, f"Config{n}", __name__)
        globals()[f"Config{n}"] = cls
    return _CLASSES[judges]


def _config_slots(cfg: BuildConfig) -> list[tuple[str, str, tuple]]:
    """(config path, its value, the kind's table) of every model name a config gives."""
    m = cfg.models
    return ([(f"models.{name}", getattr(m, name), j.backends) for j in registry.JUDGES for name in j.model_keys]
            + [(f"models.{name}", getattr(m, name), embedders.BACKENDS) for name in registry.EMBEDDER_FIELDS]
            + [("aggregation.backend", cfg.aggregation.backend, aggregators.BACKENDS),
               ("paraphrase.judge", cfg.paraphrase.judge, paraphrase.BACKENDS),
               ("topics.backend", cfg.topics.backend, topics.BACKENDS)]
            + [(f"{section}.model", section_cfg.model, registry.judge_kind(section).backends)
               for section, section_cfg in wired_sections(cfg)])


def _check_target(path: str, row: Backend, target: str) -> None:
    if row.target == "dir" and not Path(target).is_dir():
        raise ConfigError(f"config: {path}: model directory {target!r} does not exist")
    if row.target == "file" and target and not Path(target).is_file():
        raise ConfigError(f"config: {path}: parameters file {target!r} does not exist")


def _check_head_spaces(cfg: BuildConfig) -> None:
    """The packaged (or given) non-answer and time-sensitivity heads were fitted in one embedding space each;
    a config that names other embedders fails here, not after scoring (their probabilities would mean
    nothing there: refit them)."""
    m = cfg.models
    kind, _, target = cfg.non_answer.model.partition(":")
    if kind == "embedding" and (not target or Path(target).is_file()):
        from models.nonanswer.embedding import load_params

        fitted = load_params(target or None).get("embedder")
        if fitted and fitted != registry.embedder_identity(m.embedder):
            raise ConfigError(f"config: the non-answer head was fitted on {fitted}, but models.embedder is "
                              f"{registry.embedder_identity(m.embedder)}; refit it (qabase train-nonanswer --embedder ... "
                              "--out P.json; non_answer.model: embedding:P.json) or use non_answer.model: rules")
    kind, _, target = cfg.time_sensitive.model.partition(":")
    if cfg.time_sensitive.policy != "keep" and kind == "embedding" and (not target or Path(target).is_file()):
        from models.timesensitive.embedding import load_params as load_time_params

        params = load_time_params(target or None)
        for sp, spec in (("en", m.intent_embedder_en), ("zh", m.intent_embedder_zh)):
            fitted = params[sp].get("embedder")
            if fitted and fitted != registry.embedder_identity(spec):
                raise ConfigError(f"config: the time-sensitivity head's {sp} side was fitted on {fitted}, but "
                                  f"models.intent_embedder_{sp} is {registry.embedder_identity(spec)}; refit it (qabase "
                                  "train-timesensitive --out P.json; time_sensitive.model: embedding:P.json) or use "
                                  "time_sensitive.model: rules")


def check_config(cfg: BuildConfig) -> BuildConfig:
    """Every model name in ``cfg`` is one its kind's table knows, and every model directory and parameters file
    it names exists."""
    from models.aggregators.prompt import PROMPTS

    slots = _config_slots(cfg)
    resolved = []
    for path, value, table in slots:
        found = resolve(table, value)
        if found is None:
            raise ConfigError(f"config: {path} must be {choices(table)}, got {value!r}")
        resolved.append((path, *found))
    for section, section_cfg in wired_sections(cfg):
        threshold = section_cfg.threshold
        if threshold != -1.0 and not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"config: {section}.threshold must be within [0, 1] (or -1: the model's own), "
                              f"got {threshold}")
    for path, row, target in resolved:
        _check_target(path, row, target)
    _check_head_spaces(cfg)
    if not (PROMPTS / f"aggregate_{cfg.aggregation.prompt_version}.en.txt").is_file():
        raise ConfigError(f"config: aggregation.prompt_version {cfg.aggregation.prompt_version!r} has no prompt "
                          f"files in {PROMPTS}")
    return cfg


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> BuildConfig:
    """A build config (schemas.config.load_config) with the wired judges' sections, its model names checked against
    this registry."""
    return check_config(structural_load_config(path, overrides, config_class()))


def config_from_dict(data: dict[str, Any] | None) -> BuildConfig:
    return check_config(structural_config_from_dict(data, config_class()))


Config = config_class()


def default_config() -> BuildConfig:
    """The defaults of every section, the wired judges' included (what ``--print-config`` prints)."""
    return config_class()()
