"""The MCP server's wire (stdio, and streamable HTTP's POST bodies): every JSON-RPC request gets a reply.

The SDK's stdio transport parses each line with pydantic's JSON parser and, when that fails, drops the line
without a word: a lone surrogate in a string (``"\\ud800"``, which JSON allows), params nested thousands deep,
a 5,000-digit number, ``"params": "x"`` or a message without ``"jsonrpc"`` left the client waiting forever.
Here each line is read by :func:`screen` first (Python's JSON parser, numbers bounded, nesting bounded) and
either handed to the server as a message, or answered at once with a JSON-RPC error: Parse error (-32700,
``id`` null) for a line that is not JSON, Invalid Request (-32600) for JSON that is not a JSON-RPC 2.0
message, Invalid params (-32602) for params nested too deep or holding a number too long to be one; the
request's id is echoed whenever it can be read. The server then serves the next line. A lone surrogate reaches
the tool, which refuses it as a tool error (indexes.agent_tools.checked_query), as the README promises.
Over streamable HTTP (:func:`screened_http`) the SDK replied to such bodies itself, but with ``id`` null and
mixed-up codes; the same screen answers them there (HTTP 400), a lone surrogate as Invalid params.
"""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import asynccontextmanager

import anyio

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
MAX_DEPTH = 32  # an MCP request nests a few levels; the SDK's parser gives up on deep nesting without a reply
MAX_NUMBER_DIGITS = 30  # no argument of these tools needs more; Python refuses ints of 4,300+ digits anyway


class _TooLong:
    """A JSON number with more digits than MAX_NUMBER_DIGITS, kept unconverted so that it can be refused."""

    def __init__(self, text: str):
        self.digits = len(text)


def _number(text: str):
    return _TooLong(text) if len(text) > MAX_NUMBER_DIGITS else int(text)


def _float(text: str):
    return _TooLong(text) if len(text) > MAX_NUMBER_DIGITS else float(text)


def _error(id_, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _valid_id(value) -> bool:
    return (isinstance(value, str) or type(value) is int) and not isinstance(value, bool)


def _top_level_id(line: str):
    """The ``id`` of a top-level JSON object too deep for the parser, read by scanning to depth 1 (None if
    there is none or it is not a string or an integer)."""
    depth, i, n = 0, 0, len(line)
    decoder = json.JSONDecoder(parse_int=_number)
    while i < n:
        c = line[i]
        if c == '"':
            try:
                key, end = json.decoder.scanstring(line, i + 1)
            except ValueError:
                return None
            if depth == 1 and key == "id":
                j = end
                while j < n and line[j] in " \t\r\n":
                    j += 1
                if j < n and line[j] == ":":
                    j += 1
                    while j < n and line[j] in " \t\r\n":
                        j += 1
                    if j < n and line[j] not in "[{":
                        try:
                            value = decoder.raw_decode(line, j)[0]
                        except ValueError:
                            return None
                        return value if _valid_id(value) else None
            i = end
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    return None


def _depth(value) -> int:
    """How deep ``value`` nests (a scalar 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, d + 1)
            if d + 1 > MAX_DEPTH:
                return d + 1
            stack.extend((v, d + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _too_long(value):
    """The first number in ``value`` too long to read, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _TooLong):
            return item
        if isinstance(item, (dict, list)):
            stack.extend(item.values() if isinstance(item, dict) else item)
    return None


