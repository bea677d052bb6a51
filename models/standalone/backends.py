"""The standalone kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from models.standalone.config import MEANING, StandaloneConfig
from schemas.backends import Backend
from schemas.judgement import QUESTION, JudgeKind


def _rules(target, ctx):
    from models.standalone.rules import RuleStandalone

    return RuleStandalone()


def _rules_identity(target, ctx) -> str:
    # the threshold is no part of it: the score cache keeps judgements and decides them again at each build's
    from models.standalone.rules import RuleStandalone

    return RuleStandalone.model_id


BACKENDS = (Backend("rules", _rules, _rules_identity),)
JUDGE = JudgeKind("standalone", QUESTION, BACKENDS, StandaloneConfig, MEANING, reasons=("no_subject",))
