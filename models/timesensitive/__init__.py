"""Will a question's answers go stale? (time-sensitivity: prices, release dates, this year's dates, the
latest X, lottery numbers, who holds an office now). Backends: ``embedding`` (default), ``rules``, ``hf``."""
