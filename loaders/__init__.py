"""Kifu loaders: read game logs (files, MongoDB, a game server) and write them into DuckDB.

Floor by floor (docs/architecture.md): ``core`` (sources, match identity, the store: no game),
``parallel`` (worker processes), ``games`` (one loader per game), ``pipeline`` (one ingest run),
``live`` (ingest while others read: ``kifu watch``, an ingest swapped in, the Upload page's job).
"""
