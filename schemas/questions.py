"""Schema of questions.parquet: every distinct normalised question, kept or not, and why."""

import pyarrow as pa

QUESTIONS_SCHEMA = pa.schema([
    pa.field("question_key", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("lang", pa.string(), nullable=False),
    pa.field("frequency", pa.int64(), nullable=False),
    pa.field("surface_forms", pa.int64(), nullable=False),
    pa.field("gec_score", pa.float64(), nullable=False),
    pa.field("intent_score", pa.float64(), nullable=False),
    # JSON objects: which signals fired and with what values
    pa.field("gec_details", pa.string(), nullable=False),
    pa.field("intent_details", pa.string(), nullable=False),
    pa.field("passed_gec", pa.bool_(), nullable=False),
    pa.field("passed_intent", pa.bool_(), nullable=False),
    pa.field("kept", pa.bool_(), nullable=False),
    # "" when kept; else low_gec, low_intent, low_gec+low_intent, below_top_k
    pa.field("reason", pa.string(), nullable=False),
    pa.field("rank", pa.int64(), nullable=True),
])
