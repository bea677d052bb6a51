"""Can a question stand alone? (``standalone.model``): "要门票吗", "这个怎么用", "what about London?" only make
sense inside a conversation; in a QA base they match everything and answer nothing. A question judge (applied
where GEC and intent are, schemas.judgement.QuestionJudge): it scores, the score stage decides at
``standalone.threshold`` and records the reason ``no_subject``. Backends: ``rules`` (default; no model).

``backends.BACKENDS``: this kind's table for models.registry (schemas.backends); the registry wires it as the
``standalone`` question judge (``backends.JUDGE``, one line in models.registry.JUDGES).
"""
