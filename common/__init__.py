"""Kifu's ground floor: the version, settings checked before use, and text made safe for a
terminal, Markdown and JSON.  Every layer may import it; it imports nothing of Kifu."""

__version__ = "0.1.0"
