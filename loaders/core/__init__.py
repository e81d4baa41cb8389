"""The game-independent ingest core: sources (files, MongoDB, feeds), match identity (assembly), the store."""
