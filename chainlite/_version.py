"""The package version, read by pyproject.toml and ``chainlite.__version__``."""
__version__ = "0.1.0"
