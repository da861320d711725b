"""Context that never runs out: token accounting per model window, automatic and manual compaction,
pruning of old tool results, recovery from `prompt is too long` (DESIGN §6, issue 13).

The API front ends build on (stable):
- `window.limits_for(model, overrides=None) -> ModelLimits(window, max_output)`: the model table;
- `window.thresholds(model, read=None, environ=None) -> Thresholds(model, window, max_output,
  autocompact, prune, autocompact_enabled, prune_enabled)`: the numbers of the moment, from the
  settings (`read(key, default)`, e.g. `lambda k, d: read_setting(policy, k, d)`) and the environment;
- `window.autocompact_threshold(limits, pct_override=None, window_cap=None)`, `window.prune_threshold(...)`;
- `tokens.text_tokens / block_tokens / content_tokens / message_tokens / messages_tokens /
  request_tokens / usage_tokens`: the cheap estimator (4 characters a token, images capped);
- `tokens.ContextMeter`: the last response's usage plus the estimate of what was added since;
- events (`core.events`): `ContextUpdated(used, window, threshold, prune_threshold, model, cause,
  auto_compact)` after each response, compaction and pruning (`.left_until_compaction` is the share left
  for the status line); `CompactionStarted(trigger, pre_tokens, t, instructions)`,
  `CompactionProgress(text, chars)`, `CompactionFinished(trigger, outcome, pre_tokens, post_tokens,
  t_start, t_end, summary, detail)`.
- `Agent.context_size() -> ContextUpdated`: the meter now, without a request.
"""

from .tokens import ContextMeter, content_tokens, message_tokens, messages_tokens, request_tokens, text_tokens, usage_tokens
from .window import ModelLimits, Thresholds, autocompact_threshold, limits_for, prune_threshold, thresholds

__all__ = [
    "ContextMeter", "ModelLimits", "Thresholds", "autocompact_threshold", "content_tokens", "limits_for",
    "message_tokens", "messages_tokens", "prune_threshold", "request_tokens", "text_tokens", "thresholds", "usage_tokens",
]
