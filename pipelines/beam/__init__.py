"""What every stage uses to run on Beam: progress and busy time (metering), counters read back from a finished
pipeline, records and rejects apart (split), Parquet sinks and counts computed as data (sinks)."""
