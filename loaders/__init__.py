"""Kifu loaders: read dealer logs (files or MongoDB) and write them into DuckDB.

``sources`` yields raw records, ``algori`` turns them into typed ALGORI activities and rows,
``store`` writes rows to DuckDB in one transaction per run, ``pipeline`` ties them together.
"""
