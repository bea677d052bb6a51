"""Schema of qa.parquet: one row per base question; row i is vector i of the index."""

import pyarrow as pa

VIEWPOINT = pa.struct([
    pa.field("summary", pa.string(), nullable=False),
    pa.field("answer_ids", pa.list_(pa.int32()), nullable=False),
])

ANSWER = pa.struct([
    pa.field("answer_id", pa.int32(), nullable=False),
    pa.field("text", pa.string(), nullable=False),
    pa.field("count", pa.int64(), nullable=False),
    # does it answer at all? (a refusal, "no real-time data", a restatement: never a vote nor a viewpoint)
    pa.field("non_answer", pa.bool_(), nullable=False),
    pa.field("non_answer_score", pa.float64(), nullable=False),
    pa.field("non_answer_reason", pa.string(), nullable=False),  # its family ("" for an answer)
    # does it address the model that reads it (injection.policy exclude: never a vote nor a viewpoint)? its
    # score and reason (instruction_override, role_injection, template_tokens, tool_request, hidden_text,
    # encoded_payload; "" when not)
    pa.field("instruction_like", pa.bool_(), nullable=False),
    pa.field("instruction_score", pa.float64(), nullable=False),
    pa.field("instruction_reason", pa.string(), nullable=False),
])

# a distinct question counted toward the entry (its paraphrases; the representative first)
ALIAS = pa.struct([
    pa.field("question", pa.string(), nullable=False),
    pa.field("count", pa.int64(), nullable=False),
])

PERIOD = pa.struct([
    pa.field("first", pa.string(), nullable=False),
    pa.field("last", pa.string(), nullable=False),
])

RELIABILITY_PARTS = pa.struct([pa.field(name, pa.float64(), nullable=False)
                               for name in ("agreement", "support", "answered", "consistent", "fresh")])

QA_SCHEMA = pa.schema([
    pa.field("qid", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("question_key", pa.string(), nullable=False),
    pa.field("lang", pa.string(), nullable=False),
    pa.field("frequency", pa.int64(), nullable=False),
    pa.field("rank", pa.int64(), nullable=False),
    pa.field("gec_score", pa.float64(), nullable=False),
    pa.field("intent_score", pa.float64(), nullable=False),
    pa.field("qtype", pa.string(), nullable=False),
    pa.field("qtype_score", pa.float64(), nullable=False),
    pa.field("answer", pa.string(), nullable=False),
    pa.field("confidence", pa.float64(), nullable=False),
    pa.field("vote_margin", pa.float64(), nullable=False),
    pa.field("viewpoints", pa.list_(VIEWPOINT), nullable=False),
    pa.field("answers", pa.list_(ANSWER), nullable=False),
    pa.field("total_answers", pa.int64(), nullable=False),
    pa.field("distinct_answers", pa.int64(), nullable=False),
    pa.field("method", pa.string(), nullable=False),
    pa.field("flags", pa.list_(pa.string()), nullable=False),
    pa.field("aliases", pa.list_(ALIAS), nullable=False),
    # answer rows (of total_answers) whose answer is a non-answer
    pa.field("non_answers", pa.int64(), nullable=False),
    # answer rows (of total_answers) whose answer is instruction-like; and whether the served answer rests on one
    # (injection.policy flag: such answers vote; always false under exclude) and its reason
    pa.field("instruction_like_answers", pa.int64(), nullable=False),
    pa.field("instruction_like", pa.bool_(), nullable=False),
    pa.field("instruction_like_reason", pa.string(), nullable=False),
    # will its answers go stale? (time_sensitive.policy flag; false under keep) and why (the cue family)
    pa.field("time_sensitive", pa.bool_(), nullable=False),
    pa.field("time_sensitive_reason", pa.string(), nullable=False),
    # ISO dates of the first and last rows its answers came from; null when the logs carry no timestamps
    pa.field("logs_period", PERIOD, nullable=True),
    # how far the answer can be trusted (models/aggregators/signals.py): answer rows that agree with the chosen
    # answer (its class), whether it contradicts a minority with numbers (and how many rows), and a score in
    # [0, 1], the product of its parts
    pa.field("agreeing_answers", pa.int64(), nullable=False),
    pa.field("contradicted", pa.bool_(), nullable=False),
    pa.field("contradicting_answers", pa.int64(), nullable=False),
    pa.field("reliability", pa.float64(), nullable=False),
    pa.field("reliability_parts", RELIABILITY_PARTS, nullable=False),
    # what a reviewer decided about the entry (the review file's actions that took effect on it, sorted:
    # answer, exclude, keep, merge, split, time_sensitive; empty when none) and their notes, joined with "; "
    pa.field("reviewed", pa.list_(pa.string()), nullable=False),
    pa.field("review_note", pa.string(), nullable=False),
    # its topic in topics.parquet (-1: unassigned); null when the build made no topics (topics.enabled false)
    pa.field("topic", pa.int32(), nullable=True),
])
