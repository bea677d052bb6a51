"""The dialogue log files the read stage reads: a file's bytes as lines of text (text), and each log format's
records as rows or rejects (formats)."""
