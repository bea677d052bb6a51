"""The ``qabase`` subcommands of the build and its bases: one module per subcommand, named for it
(``qabase gc`` is :mod:`pipelines.commands.gc`), each with ``build_parser()`` and ``main(argv)``; pipelines.cli
dispatches to them. ``qabase build`` is the exception: its module is pipelines.build_base, whose path is the
fixed entry point ``python -m pipelines.build_base``."""
