"""Does an answer answer its question? (``non_answer.model``; models.nonanswer.base). ``backends.BACKENDS``: this kind's
table for models.registry (schemas.backends). Each loader hands out its detector at ``non_answer.threshold``
(models.nonanswer.base.ConfiguredNonAnswer): the detector scores, schemas.judgement decides."""
