"""Tests marked ``slow`` run only when asked for: ``pytest -m slow`` (or any ``-m`` expression
that selects them); a plain ``pytest`` deselects them."""


def pytest_collection_modifyitems(config, items):
    if config.option.markexpr:
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
