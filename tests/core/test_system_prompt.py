"""The system prompt (core/system_prompt.py): its sections, the environment block's facts taken from a real
git repository, a hostile repository's config running nothing, --system-prompt / --append-system-prompt, and
its tokens in /context. Requests are read as the scripted model received them."""

from __future__ import annotations

import platform
import subprocess
from datetime import date
from pathlib import Path

from tui_agent.core.context.breakdown import agent_breakdown
from tui_agent.core.context.report import markdown_breakdown
from tui_agent.core.context.tokens import content_tokens
from tui_agent.core.system_prompt import SERVICE_KEY, compose, gather_environment, knowledge_cutoff
from tui_agent.providers.scripted import Reply, Text


def git(folder: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(folder), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True, text=True).stdout


def repository(folder: Path, branch: str = "feature-x") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "tracked.txt").write_text("one\n")
    git(folder, "add", "tracked.txt")
    git(folder, "commit", "-q", "-m", "first")
    git(folder, "checkout", "-q", "-b", branch)
    (folder / "tracked.txt").write_text("two\n")
    (folder / "new.txt").write_text("new\n")
    return folder


def system_text(request: dict) -> str:
    return "".join(block["text"] for block in request["system"])


class TestSections:
    def test_the_default_prompt_covers_what_a_model_needs_to_work_here(self):
        from tui_agent.core.system_prompt import Environment

        env = Environment("/w", False, None, "", "linux", "bash", "2026-01-01")
        text = compose(env, "claude-sonnet-4-6", None)
        for needle in (
            "# How you communicate", "Keep it short and direct",  # tone and brevity
            "follow what the project already does", "a file in full before you edit it",  # conventions, read first
            "run in parallel",  # parallel read-only calls
            "TodoWrite",  # multi-step work
            "run the relevant tests, type checker and linter",  # verification
            "never commit, push, amend", "Never skip hooks", "--no-verify",  # git safety
            "malware",  # refusal
            "`path:line`",  # references
            "default:", "acceptEdits:", "plan:", "bypassPermissions:",  # the permission modes
        ):
            assert needle in text, needle
        assert 5_000 < len(text) < 9_000, len(text)
        # Cache-friendly: the static guidance first, the facts of this session after it.
        assert text.index("# Security") < text.index("# Environment")
        assert text.rstrip().endswith("Knowledge cutoff: August 2025.")

    def test_knowledge_cutoffs_follow_the_model_id_with_or_without_its_date(self):
        assert knowledge_cutoff("claude-sonnet-4-5-20250929") == "January 2025"
        assert knowledge_cutoff("claude-haiku-4-5") == "February 2025"
        assert knowledge_cutoff("claude-opus-4-20250514") == "January 2025"
        assert knowledge_cutoff("us.anthropic.claude-sonnet-4-20250514-v1:0") == "January 2025"
        assert knowledge_cutoff("my-local-model") is None


