"""Kifu's rules engine: pure game rules, replay and judgement.

One sub-package per game (``rules.uno`` for the ALGORI UNO contest).  Nothing in this
package performs I/O or imports streamlit, duckdb, pandas or pymongo; a test enforces it.
"""

from __future__ import annotations
