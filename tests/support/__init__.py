"""Helpers shared by the test suites, imported as `support.<module>`.

pytest puts tests/ on the import path (pyproject's [tool.pytest.ini_options] pythonpath), so
every test module, conftest and spawned task process finds this package, and tf_reference.
"""
