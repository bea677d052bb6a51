"""Schema of rejected.parquet: every input row that did not become an accepted log row."""

import pyarrow as pa

REJECTED_SCHEMA = pa.schema([
    pa.field("stage", pa.string(), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("position", pa.int64(), nullable=False),
    pa.field("raw", pa.string(), nullable=False),
    pa.field("detail", pa.string(), nullable=False),
])
