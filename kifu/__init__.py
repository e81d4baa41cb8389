"""Kifu (棋譜): game-log analytics for programming-contest games."""

__version__ = "0.1.0"
