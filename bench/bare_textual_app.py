"""The floor for bench_first_frame.py: a ten-line Textual app (a Static and an Input), no more.

    python bench/bench_first_frame.py tui-agent --cmd "python bench/bare_textual_app.py"
"""

from textual.app import App, ComposeResult
from textual.widgets import Input, Static


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("tui-agent\nenter send · esc interrupt")
        yield Input()


if __name__ == "__main__":
    Bare().run()
