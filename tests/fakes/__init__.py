"""Stand-ins for the tests: small fast models behind the real interfaces (:mod:`fakes.models`) and an in-memory
object store registered with Beam as ``mem://`` (:mod:`fakes.store`).

``tests/`` is on ``sys.path`` (pyproject.toml ``[tool.pytest.ini_options] pythonpath``), so a test imports them
as ``from fakes.models import FakeModels`` and ``from fakes import store``; a subprocess a test starts puts
``tests/`` on its PYTHONPATH. Always by these names: the store's objects live in the module, and a second import
under another name would be a second, empty store.
"""
