"""Language detection: which language a logged question is in.

``detector.load_detector(spec)`` gives a :class:`~models.language.base.LanguageDetector` for ``input.language_detector``:

- ``langid`` (default): py3langid, whose model ships in its wheel (offline, deterministic);
- ``hf:/path``: a local Hugging Face sequence-classification directory with language labels.

Either way the script decides first (Han -> zh, kana -> ja, Hangul -> ko; see ``base``).
``detector.shared_detector(spec)`` loads one per process (Beam workers call it in ``setup``).
"""
