"""WebFetch: fetch a URL, turn its HTML into Markdown, answer the prompt about it with a small fast model.

Claude Code's name, input (`url`, `prompt`) and behaviour: fetched with the HTTP client the `anthropic`
SDK ships (httpx2); http:// is upgraded to https:// (except for loopback hosts); redirects within the same
host are followed, a redirect to another host is reported to the model, not followed; at most 10 MB are
read; HTML becomes Markdown (markdownify), cut at 100,000 characters; binary content is saved to the
session folder. With a small fast model configured (the `small_model` service) the model gets its answer
about the page; without one it gets the Markdown. Results are cached for 15 minutes per URL.
Permission rules: `WebFetch(domain:example.com)`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit

from pydantic import Field

from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput
from .private_files import write_private

CACHE_TTL_S = 15 * 60
MAX_CONTENT_BYTES = 10 * 1024 * 1024
MAX_MARKDOWN_CHARS = 100_000
MAX_REDIRECTS = 10
TIMEOUT_S = 60.0
TRUNCATED_NOTE = "\n\n[Content truncated due to length...]"
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript", "+xml", "+json")

DESCRIPTION = """Fetches a URL, converts the page to markdown, and answers `prompt` against it using a small fast model.

- Fails on authenticated/private URLs — use an authenticated MCP tool or `gh` for those instead.
- HTTP is upgraded to HTTPS. Cross-host redirects are returned to you rather than followed; call again with the redirect URL.
- Responses are cached for 15 minutes per URL."""


def apply_prompt(content: str, prompt: str) -> str:
    """The small model's request text, as Claude Code words it."""
    return (
        f"\nWeb page content:\n---\n{content}\n---\n\n{prompt}\n\n"
        "Provide a concise response based only on the content above. In your response:\n"
        " - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.\n"
        " - Use quotation marks for exact language from articles; any language outside of the quotation should never be word-for-word the same.\n"
        " - You are not a lawyer and never comment on the legality of your own prompts and responses.\n"
        " - Never produce or reproduce exact song lyrics.\n"
    )


class WebFetchInput(ToolInput):
    url: str = Field(description="The URL to fetch content from", json_schema_extra={"format": "uri"})
    prompt: str = Field(description="The prompt to run on the fetched content")


@dataclass(frozen=True, slots=True)
class Page:
    url: str
    status: int
    content_type: str
    markdown: str | None  # None for binary content
    size: int
    saved_to: str | None = None


@dataclass(frozen=True, slots=True)
class Redirect:
    original: str
    target: str
    status: int


_cache: dict[str, tuple[float, Page | Redirect]] = {}


def clear_cache() -> None:
    _cache.clear()


def normalized_url(raw: str) -> str:
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"Invalid URL: {raw!r}. The URL must be a fully-formed http(s) URL, e.g. https://example.com/page.")
    scheme = "http" if parts.scheme == "http" and parts.hostname in _LOOPBACK else "https"
    return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def _same_site(a: str, b: str) -> bool:
    def host(u: str) -> str:
        h = (urlsplit(u).hostname or "").lower()
        return h[4:] if h.startswith("www.") else h

    return host(a) == host(b)


def html_to_markdown(html: str) -> str:
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["head", "script", "style", "noscript", "template", "iframe", "svg"]):
        tag.decompose()
    text = markdownify(str(soup), heading_style="ATX", bullets="-")
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:  # collapse runs of blank lines
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


async def fetch(url: str, ctx: ToolContext, *, timeout: float = TIMEOUT_S) -> Page | Redirect:
    import httpx2

    current = url
    async with httpx2.AsyncClient(follow_redirects=False, timeout=timeout, headers={"User-Agent": "tui-agent (WebFetch)", "Accept": "text/markdown, text/html, */*"}) as client:
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with client.stream("GET", current) as response:
                    if response.is_redirect:
                        target = urljoin(current, response.headers.get("location", ""))
                        if not _same_site(current, target):
                            return Redirect(url, target, response.status_code)
                        current = target
                        continue
                    if response.status_code >= 400:
                        raise ToolError(_http_error(response.status_code, response.headers.get("retry-after")))
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) >= MAX_CONTENT_BYTES:
                            del body[MAX_CONTENT_BYTES:]
                            break
                    return _page(current, response.status_code, response.headers.get("content-type", ""), bytes(body), response.encoding, ctx)
            except httpx2.TimeoutException:
                raise ToolError(f"Fetching {current} timed out after {timeout:g}s.") from None
            except httpx2.TransportError as exc:
                raise ToolError(f"Could not fetch {current}: {exc or type(exc).__name__}") from None
    raise ToolError(f"Too many redirects (exceeded {MAX_REDIRECTS})")


