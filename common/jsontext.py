"""JSON records as contest programs write them: orjson first, Python's parser for what orjson refuses."""

from __future__ import annotations

import json
from typing import Any

import orjson

_NON_STANDARD = (b"NaN", b"Infinity")


def parse_json(text: bytes | str) -> Any:
    """Parse one JSON record: orjson, falling back to Python's parser for what orjson refuses
    but a JSON writer may still emit (``NaN``/``Infinity`` literals, numbers beyond a double).

    Raises ``orjson.JSONDecodeError`` (with orjson's message) when neither parser accepts it.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raw = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        if not (any(tok in raw for tok in _NON_STANDARD) or b"e" in raw or b"E" in raw):
            raise
        try:
            doc = json.loads(text)
            orjson.dumps(doc)  # what Kifu cannot store again (lone surrogates, >64-bit ints) stays refused
        except (ValueError, TypeError, RecursionError, orjson.JSONEncodeError):
            raise exc from None
        return doc
