"""Sentence embedders (``models.embedder``, ``models.intent_embedder_*``). ``backends.BACKENDS``: this kind's table for
models.registry (schemas.backends); the loaders import their backend only when called."""
