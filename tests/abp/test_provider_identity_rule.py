"""The one provider rule every layer applies: GenAI convention names and the server address."""

from __future__ import annotations

import httpx2
import openai
import pytest

from autobench.abp._provider import convention_name, host_of, is_azure_client, openai_provider


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("openai", "openai"),
        ("azure", "azure.ai.openai"),
        ("az.ai.openai", "azure.ai.openai"),
        ("bedrock", "aws.bedrock"),
        ("google-gla", "gcp.gemini"),
        ("google-vertex", "gcp.vertex_ai"),
        ("mistral", "mistral_ai"),
        ("grok", "x_ai"),
        ("Anthropic", "anthropic"),
        ("openrouter", "openrouter"),  # no convention value: kept as written
    ],
)
def test_framework_names_become_convention_names(name: str, expected: str) -> None:
    assert convention_name(name) == expected


def test_the_openai_sdk_rule_names_azure_by_client_or_host_and_openai_otherwise() -> None:
    transport = httpx2.MockTransport(lambda request: httpx2.Response(500))
    plain = openai.OpenAI(
        api_key="k",
        base_url="http://LLM.test:8080/v1",
        http_client=httpx2.Client(transport=transport),
    )
    azure = openai.AzureOpenAI(
        api_key="k",
        api_version="2026-01-01",
        azure_endpoint="https://contoso.example.net",
        http_client=httpx2.Client(transport=transport),
    )
    assert host_of(plain.base_url) == "llm.test"
    assert host_of("http://LLM.test:8080/v1") == "llm.test"
    assert host_of("not a url") is None and host_of(None) is None
    assert not is_azure_client(plain) and is_azure_client(azure)
    assert openai_provider("llm.test") == "openai"
    assert openai_provider("api.openai.com") == "openai"
    assert openai_provider("contoso.openai.azure.com") == "azure.ai.openai"
    assert openai_provider("contoso.example.net", azure_client=True) == "azure.ai.openai"
