"""Small, fast, deterministic stand-ins for the real models, behind the real interfaces (``from fakes.models import
FakeModels``).

The embedder hashes words (and Chinese characters) into a 64-d bag-of-words vector, so texts
that share words are close: the real question-type classifier and the real embedding aggregator
run on it unchanged. GEC and intent are simple rules. Everything here is picklable (Beam ships
the factory to its workers) and loads in milliseconds.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from models.aggregators.embedding import EmbeddingAggregator
from models.injection.backends import JUDGE as INJECTION
from models.injection.patterns import PatternInjection
from models.nonanswer.backends import JUDGE as NON_ANSWER
from models.nonanswer.rules import RuleNonAnswer
from models.paraphrase.evidence import content_tokens, negations, numbers_differ
from models.paraphrase.pair_classifier import space
from models.qtype import QuestionTypeClassifier
from models import registry
from models.registry import ParaphraseModels, ScoringModels
from schemas.config import ModelsConfig
from schemas.judgement import OWN_THRESHOLD, Configured
from models.timesensitive.rules import RuleTimeSensitivity

DIM = 64
_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")


class HashEmbedder:
    model_id = "fake-hash-embedder-v1"
    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in _TOKEN.findall(text.lower()) or [text]:
                out[i, int(hashlib.md5(tok.encode()).hexdigest(), 16) % DIM] += 1.0
        out += 1e-3  # no zero rows
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class RuleGec:
    """1.0 unless a word is doubled ("the the") or the text has no letters at all."""

    model_id = "fake-rule-gec-v1"

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        out = []
        for t in texts:
            words = t.lower().split()
            doubled = any(a == b for a, b in zip(words, words[1:]))
            noisy = doubled or not re.search(r"[a-z\u4e00-\u9fff]", t.lower())
            out.append((0.2 if noisy else 1.0, {"doubled": doubled}))
        return out


class QuestionMarkIntent:
    """0.9 for a question (a question mark or a question word), 0.1 for anything else."""

    model_id = "fake-question-mark-intent-v1"

    def __init__(self, embedder: HashEmbedder):
        self._embedder = embedder

    def space(self, lang: str) -> str:
        return "en" if lang in ("en", "other") else "zh"

    def embedders(self):
        return {"en": self._embedder, "zh": self._embedder}

    def score_with_vectors(self, texts, langs):
        vectors = dict(enumerate(self._embedder.embed(texts))) if texts else {}
        asks = [bool(re.search(r"[?？吗]|^(what|how|which|why|who|when|where)\b|什么|怎么|多少", t.lower().strip()))
                for t in texts]
        return [(0.9 if a else 0.1, {"asks": a}) for a in asks], vectors

    def score(self, texts, langs):
        return self.score_with_vectors(texts, langs)[0]


class OverlapJudge:
    """Same question when the content words overlap enough (Jaccard >= 0.6) and numbers and negation agree."""

    model_id = "fake-overlap-judge-v1"
    thresholds = {"en": 0.6, "zh": 0.6}

    def min_cosine(self, sp: str, probability: float) -> float:
        return -1.0

    def vetoed(self, a, b, lang):
        return numbers_differ(a, b) or negations(a, lang) != negations(b, lang)

    def judge(self, pairs):
        out = []
        for a, b, lang, _ in pairs:
            ta, tb = content_tokens(a, lang), content_tokens(b, lang)
            p = len(ta & tb) / max(len(ta | tb), 1)
            if self.vetoed(a, b, lang):
                p = 0.0
            out.append((p >= self.thresholds[space(lang)], p))
        return out


@dataclass(frozen=True)
class FakeModels:
    """A ModelFactory (models.registry) of the fakes above; real qtype and aggregation code on the fake embedder."""

    def scoring(self) -> ScoringModels:
        return ScoringModels(RuleGec(), RuleGec(), QuestionMarkIntent(HashEmbedder()))

    def index_embedder(self) -> HashEmbedder:
        return HashEmbedder()

    def qtype(self) -> QuestionTypeClassifier:
        return QuestionTypeClassifier(HashEmbedder())

    def aggregator(self) -> EmbeddingAggregator:
        return EmbeddingAggregator(HashEmbedder())

    def paraphrase(self) -> ParaphraseModels:
        return ParaphraseModels(OverlapJudge(), {"en": HashEmbedder(), "zh": HashEmbedder()})

    def time_sensitivity(self) -> RuleTimeSensitivity:  # the real cue rules
        return RuleTimeSensitivity()

    def answer_judges(self) -> tuple:
        """The built-in answer judges, each as the registry hands it out (at its own threshold): the real pattern
        rules for non-answers and the real cue patterns for instruction-like answers (fast, no model)."""
        return tuple((kind, Configured(judge, OWN_THRESHOLD, judge.model_id, kind.flags_low))
                     for kind, judge in ((NON_ANSWER, RuleNonAnswer()), (INJECTION, PatternInjection())))

    def pair_judges(self) -> tuple:
        return ()

    def identities(self) -> dict[str, str]:
        emb = HashEmbedder.model_id
        return {"paraphrase": OverlapJudge.model_id, "gec_en": RuleGec.model_id, "gec_zh": RuleGec.model_id,
                "intent": QuestionMarkIntent.model_id, "embedder": emb, "qtype": f"qtype-prototype-v1[{emb}]",
                "aggregator": f"embedding[{emb}]", "non_answer": RuleNonAnswer.model_id,
                "time_sensitive": RuleTimeSensitivity.model_id, "language": "script+py3langid",
                "injection": PatternInjection.model_id}


@dataclass(frozen=True)
class FakesWithJudges(FakeModels):
    """The fakes, plus the judges a config wires at each level (``questions``, ``answers``, ``pairs``:
    models.factory.judge_sections(cfg, level)), loaded from the registry's tables as a real build loads them."""

    questions: tuple = ()
    answers: tuple = ()
    pairs: tuple = ()

    @classmethod
    def of(cls, cfg) -> "FakesWithJudges":
        from models.factory import judge_sections
        from schemas.judgement import LEVELS

        return cls(*(judge_sections(cfg, level) for level in LEVELS))

    def scoring(self):
        return super().scoring()._replace(judges=registry.configured_judges(self.questions, ModelsConfig()))

    def answer_judges(self) -> tuple:
        return super().answer_judges() + tuple(zip((registry.judge_kind(s) for s, _ in self.answers),
                                                   registry.configured_judges(self.answers, ModelsConfig())))

    def pair_judges(self) -> tuple:
        return registry.configured_judges(self.pairs, ModelsConfig())

    def identities(self):
        return dict(super().identities(),
                    **registry.judge_identities(self.questions + self.answers + self.pairs, ModelsConfig()))


class FakeEmbedder:
    """Random unit vectors (seeded by the batch size): for tests where the embedder is beside the point."""

    model_id, dim = "fake", 8

    def embed(self, texts):
        rng = np.random.default_rng(len(texts))
        v = rng.normal(size=(len(texts), 8)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)
