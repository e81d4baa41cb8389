"""Kifu (棋譜)'s command line: ``kifu`` and one module per command that needs more than a few lines."""
