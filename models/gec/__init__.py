"""Grammatical-error scorers (``models.gec_en``, ``models.gec_zh``): 1 = needs no correction (models.gec.base).
``backends.BACKENDS``: this kind's table for models.registry (schemas.backends); loaders import their backend when called."""
