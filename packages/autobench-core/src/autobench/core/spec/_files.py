"""File references of a spec: local-only, relative to the spec, globbed deterministically, read once."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable
from pathlib import Path

from autobench.core.spec._errors import Location, SpecError
from autobench.core.spec._yaml import Located, YamlDocument, read_yaml

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
_GLOB_CHARS = frozenset("*?[")
_LOCAL = "a local path or file:// reference inside the spec directory"


class SpecFiles:
    """The files one load reads, in the order first read; each is parsed at most once.

    ``spec_dir`` is the spec's directory as given (used to build the paths
    shown in messages); every referenced file must resolve inside it.
    """

    def __init__(self, spec_dir: Path) -> None:
        self.spec_dir = spec_dir
        self.root = spec_dir.resolve()
        self._documents: dict[Path, YamlDocument] = {}

    @property
    def read_paths(self) -> tuple[Path, ...]:
        """Resolved paths of every file read so far, in the order read."""
        return tuple(self._documents)

    def add(self, resolved: Path, document: YamlDocument) -> None:
        """Record a document read by the caller (the spec file itself)."""
        self._documents.setdefault(resolved, document)

    def read(
        self,
        display: Path,
        referenced_at: Location,
        *,
        parse: Callable[[str, Path], YamlDocument] | None = None,
    ) -> YamlDocument:
        """Parse the file shown as ``display`` (relative to the spec directory), once;
        ``parse`` as for :func:`read_yaml`."""
        resolved = display.resolve()
        document = self._documents.get(resolved)
        if document is None:
            document = read_yaml(resolved, display, referenced_at=referenced_at, parse=parse)
            self._documents[resolved] = document
        return document

    def resolve(self, ref: Located, what: str) -> list[Path]:
        """The files a reference names, as display paths (spec directory + relative path).

        ``ref`` holds a relative path, a ``file://`` reference or a glob of
        either; glob matches are sorted by path. Raises :class:`SpecError`
        at ``ref`` for remote URLs, paths outside the spec directory, a
        missing file or a glob that matches no file.
        """
        target = local_target(ref, what)
        relative = self._relative(ref, target)
        try:
            if not _GLOB_CHARS.intersection(target):
                return [self._checked(ref, relative)]
            matches = sorted(glob.glob(relative, root_dir=self.spec_dir, recursive=True))
            files = [
                self._checked(ref, match) for match in matches if (self.spec_dir / match).is_file()
            ]
        except SpecError:
            raise
        except (OSError, ValueError) as error:  # a NUL byte, a name too long, a loop of links
            reason = getattr(error, "strerror", None) or str(error)
            raise SpecError(
                ref.location, f"{what} '{target}' is not a usable path: {reason}", expected=_LOCAL
            ) from None
        if not files:
            raise SpecError(
                ref.location,
                f"{what} pattern '{target}' matches no file",
                expected="a glob matching at least one file",
            )
        return files

    def _relative(self, ref: Located, target: str) -> str:
        path = Path(target)
        if path.is_absolute():
            try:
                return os.path.normpath(path.relative_to(self.root))
            except ValueError:
                raise SpecError(
                    ref.location, f"path '{target}' is outside the spec directory", expected=_LOCAL
                ) from None
        normal = os.path.normpath(target)
        if normal == ".." or normal.startswith(".." + os.sep):
            raise SpecError(
                ref.location, f"path '{target}' escapes the spec directory", expected=_LOCAL
            )
        return normal

    def _checked(self, ref: Located, relative: str) -> Path:
        display = self.spec_dir / relative
        resolved = display.resolve()
        if not resolved.is_relative_to(self.root):
            raise SpecError(
                ref.location,
                f"path '{relative}' resolves outside the spec directory",
                expected=_LOCAL,
            )
        if not resolved.is_file():
            problem = "is not a file" if resolved.exists() else "does not exist"
            raise SpecError(
                ref.location,
                f"file '{display}' {problem}",
                expected="a YAML file relative to the spec",
            )
        return display


def local_target(ref: Located, what: str) -> str:
    """The path part of a reference (``file://`` stripped); remote URLs raise :class:`SpecError`."""
    value = ref.value
    if not isinstance(value, str) or not value.strip():
        raise SpecError(ref.location, f"{what} must be a file path string", expected=_LOCAL)
    scheme = _SCHEME.match(value)
    if scheme is None:
        return value
    if scheme["scheme"].lower() != "file":
        raise SpecError(
            ref.location, f"remote reference '{value}' is not allowed in {what}", expected=_LOCAL
        )
    target = value[scheme.end() :]
    if not target:
        raise SpecError(ref.location, f"{what} '{value}' names no file", expected=_LOCAL)
    return target
