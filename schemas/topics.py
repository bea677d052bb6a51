"""Schema of topics.parquet: one row per topic of a version's entries (pipelines.stages.topics), the
``unassigned`` topic (id -1: entries in no dense group) last. qa.parquet's ``topic`` column holds each entry's id."""

import pyarrow as pa

TOPICS_SCHEMA = pa.schema([
    pa.field("topic", pa.int32(), nullable=False),  # 0, 1, ... by size (largest first); -1: unassigned
    pa.field("name", pa.string(), nullable=False),  # its words joined by " · "; "unassigned" for -1
    pa.field("words", pa.list_(pa.string()), nullable=False),  # its most telling words, best first
    pa.field("size", pa.int64(), nullable=False),  # entries
    pa.field("asks", pa.int64(), nullable=False),  # the entries' frequencies summed (every form's asks)
    pa.field("flagged", pa.int64(), nullable=False),  # entries with any flag (qa.parquet flags)
    # entries among the base's least reliable (topics.least_reliable_share of the base, lowest reliability)
    pa.field("least_reliable", pa.int64(), nullable=False),
    pa.field("top_questions", pa.list_(pa.string()), nullable=False),  # its most asked entries' questions
])
