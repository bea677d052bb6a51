"""Arrow schemas: one per Parquet file a published version holds.

`qa.parquet` (the QA store), `questions.parquet` (every distinct question with its
scores and fate) and `rejected.parquet` (rows that never became questions).
"""

from schemas.qa import QA_SCHEMA
from schemas.questions import QUESTIONS_SCHEMA
from schemas.rejected import REJECTED_SCHEMA

__all__ = ["QA_SCHEMA", "QUESTIONS_SCHEMA", "REJECTED_SCHEMA"]
