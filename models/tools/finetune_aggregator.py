"""Fine-tune a causal LM into an answer-aggregation model with LoRA (peft), in the paper's format.

    python -m models.tools.finetune_aggregator --train annotated.jsonl --base-model DIR --out DIR
        [--epochs 1] [--max-steps N] [--lr 2e-4] [--lora-r 8] [--lora-alpha 16] [--batch-size 1]
        [--grad-accum 8] [--max-length 2048] [--prompt-version v1] [--seed 0] [--no-merge]

Each line of ``--train``: ``{"question": str, "answers": [str, ...], "summary": str,
"viewpoints": [{"summary": str, "answer_ids": [1-based ints]}]}`` (the paper annotated
5,000 such examples), or ``{"question", "answers", "output": str}`` with the reply text
already written. The prompt is the versioned aggregation prompt
(``models/aggregators/prompts/aggregate_<version>.<lang>.txt``), the target the reply in the format
the parser reads (``Summary:`` / ``Viewpoint:`` / ``Answer IDs: Answer 1, Answer 3``, or
the Chinese labels for Chinese questions); the loss is on the target tokens only.
Every structured example is checked with the same strict parser before training.

DIR gets the merged model and tokenizer (use it as ``aggregation.backend: hf:DIR``),
the LoRA adapter in ``DIR/adapter`` and ``DIR/finetune.json`` (data hash, settings,
losses). ``--no-merge`` writes the adapter only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path

from schemas.config import AggregationConfig
from schemas.errors import QabaseError
from schemas.text import reads_as_chinese


def render_target(summary: str, viewpoints: list[dict], lang: str) -> str:
    zh = reads_as_chinese(lang)
    lines = [(f"总结：{summary}" if zh else f"Summary: {summary}")]
    for v in viewpoints:
        ids = ("，".join(f"答案{i}" for i in v["answer_ids"]) if zh
               else ", ".join(f"Answer {i}" for i in v["answer_ids"]))
        lines.append(f"观点：{v['summary']}" if zh else f"Viewpoint: {v['summary']}")
        lines.append(f"答案编号：{ids}" if zh else f"Answer IDs: {ids}")
    return "\n".join(lines)


def read_examples(path: Path, prompt) -> list[tuple[str, str]]:
    """(prompt, target) pairs; structured targets are checked with the strict parser."""
    from models.aggregators.prompt import AggregationParseError, parse_aggregation
    from schemas.jsonl import iter_jsonl
    from schemas.text import detect_lang

    out = []
    for n, row in iter_jsonl(path):
        answers = row.get("answers")
        if not isinstance(row.get("question"), str) or not isinstance(answers, list) \
                or not answers or not all(isinstance(a, str) for a in answers):
            raise QabaseError(f"{path}:{n}: needs 'question' and a non-empty list of string 'answers'")
        lang = detect_lang(row["question"])
        if isinstance(row.get("output"), str):
            target = row["output"].strip()
        elif isinstance(row.get("viewpoints"), list):
            target = render_target(str(row.get("summary", "")), row["viewpoints"], lang)
        else:
            raise QabaseError(f"{path}:{n}: needs 'viewpoints' (with 'summary') or 'output'")
        try:
            parse_aggregation(target, len(answers))
        except AggregationParseError as exc:
            raise QabaseError(f"{path}:{n}: the target does not parse ({exc})") from None
        out.append((prompt.render(row["question"], answers, lang), target))
    if not out:
        raise QabaseError(f"{path}: no examples")
    return out


def encode(tok, prompt: str, target: str, max_length: int) -> tuple[list[int], list[int]]:
    """Token ids and labels (-100 on the prompt): the loss is on the reply only."""
    p = tok(prompt, add_special_tokens=True)["input_ids"]
    t = tok(target, add_special_tokens=False)["input_ids"]
    if tok.eos_token_id is not None:
        t = t + [tok.eos_token_id]
    ids = (p + t)[-max_length:]
    labels = ([-100] * len(p) + t)[-max_length:]
    return ids, labels


def finetune(train: Path, base_model: Path, out: Path, epochs: int = 1, max_steps: int | None = None,
             lr: float = 2e-4, lora_r: int = 8, lora_alpha: int = 16, batch_size: int = 1, grad_accum: int = 8,
             max_length: int = 2048, prompt_version: str = AggregationConfig.prompt_version, seed: int = 0,
             merge: bool = True,
             log=print) -> dict:
    import torch
    from peft import LoraConfig, get_peft_model

    from models.aggregators.prompt import load_prompt
    from models.embedders.hf import load_hf_dir

    torch.manual_seed(seed)
    random.seed(seed)
    prompt = load_prompt(prompt_version)
    examples = read_examples(train, prompt)
    tok, model, fingerprint = load_hf_dir(base_model, "AutoModelForCausalLM", "a causal LM")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    names = {name.rsplit(".", 1)[-1] for name, mod in model.named_modules() if isinstance(mod, torch.nn.Linear)}
    targets = sorted(names & {"q_proj", "k_proj", "v_proj", "o_proj"}) or sorted(names - {"lm_head"})
    model = get_peft_model(model, LoraConfig(r=lora_r, lora_alpha=lora_alpha, lora_dropout=0.0,
                                             target_modules=targets, task_type="CAUSAL_LM"))
    model.train()
    encoded = [encode(tok, p, t, max_length) for p, t in examples]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    steps_per_epoch = math.ceil(len(encoded) / (batch_size * grad_accum))
    total_steps = max_steps or steps_per_epoch * epochs
    losses: list[float] = []
    step, t0 = 0, time.perf_counter()
    order = list(range(len(encoded)))
    while step < total_steps:
        random.shuffle(order)
        for start in range(0, len(order), batch_size * grad_accum):
            opt.zero_grad()
            chunk = order[start:start + batch_size * grad_accum]
            running = 0.0
            for b in range(0, len(chunk), batch_size):
                batch = [encoded[i] for i in chunk[b:b + batch_size]]
                width = max(len(ids) for ids, _ in batch)
                ids = torch.full((len(batch), width), tok.pad_token_id, dtype=torch.long)
                labels = torch.full((len(batch), width), -100, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for row, (x, y) in enumerate(batch):
                    ids[row, :len(x)] = torch.tensor(x)
                    labels[row, :len(y)] = torch.tensor(y)
                    mask[row, :len(x)] = 1
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss * len(batch) / len(chunk)
                loss.backward()
                running += float(loss.detach())
            opt.step()
            step += 1
            losses.append(round(running, 5))
            log(f"step {step}/{total_steps} loss {running:.4f}")
            if step >= total_steps:
                break
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out / "adapter"))
    if merge:
        merged = model.merge_and_unload()
        merged.save_pretrained(str(out))
        tok.save_pretrained(str(out))
    facts = {"base_model": str(base_model), "base_fingerprint": fingerprint, "prompt": prompt.prompt_id,
             "train": str(train), "train_sha256": hashlib.sha256(train.read_bytes()).hexdigest(),
             "examples": len(examples), "steps": step, "epochs": epochs, "lr": lr, "lora_r": lora_r,
             "lora_alpha": lora_alpha, "target_modules": targets, "batch_size": batch_size, "grad_accum": grad_accum,
             "seed": seed, "merged": merge, "losses": losses, "seconds": round(time.perf_counter() - t0, 1)}
    (out / "finetune.json").write_text(json.dumps(facts, indent=2, ensure_ascii=False), encoding="utf-8")
    return facts


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("finetune", summary(__doc__))
    ap.add_argument("--train", type=Path, required=True, metavar="FILE.jsonl",
                    help="annotated examples: question, answers, and summary + viewpoints or the reply text")
    ap.add_argument("--base-model", type=Path, required=True, metavar="DIR",
                    help="the local causal LM directory to fine-tune")
    ap.add_argument("--out", type=Path, required=True, metavar="DIR",
                    help="where the merged model, the adapter and finetune.json go")
    ap.add_argument("--epochs", type=int, default=1, help="passes over the examples")
    ap.add_argument("--max-steps", type=int, metavar="N", help="stop after N optimiser steps (default: the epochs')")
    ap.add_argument("--lr", type=float, default=2e-4, help="learning rate")
    ap.add_argument("--lora-r", type=int, default=8, help="LoRA rank")
    ap.add_argument("--lora-alpha", type=int, default=16, help="LoRA scaling alpha")
    ap.add_argument("--batch-size", type=int, default=1, help="examples per forward pass")
    ap.add_argument("--grad-accum", type=int, default=8, help="forward passes per optimiser step")
    ap.add_argument("--max-length", type=int, default=2048, help="tokens kept per example (its end)")
    ap.add_argument("--prompt-version", default=AggregationConfig.prompt_version,
                    help="the aggregation prompt (models/aggregators/prompts/aggregate_<version>.*)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the shuffling and the adapter's initialisation")
    ap.add_argument("--no-merge", action="store_true", help="write the adapter only, not the merged model")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        if not args.base_model.is_dir():
            raise QabaseError(f"usage: --base-model {args.base_model} is not a directory")
        facts = finetune(args.train, args.base_model, args.out, args.epochs, args.max_steps, args.lr, args.lora_r,
                         args.lora_alpha, args.batch_size, args.grad_accum, args.max_length, args.prompt_version,
                         args.seed, not args.no_merge)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({k: facts[k] for k in ("examples", "steps", "merged", "seconds")} | {"out": str(args.out),
                     "first_loss": facts["losses"][0], "last_loss": facts["losses"][-1]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
