"""The built-in demo logs and the benchmark generator: deterministic, valid, bilingual, noisy."""

import hashlib
import json
import sys
from pathlib import Path

from pipelines.demo import write_demo_logs
from pipelines.stages.read import expand_inputs, parse_file
from pipelines.stages.validate import validate_row
from schemas.config import InputConfig, LimitsConfig
from schemas.records import RawRow
from schemas.text import detect_lang, normalize_key

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generate_logs import generate  # noqa: E402


def _sha(paths):
    return [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths]


def test_demo_logs_are_deterministic_valid_and_bilingual(tmp_path):
    a = write_demo_logs(tmp_path / "a")
    b = write_demo_logs(tmp_path / "b")
    assert _sha(a) == _sha(b)
    assert {p.suffix for p in a} == {".jsonl", ".csv"}
    rows = []
    for f in expand_inputs([str(p) for p in a]):
        rows.extend(parse_file(f["path"], f["format"], InputConfig(), LimitsConfig()))
    assert all(isinstance(r, RawRow) for r in rows) and len(rows) > 2000
    accepted = [validate_row(r, LimitsConfig()) for r in rows]
    assert all(not hasattr(r, "reason") for r in accepted)
    langs = {detect_lang(r.question) for r in accepted}
    assert {"en", "zh"} <= langs
    keys = [normalize_key(r.question) for r in accepted]
    for noise in ("hello", "asdkjh qwe zxcv", "how do i resett my pasword", "继续"):
        assert noise in keys, noise


def test_generator_is_deterministic_and_streams_jsonl(tmp_path):
    ca = generate(3000, tmp_path / "a.jsonl", seed=3)
    generate(3000, tmp_path / "b.jsonl", seed=3)
    assert _sha([tmp_path / "a.jsonl"]) == _sha([tmp_path / "b.jsonl"])
    lines = (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3000
    rows = [json.loads(x) for x in lines]
    assert all(r["question"] and r["answer"] for r in rows)
    langs = {detect_lang(r["question"]) for r in rows}
    assert {"en", "zh"} <= langs
    keys = [normalize_key(r["question"]) for r in rows]
    # Zipf: the most frequent question is far more frequent than the median one
    from collections import Counter

    counts = sorted(Counter(keys).values(), reverse=True)
    assert counts[0] >= 10 * counts[len(counts) // 2]
    assert isinstance(ca, dict)
