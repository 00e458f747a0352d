"""The functions users call. Each only adds nodes to the graph (and registers its op defs)."""

import importlib
import pkgutil

from tfcluster.framework import op_def_registry


def _import_every_ops_module() -> None:
    """Registers every op definition (a graph from elsewhere may use any op)."""
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


op_def_registry.set_loader(_import_every_ops_module)
