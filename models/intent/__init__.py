"""Intent scorers (``models.intent``): how clearly a question asks for something a knowledge base can answer
(models.intent.base). ``backends.BACKENDS``: this kind's table for models.registry (schemas.backends)."""
