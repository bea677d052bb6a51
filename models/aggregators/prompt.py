"""The answer-aggregation prompt (versioned files) and a strict parser for the model's reply.

Prompt files live in ``models/aggregators/prompts/aggregate_<version>.<lang>.txt`` (``en``, ``zh``) with
``{question}`` and ``{answers}`` slots; answers are numbered from 1 ("Answer 3: ...",
"答案3：..."). The expected reply, in the paper's format:

    Summary: <the overall conclusion, or the fused answer to a factual question>
    Viewpoint: <one sentence>
    Answer IDs: Answer 1, Answer 3
    Viewpoint: ...
    Answer IDs: Answer 2
    Unassigned: Answer 5            (optional)

Chinese labels (总结 / 观点 / 答案编号 / 未分配, "答案1，答案3") are accepted as well, in
either prompt language. The parser is strict: every ID must exist, none may repeat,
and every answer must be in a viewpoint or marked unassigned; anything else raises
``AggregationParseError`` with a short reason code, and the caller falls back.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from schemas.text import reads_as_chinese

PROMPTS = Path(__file__).parent / "prompts"
DEFAULT_VERSION = "v1"

_LABELS = {
    "summary": ("summary", "总结", "概述", "总体"),
    "viewpoint": ("viewpoint", "观点"),
    "ids": ("answer ids", "answer id", "答案编号", "回答编号"),
    "unassigned": ("unassigned", "未分配"),
}
_LINE = re.compile(r"^\s*(?:[-*•]\s*)?(?:\d+[.)、]\s*)?([A-Za-z ]+?|[\u4e00-\u9fff]+)\s*[:：]\s*(.*)$")
_ID = re.compile(r"(?:answer|答案|回答)?\s*#?\s*(\d+)", re.I)


class AggregationParseError(ValueError):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class ParsedAggregation:
    summary: str
    viewpoints: list[tuple[str, list[int]]] = field(default_factory=list)
    unassigned: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class PromptTemplate:
    version: str
    texts: dict  # lang -> template text

    @property
    def prompt_id(self) -> str:
        digest = hashlib.sha1("\n".join(self.texts[k] for k in sorted(self.texts)).encode()).hexdigest()[:8]
        return f"aggregate-{self.version}@{digest}"

    def render(self, question: str, answers: list[str], lang: str) -> str:
        zh = reads_as_chinese(lang)
        template = self.texts["zh" if zh else "en"]
        lines = [(f"答案{i}：{a}" if zh else f"Answer {i}: {a}") for i, a in enumerate(answers, 1)]
        return template.replace("{question}", question).replace("{answers}", "\n".join(lines))


@lru_cache(maxsize=8)
def load_prompt(version: str = DEFAULT_VERSION) -> PromptTemplate:
    texts = {}
    for lang in ("en", "zh"):
        path = PROMPTS / f"aggregate_{version}.{lang}.txt"
        if not path.is_file():
            raise FileNotFoundError(f"no prompt file {path}")
        texts[lang] = path.read_text(encoding="utf-8")
    return PromptTemplate(version, texts)


def _label(raw: str) -> str | None:
    key = raw.strip().lower()
    for name, options in _LABELS.items():
        if key in options:
            return name
    return None


def _ids(text: str) -> list[int]:
    text = text.strip().rstrip("。.")
    if not text:
        return []
    parts = [p for p in re.split(r"[,，、;；]|\band\b|和", text) if p.strip()]
    out = []
    for part in parts:
        m = _ID.fullmatch(part.strip())
        if not m:
            raise AggregationParseError("bad_id", part.strip()[:40])
        out.append(int(m.group(1)))
    return out


def parse_aggregation(reply: str, n_answers: int) -> ParsedAggregation:
    summary = ""
    viewpoints: list[tuple[str, list[int]]] = []
    unassigned: list[int] = []
    pending: str | None = None
    for line in reply.splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        label = _label(m.group(1)) if m else None
        if label is None:
            continue  # free text between the lines is tolerated
        value = m.group(2).strip()
        if label == "summary":
            summary = summary or value
        elif label == "viewpoint":
            if pending is not None:
                raise AggregationParseError("viewpoint_without_ids", pending[:40])
            if not value:
                raise AggregationParseError("empty_viewpoint")
            pending = value
        elif label == "ids":
            if pending is None:
                raise AggregationParseError("ids_without_viewpoint", value[:40])
            ids = _ids(value)
            if not ids:
                raise AggregationParseError("viewpoint_without_ids", pending[:40])
            viewpoints.append((pending, ids))
            pending = None
        elif label == "unassigned":
            unassigned.extend(_ids(value))
    if pending is not None:
        raise AggregationParseError("viewpoint_without_ids", pending[:40])
    if not viewpoints:
        raise AggregationParseError("no_viewpoints")
    seen: set[int] = set()
    for _, ids in viewpoints:
        for i in ids:
            if not 1 <= i <= n_answers:
                raise AggregationParseError("unknown_id", str(i))
            if i in seen:
                raise AggregationParseError("repeated_id", str(i))
            seen.add(i)
    for i in unassigned:
        if not 1 <= i <= n_answers:
            raise AggregationParseError("unknown_id", str(i))
        if i in seen:
            raise AggregationParseError("repeated_id", str(i))
        seen.add(i)
    missing = sorted(set(range(1, n_answers + 1)) - seen)
    if missing:
        raise AggregationParseError("missing_ids", ",".join(map(str, missing[:10])))
    return ParsedAggregation(summary, viewpoints, sorted(unassigned))
