"""python -m models.tools.score: same order in and out, JSON per line, readable errors."""

import json

import pytest

from models.tools.score import main

MIXED = ["How do I reset my password?", "how do i resett my pasword", "asdkjh qwe zxcv", "hello",
         "and the second one?", "长城有多长？", "我想想知道的的长城有多长", "你好", "翻译一下上面的"]


def _run(tmp_path, kind, *extra, text=None):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(text or MIXED) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main([kind, "--input", str(src), "--output", str(out), *extra]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow  # the packaged models
def test_gec_scores_every_line_in_order(tmp_path):
    rows = _run(tmp_path, "gec")
    assert [r["text"] for r in rows] == MIXED
    s = {r["text"]: r["score"] for r in rows}
    assert s["How do I reset my password?"] > 0.8 > 0.5 > s["how do i resett my pasword"]
    assert s["asdkjh qwe zxcv"] < 0.2 and s["我想想知道的的长城有多长"] < 0.5 < s["长城有多长？"]
    assert rows[1]["details"]["unknown_words"] == ["resett", "pasword"]


@pytest.mark.slow  # the packaged models
def test_intent_scores_and_jsonl_input(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps({"text": t}, ensure_ascii=False) for t in MIXED), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["intent", "--input", str(src), "--output", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    s = {r["text"]: r["score"] for r in rows}
    assert s["How do I reset my password?"] > 0.8 and s["长城有多长？"] > 0.5
    assert max(s["hello"], s["and the second one?"], s["你好"], s["翻译一下上面的"]) < 0.1
    assert "refers_to_context" in rows[4]["details"]["signals"]


def test_intent_with_a_local_model_directory(tmp_path, tiny_bert):
    rows = _run(tmp_path, "intent", "--model-dir", str(tiny_bert), text=["how do i reset my password?", "hello"])
    assert all(0.0 <= r["score"] <= 1.0 for r in rows) and len(rows) == 2


@pytest.mark.slow  # the packaged models
def test_table_output_and_errors(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("hello\n你好\n", encoding="utf-8")
    assert main(["gec", "--input", str(src)]) == 0
    assert "score" in capsys.readouterr().out
    assert main(["gec", "--input", str(tmp_path / "missing.txt")]) == 2
    assert main(["intent", "--input", str(src), "--backend", "nope"]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"txt": 1}\n')
    assert main(["gec", "--input", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "backend must be one of" in err and "no string 'text' field" in err


def test_gec_lm_backend_needs_a_model_dir(tmp_path, tiny_llama, capsys):
    rows = _run(tmp_path, "gec", "--backend", "lm", "--model-dir", str(tiny_llama),
                text=["how do i reset my password?", "hello"])
    assert [r["text"] for r in rows] == ["how do i reset my password?", "hello"]
    assert all("nll" in r["details"] for r in rows)
    src = tmp_path / "in.txt"
    assert main(["gec", "--input", str(src), "--backend", "lm"]) == 2
    assert "need --model-dir" in capsys.readouterr().err


@pytest.mark.slow  # the packaged models
def test_all_shows_every_judgement_and_the_verdict_with_its_reason(tmp_path, capsys):
    """`score all` on the mixed file the docs show: chit-chat, requests, non-answers, time-sensitive
    questions and unsupported languages, both languages (benchmarks/mixed_judgements.jsonl)."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[3] / "benchmarks" / "mixed_judgements.jsonl"
    out = tmp_path / "all.jsonl"
    assert main(["all", "--input", str(src), "--output", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    verdict = {(r["text"], r["answer"]): r["verdict"] for r in rows}
    assert verdict[("What do you cook?", "I mostly make pasta and curries.")] == "low_intent"
    assert verdict[("你今天吃饭了吗？", "吃过了，你呢？")] == "low_intent"
    assert verdict[("唐宋八大家是哪八位", "韩愈、柳宗元、欧阳修、苏洵、苏轼、苏辙、王安石、曾巩。")] == "kept"
    assert verdict[("What is the capital of Australia?", "I'm sorry, but I can't help with that.")] \
        == "no_valid_answer (refusal)"
    assert verdict[("北京到上海的高铁要多久？", "无法确定，建议查询12306官方信息。")].startswith("no_valid_answer")
    # a caveat, then the answer: an answer
    assert verdict[("What's the population of Tokyo?", "I can't give today's exact figure, but the Tokyo "
                    "metropolis has about 14 million residents.")] == "kept"
    assert verdict[("How much does the iPhone 17 cost right now?", "It starts at $799 in the US.")] \
        == "kept, time_sensitive:price"
    assert verdict[("今年高考是哪天？", "6月7日开始。")] == "kept, time_sensitive:this_year"
    assert verdict[("Quelle est la capitale de l'Australie ?", "Canberra.")] == "unsupported_language"
    assert verdict[("長城有多長？", "歷代長城總長約21196公里。")] == "kept"
    assert main(["all", "--input", str(src)]) == 0
    assert "no_valid_answer (refusal)" in capsys.readouterr().out
    assert main(["all", "--input", str(tmp_path / "missing.jsonl")]) == 2
