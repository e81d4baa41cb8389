"""Read the dealer's ``activities`` collection from MongoDB, streaming, in log order.

Documents are fetched with a bounded batch size, sorted by ``dateCreated`` then ``_id``
(the order the dealer wrote them), and never all held in memory.  A batch that cannot be fetched
(``--mongo-timeout`` passed, the connection lost) ends the read there: the documents read before
are ingested, the rest is quarantined as one record (at the position of the first document not read)
and :attr:`MongoSource.cut_short` says it in one line.  Connection problems
become a one-line :class:`~loaders.core.sources.SourceError`; credentials never appear in
messages (URIs are shown with the password removed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from loaders.core.sources import Record, SourceError

DEFAULT_DATABASE = "uno-local"
DEFAULT_COLLECTION = "activities"
BATCH_SIZE = 2000
#: ``--mongo-timeout``: the most time finding the server, connecting, and each query or batch of
#: documents may take, whole (pymongo's ``serverSelectionTimeoutMS``, ``connectTimeoutMS`` and
#: ``socketTimeoutMS``, ``maxTimeMS`` on the server, and a client-side deadline over each operation).
MONGO_TIMEOUT_S = 10.0


def redact_uri(uri: str) -> str:
    """``mongodb://user:secret@host`` -> ``mongodb://user:***@host``, for any spelling: any case of
    the scheme, an empty user (``mongodb://:pw@``), an unencoded ``@`` inside the password."""
    return re.sub(r"(?i)(mongodb(?:\+srv)?://[^:/@\s]*):[^/\s]*@", r"\1:***@", uri)


class MongoSource:
    """Activities of one MongoDB collection, optionally of one dealer."""

    kind = "mongo"

    def __init__(
        self,
        uri: str,
        database: str = DEFAULT_DATABASE,
        collection: str = DEFAULT_COLLECTION,
        *,
        dealer: str | None = None,
        dealer_code: str | None = None,
        client: Any = None,
        timeout_ms: int = int(MONGO_TIMEOUT_S * 1000),
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if not uri.startswith(("mongodb://", "mongodb+srv://")):
            raise SourceError(
                f"MongoDB URI {redact_uri(uri)!r} must start with mongodb:// or mongodb+srv:// "
                "(e.g. mongodb://uno:uno@localhost:27017)"
            )
        self.uri = uri
        self.database = database
        self.collection_name = collection
        self.query: dict[str, Any] = {}
        if dealer:
            self.query["dealer"] = dealer
        if dealer_code:
            self.query["dealer_code"] = dealer_code
        self.batch_size = batch_size
        self.name = f"{redact_uri(uri)}/{database}.{collection}"
        if self.query:
            self.name += " " + " ".join(f"{k}={v}" for k, v in self.query.items())
        self.size = 0
        self.bytes_done = 0
        self._client = client
        self._timeout_ms = timeout_ms
        #: Set when the read ended early (a timeout or a lost connection after the query started): one line
        #: saying why and how much was read; the documents read before it are ingested, the rest is not.
        self.cut_short: str | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "mongo",
            "uri": redact_uri(self.uri),
            "database": self.database,
            "collection": self.collection_name,
            "filter": self.query,
        }

    def _collection(self) -> Any:
        if self._client is None:
            import pymongo

            try:
                options: dict[str, Any] = {}
                for name in ("serverSelectionTimeoutMS", "connectTimeoutMS", "socketTimeoutMS"):
                    if name.lower() not in self.uri.lower():  # a bound the URI sets is the URI's
                        options[name] = self._timeout_ms
                self._client = pymongo.MongoClient(self.uri, **options)
            except Exception as exc:  # invalid URI, bad options
                raise SourceError(f"MongoDB URI {redact_uri(self.uri)}: {_first_line(exc)}") from exc
        return self._client[self.database][self.collection_name]

    def count(self) -> int:
        """Number of matching documents (for the progress bar)."""
        # (under pymongo's operation deadline the command carries maxTimeMS: the time left of the bound)
        return int(self._bounded(lambda: self._collection().count_documents(self.query)))

    def find(self, query: dict[str, Any], **kw: Any) -> list[Any]:
        """The documents of one bounded query (``kifu watch``'s polls: a ``limit`` is given), whole."""
        return list(self._bounded(lambda: list(self._collection().find(query, max_time_ms=self._timeout_ms, **kw))))

    def records(self) -> Iterator[Record]:
        from bson import json_util

        col = self._collection()
        self.size = self.count()
        cursor = col.find(
            self.query,
            sort=[("dateCreated", 1), ("_id", 1)],
            batch_size=self.batch_size,
            max_time_ms=self._timeout_ms,
        )
        position = 0
        self.cut_short = None
        it = iter(cursor)
        while True:
            try:
                doc = self._bounded(lambda: next(it, None))  # a new batch is fetched within the bound
            except SourceError as exc:  # a timeout or a lost connection mid-way: what was read is kept
                self.cut_short = f"{exc}; {position:,} document(s) read before, the rest not"
                yield Record(position + 1, b"", error=f"{exc}: this document and the ones after it were not read")
                break
            if doc is None:
                break
            position += 1
            self.bytes_done = position
            try:
                raw = json_util.dumps(doc, json_options=json_util.RELAXED_JSON_OPTIONS)
            except Exception as exc:  # a document bson cannot serialise back
                yield Record(position, repr(doc)[:65536], error=f"unserialisable document: {exc}")
                continue
            yield Record(position, raw, doc)

    def _bounded(self, fn: Any) -> Any:
        """``fn()`` under a deadline of the timeout for the whole operation (pymongo's client-side
        operation timeout: server selection, every socket read of the answer, ``maxTimeMS`` on the server),
        its errors as for :meth:`_guard`."""
        import pymongo

        def run() -> Any:
            with pymongo.timeout(self._timeout_ms / 1000):
                return fn()

        return self._guard(run)

    def _guard(self, fn: Any) -> Any:
        import pymongo.errors as errors

        try:
            return fn()
        except errors.OperationFailure as exc:
            if exc.code in (13, 18):  # Unauthorized, AuthenticationFailed
                raise SourceError(
                    f"MongoDB {redact_uri(self.uri)}: authentication failed — check the user "
                    "and password in --mongo-uri (and authSource)"
                ) from exc
            if exc.timeout:  # maxTimeMS passed on the server (ExecutionTimeout)
                raise self._timed_out() from exc
            raise SourceError(f"MongoDB {redact_uri(self.uri)}: {_first_line(exc)}") from exc
        except errors.ServerSelectionTimeoutError as exc:
            raise SourceError(
                f"MongoDB {redact_uri(self.uri)} unreachable within {self._timeout_ms / 1000:g} s "
                "(--mongo-timeout) — is the server running and the URI right?"
            ) from exc
        except errors.PyMongoError as exc:
            if exc.timeout:  # a socket read or the operation's deadline (NetworkTimeout, ExecutionTimeout)
                raise self._timed_out() from exc
            raise SourceError(
                f"MongoDB {redact_uri(self.uri)} unreachable ({type(exc).__name__}) — is the "
                "server running and the URI right?"
            ) from exc

    def _timed_out(self) -> SourceError:
        return SourceError(f"MongoDB {redact_uri(self.uri)}: gave no complete answer in "
                           f"{self._timeout_ms / 1000:g} s (--mongo-timeout)")  # fmt: skip


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return redact_uri(text[0]) if text else type(exc).__name__
