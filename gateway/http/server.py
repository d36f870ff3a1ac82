"""uvicorn's HTTP protocol with one change: a request its parser refuses (a control character
in a header such as X-Request-Id, say) is answered with the JSON error body and its code, as
every other refusal is, instead of uvicorn's plain-text 400.

This overrides ``send_400_response`` of uvicorn's httptools protocol: re-check it when uvicorn
is upgraded."""

from __future__ import annotations

import orjson
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from resolvers.common.errors import Code
from schema.errors import error_body


class JsonErrorsProtocol(HttpToolsProtocol):
    def send_400_response(self, msg: str) -> None:
        message = f"The HTTP request is malformed: {msg}"
        payload = orjson.dumps(error_body(Code.SCHEMA_VALIDATION_FAILED, message, plain=True))
        content = [STATUS_LINE[400]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: application/json\r\n",
                b"content-length: " + str(len(payload)).encode("ascii") + b"\r\n",
                b"connection: close\r\n",
                b"\r\n",
                payload,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()
