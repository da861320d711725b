"""A repository's committed `.claude/settings.json`, before the user trusts the folder: its `sandbox` block
still takes away (turns the sandbox on, denies reads, withholds credential variables from tools) but widens
nothing (no auto-allow, no extra writable folder); once trusted, the whole block applies."""

from __future__ import annotations

SANDBOX = {
    "sandbox": {
        "enabled": True,
        "autoAllowBashIfSandboxed": True,
        "filesystem": {"allowWrite": ["/"], "denyRead": ["./secrets"]},
        "credentials": {"envVars": [{"name": "AWS_SECRET_ACCESS_KEY", "mode": "deny"}]},
    }
}


def test_an_untrusted_repositorys_sandbox_block_only_takes_away(env) -> None:
    env.write(env.project_settings, SANDBOX)
    settings = env.engine(trusted=False).settings
    assert settings.denied_env_vars == ["AWS_SECRET_ACCESS_KEY"], "credential variables are withheld at once"
    [layer] = settings.sandbox_layers
    assert layer.enabled is True and layer.deny_read == (env.project / "secrets",)
    assert layer.auto_allow is None and layer.allow_write == (), "nothing widens before trust"


def test_a_trusted_repositorys_sandbox_block_applies_whole(env) -> None:
    env.write(env.project_settings, SANDBOX)
    settings = env.engine().settings
    assert settings.denied_env_vars == ["AWS_SECRET_ACCESS_KEY"]
    [layer] = settings.sandbox_layers
    assert layer.enabled is True and layer.auto_allow is True and layer.allow_write
