"""LLM aggregation: the strict parser on scripted replies, a tiny random LLaMA loaded directly and served
over HTTP by a real server process, and the fallback to the embedding aggregator."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from models.aggregators.embedding import EmbeddingAggregator
from models.aggregators.llm import GenerationError, HttpGenerator, LlmAggregator, from_reply
from models.aggregators.prompt import AggregationParseError, load_prompt, parse_aggregation
from schemas.records import AnswerCount

ROOT = Path(__file__).resolve().parents[3]



def _answers(n, counts=None):
    return [AnswerCount(i, f"answer number {i}", (counts or {}).get(i, 1)) for i in range(1, n + 1)]


GOOD = """Summary: Most answers say the festival is worth visiting.
Viewpoint: It is lively and worth a visit.
Answer IDs: Answer 1, Answer 2, Answer 3
Viewpoint: It is too crowded.
Answer IDs: Answer 4
"""


def test_parser_reads_the_papers_format_in_both_languages():
    p = parse_aggregation(GOOD, 4)
    assert p.summary.startswith("Most answers") and p.viewpoints == [("It is lively and worth a visit.", [1, 2, 3]),
                                                                   ("It is too crowded.", [4])]
    zh = "总结：多数人推荐。\n观点：值得去。\n答案编号：答案1，答案3\n观点：人太多。\n答案编号：答案2\n未分配：答案4"
    p = parse_aggregation(zh, 4)
    assert p.viewpoints == [("值得去。", [1, 3]), ("人太多。", [2])] and p.unassigned == [4]
    # list markers, extra prose and "and" between ids are tolerated
    loose = "Here is my aggregation.\n1. Viewpoint: Yes.\n   Answer IDs: Answer 1 and Answer 2.\n- Viewpoint: No.\n" \
            "- Answer IDs: 3"
    assert parse_aggregation(loose, 3).viewpoints == [("Yes.", [1, 2]), ("No.", [3])]


@pytest.mark.parametrize("reply,reason", [
    ("", "no_viewpoints"),
    ("Summary: nothing to see", "no_viewpoints"),
    ("Viewpoint: A\nAnswer IDs: Answer 1, Answer 7", "unknown_id"),
    ("Viewpoint: A\nAnswer IDs: Answer 1, Answer 2\nViewpoint: B\nAnswer IDs: Answer 2, Answer 3", "repeated_id"),
    ("Viewpoint: A\nAnswer IDs: Answer 1", "missing_ids"),
    ("Answer IDs: Answer 1, Answer 2, Answer 3", "ids_without_viewpoint"),
    ("Viewpoint: A\nViewpoint: B\nAnswer IDs: Answer 1, Answer 2, Answer 3", "viewpoint_without_ids"),
    ("Viewpoint: A\nAnswer IDs: Answer 1, Answer 2, Answer 3\nViewpoint: dangling", "viewpoint_without_ids"),
    ("Viewpoint: A\nAnswer IDs: the first two", "bad_id"),
    ("Viewpoint: A\nAnswer IDs: Answer 1, Answer 2\nUnassigned: Answer 2, Answer 3", "repeated_id"),
    ("Viewpoint:\nAnswer IDs: Answer 1, Answer 2, Answer 3", "empty_viewpoint"),
])
def test_parser_rejects_what_it_cannot_trust(reply, reason):
    with pytest.raises(AggregationParseError) as err:
        parse_aggregation(reply, 3)
    assert err.value.reason == reason


def test_from_reply_orders_by_support_and_fuses_factual_answers():
    answers = _answers(4, counts={4: 5})
    res = from_reply(GOOD, "objective", "en", answers)
    assert res.method == "llm-majority-vote" and res.answer == "Most answers say the festival is worth visiting."
    assert [v.answer_ids for v in res.viewpoints] == [[4], [1, 2, 3]]  # 5 occurrences beat 3
    assert res.confidence == pytest.approx(5 / 8) and res.vote_margin == pytest.approx(2 / 8)
    sub = from_reply(GOOD, "subjective", "en", _answers(4))
    assert sub.method == "llm-viewpoints" and "2 viewpoints" in sub.answer
    with pytest.raises(AggregationParseError, match="no_summary"):
        from_reply(GOOD.split("\n", 1)[1], "objective", "en", _answers(4))


def test_prompt_files_are_versioned_and_numbered():
    prompt = load_prompt("v1")
    assert prompt.prompt_id.startswith("aggregate-v1@")
    text = prompt.render("Is it good?", ["Yes.", "No."], "en")
    assert "Question: Is it good?" in text and "Answer 1: Yes.\nAnswer 2: No." in text
    assert "答案1：好。" in prompt.render("好吗？", ["好。"], "zh") and "观点" in prompt.render("好吗？", ["好。"], "zh")


class Scripted:
    model_id = "scripted"

    def __init__(self, replies):
        self.replies = replies
        self.calls = []

    def generate(self, prompts):
        self.calls.append(prompts)
        if isinstance(self.replies, Exception):
            raise self.replies
        return self.replies[:len(prompts)]


from fakes.models import FakeEmbedder


def test_unparsable_replies_and_failed_generation_fall_back_with_the_reason():
    groups = [("Q1?", "subjective", "en", _answers(4)), ("Q2?", "objective", "en", _answers(3))]
    agg = LlmAggregator(Scripted([GOOD, "Viewpoint: A\nAnswer IDs: Answer 9"]), EmbeddingAggregator(FakeEmbedder()))
    first, second = agg.aggregate_many(groups)
    assert first.method == "llm-viewpoints" and "llm_fallback" not in " ".join(first.flags)
    assert second.method.startswith("embedding") and "llm_fallback:unknown_id" in second.flags
    assert sorted(i for v in second.viewpoints for i in v.answer_ids) == [1, 2, 3]
    down = LlmAggregator(Scripted(GenerationError("unreachable: refused")), EmbeddingAggregator(FakeEmbedder()))
    assert all(any(f.startswith("llm_fallback:generation_failed") for f in r.flags) for r in down.aggregate_many(groups))
    assert agg.model_id.startswith("llm-aggregator[scripted|aggregate-v1@")


def _groups():
    return [("Is the festival worth visiting?", "subjective", "en",
             [AnswerCount(1, "how do i reset my password", 2), AnswerCount(2, "hello", 1)]),
            ("长城有多长？", "objective", "zh", [AnswerCount(1, "hello ?", 1), AnswerCount(2, "reset", 1)])]


def test_tiny_llama_loaded_directly(tiny_llama):
    from models.aggregators.llm import HfGenerator

    gen = HfGenerator(tiny_llama, max_new_tokens=8, batch_size=2)
    replies = gen.generate([load_prompt().render(q, [a.text for a in ans], lang) for q, _, lang, ans in _groups()])
    assert len(replies) == 2 and all(isinstance(r, str) for r in replies)
    assert replies == gen.generate([load_prompt().render(q, [a.text for a in ans], lang)
                                    for q, _, lang, ans in _groups()])  # greedy: deterministic
    results = LlmAggregator(gen, EmbeddingAggregator(FakeEmbedder())).aggregate_many(_groups())
    # a random model writes no valid aggregation: every group falls back, and says why
    for r in results:
        assert any(f.startswith("llm_fallback:") for f in r.flags)
        assert sorted(i for v in r.viewpoints for i in v.answer_ids) == [1, 2]


@pytest.fixture(scope="module")
def llm_server(tiny_llama):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "models.tools.serve_llm", "--model", str(tiny_llama), "--port", "0",
                             "--max-new-tokens", "8"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("listening on "):
        proc.kill()
        pytest.fail(f"server did not start: {line!r} {proc.stderr.read()[-2000:]}")
    yield line.split()[-1]
    proc.terminate()
    proc.wait(timeout=30)


@pytest.mark.slow  # a server subprocess
def test_tiny_llama_served_over_http(llm_server, tiny_llama):
    import urllib.request

    with urllib.request.urlopen(f"{llm_server}/health", timeout=30) as resp:
        assert json.loads(resp.read())["status"] == "ok"
    gen = HttpGenerator(llm_server, max_new_tokens=8, batch_size=2)  # model "auto": the server's first
    assert gen.model_id.startswith(f"http:{llm_server}#hf:")
    prompts = [load_prompt().render(q, [a.text for a in ans], lang) for q, _, lang, ans in _groups()]
    replies = gen.generate(prompts)
    from models.aggregators.llm import HfGenerator

    assert replies == HfGenerator(tiny_llama, max_new_tokens=8, batch_size=2).generate(prompts)
    results = LlmAggregator(gen, EmbeddingAggregator(FakeEmbedder())).aggregate_many(_groups())
    assert len(results) == 2 and all(any(f.startswith("llm_fallback:") for f in r.flags) for r in results)


def test_unreachable_endpoint_is_a_generation_error():
    gen = HttpGenerator("http://127.0.0.1:9", model="m", timeout_s=2)
    with pytest.raises(GenerationError, match="unreachable"):
        gen.generate(["hi"])


@pytest.mark.slow  # a server subprocess
def test_aggregate_command_with_the_http_backend(llm_server, tmp_path):
    from models.tools.aggregate import main

    src = tmp_path / "groups.jsonl"
    src.write_text(json.dumps({"question": "Is it good?", "answers": ["yes", "no", "yes"]}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["--input", str(src), "--output", str(out), "--backend", "http", "--url", llm_server]) == 0
    row = json.loads(out.read_text())
    assert set(row) >= {"question", "qtype", "qtype_score", "answer", "confidence", "viewpoints", "method", "flags"}
    assert any(f.startswith("llm_fallback:") for f in row["flags"])
    assert sorted(i for v in row["viewpoints"] for i in v["answer_ids"]) == [1, 2, 3]


def test_the_api_key_is_never_sent_in_clear_text_to_another_host(monkeypatch):
    from models.aggregators.llm import refuse_key_in_clear
    from schemas.errors import ModelLoadError

    monkeypatch.setenv("QABASE_LLM_API_KEY", "sk-secret")
    with pytest.raises(ModelLoadError, match="refusing to send .* in clear text to llm.example.com over http://"):
        HttpGenerator("http://llm.example.com:8000/v1", model="m")
    for url in ("https://llm.example.com", "http://127.0.0.1:8000", "http://localhost:9", "http://[::1]:8000"):
        refuse_key_in_clear(url)  # encrypted, or never leaves the machine
    monkeypatch.setenv("QABASE_LLM_ALLOW_INSECURE", "1")
    refuse_key_in_clear("http://llm.example.com:8000")
    monkeypatch.delenv("QABASE_LLM_ALLOW_INSECURE")
    monkeypatch.delenv("QABASE_LLM_API_KEY")
    refuse_key_in_clear("http://llm.example.com:8000")  # no key, nothing to leak


def test_the_generator_runs_where_the_device_says(tiny_llama):
    from models.aggregators.llm import HfGenerator, make_generator

    gen = make_generator(f"hf:{tiny_llama}", max_new_tokens=4, device="auto")
    # auto resolves to a CUDA GPU where torch sees one: the parameters go there, not stay on the CPU
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert gen.device == expected and next(gen._model.parameters()).device.type == expected
    assert HfGenerator(tiny_llama, max_new_tokens=4).device == "cpu"  # the default of a direct construction

