"""The two directions of the protocol on one process: JSON lines out, requests to the program and
their answers back.

Writing is synchronous (one line, flushed) so lines never interleave; the program's answers are
correlated by `request_id`.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import IO, Any, Callable

from ..output_stream import OutputStream
from ..tools.os_names import json_line
from .wire import ControlResponseBody


class ProgramError(Exception):
    """The program answered one of our requests with an error, or can no longer answer."""


class Channel:
    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.out = OutputStream(out or sys.stdout, self._output_closed)
        self.err = OutputStream(err or sys.stderr)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closed_reason = ""
        self.on_output_closed: Callable[[], None] | None = None
        """The program stopped reading stdout: the session ends (set by ProtocolSession)."""

    @property
    def output_closed(self) -> bool:
        return self.out.closed

    def send(self, obj: dict[str, Any]) -> None:
        self.out.write(json_line(obj) + "\n")  # a folder name that is not UTF-8 stays escaped

    def note(self, text: str) -> None:
        """A line for people, on stderr (never on stdout, which is the program's)."""
        self.err.write(text.rstrip("\n") + "\n")

    def _output_closed(self) -> None:
        self.close("the program stopped reading stdout")  # nothing we ask can reach it now
        if self.on_output_closed is not None:
            self.on_output_closed()

    # ----- answering the program's requests ------------------------------------------------
    def respond(self, request_id: str, response: dict[str, Any] | None = None) -> None:
        body: dict[str, Any] = {"subtype": "success", "request_id": request_id}
        if response is not None:
            body["response"] = response
        self.send({"type": "control_response", "response": body})

    def respond_error(self, request_id: str, error: str) -> None:
        self.send({"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": error}})

    # ----- our requests to the program -----------------------------------------------------
    async def request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a control_request and wait for its answer (the `response` object). Raises ProgramError
        for an error answer or when stdin closed; if cancelled, tells the program to stop waiting."""
        if self._closed_reason:
            raise ProgramError(self._closed_reason)
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.send({"type": "control_request", "request_id": request_id, "request": request})
        try:
            return await future
        except asyncio.CancelledError:
            # Awaiting a future and being cancelled cancels the future too: "answered" means a result.
            if future.cancelled() or not future.done():
                self.send({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def resolve(self, body: ControlResponseBody) -> bool:
        """Hand an answer to its waiting request; False when nothing waits for it."""
        future = self._pending.get(body.request_id)
        if future is None or future.done():
            return False
        if body.subtype == "error":
            future.set_exception(ProgramError(body.error or "the program answered with an error"))
        else:
            future.set_result(body.response or {})
        return True

    @property
    def closed(self) -> bool:
        """stdin is closed: a request could not be answered."""
        return bool(self._closed_reason)

    def close(self, reason: str) -> None:
        """stdin closed: nothing we asked can be answered any more."""
        self._closed_reason = reason
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(ProgramError(reason))
