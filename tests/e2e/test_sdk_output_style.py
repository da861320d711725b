"""Output styles through the real claude-agent-sdk: the initialize answer lists them (`available_output_styles`),
`init` names the one in force (`output_style`), and with the `claude_code` preset the style is in the system
prompt the scripted model receives — as Claude Code 2.1.197 does with the same folder (measured)."""

from __future__ import annotations

import json

from claude_agent_sdk import ClaudeSDKClient, ResultMessage, SystemMessage

from tui_agent.providers.scripted import Reply, Text


async def test_styles_are_listed_named_in_init_and_sent(make_run):
    run = make_run([Reply([Text("arr")])])
    styles = run.work / ".claude" / "output-styles"
    styles.mkdir(parents=True)
    (styles / "pirate.md").write_text("---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate. PIRATE_MARKER\n")
    (run.work / ".claude" / "settings.json").write_text(json.dumps({"outputStyle": "Pirate"}))
    options = run.options(setting_sources=["project", "user"], system_prompt={"type": "preset", "preset": "claude_code"})
    async with ClaudeSDKClient(options) as client:
        info = await client.get_server_info()
        assert info is not None and info["output_style"] == "Pirate"
        assert info["available_output_styles"] == ["default", "Explanatory", "Learning", "Pirate"]
        await client.query("hi")
        messages = [m async for m in client.receive_response()]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    assert init.data["output_style"] == "Pirate"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "arr"
    system = "".join(b["text"] for b in run.requests[0]["system"])
    assert system.index("# Environment") < system.index("# Output Style: Pirate\nAnswer like a pirate. PIRATE_MARKER")


async def test_without_settings_the_default_style(make_run):
    run = make_run([Reply([Text("ok")])])
    async with ClaudeSDKClient(run.options()) as client:
        info = await client.get_server_info()
        assert info is not None and info["output_style"] == "default" and info["available_output_styles"][0] == "default"
        await client.query("hi")
        messages = [m async for m in client.receive_response()]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    assert init.data["output_style"] == "default"
    assert "system" not in run.requests[0], "the SDK's default empty system prompt still sends none"
