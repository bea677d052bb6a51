"""docs/reference/config.md is generated from the config dataclasses and cannot drift from them."""

from pathlib import Path

import yaml

from models import config_reference as ref
from models.config_check import config_from_dict, default_config
from schemas.config import config_yaml

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "config.md"


def _flat_keys(tree: dict, prefix: str = "") -> set[str]:
    keys = set()
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        keys |= _flat_keys(value, path) if isinstance(value, dict) else {path}
    return keys


def test_committed_page_is_the_generators_output():
    assert PAGE.read_text(encoding="utf-8") == ref.render(), f"docs/reference/config.md is stale: run {ref.REGENERATE}"


def test_keys_are_those_print_config_prints():
    printed = _flat_keys(yaml.safe_load(config_yaml(default_config())))
    documented = {path for path, _, _ in ref.config_keys()}
    assert documented == printed
    assert set(ref.MEANINGS) == printed, (
        f"MEANINGS in models/config_reference.py: no meaning for {sorted(printed - set(ref.MEANINGS))}, "
        f"meanings of keys that no longer exist: {sorted(set(ref.MEANINGS) - printed)}")
    assert set(ref.SECTIONS) == {p.split(".", 1)[0] for p in printed}


def test_every_key_has_a_meaning_and_the_page_shows_it():
    assert ref.missing_meanings() == []
    page = ref.render()
    for path, typ, default in ref.config_keys():
        assert f"| `{path}` | {typ} | `{ref.default_text(default).replace('|', chr(92) + '|')}` |" in page


def test_defaults_on_the_page_read_back_as_the_default_config():
    # the YAML block is load_config's own input format: read back, it is the default config
    block = ref.render().split("```yaml\n", 1)[1].split("```", 1)[0]
    assert config_from_dict(yaml.safe_load(block)) == default_config()


def test_a_key_without_a_meaning_stops_the_generator(monkeypatch, capsys):
    monkeypatch.delitem(ref.MEANINGS, "filter.top_k")
    assert ref.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no meaning for filter.top_k") and err.count("\n") == 1


def test_types_and_defaults_are_rendered_plainly():
    rows = {path: (typ, ref.default_text(default)) for path, typ, default in ref.config_keys()}
    assert rows["filter.top_k"] == ("integer", "50000")
    assert rows["filter.score_all"] == ("true/false", "false")
    assert rows["input.languages"] == ("list of strings", "[en, zh, mixed]")
    assert rows["index.memory_budget_mb"] == ("number", "4096.0")


SCHEMA = PAGE.parent / "config.schema.json"


def test_committed_json_schema_is_the_generators_output_and_a_valid_schema():
    import json

    import jsonschema

    committed = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert committed == ref.json_schema(), f"{ref.SCHEMA_PATH} is stale: run {ref.REGENERATE_SCHEMA}"
    jsonschema.Draft202012Validator.check_schema(committed)
    schema_keys = {f"{s}.{k}" for s, sect in committed["properties"].items() for k in sect["properties"]}
    assert schema_keys == {path for path, _, _ in ref.config_keys()}
    assert all(sect["properties"][k]["description"] for sect in committed["properties"].values()
               for k in sect["properties"])


def test_the_json_schema_accepts_what_the_build_accepts_and_refuses_what_it_refuses():
    import jsonschema
    import pytest

    from schemas.errors import ConfigError

    schema = ref.json_schema()
    jsonschema.validate(yaml.safe_load(config_yaml(default_config())), schema)
    jsonschema.validate({"filter": {"top_k": 10}, "non_answer": {"threshold": -1}}, schema)  # partial; a sentinel
    for bad in ({"models": {"device": "tpu"}}, {"filter": {"top_k": 0}}, {"non_answer": {"threshold": 2}},
                {"filter": {"no_such_key": 1}}, {"privacy": {"patterns": [{"name": "X"}]}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises(ConfigError):
            config_from_dict(bad)
