"""Real-browser end-to-end tests (a package, so its conftest does not shadow tests/conftest.py)."""
