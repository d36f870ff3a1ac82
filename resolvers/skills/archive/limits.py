"""The limits an uploaded archive is held to (DESIGN §3): read at call time, so tests may
lower them."""

from __future__ import annotations

MAX_ARCHIVE_BYTES = 50 * 1024 * 1024  # the upload itself
MAX_ENTRIES = 5_000  # members in the archive (files + folders)
MAX_TOTAL_BYTES = 200 * 1024 * 1024  # all files, uncompressed, really read (not just declared)
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_RATIO = 100  # uncompressed / compressed, per member and overall

# Members that unpack to less than this are not held to MAX_RATIO (tiny files compress oddly).
RATIO_FLOOR_BYTES = 4 * 1024
