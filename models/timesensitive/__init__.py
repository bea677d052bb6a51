"""Will a question's answers go stale? (time-sensitivity: prices, release dates, this year's dates, the
latest X, lottery numbers, who holds an office now). Backends: ``embedding`` (default), ``rules``, ``hf``.

``backends.BACKENDS``: this kind's table for models.registry (schemas.backends). Each loader hands out its detector at
``time_sensitive.threshold`` (models.timesensitive.base.ConfiguredTimeSensitivity): the detector scores,
schemas.judgement decides."""
