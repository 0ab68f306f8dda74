"""Open YAML files in the real yaml-language-server and print the diagnostics it publishes.

Checks by hand that the ``# yaml-language-server: $schema=`` header of a file Autobench
writes or documents resolves with no editor settings: the server is started over stdio
with default settings, each file is opened (LSP ``initialize``, ``didOpen``) and the
``textDocument/publishDiagnostics`` it sends back are printed. A file whose schema does
not resolve gets a "Unable to load schema" style diagnostic; a file that breaks its
schema gets one diagnostic per violation, with line and column.

Install the server once, outside the checkout (Node.js 18 or newer)::

    npm install --prefix /tmp/yls yaml-language-server
    python3 tools/yaml_language_server_check.py \\
        --server /tmp/yls/node_modules/.bin/yaml-language-server FILE.yaml [...]

Exit status: 0 when every file was answered, 1 when the server did not answer a file
within ``--timeout`` seconds (default 30).
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO


def _send(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
    stream.flush()


def _read_messages(stream: BinaryIO, into: queue.Queue[dict[str, Any] | None]) -> None:
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                into.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is not None:
            into.put(json.loads(stream.read(length)))


def check(server: str, files: list[Path], timeout: float) -> dict[Path, list[dict[str, Any]]]:
    """File -> the diagnostics yaml-language-server published for it (default settings).

    Raises ``TimeoutError`` when the server sends none for a file within ``timeout`` s."""
    process = subprocess.Popen(
        [server, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=_read_messages, args=(process.stdout, messages), daemon=True).start()
    settings = {"yaml": {"validate": True, "completion": True, "schemaStore": {"enable": False}}}
    pending = {file.resolve().as_uri(): file for file in files}
    found: dict[Path, list[dict[str, Any]]] = {}
    try:
        root = Path.cwd().resolve().as_uri()
        _send(
            process.stdin,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": root, "capabilities": {}},
            },
        )
        initialized = False
        while pending:
            try:
                message = messages.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no diagnostics for {sorted(pending.values())}") from None
            if message is None:
                raise RuntimeError("yaml-language-server exited: " + process.stderr.read().decode())
            if message.get("id") == 1 and not initialized:
                initialized = True
                _send(process.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
                _send(
                    process.stdin,
                    {
                        "jsonrpc": "2.0",
                        "method": "workspace/didChangeConfiguration",
                        "params": {"settings": settings},
                    },
                )
                for uri, file in pending.items():
                    _send(
                        process.stdin,
                        {
                            "jsonrpc": "2.0",
                            "method": "textDocument/didOpen",
                            "params": {
                                "textDocument": {
                                    "uri": uri,
                                    "languageId": "yaml",
                                    "version": 1,
                                    "text": file.read_text(encoding="utf-8"),
                                }
                            },
                        },
                    )
            elif "method" in message and "id" in message:  # a request of the server
                result: Any = None
                if message["method"] == "workspace/configuration":
                    items = message["params"]["items"]
                    result = [settings.get(item.get("section", ""), {}) for item in items]
                _send(process.stdin, {"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif message.get("method") == "textDocument/publishDiagnostics":
                uri = message["params"]["uri"]
                if uri in pending:
                    found[pending.pop(uri)] = message["params"]["diagnostics"]
    finally:
        process.kill()
        process.wait()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="the yaml-language-server executable")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("files", nargs="+", type=Path)
    options = parser.parse_args(argv)
    try:
        found = check(options.server, options.files, options.timeout)
    except TimeoutError as error:
        print(error, file=sys.stderr)
        return 1
    for file in options.files:
        header = file.read_text(encoding="utf-8").splitlines()[0]
        diagnostics = found[file]
        print(f"{file}: {header}")
        print(f"  {len(diagnostics)} diagnostic(s)")
        for item in diagnostics:
            start = item["range"]["start"]
            print(f"  {start['line'] + 1}:{start['character'] + 1} {item['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
