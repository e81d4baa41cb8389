"""Worker processes: rounds replayed side by side, large files ingested side by side."""
