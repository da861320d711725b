"""The folders of old runs, deleted while this one runs rather than after it.

pytest keeps the last three runs' folders (/tmp/pytest-of-USER/pytest-N) and deletes the oldest as it exits.
A full run leaves ~56k entries (each test's HOME, repositories, sessions), and deleting them took 10-20 s of
waiting on the disk after the summary was printed: on every machine that ran the suite before, CI here among
them. The same clean-up (pytest's own function, with the arguments its exit hook gets) starts in a thread as
the run begins, beside the tests; at the exit it has nothing left to do.
"""

from __future__ import annotations

import threading

import pytest
from _pytest.pathlib import LOCK_TIMEOUT, cleanup_numbered_dir

_CLEANER = pytest.StashKey[threading.Thread]()


def delete_old_runs_meanwhile(config: pytest.Config) -> None:
    """In the process that owns the run's folder (not an xdist worker, whose folder is given)."""
    if config.option.basetemp:
        return  # a given folder is this run's alone: pytest numbers none and deletes none
    basetemp = config._tmp_path_factory.getbasetemp()  # this run's, made now if no one asked yet
    keep = 0 if config.getini("tmp_path_retention_policy") == "none" else int(config.getini("tmp_path_retention_count"))
    cutoff = basetemp.stat().st_mtime - LOCK_TIMEOUT  # a folder locked since then is another run's, in use
    cleaner = threading.Thread(target=cleanup_numbered_dir, args=(basetemp.parent, "pytest-", keep, cutoff),
                               name="old pytest runs", daemon=True)
    cleaner.start()
    config.stash[_CLEANER] = cleaner


def wait_for_old_runs(config: pytest.Config) -> None:
    cleaner = config.stash.get(_CLEANER, None)
    if cleaner is not None:
        cleaner.join()
