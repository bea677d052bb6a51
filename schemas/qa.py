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
])

# a distinct question counted toward the entry (its paraphrases; the representative first)
ALIAS = pa.struct([
    pa.field("question", pa.string(), nullable=False),
    pa.field("count", pa.int64(), nullable=False),
])

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
])
