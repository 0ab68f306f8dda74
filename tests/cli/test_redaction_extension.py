"""A benchmark names its own secrets (``redaction:`` in YAML, ``Benchmark.redact`` in
Python): a key name in another spelling, a value pattern and a query parameter the
built-in rules do not know are redacted from every file of the record, the record keeps
the rules, and a reader in a fresh process applies them to what it shows."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from record_text import file_text

from autobench.abp import CapturePolicy, redaction_additions
from autobench.cli import cli
from autobench.core.builder import Benchmark
from autobench.records import load_experiment_record

TENANT = "acme_" + "Q7xk2Lm9" * 4  # the application's own key shape
TICKET = "tk" + "93hfQ2" * 4
SESSION = "sess" + "Zp81Ka" * 4

TASK = f"""
import httpx

TENANT, TICKET, SESSION = {TENANT!r}, {TICKET!r}, {SESSION!r}


def _answer(request):
    return httpx.Response(200, json={{"acmeSession": SESSION, "ok": True}})


def run(ctx, case):
    client = httpx.Client(transport=httpx.MockTransport(_answer))
    client.get("https://api.example.test/v1/items", params={{"acme_ticket": TICKET, "page": 2}})
    with ctx.span("lookup", kind="tool", input={{"acme_session": SESSION}}) as span:
        span.set_attribute("note", "tenant " + TENANT)
    if case.input["fail"]:
        raise RuntimeError(f"tenant {{TENANT}} refused acme_ticket={{TICKET}}")
    return {{"X-Acme-Session": SESSION, "text": "used " + TENANT}}
"""


def _spec(base: Path, module: str, redaction: str) -> Path:
    (base / f"{module}.py").write_text(TASK)
    spec = base / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            f"""
            benchmark:
              own_secrets:
                cases:
                  - {{id: fine, input: {{fail: false}}}}
                  - {{id: boom, input: {{fail: true}}}}
                run: {{python: {module}:run}}
                variants: {{a: {{factors: {{n: 1}}}}}}
                instrumentation:
                  httpx:
                    capture: {{request_body: true, response_body: true}}
            """
        )
        + textwrap.indent(textwrap.dedent(redaction), "    ")
    )
    return spec


REDACTION = """
redaction:
  keys: [acmeSession]
  patterns: ['acme_[A-Za-z0-9]{32}']
  query_params: [acme_ticket]
"""


def test_secrets_a_spec_names_reach_no_file_and_the_record_keeps_them(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "own_secrets_task", REDACTION)
    record = tmp_path / "rec"
    runner = CliRunner(env={"COLUMNS": "200"})
    try:
        result = runner.invoke(
            cli,
            ["run", str(spec), "--record", str(record), "--no-progress", "--cassette", "record"],
        )
    finally:
        sys.modules.pop("own_secrets_task", None)
    assert result.exit_code == 0, result.output
    texts = [result.output] + [file_text(p) for p in record.rglob("*") if p.is_file()]
    assert len(texts) > 5 and any("lookup" in text for text in texts)
    for secret in (TENANT, TICKET, SESSION):
        assert not [text for text in texts if secret in text], secret
    assert any("[redacted]" in text and "acme" in text.lower() for text in texts)
    rules = load_experiment_record(record).redaction
    assert rules is not None
    assert set(rules.keys) >= {"acme_session"} and "acme_[A-Za-z0-9]{32}" in rules.patterns
    assert "acme_ticket" in rules.query_params


def test_a_reader_in_a_fresh_process_applies_the_record_rules(tmp_path: Path) -> None:
    """A run file that holds the application's secret (written before the rule existed, or
    edited): ``report`` and ``export`` in a new process, which never loaded the spec, show
    the marker, because experiment.yaml names the pattern."""
    spec = _spec(tmp_path, "own_secrets_reader", REDACTION)
    record = tmp_path / "rec"
    try:
        result = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record)])
    finally:
        sys.modules.pop("own_secrets_reader", None)
    assert result.exit_code == 0, result.output
    run_file = record / "cases" / "fine" / "a" / "run.yaml"
    text = run_file.read_text()
    assert "used [redacted]" in text
    run_file.write_text(text.replace("used [redacted]", "used " + TENANT))
    export = tmp_path / "runs.yaml"
    for args in (
        ["report", str(record), "--runs", "all"],
        ["export", str(record), "--format", "yaml", "--path", str(export)],
    ):
        shown = subprocess.run(
            [sys.executable, "-m", "autobench.cli", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
            check=False,
        )
        assert shown.returncode == 0, shown.stderr
        assert TENANT not in shown.stdout + shown.stderr
    assert TENANT not in export.read_text() and "[redacted]" in export.read_text()


@pytest.mark.parametrize(
    ("section", "where", "expected"),
    [
        ("redaction:\n  patterns: ['ok', '(unclosed']\n", ":13:24:", "not a regular expression"),
        ("redaction:\n  patterns: ['x*']\n", ":13:18:", "matches the empty string"),
        ("redaction:\n  keyz: [a]\n", ":13:7:", "unknown key 'keyz'"),
        ("redaction:\n  patterns: ['(a+)+$']\n", ":13:18:", "exponential time"),
    ],
)
def test_a_bad_redaction_section_is_a_located_error(
    tmp_path: Path, section: str, where: str, expected: str
) -> None:
    spec = _spec(tmp_path, "own_secrets_bad", section)
    result = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["validate", str(spec)])
    assert result.exit_code == 1, result.output
    assert f"autobench.yaml{where}" in result.output and expected in result.output


def test_the_python_builder_adds_the_same_rules() -> None:
    secret = "zeta_" + "K2p9" * 6
    spec = (
        Benchmark("builder_secrets")
        .redact(
            keys=["tenantSecretRef"], patterns=[r"zeta_[A-Za-z0-9]{24}"], query_params=["zeta_t"]
        )
        .to_spec()
    )
    assert spec.redaction.keys == ("tenantSecretRef",)
    policy = CapturePolicy()  # any policy, made before or after, applies the additions
    assert policy.apply({"tenant_secret_ref": "v", "note": f"key {secret}"}) == {
        "tenant_secret_ref": "[redacted]",
        "note": "key [redacted]",
    }
    assert policy.text("https://h/p?zeta_t=abc&u=1") == "https://h/p?zeta_t=[redacted]&u=1"
    added = redaction_additions()
    assert "tenant_secret_ref" in added.keys and "zeta_t" in added.query_params
    with pytest.raises(ValueError, match="not a regular expression"):
        Benchmark("bad").redact(patterns=["(x"])
    assert json.dumps(added.as_dict())  # what experiment.yaml records


def test_a_record_naming_a_backtracking_pattern_is_refused_quickly(tmp_path: Path) -> None:
    """A tampered experiment.yaml whose redaction pattern would backtrack exponentially on
    every text: each reader refuses the record, located, before it reads a run."""
    spec = _spec(tmp_path, "own_secrets_hostile", REDACTION)
    record = tmp_path / "rec"
    try:
        result = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record)])
    finally:
        sys.modules.pop("own_secrets_hostile", None)
    assert result.exit_code == 0, result.output
    experiment = record / "experiment.yaml"
    text = experiment.read_text()
    assert "acme_[A-Za-z0-9]{32}" in text
    experiment.write_text(text.replace("acme_[A-Za-z0-9]{32}", "(a+)+$"))
    for args in (["report", str(record)], ["replay", str(record)]):
        shown = CliRunner(env={"COLUMNS": "300"}).invoke(cli, args)
        assert shown.exit_code == 1, shown.output
        assert "experiment.yaml" in shown.output and "exponential time" in shown.output
