"""Images read through the whole loop (scripted model, real SDK): what the model receives is a decodable image
no larger than 1568 px, a broken file is an error result and never an image, and images count in the turn's
result budget by their encoded size (issue 10, point 8)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from tests.core.support import SleepRead, assert_history_valid
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.images import MAX_LONG_SIDE_PX
from tui_agent.tools.registry import default_tools

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _picture(path: Path, size: tuple[int, int], fmt: str) -> Path:
    img = Image.new("RGB", size, (240, 240, 250))
    draw = ImageDraw.Draw(img)
    for x in range(0, size[0], 97):
        draw.line([(x, 0), (size[0] - x, size[1])], fill=(x % 255, 40, 200 - x % 200), width=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, fmt)
    return path


def _results(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        b["tool_use_id"]: b
        for m in request["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    }


def _only_image(result: dict[str, Any]) -> tuple[str, Image.Image, bytes]:
    [block] = result["content"]
    assert block["type"] == "image" and block["source"]["type"] == "base64"
    raw = base64.b64decode(block["source"]["data"])
    return block["source"]["media_type"], Image.open(io.BytesIO(raw)), raw


async def test_large_tiny_and_corrupt_images_as_the_model_receives_them(make_harness, tmp_path) -> None:
    work = tmp_path / "work"
    big_png = _picture(work / "shot.png", (4000, 2500), "PNG")
    tall_jpg = _picture(work / "photo.jpg", (1200, 3600), "JPEG")
    tiny = work / "dot.png"
    tiny.write_bytes(PNG_1PX)
    corrupt = work / "broken.png"
    corrupt.write_bytes(PNG_1PX[:30] + b"garbage" * 20)
    h = make_harness(
        [
            Reply([
                ToolUse("Read", {"file_path": str(big_png)}, id="big"),
                ToolUse("Read", {"file_path": str(tall_jpg)}, id="tall"),
                ToolUse("Read", {"file_path": str(tiny)}, id="tiny"),
                ToolUse("Read", {"file_path": str(corrupt)}, id="corrupt"),
            ]),
            Reply([Text("seen")]),
        ],
        tools=default_tools(),
    )
    ended = await h.agent.run("look at these")
    assert ended.reason == "completed"
    sent = _results(h.requests[1])

    media, img, _ = _only_image(sent["big"])
    assert media == "image/png" and img.size == (MAX_LONG_SIDE_PX, 980)  # aspect kept
    media, img, _ = _only_image(sent["tall"])
    assert media == "image/jpeg" and img.size == (523, MAX_LONG_SIDE_PX)
    media, img, raw = _only_image(sent["tiny"])
    assert media == "image/png" and raw == PNG_1PX  # small enough: sent byte for byte

    broken = sent["corrupt"]
    assert broken["is_error"] is True and isinstance(broken["content"], str)
    assert "not a valid image" in broken["content"] and str(corrupt) in broken["content"]
    assert "image" not in json.dumps(broken).replace("not a valid image", "")
    assert_history_valid(h.agent.history)


async def test_an_image_counts_in_the_turns_result_budget_by_its_encoded_size(make_harness, tmp_path) -> None:
    """The image alone is over the budget, so the turn's large text result is the one set aside."""
    picture = _picture(tmp_path / "work" / "shot.png", (900, 600), "PNG")
    encoded = len(base64.b64encode(picture.read_bytes()))
    budget = encoded + 1000
    h = make_harness(
        [
            Reply([
                ToolUse("Read", {"file_path": str(picture)}, id="img"),
                ToolUse("SleepRead", {"text": "x" * 3000}, id="text"),
            ]),
            Reply([Text("ok")]),
        ],
        tools=[*default_tools(), SleepRead()],
        message_budget=budget,
    )
    await h.agent.run("go")
    sent = _results(h.requests[1])
    assert sent["img"]["content"][0]["type"] == "image"
    assert sent["text"]["content"].startswith("<persisted-output>")
