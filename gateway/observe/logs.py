"""The process's log lines: one JSON object a line (``SKILLMEM_LOG_FORMAT=json``, the default)
or plain text, each naming the request it belongs to (``request_id``, the `X-Request-Id` the
answer carries) and, when tracing is on, its trace."""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from pythonjsonlogger.json import JsonFormatter

# The request being answered in this task (set by the edge, gateway/http/auth.py).
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

JSON_FIELDS = "{levelname}{name}{message}"
RENAMED = {"levelname": "level", "name": "logger"}
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


class RequestContext(logging.Filter):
    """Adds the request id (and the trace id, when a span is recording) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            record.trace_id = format(context.trace_id, "032x")
        return True


def formatter(log_format: str) -> logging.Formatter:
    """JSON (one object a line, the time in ISO 8601 UTC) or text."""
    if log_format == "json":
        return JsonFormatter(
            JSON_FIELDS, style="{", rename_fields=RENAMED, timestamp="time", json_ensure_ascii=False
        )
    return logging.Formatter(TEXT_FORMAT)


def configure(log_format: str, level: str = "info") -> None:
    """Send every logger's records to stderr in ``log_format`` (uvicorn's too, see
    ``uvicorn_config``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    handler.addFilter(RequestContext())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def uvicorn_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's ``log_config``: its loggers handed to the root's handler (configure), so its
    access lines are JSON with their request id too."""
    names = ("uvicorn", "uvicorn.error", "uvicorn.access")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "loggers": {
            name: {"level": level.upper(), "handlers": [], "propagate": True} for name in names
        },
    }
