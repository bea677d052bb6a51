"""The models floor: one folder per swappable kind (embedders, GEC, intent, paraphrase, non-answers,
time-sensitivity, stand-alone questions, instruction-like answers, language, topics, aggregators), each with its
backend table in backends.py; registry.py loads what a config names, config_check.py checks a config against the
tables, factory.py is what a build's stages ask for; tools/ holds the training and evaluation commands."""
