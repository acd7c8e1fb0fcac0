"""The version of fsengine (read by the package, the command line, the report and the
build, without importing anything else)."""

__all__ = ["__version__"]

__version__ = "0.2.0.dev0"