class TestEnvironment:
    async def test_the_facts_of_a_real_repository_at_start(self, make_harness, tmp_path):
        repository(tmp_path / "work")
        h = make_harness([Reply([Text("ok")]), Reply([Text("again")])])
        assert SERVICE_KEY not in h.agent.context.services, "building the agent runs no git (the first frame waits for nothing)"
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        block = text[text.index("# Environment"):]
        assert f"Working directory: {tmp_path / 'work'}" in block
        assert "Is a git repository: yes" in block and "Current branch: feature-x" in block
        assert " M tracked.txt" in block and "?? new.txt" in block
        assert f"Platform: {platform.system().lower()}" in block and "Shell: " in block
        assert f"Today's date: {date.today().isoformat()}" in block
        assert "Model: you are running as claude-sonnet-4-6." in block and "Knowledge cutoff: August 2025." in block
        # A snapshot: the second request carries the same prompt (a changed one would miss the prompt cache).
        (tmp_path / "work" / "later.txt").write_text("x")
        await h.agent.run("again")
        assert h.requests[1]["system"] == h.requests[0]["system"]
        assert h.requests[0]["system"][-1]["cache_control"] == {"type": "ephemeral"}

    async def test_a_folder_outside_git_says_so(self, make_harness):
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        assert "Is a git repository: no" in text and "Current branch" not in text

    async def test_a_hostile_repositorys_config_runs_nothing(self, tmp_path):
        work = repository(tmp_path / "evil")
        marks = tmp_path / "marks"
        marks.mkdir()
        for key, value in (
            ("core.fsmonitor", f"touch {marks}/fsmonitor; false"),
            ("filter.evil.clean", f"touch {marks}/clean; cat"),
            ("filter.evil.process", f"touch {marks}/process"),
            ("core.pager", f"touch {marks}/pager; cat"),
        ):
            git(work, "config", key, value)
        (work / ".gitattributes").write_text("* filter=evil\n")
        (work / "tracked.txt").write_text("three\n")
        env = await gather_environment(work)
        assert env.is_git and env.branch == "feature-x" and " M tracked.txt" in env.status
        assert sorted(p.name for p in marks.iterdir()) == [], "no program the repository names ran"
        # The trap is real: plain `git status` in the same repository runs them.
        subprocess.run(["git", "status"], cwd=work, capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        assert list(marks.iterdir()), "the control: an unhardened git status runs the repository's programs"

    async def test_a_huge_dirty_tree_is_cut_short(self, tmp_path):
        work = repository(tmp_path / "big")
        for i in range(60):
            (work / f"f{i:02}.txt").write_text("x")
        env = await gather_environment(work)
        assert env.status.count("\n") == 40 and env.status.endswith("more (run git status for the rest)")


class TestReplaceAndAppend:
    async def test_system_prompt_replaces_all_of_it(self, make_harness):
        h = make_harness([Reply([Text("ok")])], system_prompt="Only this.")
        await h.agent.run("hi")
        assert [b["text"] for b in h.requests[0]["system"]] == ["Only this."]
        assert SERVICE_KEY not in h.agent.context.services, "a replaced prompt needs no git facts"

    async def test_append_system_prompt_goes_after_ours(self, make_harness):
        h = make_harness([Reply([Text("ok")])], append_system_prompt="Answer in French.")
        await h.agent.run("hi")
        text = system_text(h.requests[0])
        assert text.startswith("You are tui-agent") and "# Environment" in text
        assert text.endswith("\n\nAnswer in French.")

    async def test_an_empty_system_prompt_sends_none_and_append_alone_is_the_prompt(self, make_harness):
        h = make_harness([Reply([Text("ok")])], system_prompt="")
        await h.agent.run("hi")
        assert "system" not in h.requests[0]
        h2 = make_harness([Reply([Text("ok")])], system_prompt="", append_system_prompt="Just this.")
        await h2.agent.run("hi")
        assert [b["text"] for b in h2.requests[0]["system"]] == ["Just this."]


class TestContextUsage:
    async def test_the_system_prompt_share_shows_in_context(self, make_harness):
        h = make_harness([Reply([Text("ok")])])
        await h.agent.run("hi")
        breakdown = agent_breakdown(h.agent)
        system = next(c for c in breakdown.categories if c.name == "System prompt")
        assert system.tokens == content_tokens(h.requests[0]["system"]) and system.tokens > 1_000
        assert "| System prompt |" in markdown_breakdown(breakdown)

    async def test_context_before_the_first_run_measures_the_whole_prompt(self, make_harness, tmp_path):
        repository(tmp_path / "work")
        h = make_harness([Reply([Text("ok")])])
        before = next(c for c in agent_breakdown(h.agent).categories if c.name == "System prompt").tokens
        await h.agent.run("hi")
        assert before == content_tokens(h.requests[0]["system"]), "the same prompt, git facts included"
