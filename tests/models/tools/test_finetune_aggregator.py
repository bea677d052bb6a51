"""Fine-tuning smoke test: LoRA on a tiny random LLaMA, a few CPU steps, and the result loads as hf:DIR."""

import json

import pytest

from models.aggregators.prompt import parse_aggregation
from models.tools.finetune_aggregator import encode, main, render_target

EXAMPLES = [
    {"question": "Is the festival worth visiting?", "answers": ["yes it is fun", "yes great", "too crowded"],
     "summary": "Most say it is worth it.",
     "viewpoints": [{"summary": "It is fun.", "answer_ids": [1, 2]}, {"summary": "Too crowded.", "answer_ids": [3]}]},
    {"question": "长城有多长？", "answers": ["21196千米", "两万多公里"], "summary": "约21196千米。",
     "viewpoints": [{"summary": "约21196千米。", "answer_ids": [1, 2]}]},
    {"question": "How do I reset my password?", "answers": ["use the reset link", "ask support"],
     "output": "Summary: Use the reset link.\nViewpoint: Reset link.\nAnswer IDs: Answer 1\n"
               "Viewpoint: Support.\nAnswer IDs: Answer 2"},
]


def test_targets_are_in_the_format_the_parser_reads():
    en = render_target("S.", EXAMPLES[0]["viewpoints"], "en")
    assert en == "Summary: S.\nViewpoint: It is fun.\nAnswer IDs: Answer 1, Answer 2\nViewpoint: Too crowded.\n" \
                 "Answer IDs: Answer 3"
    zh = render_target("约21196千米。", EXAMPLES[1]["viewpoints"], "zh")
    assert zh.startswith("总结：") and "答案编号：答案1，答案2" in zh
    assert parse_aggregation(zh, 2).viewpoints == [("约21196千米。", [1, 2])]


def test_loss_is_on_the_reply_only(tiny_llama):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_llama))
    ids, labels = encode(tok, "how do i reset", "my password", 64)
    n_prompt = len(tok("how do i reset")["input_ids"])
    assert labels[:n_prompt] == [-100] * n_prompt and all(x != -100 for x in labels[n_prompt:])
    assert len(ids) == len(labels)


def test_finetune_a_tiny_llama_for_a_few_steps(tmp_path, tiny_llama, capsys):
    train = tmp_path / "annotated.jsonl"
    train.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in EXAMPLES), encoding="utf-8")
    out = tmp_path / "aggregator"
    assert main(["--train", str(train), "--base-model", str(tiny_llama), "--out", str(out), "--max-steps", "3",
                 "--grad-accum", "2", "--lr", "5e-3", "--max-length", "256"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["steps"] == 3 and summary["examples"] == 3 and summary["merged"]
    facts = json.loads((out / "finetune.json").read_text())
    assert facts["target_modules"] == ["k_proj", "o_proj", "q_proj", "v_proj"] and len(facts["losses"]) == 3
    assert (out / "adapter" / "adapter_config.json").is_file() and (out / "config.json").is_file()
    # the merged model is a plain causal LM directory: the aggregation backend hf:DIR loads it
    from fakes.models import FakeEmbedder

    from models.aggregators.embedding import EmbeddingAggregator
    from models.aggregators.llm import HfGenerator, LlmAggregator
    from schemas.records import AnswerCount

    agg = LlmAggregator(HfGenerator(out, max_new_tokens=4), EmbeddingAggregator(FakeEmbedder()))
    [res] = agg.aggregate_many([("Q?", "objective", "en", [AnswerCount(1, "a", 1), AnswerCount(2, "b", 1)])])
    assert sorted(i for v in res.viewpoints for i in v.answer_ids) == [1, 2]


def test_bad_training_data_is_one_line(tmp_path, tiny_llama, capsys):
    train = tmp_path / "bad.jsonl"
    train.write_text(json.dumps({"question": "Q?", "answers": ["a", "b"], "summary": "s",
                                 "viewpoints": [{"summary": "v", "answer_ids": [1, 5]}]}) + "\n")
    assert main(["--train", str(train), "--base-model", str(tiny_llama), "--out", str(tmp_path / "o")]) == 2
    assert "does not parse (unknown_id: 5)" in capsys.readouterr().err


@pytest.fixture(autouse=True)
def _quiet_torch_threads():
    import torch

    n = torch.get_num_threads()
    yield
    torch.set_num_threads(n)
