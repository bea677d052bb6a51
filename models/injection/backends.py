"""The injection kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from models.injection.config import MEANING, InjectionConfig
from schemas.backends import Backend
from schemas.judgement import ANSWER, JudgeKind, effective_threshold


def _patterns(target, ctx):
    from models.injection.base import ConfiguredInjection
    from models.injection.patterns import PatternInjection

    return ConfiguredInjection(PatternInjection(), ctx.section.threshold, _patterns_identity(target, ctx),
                               JUDGE.flags_low)


def _patterns_identity(target, ctx) -> str:
    from models.injection.patterns import PatternInjection

    return f"{PatternInjection.model_id}@{effective_threshold(ctx.section.threshold, PatternInjection.threshold):g}"


def _excludes(section_cfg) -> bool:
    # policy flag: an instruction-like answer votes, and the entry carries the flag
    return section_cfg.policy == "exclude"


BACKENDS = (
    Backend("patterns", _patterns, _patterns_identity),
)

# built in: its own stage writes answers.instruction_like*: qa.parquet's (pipelines.stages.nonanswer)
JUDGE = JudgeKind("injection", ANSWER, BACKENDS, InjectionConfig, MEANING,
                  ("instruction_like", "instruction_score", "instruction_reason"), excludes=_excludes)
