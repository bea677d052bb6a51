"""Paraphrase judges (``paraphrase.judge``): are two questions one base entry? (models.paraphrase.base).
``backends.BACKENDS``: this kind's table for models.registry (schemas.backends)."""
