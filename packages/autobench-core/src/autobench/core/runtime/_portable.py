"""Paths of the writing machine, rewritten before they reach a record.

A record directory must read the same on any machine, so the text Autobench records about
files (error tracebacks and messages, source file keys) names them relative to a place every
reader can interpret:

* a file under the spec's directory (``base_dir``): its path relative to that directory
  (``File "task.py"``);
* a file of the interpreter: ``<autobench>/...`` (Autobench's own packages),
  ``<site-packages>/...`` (installed distributions), ``<stdlib>/...`` (the standard
  library) and ``<python>/...`` (anything else under the interpreter's prefixes);
* otherwise ``~/...`` under the home directory and ``<tmp>/...`` under the temporary
  directory.

The most specific place wins: a virtual environment inside the spec's directory still gives
``<site-packages>/...``. A run's errors (with the file of their location), score errors and span error
messages are rewritten when its record is made; a run without any rewrites nothing.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import site
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from pathlib import Path

from autobench.abp import Trace
from autobench.core.distributions import package_directories
from autobench.records import ErrorRecord, ScoreRecord

_SEPARATORS = "/\\" if os.sep == "\\" else "/"


@functools.cache
def interpreter_places() -> tuple[tuple[str, str], ...]:
    """``(directory, placeholder)`` of the interpreter's own file trees."""
    places: list[tuple[str, str]] = [(path, "<autobench>") for path in package_directories()]
    paths = sysconfig.get_paths()
    packages = [paths.get("purelib"), paths.get("platlib"), *site.getsitepackages()]
    user_site = site.getusersitepackages()
    packages.append(user_site if isinstance(user_site, str) else None)
    places += [(path, "<site-packages>") for path in packages if path]
    places += [(paths[key], "<stdlib>") for key in ("stdlib", "platstdlib") if paths.get(key)]
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    places += [(prefix, "<python>") for prefix in prefixes]
    return tuple(places)


def spellings(directory: str | Path) -> set[str]:
    """The ways ``directory`` may be written: as given (made absolute) and with links resolved."""
    path = Path(directory)
    found = {os.path.abspath(path)}
    with contextlib.suppress(OSError):
        found.add(str(path.resolve()))
    return {name.rstrip(_SEPARATORS) for name in found if len(name.rstrip(_SEPARATORS)) > 1}


def _places(base_dir: Path | None, home: str, tmp: str) -> tuple[tuple[str, str], ...]:
    """Every ``(directory, replacement)``, the longest directory first. The spec's
    directory is replaced by nothing (its files become relative paths)."""
    places: list[tuple[str, str]] = []
    if base_dir is not None:
        places += [(name, "") for name in spellings(base_dir)]
    for directory, placeholder in interpreter_places():
        places += [(name, placeholder) for name in spellings(directory)]
    places += [(name, "~") for name in spellings(home)]
    places += [(name, "<tmp>") for name in spellings(tmp)]
    chosen: dict[str, str] = {}
    for directory, replacement in places:
        chosen.setdefault(directory, replacement)
    return tuple(sorted(chosen.items(), key=lambda item: len(item[0]), reverse=True))


def _matcher(base_dir: Path | None) -> tuple[tuple[tuple[str, str], ...], re.Pattern[str]]:
    """The places and their one pattern for ``base_dir``, the home and the temporary
    directory as they are now (each may change in a process: tests and programs set
    ``HOME`` and ``TMPDIR``)."""
    return _matcher_of(base_dir, str(Path.home()), tempfile.gettempdir())


@functools.lru_cache(maxsize=16)
def _matcher_of(
    base_dir: Path | None, home: str, tmp: str
) -> tuple[tuple[tuple[str, str], ...], re.Pattern[str]]:
    # Made once per directories: resolving two dozen directories' links (a stat of each
    # part of each) and compiling their pattern took about 1.8 ms, three times for each
    # run with an error, on the event loop's thread (docs/performance.md, "Errored runs").
    places = _places(base_dir, home, tmp)
    # One alternation, the longest directory first (the first that matches with a name's
    # end after it wins, as the places are ordered), behind one check that no name goes
    # on before it: a pattern per place, each with its own checks, took about 1.2 ms to
    # scan a traceback of 700 characters.
    alternatives = "|".join(re.escape(directory) for directory, _ in places)
    separators = re.escape(_SEPARATORS)
    pattern = re.compile(f"(?<![\\w.\\-])({alternatives})(?:([{separators}])|(?![\\w.\\-]))")
    return places, pattern


def portable_text(text: str, base_dir: Path | None) -> str:
    """``text`` (a traceback, a message) with every path of this machine rewritten as the
    module docstring describes. The directories' spellings (links resolved) are read once
    per spec directory, home and temporary directory in a process."""
    places, pattern = _matcher(base_dir)
    if not any(directory in text for directory, _ in places):
        return text  # most messages: no path to rewrite, and the pattern is slow to scan

    replacements = dict(places)

    def replace(match: re.Match[str]) -> str:
        directory, separator = match.groups()
        replacement = replacements[directory]
        if replacement == "":
            return "" if separator else "."
        return replacement + ("/" if separator else "")

    return pattern.sub(replace, text)


def portable_path(path: Path, base_dir: Path | None) -> str:
    """One file's path as a record names it (posix form): relative to ``base_dir`` when
    under it, a placeholder path for the interpreter's files, else relative to
    ``base_dir`` with ``..``, else as :func:`portable_text` writes it."""
    absolute = Path(os.path.abspath(path))
    text = portable_text(str(absolute), base_dir)
    if text != str(absolute) and not text.startswith(("~", "<tmp>")):
        return text.replace(os.sep, "/")
    if base_dir is not None:
        try:
            return Path(os.path.relpath(absolute.resolve(), Path(base_dir).resolve())).as_posix()
        except ValueError:  # another drive
            pass
    return text.replace(os.sep, "/")


def portable_evidence(
    errors: Sequence[ErrorRecord],
    scores: Sequence[ScoreRecord],
    trace: Trace | None,
    base_dir: Path | None,
) -> tuple[tuple[ErrorRecord, ...], tuple[ScoreRecord, ...], Trace | None]:
    """A run's errors (messages and tracebacks), score errors and span error messages, made
    portable (:func:`portable_text`). A run with none of them is returned as it is."""
    failed_spans = trace is not None and any(span.error for span in trace.spans)
    if not errors and not failed_spans and not any(score.error for score in scores):
        return tuple(errors), tuple(scores), trace

    def text(value: str) -> str:
        return portable_text(value, base_dir)

    errors = tuple(
        error.model_copy(
            update={
                "message": text(error.message),
                "traceback": None if error.traceback is None else text(error.traceback),
                "location": None
                if error.location is None
                else error.location.model_copy(
                    update={"file": portable_path(Path(error.location.file), base_dir)}
                ),
            }
        )
        for error in errors
    )
    scores = tuple(
        score if score.error is None else score.model_copy(update={"error": text(score.error)})
        for score in scores
    )
    if trace is not None and failed_spans:
        spans = tuple(
            span
            if span.error is None
            else span.model_copy(
                update={
                    "error": span.error.model_copy(update={"message": text(span.error.message)})
                }
            )
            for span in trace.spans
        )
        trace = trace.model_copy(update={"spans": spans})
    return errors, scores, trace
