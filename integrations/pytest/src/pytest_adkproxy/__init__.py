"""pytest-adkproxy: a cassette per pytest test, recorded and replayed by adkproxy (see plugin.py)."""

from .plugin import cassette_name

__all__ = ["cassette_name"]
