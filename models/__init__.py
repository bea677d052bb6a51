"""Swappable models: GEC and intent scorers, embedders, question typing, answer aggregation."""
