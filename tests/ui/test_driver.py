"""The input loop hands a lone ESC on within the escape delay, keeps pastes whole (ESC bytes and all), parses
everything else as Textual does, and says when the input ends. A real pipe, the real XTermParser."""

from __future__ import annotations

import os
import threading
from typing import Any, Iterator

import pytest
from textual import constants, events
from textual._time import get_time
from textual._xterm_parser import XTermParser

from tui_agent.ui import input_loop
from tui_agent.ui.driver import use_escape_delay
from tui_agent.ui.input_loop import IDLE_WAIT_S, PasteSplitter, input_wait, read_input


def test_the_wait_is_the_idle_poll_when_no_escape_is_pending() -> None:
    parser = XTermParser()
    assert input_wait(parser, get_time()) == IDLE_WAIT_S
    list(parser.feed("a"))
    assert input_wait(parser, get_time()) == IDLE_WAIT_S


def test_a_pending_escape_shortens_the_wait_to_what_is_left_of_the_delay(monkeypatch: Any) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.01)
    parser = XTermParser()
    assert list(parser.feed("\x1b")) == []  # maybe the start of a sequence: pending
    now = get_time()
    assert 0 < input_wait(parser, now) <= 0.01  # Textual's loop would wait 0.1 s here
    assert input_wait(parser, now + 1) == 0.0  # overdue: do not wait at all


class Terminal:
    """A pipe standing in for the terminal, with `read_input` running on it in a thread."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        self.events: list[Any] = []
        self.ended = threading.Event()
        self.got = threading.Condition()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=read_input, args=(self.read_end, XTermParser(), self._emit, self.stop, self.ended.set))
        self.thread.start()

    def _emit(self, event: Any) -> None:
        with self.got:
            self.events.append(event)
            self.got.notify_all()

    def type(self, text: str) -> None:
        os.write(self.write_end, text.encode())

    def wait_for(self, count: int) -> list[Any]:
        with self.got:
            assert self.got.wait_for(lambda: len(self.events) >= count, timeout=30), self.events
            return list(self.events)

    def hang_up(self) -> None:
        os.close(self.write_end)
        self.write_end = -1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(60)
        os.close(self.read_end)
        if self.write_end >= 0:
            os.close(self.write_end)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    yield term
    term.close()


def keys(found: list[Any]) -> list[str]:
    return [e.key for e in found if isinstance(e, events.Key)]


def pastes(found: list[Any]) -> list[str]:
    return [e.text for e in found if isinstance(e, events.Paste)]


def test_a_lone_escape_arrives_as_the_escape_key(terminal: Terminal, monkeypatch: Any) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.01)
    terminal.type("\x1b")
    assert keys(terminal.wait_for(1)) == ["escape"]


def test_a_lone_escape_is_delivered_when_its_delay_ends_not_at_the_next_poll(monkeypatch: Any) -> None:
    # With an idle poll of ten minutes, only a wait bounded by the escape's own delay delivers it.
    monkeypatch.setattr(input_loop, "IDLE_WAIT_S", 600.0)
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.01)
    term = Terminal()
    try:
        with term.got:  # the loop is in its first (ten-minute) wait when the key comes
            term.type("\x1b")
            assert term.got.wait_for(lambda: bool(term.events), timeout=30), "the ESC waited for the idle poll"
        assert keys(term.events) == ["escape"]
    finally:
        term.stop.set()
        term.hang_up()  # wakes the loop's wait
        term.close()


def test_an_escape_sequence_split_across_reads_is_one_key(terminal: Terminal, monkeypatch: Any) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 60.0)  # the halves always meet, however slow the machine
    terminal.type("\x1b[")
    terminal.type("A")
    terminal.type("\x1b[1;")
    terminal.type("5C")  # ctrl+right
    assert keys(terminal.wait_for(2)) == ["up", "ctrl+right"]


def test_alt_and_a_key_is_one_alt_key(terminal: Terminal, monkeypatch: Any) -> None:
    # Alt+x comes as ESC x in one read; it is told from ESC then x only when the delay ends.
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.01)
    terminal.type("\x1bx")
    assert keys(terminal.wait_for(1)) == ["alt+x"]


def test_pasted_text_is_one_paste_not_keys(terminal: Terminal) -> None:
    terminal.type("\x1b[200~ls -la\n")
    terminal.type("done\x1b[201~")
    found = terminal.wait_for(1)
    assert [e.text for e in found if isinstance(e, events.Paste)] == ["ls -la\ndone"]
    assert keys(found) == []


def test_escape_bytes_inside_a_paste_stay_in_the_pasted_text(terminal: Terminal) -> None:
    # Textual's parser alone cuts this paste at the first ESC and sends the rest as keys, ESC ESC as escape.
    text = "red: \x1b[31mred\x1b[0m, two escapes: \x1b\x1b, a lone one at the end \x1b"
    terminal.type("\x1b[200~" + text + "\x1b[201~")
    terminal.type("x")
    found = terminal.wait_for(2)
    assert pastes(found) == [text] and keys(found) == ["x"]


def test_a_paste_split_across_reads_at_every_place_is_one_paste(terminal: Terminal, monkeypatch: Any) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 60.0)  # a marker's halves always meet in the parser
    data = "\x1b[200~a\x1bb\x1b[201~"
    for cut in range(1, len(data)):
        terminal.type(data[:cut])
        terminal.type(data[cut:])
    found = terminal.wait_for(len(data) - 1)
    assert pastes(found) == ["a\x1bb"] * (len(data) - 1) and keys(found) == []


def test_the_splitter_hands_the_parser_only_markers_and_text_outside_pastes() -> None:
    splitter = PasteSplitter()
    assert list(splitter.split("ab\x1b[20")) == [("parse", "ab\x1b[20")]
    assert list(splitter.split("0~in\x1b")) == [("parse", "0~")]  # the marker's end; the content waits
    assert list(splitter.split("[31m\x1b[201~cd")) == [("paste", "in\x1b[31m"), ("parse", "cd")]


def test_the_end_of_input_is_reported_once(terminal: Terminal) -> None:
    terminal.type("a")
    terminal.wait_for(1)
    terminal.hang_up()  # a terminal that goes away reads as the end of input (or EIO)
    assert terminal.ended.wait(60)
    assert keys(terminal.events) == ["a"]


def test_the_escape_delay_is_10_ms_unless_escdelay_says_otherwise(monkeypatch: Any) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.1)  # Textual's default, or what ESCDELAY said at import
    use_escape_delay({"ESCDELAY": "100"})
    assert constants.ESCAPE_DELAY == 0.1  # the user's own setting stays
    use_escape_delay({})
    assert constants.ESCAPE_DELAY == 0.01
