"""Instruction-like answers: does an answer address the model that reads it? (``injection.model``;
models.injection.base). ``backends.BACKENDS``: this kind's table for models.registry (schemas.backends). The loader hands
out its judge at ``injection.threshold`` (models.injection.base.ConfiguredInjection): the judge scores,
schemas.judgement decides."""
