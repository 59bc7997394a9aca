"""The README and the user guide as the tests read them: the guide's pages in the order of its
navigation (mkdocs.yml), and the commands of their ```sh blocks."""
from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
MKDOCS = REPO_ROOT / "mkdocs.yml"


def guide_pages() -> list[Path]:
    """The README, then the guide's pages in the order of its navigation."""
    def walk(entries) -> list[str]:
        found = []
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found += walk(value) if isinstance(value, list) else [value]
        return found
    nav = yaml.safe_load(MKDOCS.read_text())["nav"]
    return [README] + [REPO_ROOT / "docs" / name for name in walk(nav)]


def _without_comment(line: str) -> str:
    """The line up to a `#` that starts a shell comment (outside quotes, after a space or at the start)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def shell_commands() -> list[str]:
    """The commands of the ```sh blocks of the README and the guide: comments dropped, continued
    lines joined."""
    commands, block, pending = [], False, ""
    lines = [line for page in guide_pages() for line in page.read_text().splitlines()]
    for line in lines:
        if line.startswith("```"):
            block = line.strip() == "```sh"
            continue
        if not block:
            continue
        code = _without_comment(line).strip()
        if not code:
            continue
        if code.endswith("\\"):
            pending += code[:-1] + " "
            continue
        commands.append(pending + code)
        pending = ""
    return commands