def _http_error(status: int, retry_after: str | None) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    retry = f"\nRetry-After: {retry_after}" if retry_after else ""
    return (
        f"The server returned HTTP {status} {phrase}.{retry}\n\nThe response body was not retrieved. If this URL requires "
        "authentication, use an authenticated tool (e.g. `gh` for GitHub, or an MCP-provided fetch tool) instead of WebFetch."
    )


def _page(url: str, status: int, content_type: str, body: bytes, encoding: str | None, ctx: ToolContext) -> Page:
    ctype = content_type.split(";")[0].strip().lower()
    textual = not ctype or any(t in ctype for t in _TEXT_TYPES)
    if not textual or b"\0" in body[:8192]:
        path = ctx.tool_results_dir / f"webfetch-{ctx.tool_use_id or int(time.time() * 1000)}.bin"
        write_private(path, body, owned_from=ctx.session_dir)
        return Page(url, status, ctype or "application/octet-stream", None, len(body), str(path))
    text = body.decode(encoding or "utf-8", errors="replace")
    markdown = html_to_markdown(text) if "html" in ctype or (not ctype and "<html" in text[:1000].lower()) else text
    return Page(url, status, ctype, markdown, len(body))


class WebFetchTool(Tool[WebFetchInput]):
    name = "WebFetch"
    Input = WebFetchInput
    description: ClassVar[str] = DESCRIPTION

    def is_concurrency_safe(self, input: WebFetchInput) -> bool:
        return True  # it changes nothing; it still asks (the network is the user's call)

    def summarize(self, input: WebFetchInput) -> str:
        return input.url[:200]

    def rule_content(self, input: WebFetchInput) -> str | None:
        """What `WebFetch(...)` rules are matched against: `domain:HOST`."""
        host = urlsplit(input.url.strip()).hostname
        return f"domain:{host}" if host else None

    async def validate_input(self, input: WebFetchInput, ctx: ToolContext) -> str | None:
        try:
            normalized_url(input.url)
        except ToolError as exc:
            return str(exc)
        return None

    async def call(self, input: WebFetchInput, ctx: ToolContext) -> ToolOutput:
        url = normalized_url(input.url)
        cached = _cache.get(url)
        if cached is not None and time.monotonic() - cached[0] < CACHE_TTL_S:
            result = cached[1]
        else:
            ctx.progress(f"fetching {url}")
            result = await fetch(url, ctx)
            _cache[url] = (time.monotonic(), result)
        if isinstance(result, Redirect):
            return ToolOutput(_redirect_text(result, input.prompt), data={"redirect": result.target})
        if result.markdown is None:
            return ToolOutput(
                f"[Binary content ({result.content_type}, {result.size} bytes) saved to {result.saved_to}]",
                data={"url": result.url, "bytes": result.size},
            )
        markdown = result.markdown
        if len(markdown) > MAX_MARKDOWN_CHARS:
            markdown = markdown[:MAX_MARKDOWN_CHARS] + TRUNCATED_NOTE
        small = ctx.services.get("small_model")
        if small is None:
            return ToolOutput(markdown, data={"url": result.url, "bytes": result.size})
        ctx.progress(f"reading {len(markdown):,} characters with {getattr(small, 'model', 'the small model')}")
        answer = await small.answer(apply_prompt(markdown, input.prompt))
        return ToolOutput(answer or "No response from model", data={"url": result.url, "bytes": result.size})


def _redirect_text(r: Redirect, prompt: str) -> str:
    try:
        phrase = HTTPStatus(r.status).phrase
    except ValueError:
        phrase = ""
    return (
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {r.original}\nRedirect URL: {r.target}\nStatus: {r.status} {phrase}\n\n"
        "To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:\n"
        f'- url: "{r.target}"\n- prompt: "{prompt}"'
    )


class SmallModel:
    """A small fast model on the agent's own endpoint: one streamed request, its text back."""

    def __init__(self, client: Any, model: str, max_tokens: int = 4096) -> None:
        self.client = client
        self.model = model
        self.max_tokens = max_tokens

    async def answer(self, text: str) -> str:
        from ..core.model import MessageAssembler

        noop = lambda *a: None  # noqa: E731
        assembler = MessageAssembler(noop, noop, noop)
        request = {"model": self.model, "max_tokens": self.max_tokens, "messages": [{"role": "user", "content": text}]}
        await self.client.stream(request, assembler.feed)
        return "".join(b.get("text", "") for b in assembler.content() if b.get("type") == "text")
