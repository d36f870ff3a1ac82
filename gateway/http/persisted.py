"""Persisted operations on /graphql: Apollo's automatic persisted queries (APQ), and the
trusted-documents mode in which only a manifest's operations run (gateway/http/manifest.py).

The wire protocol is Apollo's, as its clients' persisted-queries link speaks it and Apollo
Server answers it. A request carries ``extensions: {"persistedQuery": {"version": 1,
"sha256Hash": H}}`` (in the body, or as the `extensions` URL parameter of a GET), with or
without its ``query``:

- the hash alone: the text registered under H runs; when there is none, the answer is the
  error ``PersistedQueryNotFound`` (code ``PERSISTED_QUERY_NOT_FOUND``), and the client sends
  the request again with the text;
- the hash and the text: H must be the SHA-256 of the text (else ``PERSISTED_QUERY_HASH_
  MISMATCH``, 400, nothing stored); the text runs as any other and, once it has parsed and
  validated, is registered under H for the next requests.

The codes of this module are Apollo's (its clients match ``PERSISTED_QUERY_NOT_FOUND`` and
``PERSISTED_QUERY_NOT_SUPPORTED``, or the messages ``PersistedQueryNotFound`` and
``PersistedQueryNotSupported``; the trusted mode's refusals are the GraphOS Router's
``PERSISTED_QUERY_NOT_IN_LIST`` and ``QUERY_NOT_IN_SAFELIST``). A malformed extension is a
request error of ours (``GRAPHQL_PARSE_FAILED``, 400).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from gateway.http.manifest import Manifest, read_manifest, sha256_hex
from gateway.settings import Settings
from resolvers.common.errors import Code
from schema.errors import error_body

APQ_VERSION = 1
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")

# Apollo's codes (not DESIGN §8's): its clients know them.
NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND"
NOT_SUPPORTED = "PERSISTED_QUERY_NOT_SUPPORTED"
HASH_MISMATCH = "PERSISTED_QUERY_HASH_MISMATCH"
NOT_IN_LIST = "PERSISTED_QUERY_NOT_IN_LIST"
NOT_IN_SAFELIST = "QUERY_NOT_IN_SAFELIST"

# A miss is answered 200, as Apollo Server answers it, although a request error is 4xx here
# otherwise: it is not a failure but the protocol's request for the text, and the older
# persisted-queries links (apollo-link-persisted-queries, Apollo Client 3 before 3.5) turn
# APQ off for good on a 400 or a 500. It is never cached: the next request registers the text.
MISS_STATUS = 200
UNCACHED = {"Cache-Control": "private, no-cache, must-revalidate"}


@dataclass(frozen=True, slots=True)
class Denial:
    """A persisted-query request refused: its status, error body and headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] | None = None


def apollo_denial(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Denial:
    return Denial(status, {"errors": [{"message": message, "extensions": {"code": code}}]}, headers)


def malformed(message: str) -> Denial:
    return Denial(400, error_body(Code.GRAPHQL_PARSE_FAILED, message))


def asks_by_hash(extensions: Any) -> bool:
    """Whether a request's extensions name a persisted query (it may then leave out its text)."""
    return isinstance(extensions, dict) and extensions.get("persistedQuery") is not None


def requested_hash(extensions: dict[str, Any] | None) -> str | Denial | None:
    """The persistedQuery extension's hash (lower case), None without one, or its Denial."""
    if not asks_by_hash(extensions):
        return None
    assert extensions is not None  # asks_by_hash saw a dict
    asked = extensions["persistedQuery"]
    if not isinstance(asked, dict):
        return malformed("extensions.persistedQuery must be a JSON object.")
    version = asked.get("version")
    if type(version) is not int or version != APQ_VERSION:
        return malformed(f"Unsupported persisted query version: send version {APQ_VERSION}.")
    sha256 = asked.get("sha256Hash")
    if not isinstance(sha256, str) or not SHA256_HEX.fullmatch(sha256):
        return malformed("extensions.persistedQuery.sha256Hash must be 64 hexadecimal digits.")
    return sha256.lower()


def hash_mismatch() -> Denial:
    message = (
        "The persistedQuery sha256Hash is not the SHA-256 of the query's text (provided sha "
        "does not match query); nothing was registered."
    )
    return apollo_denial(400, HASH_MISMATCH, message)


class Registry:
    """The texts clients registered, by workspace and hash: least recently used out first,
    at most ``max_documents`` of them holding at most ``max_chars`` characters in all, so that
    no client can grow it past a known size (one that registers many documents only pushes
    others' out: their clients then send the text once more, which registers it again).

    Documents are not workspace data, and a hash tells nothing of a text to whoever does not
    already hold the text (hashing the text means knowing the text). A hit, though, would tell
    a caller that someone ran that exact text, e.g. a query with a name or an id written in
    it: so each workspace finds only the texts it registered itself."""

    def __init__(self, max_documents: int, max_chars: int) -> None:
        self.max_documents = max_documents
        self.max_chars = max_chars
        self.entries: OrderedDict[tuple[UUID, str], str] = OrderedDict()
        self.chars = 0

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, workspace: UUID, sha256: str) -> str | None:
        key = (workspace, sha256)
        text = self.entries.get(key)
        if text is not None:
            self.entries.move_to_end(key)
        return text

    def put(self, workspace: UUID, sha256: str, text: str) -> None:
        """Register ``text`` (already checked against ``sha256``), pushing out the least
        recently used texts until both bounds hold; a text larger than all of them is not
        kept."""
        key = (workspace, sha256)
        if key in self.entries:
            self.entries.move_to_end(key)
            return
        if len(text) > self.max_chars or self.max_documents < 1:
            return
        self.entries[key] = text
        self.chars += len(text)
        while len(self.entries) > self.max_documents or self.chars > self.max_chars:
            _, dropped = self.entries.popitem(last=False)
            self.chars -= len(dropped)


