"""Schema of accepted_sample.parquet: a deterministic sample of accepted log rows, which the quality gate checks."""

import pyarrow as pa

ACCEPTED_SAMPLE_SCHEMA = pa.schema([
    pa.field("row_id", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("answer", pa.string(), nullable=False),
    pa.field("key", pa.string(), nullable=False),
    pa.field("lang", pa.string(), nullable=False),
])
