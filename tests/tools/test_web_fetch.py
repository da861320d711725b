"""WebFetch against a real HTTP server on 127.0.0.1: HTML to Markdown, redirects, errors, a huge page,
binary content, the 15-minute cache, the small model's answer (the scripted model behind the real SDK),
and `WebFetch(domain:...)` permission rules."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from tui_agent.core.model import ModelClient, ModelConfig
from tui_agent.core.permission_types import PermissionCheck
from tui_agent.core.permissions import PermissionEngine
from tui_agent.providers.scripted import Reply, ScriptedModel, Text
from tui_agent.tools import web_fetch
from tui_agent.tools.base import ToolError
from tui_agent.tools.web_fetch import SmallModel, WebFetchInput, WebFetchTool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x01binary" * 100
ARTICLE = """<html><head><title>T</title><style>body{color:red}</style><script>alert('x')</script></head>
<body><h1>Release notes</h1><p>Version <b>2.0</b> adds <a href="/docs">docs</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>"""


class Site(BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        Site.hits.append(self.path)
        port = self.server.server_address[1]
        routes = {
            "/article": (200, "text/html; charset=utf-8", ARTICLE.encode()),
            "/plain": (200, "text/plain", b"just text"),
            "/image.png": (200, "image/png", PNG),
            "/huge": (200, "text/html", b"<p>" + b"word " * 2_600_000 + b"</p>"),
        }
        if self.path == "/moved":
            self._redirect(301, "/article")
        elif self.path == "/elsewhere":
            self._redirect(302, f"http://localhost:{port}/article")
        elif self.path in routes:
            status, ctype, body = routes[self.path]
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")

    def _redirect(self, status: int, location: str) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Site.hits = []
    web_fetch.clear_cache()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        web_fetch.clear_cache()


async def fetch(ctx, url: str, prompt: str = "What changed?"):
    tool = WebFetchTool()
    inp = WebFetchInput(url=url, prompt=prompt)
    problem = await tool.validate_input(inp, ctx)
    assert problem is None, problem
    return await tool.call(inp, ctx)


async def test_html_becomes_markdown_without_scripts_or_styles(ctx, site: str) -> None:
    out = await fetch(ctx, site + "/article")
    assert out.content == "# Release notes\n\nVersion **2.0** adds [docs](/docs).\n\n- fast\n- small"
    assert not out.is_error


async def test_same_host_redirect_is_followed_and_another_host_is_reported(ctx, site: str) -> None:
    out = await fetch(ctx, site + "/moved")
    assert out.content.startswith("# Release notes")
    port = site.rsplit(":", 1)[1]
    report = await fetch(ctx, site + "/elsewhere", prompt="summarise")
    assert report.content == (
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {site}/elsewhere\nRedirect URL: http://localhost:{port}/article\nStatus: 302 Found\n\n"
        "To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:\n"
        f'- url: "http://localhost:{port}/article"\n- prompt: "summarise"'
    )
    assert Site.hits.count("/article") == 1  # the other host was not fetched


async def test_404_is_a_named_error(ctx, site: str) -> None:
    with pytest.raises(ToolError, match=r"The server returned HTTP 404 Not Found\."):
        await fetch(ctx, site + "/missing")


async def test_a_huge_page_is_read_up_to_10_mb_and_cut_to_the_budget(ctx, site: str) -> None:
    out = await fetch(ctx, site + "/huge")
    assert len(out.content) == web_fetch.MAX_MARKDOWN_CHARS + len(web_fetch.TRUNCATED_NOTE)
    assert out.content.endswith("[Content truncated due to length...]")
    assert out.data["bytes"] == web_fetch.MAX_CONTENT_BYTES


async def test_binary_content_is_saved_not_converted(ctx, site: str) -> None:
    out = await fetch(ctx, site + "/image.png")
    assert out.content.startswith(f"[Binary content (image/png, {len(PNG)} bytes) saved to ")
    saved = Path(out.content.rsplit(" saved to ", 1)[1].rstrip("]"))
    assert saved.read_bytes() == PNG


async def test_results_are_cached_for_15_minutes(ctx, site: str, monkeypatch) -> None:
    await fetch(ctx, site + "/plain")
    await fetch(ctx, site + "/plain")
    assert Site.hits == ["/plain"]
    now = web_fetch.time.monotonic()
    monkeypatch.setattr(web_fetch.time, "monotonic", lambda: now + web_fetch.CACHE_TTL_S + 1)
    await fetch(ctx, site + "/plain")
    assert Site.hits == ["/plain", "/plain"]


async def test_invalid_urls_are_refused_before_anything_runs(ctx) -> None:
    tool = WebFetchTool()
    for url in ("ftp://x.org/f", "not a url", "https://"):
        assert "Invalid URL" in (await tool.validate_input(WebFetchInput(url=url, prompt="p"), ctx) or "")
    assert web_fetch.normalized_url("http://example.com/a?b=1") == "https://example.com/a?b=1"


async def test_the_small_model_answers_the_prompt_about_the_page(ctx, site: str) -> None:
    scripted = ScriptedModel([Reply([Text("Version 2.0 adds docs.")])])
    client = ModelClient(ModelConfig(model="main-model", api_key="x", base_url="http://scripted.invalid"), scripted.http_client)
    ctx.services["small_model"] = SmallModel(client, "claude-haiku-4-5")
    try:
        out = await fetch(ctx, site + "/article", prompt="What is new?")
    finally:
        await client.close()
    assert out.content == "Version 2.0 adds docs."
    [request] = scripted.requests
    assert request["model"] == "claude-haiku-4-5"
    text = request["messages"][0]["content"]
    assert text.startswith("\nWeb page content:\n---\n# Release notes\n") and "\n---\n\nWhat is new?\n\nProvide a concise response" in text


async def test_domain_rules_allow_that_host_only(tmp_path: Path) -> None:
    from tui_agent.tools.base import Workspace

    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    engine = PermissionEngine(project, home=tmp_path / "home", allowed_tools=["WebFetch(domain:docs.example.com)"])
    tool = WebFetchTool()

    def check(url: str) -> PermissionCheck:
        inp = WebFetchInput(url=url, prompt="p")
        return PermissionCheck(tool, inp, inp.model_dump(), "toolu_1", Workspace.at(project), tool.is_read_only(inp))

    assert (await engine.decide(check("https://docs.example.com/x"))).behavior == "allow"
    other = await engine.decide(check("https://evil.example.net/x"))
    assert other.behavior == "ask" and other.suggestions == ("WebFetch(domain:evil.example.net)",)