def screen(line: str) -> tuple[dict | None, dict | None]:
    """(the message to serve, None) or (None, the error reply to send; None: nothing to send) for one line."""
    if not line.strip():
        return None, None
    try:
        message = json.loads(line, parse_int=_number, parse_float=_float)
    except RecursionError:
        return None, _error(_top_level_id(line), INVALID_PARAMS,
                            f"Invalid params: nested deeper than {MAX_DEPTH} levels")
    except ValueError as exc:
        return None, _error(None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
    if not isinstance(message, dict):
        return None, _error(None, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object")
    id_ = message.get("id")
    has_id = "id" in message
    reply_id = id_ if _valid_id(id_) else None
    if has_id and not _valid_id(id_):
        return None, _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if message.get("jsonrpc") != "2.0":
        return None, _error(reply_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if "method" in message:
        if not isinstance(message["method"], str):
            return None, _error(reply_id, INVALID_REQUEST, "Invalid Request: method must be a string")
        if "params" in message and not isinstance(message["params"], dict):
            return None, _error(reply_id, INVALID_REQUEST, "Invalid Request: params must be a JSON object")
    elif not ("result" in message or "error" in message):
        return None, _error(reply_id, INVALID_REQUEST, "Invalid Request: no method, result or error")
    if _depth(message) > MAX_DEPTH:
        return None, _error(reply_id, INVALID_PARAMS, f"Invalid params: nested deeper than {MAX_DEPTH} levels")
    long = _too_long(message)
    if long is not None:
        return None, _error(reply_id, INVALID_PARAMS, f"Invalid params: a number of {long.digits:,} digits "
                                                      f"(at most {MAX_NUMBER_DIGITS})")
    return message, None


@asynccontextmanager
async def stdio_transport():
    """(read stream, write stream) over stdin/stdout, as ``mcp.server.stdio.stdio_server`` gives, but with each
    line :func:`screen`-ed: a bad one answered with a JSON-RPC error, never dropped. While serving, fd 0 reads
    the null device and fd 1 writes to stderr (a library that prints would corrupt the wire otherwise)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    wire_in, wire_out = os.dup(0), os.dup(1)
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    # bytes that are not UTF-8 become U+FFFD, which the tools refuse with a tool error (agent_tools.checked_query)
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(wire_in, "rb", closefd=False), encoding="utf-8",
                                             errors="replace"))
    stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(wire_out, "wb", closefd=False), encoding="utf-8"))
    read_send, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_receive = anyio.create_memory_object_stream(0)
    errors_send = write_stream.clone()

    async def reader():
        async with read_send, errors_send:
            async for line in stdin:
                message, reply = screen(line)
                if reply is not None:
                    await errors_send.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(reply)))
                elif message is not None:
                    try:
                        parsed = types.jsonrpc_message_adapter.validate_python(message, by_name=False)
                    except Exception as exc:  # noqa: BLE001 - the SDK's own shape checks: still a reply
                        id_ = message.get("id") if _valid_id(message.get("id")) else None
                        if "id" in message and "method" in message:
                            bad = _error(id_, INVALID_REQUEST, f"Invalid Request: {str(exc).splitlines()[0]}")
                            await errors_send.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(bad)))
                        continue
                    await read_send.send(SessionMessage(parsed))

    async def writer():
        async with write_receive:
            async for session_message in write_receive:
                data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdout.write(data + "\n")
                await stdout.flush()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            yield read_stream, write_stream
            tg.cancel_scope.cancel()
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


async def run_stdio(server) -> None:
    """Serve ``server`` (an ``mcp.server.MCPServer``) over the screened stdio transport until stdin closes."""
    lowlevel = server._lowlevel_server  # the SDK's run_stdio_async does the same, over its own transport
    async with stdio_transport() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def _lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, (dict, list)):
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


def screened_http(app, path: str, max_body: int):
    """``app`` (the SDK's streamable-HTTP Starlette app) behind the same screen for ``POST path``: a body that
    is not a sound JSON-RPC message is answered here, HTTP 400 with the JSON-RPC error and the request's id
    (the SDK's own replies say ``id`` null and call an Invalid Request Invalid params); a lone surrogate, which
    the SDK's parser cannot take, is Invalid params. Anything else (and a body over ``max_body``, which the
    SDK refuses itself) goes to ``app`` unchanged."""

    async def guarded(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != path.rstrip("/"):
            return await app(scope, receive, send)
        chunks, size, more = [], 0, True
        while more and size <= max_body:
            event = await receive()
            if event["type"] != "http.request":  # the client went away: the app sees it as it would have
                return await app(scope, _replay(chunks, True, receive, event), send)
            chunks.append(event.get("body", b""))
            size += len(chunks[-1])
            more = event.get("more_body", False)
        if not more:  # the whole body, within max_body
            message, reply = screen(b"".join(chunks).decode("utf-8", "replace"))
            if reply is None and message is not None and _lone_surrogate(message):
                id_ = message.get("id") if _valid_id(message.get("id")) else None
                reply = _error(id_, INVALID_PARAMS, "Invalid params: a string holds a lone surrogate, which is "
                                                    "not valid UTF-8")
            if reply is not None:
                data = json.dumps(reply).encode("utf-8")
                await send({"type": "http.response.start", "status": 400,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(data)).encode("ascii"))]})
                return await send({"type": "http.response.body", "body": data})
        return await app(scope, _replay(chunks, more, receive), send)

    return guarded


def _replay(chunks: list[bytes], more: bool, receive, pending: dict | None = None):
    """A ``receive`` that hands the app the body read so far (then ``pending``, the event that stopped the
    reading), then whatever ``receive`` gives."""
    queue = [{"type": "http.request", "body": b"".join(chunks), "more_body": more}]
    if pending is not None:
        queue.append(pending)

    async def replay():
        return queue.pop(0) if queue else await receive()

    return replay
