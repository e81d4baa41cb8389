"""Ingest while others read: ``kifu watch``, ingesting into a copy swapped in, the upload page's job."""