@dataclass(frozen=True, slots=True)
class Resolved:
    """The text a request runs, and the hash to register it under once it validates."""

    query: str
    register: str | None = None


class PersistedDocuments:
    """What a request's text is: its own, a registered one, or a trusted one (``manifest``
    set: nothing else runs, and nothing is registered)."""

    def __init__(
        self, registry: Registry, *, enabled: bool = True, manifest: Manifest | None = None
    ) -> None:
        self.registry = registry
        self.enabled = enabled
        self.manifest = manifest

    def resolve(
        self, query: str | None, extensions: dict[str, Any] | None, workspace: UUID | None
    ) -> Resolved | Denial:
        """The text to run for a request's ``query`` and ``extensions``, or its Denial."""
        sha256 = requested_hash(extensions)
        if isinstance(sha256, Denial):
            return sha256
        if self.manifest is not None:
            return self.trusted(self.manifest, query, sha256)
        if sha256 is None:
            return Resolved(query or "")
        if not self.enabled:
            return apollo_denial(MISS_STATUS, NOT_SUPPORTED, "PersistedQueryNotSupported", UNCACHED)
        if query:
            return Resolved(query, sha256) if sha256_hex(query) == sha256 else hash_mismatch()
        text = self.registry.get(workspace, sha256) if workspace is not None else None
        if text is None:
            return apollo_denial(MISS_STATUS, NOT_FOUND, "PersistedQueryNotFound", UNCACHED)
        return Resolved(text)

    @staticmethod
    def trusted(manifest: Manifest, query: str | None, sha256: str | None) -> Resolved | Denial:
        """A manifest's operation, by its text or its hash; any other is refused."""
        if query:
            if sha256 is not None and sha256_hex(query) != sha256:
                return hash_mismatch()
            if not manifest.lists(query):
                message = (
                    "This server runs only the operations of its trusted-documents manifest, "
                    "and this document is not one of them."
                )
                return apollo_denial(403, NOT_IN_SAFELIST, message)
            return Resolved(query)
        body = manifest.body(sha256 or "")
        if body is None:
            message = "No operation of the trusted-documents manifest has this sha256Hash."
            return apollo_denial(404, NOT_IN_LIST, message)
        return Resolved(body)

    def register(self, workspace: UUID | None, sha256: str, text: str) -> None:
        """Keep a text that parsed and validated, for its workspace's next requests."""
        if workspace is not None and self.enabled and self.manifest is None:
            self.registry.put(workspace, sha256, text)


def persisted_documents(settings: Settings) -> PersistedDocuments:
    """Persisted queries as the settings ask: the trusted documents' manifest when one is
    named, else APQ (unless turned off) with a registry of the configured bounds."""
    manifest = read_manifest(settings.trusted_documents) if settings.trusted_documents else None
    registry = Registry(
        settings.persisted_queries_max_documents, settings.persisted_queries_max_chars
    )
    return PersistedDocuments(registry, enabled=settings.persisted_queries, manifest=manifest)
