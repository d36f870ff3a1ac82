"""Decompressing hostile deflate and gzip streams in bounded steps."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

MAX_GZIP_MEMBERS = 1_000
IN_CHUNK = 64 * 1024
OUT_CHUNK = 1024 * 1024


class Corrupt(Exception):
    """Compressed data that cannot be decompressed."""


def decompress(src: memoryview, *, gzip_stream: bool, budget: int) -> Iterator[bytes]:
    """Decompress a raw deflate stream (or a gzip file, all its members) in bounded steps,
    yielding the output until it ends or more than ``budget`` bytes came out."""
    produced = 0
    for _ in range(MAX_GZIP_MEMBERS if gzip_stream else 1):
        stream = zlib.decompressobj(31 if gzip_stream else -15)
        position = 0
        while not stream.eof:
            feed: bytes | memoryview = stream.unconsumed_tail
            if not feed and position < len(src):
                feed = src[position : position + IN_CHUNK]
                position += len(feed)
            try:
                out = stream.decompress(feed, min(OUT_CHUNK, budget + 1 - produced))
            except zlib.error as exc:
                raise Corrupt(str(exc)) from None
            produced += len(out)
            if out:
                yield out
            if produced > budget:
                return
            if not out and not feed:
                raise Corrupt("the compressed data ends early")
        if not gzip_stream:
            return
        src = src[position - len(stream.unused_data) - len(stream.unconsumed_tail) :]
        if bytes(src[:2]) == b"\x1f\x8b":
            continue  # another gzip member follows
        if not all_zero(src):
            raise Corrupt("data after the end of the gzip stream")
        return
    raise Corrupt(f"more than {MAX_GZIP_MEMBERS} gzip members")


def all_zero(view: memoryview) -> bool:
    return all(
        not view[at : at + OUT_CHUNK].tobytes().strip(b"\x00")
        for at in range(0, len(view), OUT_CHUNK)
    )
