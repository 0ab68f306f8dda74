"""No secret a task handles reaches a file or a terminal: generated secrets are planted in
every channel a run writes through (HTTP headers, URL query, form and JSON bodies with
body capture on, cassettes, span attributes, events, output, an exception's message),
then the record is run, reported, compared, exported in every format, sent over OTLP to
an endpoint whose userinfo and query hold a secret, and its trace shape shown; the
secret's bytes (as they are, percent-encoded and JSON-escaped) occur in no file under
the record directory, no export file and no command output.

Two planting sets: the channels the capture policy recognises by pattern and key name
today (always checked), and the ones that need the policy's URL, form and key-spelling
rules (query parameters, form fields, camelCase keys, ``AIza`` keys, an exception quoting
a URL)."""

from __future__ import annotations

import itertools
import json
import socket
import string
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from record_text import file_text

from autobench.cli import cli

TASK = """
import json
from pathlib import Path

import httpx

PLANTED = Path(__file__).with_name("planted.json")


def _answer(request):
    planted = json.loads(PLANTED.read_text())
    status = 401 if request.url.path.endswith("/denied") else 200
    body = {"echo": "ok"}
    if "record" in planted["sets"]:
        body.update(token=planted["plain"], note="Bearer " + planted["bearer"])
    return httpx.Response(
        status,
        json=body,
        headers={"set-cookie": "session=" + planted["plain"], "x-api-key": planted["sk"]},
    )


def run(ctx, case):
    planted = json.loads(PLANTED.read_text())
    sk, bearer, plain = planted["sk"], planted["bearer"], planted["plain"]
    client = httpx.Client(transport=httpx.MockTransport(_answer))
    headers = {"Authorization": "Bearer " + bearer, "x-api-key": sk}
    client.post(
        "https://api.example.test/v1/chat",
        headers=headers,
        json={"api_key": plain, "password": plain, "prompt": "use " + sk},
    )
    with ctx.span("login", kind="tool", input={"client_secret": plain, "note": sk}) as span:
        span.set_attribute("token", plain)
        span.set_attribute("note", "Authorization: Bearer " + bearer)
    ctx.event("credential.used", {"secret": plain, "header": "Bearer " + bearer})
    if "policy" in planted["sets"]:
        aiza = planted["aiza"]
        query = {
            "key": aiza, "sig": plain, "X-Amz-Signature": plain, "X-Amz-Credential": plain,
            "X-Amz-Security-Token": plain, "access_token": plain, "q": sk,
        }
        client.get("https://api.example.test/v1/models", params=query)
        client.post(
            "https://api.example.test/oauth/token",
            data={"password": plain, "client_secret": plain, "refresh_token": plain},
        )
        client.post(
            "https://api.example.test/v1/json",
            content=json.dumps({"accessToken": plain, "clientSecret": plain, "auth": {"key": aiza}}),
            headers={"content-type": "text/plain"},
        )
        client.get(
            "https://api.example.test/v1/more",
            params={"apikey": plain, "token": plain, "password": plain, "client_secret": plain,
                    "api_key": plain, "note": "Bearer " + planted["bearer"]},
        )
        big = {"password": plain, "credentials": {"id": plain}, "access_key": plain,
               "auth": {"key": plain}, "filler": "x" * 5000}
        client.post("https://api.example.test/v1/big", json=big)  # over max_body_bytes
        ctx.event("gemini", {"sessionToken": plain, "aws_secret_access_key": plain, "k": aiza})
    if case.input["fail"]:
        if "policy" in planted["sets"]:
            client.get("https://api.example.test/denied", params={"key": planted["aiza"]}).raise_for_status()
        raise RuntimeError(f"upstream refused Authorization: Bearer {bearer} with key {sk}")
    if "record" in planted["sets"]:
        return {"api_key": plain, "note": "Bearer " + bearer, "key": sk}
    return {"answer": 42}


def echo(call):
    from autobench import ScoreRecord

    output = call.output
    if isinstance(output, dict) and "key" in output:  # a constraint failing with the output
        return ScoreRecord(name="echo", value=False, reason=f"got {output['note']}, {output['key']}")
    return True
"""

SPEC = """
benchmark:
  leaky:
    cases:
      - {{id: fine, input: {{fail: false}}}}
      - {{id: boom, input: {{fail: true}}}}
    run: {{python: {module}:run}}
    variants:
      a: {{factors: {{n: 1}}}}
      b: {{factors: {{n: 2}}}}
    score:
      echo: {{python: "{module}:echo", role: constraint}}
    instrumentation:
      httpx:
        capture: {{request_body: true, response_body: true, max_body_bytes: 300}}
"""

EXPORTS = (
    ("html", "report.html"),
    ("otlp-json", "traces.json"),
    ("csv", "runs.csv"),
    ("yaml", "report.yaml"),
    ("markdown", "report.md"),
    ("junit", "junit.xml"),
)

_ALNUM = string.ascii_letters + string.digits
_examples = itertools.count()


@dataclass(frozen=True)
class Planted:
    sk: str
    bearer: str
    plain: str
    aiza: str

    def secrets(self) -> list[str]:
        return [self.sk, self.bearer, self.plain, self.aiza]


