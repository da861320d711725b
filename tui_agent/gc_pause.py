"""The garbage collector held off while the program starts.

Start-up allocates almost only what lives as long as the process (modules, classes, functions, the
widget tree), so the collector's passes over it during start-up find nothing to free: on a small
machine they cost ~60 ms before the app's first frame (a full collection alone ~25 ms). `pause` holds
the collector off; `resume` turns it back on (the app: right after its first frame; other modes: once
their imports are done). Only what `pause` turned off is turned back on.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    global _paused
    if _paused:
        _paused = False
        gc.enable()
