"""Native instrumentation through the CLI: secrets never reach a record directory, and
strict discovery fails before any run with a clear error."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pluggy
import pytest
from click.testing import CliRunner
from record_text import file_text

from autobench.cli import cli
from autobench.core.plugins import integration_entries, plugin_manager

SECRET_KEY = "sk-live-0123456789abcdefghij"
TASK = f'''
import httpx
import httpx2


def handler(request):
    return httpx2.Response(200, headers={{"set-cookie": "session=cookie-value-42"}}, json={{"ok": True}})


def plain_handler(request):
    return httpx.Response(200, headers={{"set-cookie": "session=cookie-value-42"}}, json={{"ok": True}})


def run(ctx, case):
    headers = {{
        "Authorization": "Bearer {SECRET_KEY}",
        "Cookie": "session=cookie-value-42",
        "X-Api-Key": "{SECRET_KEY}",
        "X-Request-Id": "req-1",
    }}
    url = "https://user:password-77@api.example.com/v1/items?api_key={SECRET_KEY}&page=2"
    with httpx2.Client(transport=httpx2.MockTransport(handler)) as client:
        client.post(url, headers=headers, json={{"api_key": "{SECRET_KEY}", "q": "hello"}})
    with httpx.Client(transport=httpx.MockTransport(plain_handler)) as client:
        client.get(url, headers=headers)
    return {{"done": True}}
'''


def _spec(tmp_path: Path, instrumentation: str) -> Path:
    (tmp_path / "http_task.py").write_text(TASK)
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            """\
            benchmark:
              http:
                cases: [{id: c1}]
                run: {python: "http_task:run"}
                variants: {v1: {}}
                instrumentation:
            """
        )
        + textwrap.indent(textwrap.dedent(instrumentation), " " * 6)
    )
    return spec


def test_no_secret_reaches_any_file_of_the_record(tmp_path: Path) -> None:
    spec = _spec(
        tmp_path,
        """\
        httpx:
          capture:
            path: full
            request_headers: [authorization, cookie, x-api-key, x-request-id]
            response_headers: [set-cookie]
            request_body: true
            response_body: true
        """,
    )
    record = tmp_path / "rec"
    result = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record), "--no-progress"])
    assert result.exit_code == 0, result.output
    files = [path for path in record.rglob("*") if path.is_file()]
    text = "\n".join(file_text(path) for path in files)
    assert "HTTP POST" in text and "HTTP GET" in text and "req-1" in text  # it was recorded
    for secret in (SECRET_KEY, "cookie-value-42", "password-77", "page=2"):
        assert secret not in text, secret


class _AbsentPlugin:
    """A real plugin announcing an integration whose distribution is not installed."""

    @pluggy.HookimplMarker("autobench")
    def autobench_instrumentors(self) -> list[dict[str, Any]]:
        return [
            {
                "id": "absent_sdk",
                "distribution": "autobench-instrument-absent",
                "module": "autobench.absent",
            }
        ]


def test_strict_discovery_stops_before_any_run(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # every built-in integration is installed in this workspace: a plugin announces one that
    # is not
    plugin = _AbsentPlugin()
    plugin_manager().register(plugin, name="tests.absent-integration")
    integration_entries.cache_clear()  # the list is read once per process

    def unregister() -> None:
        plugin_manager().unregister(plugin)
        integration_entries.cache_clear()

    request.addfinalizer(unregister)
    spec = _spec(tmp_path, "all: {strict: true}\n")
    record = tmp_path / "rec"
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--record", str(record), "--no-progress"]
    )
    assert result.exit_code == 1
    assert "Instrumentation unavailable" in result.output
    assert "unavailable" in result.output and "autobench instrumentation doctor" in result.output
    assert not record.exists()