def _token(size: int) -> st.SearchStrategy[str]:
    """Random letters and digits, varied enough that they occur nowhere by chance (a run of
    one character does, in an embedded script)."""
    return st.text(_ALNUM, min_size=size, max_size=size + 16).filter(
        lambda text: len(set(text)) >= 8
    )


planted_secrets = st.builds(
    Planted,
    sk=_token(20).map(lambda body: "sk-" + body),
    bearer=_token(24),
    plain=_token(24),
    aiza=st.text(_ALNUM + "_-", min_size=35, max_size=35).map(lambda body: "AIza" + body),
)


def _forms(secret: str) -> set[str]:
    """The secret as it may be written: as it is, percent-encoded, JSON-escaped."""
    return {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]}


def _closed_port() -> int:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _everything_written(base: Path, planted: Planted, *sets: str) -> list[tuple[str, str]]:
    """Run the leaky benchmark in ``base`` and every command over its record, with the
    secrets planted in the channels every run uses and in those of ``sets`` (``policy``:
    URL query, form body, camelCase keys, AIza keys, an exception quoting a URL;
    ``record``: the task's returned output and response bodies); returns ``(what, text)``
    for each command output and each file written."""
    module = f"leaky_task_{next(_examples)}"
    (base / f"{module}.py").write_text(TASK)
    (base / "planted.json").write_text(json.dumps({**planted.__dict__, "sets": sets}))
    spec = base / "autobench.yaml"
    spec.write_text(textwrap.dedent(SPEC.format(module=module)))
    record = base / "rec"
    runner = CliRunner(env={"COLUMNS": "300", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"})
    outputs: list[tuple[str, str]] = []

    def invoke(*args: str, code: int = 0) -> None:
        outcome = runner.invoke(cli, list(args))
        assert outcome.exception is None or isinstance(outcome.exception, SystemExit), (
            args,
            outcome.output,
        )
        assert outcome.exit_code == code, (args, outcome.output)
        outputs.append((" ".join(args[:2]), outcome.output))

    try:
        invoke("run", str(spec), "--record", str(record), "--no-progress", "--cassette", "record")
    finally:
        sys.modules.pop(module, None)
    assert len(list(record.rglob("cassette.json"))) == 4  # the channels were really used
    invoke("report", str(record))
    invoke("replay", str(record))
    invoke("compare", str(record), "--baseline", "a", "--candidate", "b")
    invoke("instrumentation", "trace", str(record))
    exports = base / "exports"
    for name, file in EXPORTS:
        invoke("export", str(record), "--format", name, "--path", str(exports / file))
    endpoint = (
        f"http://user:{planted.plain}@127.0.0.1:{_closed_port()}/v1/traces?api_key={planted.sk}"
    )
    invoke("export", str(record), "--format", "otlp", "--endpoint", endpoint, code=1)
    invoke(
        "export",
        str(record),
        "--format",
        "otlp",
        "--endpoint",
        "ftp://u:" + planted.plain + "@h",
        code=2,
    )
    files = [path for root in (record, exports) for path in root.rglob("*") if path.is_file()]
    assert len(files) > 10 and all((exports / file).is_file() for _, file in EXPORTS)
    written = [(str(path.relative_to(base)), file_text(path)) for path in files]
    return outputs + written


def _leaks(texts: list[tuple[str, str]], secrets: list[str]) -> list[str]:
    return [
        f"{where}: {form!r}"
        for where, text in texts
        for secret in secrets
        for form in _forms(secret)
        if form in text
    ]


NO_SHRINK = settings(
    max_examples=4,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # each example runs the CLI a dozen times
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@NO_SHRINK
@given(planted=planted_secrets)
def test_no_secret_reaches_a_record_an_export_or_the_terminal(
    planted: Planted, tmp_path: Path
) -> None:
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    texts = _everything_written(base, planted)
    leaks = _leaks(texts, planted.secrets())
    assert leaks == [], "\n".join(leaks)


@settings(NO_SHRINK, max_examples=2)
@given(planted=planted_secrets)
def test_no_secret_of_a_url_query_form_body_or_camelcase_key_is_written(
    planted: Planted, tmp_path: Path
) -> None:
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    texts = _everything_written(base, planted, "policy")
    leaks = _leaks(texts, planted.secrets())
    assert leaks == [], "\n".join(leaks)


def test_outputs_of_a_record_holding_secrets_redact_them(tmp_path: Path) -> None:
    """A record that holds secrets (the task returned them, a constraint's reason quotes
    them, response bodies echoed them): the terminal and every export show none of the
    pattern-shaped ones (``sk-...``, bearer tokens), whatever the record holds."""
    planted = Planted(
        sk="sk-" + "Ab1" * 8, bearer="Zq9" * 9, plain="Pw7x" * 7, aiza="AIza" + "Kk_8-" * 7
    )
    texts = _everything_written(tmp_path, planted, "record")
    shown = [(where, text) for where, text in texts if not where.startswith("rec/")]
    assert _leaks(shown, [planted.sk, planted.bearer]) == []
    leaks = _leaks(texts, planted.secrets())
    assert leaks == [], "\n".join(leaks)
