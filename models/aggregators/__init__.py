"""Answer aggregators (``aggregation.backend``): one answer, or viewpoints, per question (models.aggregators.base).
``backends.BACKENDS``: this kind's table for models.registry (schemas.backends). An LLM backend falls back to the
``embedding`` row (``ctx.backend("embedding")``)."""
