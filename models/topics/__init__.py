"""Topic models (``topics.backend``): published entries grouped by meaning for review (models.topics.base), named
by their words (models.topics.naming). ``backends.BACKENDS``: this kind's table for models.registry (schemas.backends)."""
