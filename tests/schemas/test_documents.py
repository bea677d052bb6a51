"""manifest.json and report.json describe themselves (schemas.documents): their JSON Schemas and the counts table
of docs/reference/outputs.md are generated from the declarations, a build's documents validate against them, and
a field nobody described does not."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from schemas import documents
from schemas.documents import COUNTS, REPORT_FORMAT, manifest_schema, report_schema, schema_text
from schemas.layout import BASE_FORMAT, MANIFEST

ROOT = Path(__file__).resolve().parents[2]


def _errors(doc: dict, schema: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]


def _documents(version: Path) -> tuple[dict, dict]:
    return (json.loads((version / MANIFEST).read_text(encoding="utf-8")),
            json.loads((version / "report.json").read_text(encoding="utf-8")))


def test_the_schemas_are_valid_json_schemas():
    for schema in (manifest_schema(), report_schema()):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_published_schemas_and_counts_table_are_the_generated_ones():
    """docs/reference holds what `python -m schemas.documents` writes (run it after changing a declaration)."""
    assert (documents.DOCS / documents.MANIFEST_SCHEMA_FILE).read_text(encoding="utf-8") == \
        schema_text(manifest_schema())
    assert (documents.DOCS / documents.REPORT_SCHEMA_FILE).read_text(encoding="utf-8") == \
        schema_text(report_schema())
    outputs = (documents.DOCS / "outputs.md").read_text(encoding="utf-8")
    assert documents.with_counts_table(outputs) == outputs
    for key in COUNTS:
        assert f"| `{key}` |" in outputs


def test_a_builds_manifest_and_report_validate(shared_fake_base):
    manifest, report = _documents(Path(shared_fake_base[1].path))
    assert manifest["manifest_version"] == BASE_FORMAT and report["report_format"] == REPORT_FORMAT
    assert _errors(manifest, manifest_schema()) == []
    assert _errors(report, report_schema()) == []
    assert set(manifest["counts"]) == set(COUNTS)  # every count the build makes is described, and only those


def test_an_undescribed_or_missing_field_does_not_validate(shared_fake_base):
    manifest, report = _documents(Path(shared_fake_base[1].path))
    extra_count = copy.deepcopy(manifest)
    extra_count["counts"]["rows_invented"] = 1
    assert any("rows_invented" in e for e in _errors(extra_count, manifest_schema()))
    extra_field = {**manifest, "notes": "x"}
    assert any("notes" in e for e in _errors(extra_field, manifest_schema()))
    missing = copy.deepcopy(manifest)
    del missing["counts"]["published"]
    assert any("'published' is a required property" in e for e in _errors(missing, manifest_schema()))
    wrong = copy.deepcopy(manifest)
    wrong["counts"]["published"] = -1
    assert _errors(wrong, manifest_schema())
    unnamed = {k: v for k, v in report.items() if k != "report_format"}
    assert any("report_format" in e for e in _errors(unnamed, report_schema()))
    assert _errors({**report, "report_format": REPORT_FORMAT + 1}, report_schema())


@pytest.mark.slow  # the demo build, with the real models
def test_the_demos_manifest_and_report_validate(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pipelines.build_base", "--demo", "--output", str(tmp_path / "demo"),
                          "-q"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    manifest, report = _documents((tmp_path / "demo" / "latest").resolve())
    assert _errors(manifest, manifest_schema()) == []
    assert _errors(report, report_schema()) == []
