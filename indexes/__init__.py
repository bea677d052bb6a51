"""Vector indexes over base-question embeddings."""
