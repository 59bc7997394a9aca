"""The user guide builds in strict mode, and what the README and the guide tell people to type
exists: every `make` target they name is in the Makefile, every `analytics` command answers
`--help`. (tests/workbench_ui/test_first_run.py runs their ```sh blocks against a real stack.)"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from analytics_cli.main import main as analytics
from tests.conftest import REPO_ROOT
from tests.guide import guide_pages

# Code as the pages show it: fenced blocks and `inline spans` (which may wrap a line).
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`]+)`")
MAKE = re.compile(r"(?:^|[\s;&|(])make\s+([a-z][\w-]*)")
ANALYTICS = re.compile(r"(?:^|[\s;&|(/])analytics((?:\s+[a-z][\w-]*){1,2})")


def _code() -> list[str]:
    spans = []
    for page in guide_pages():
        text = page.read_text()
        spans += FENCED.findall(text)
        spans += INLINE.findall(FENCED.sub("", text))
    return spans


def test_the_guide_builds_in_strict_mode(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "analyst" / "screens.html").exists()


def test_every_page_of_docs_is_in_the_navigation():
    listed = set(guide_pages()[1:])
    assert listed == set((REPO_ROOT / "docs").rglob("*.md"))


def make_targets() -> set[str]:
    makefile = (REPO_ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))


def test_every_make_target_named_exists():
    named = {target for span in _code() for target in MAKE.findall(span)}
    assert {"run", "test", "docs", "install-dev"} <= named
    missing = named - make_targets()
    assert not missing, f"the README or the guide names make targets the Makefile lacks: {sorted(missing)}"


def _command_words(words: list[str]) -> list[str]:
    """The longest prefix of `words` that is a command of `analytics` (a group's subcommand)."""
    command, found = analytics, []
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
        found.append(word)
    return found


def test_every_analytics_command_named_answers_help():
    named = {tuple(match.split()) for span in _code() for match in ANALYTICS.findall(span)}
    assert ("demo",) in {words[:1] for words in named}
    commands = {tuple(_command_words(list(words))) for words in named}
    unknown = sorted(" ".join(words) for words in named if not _command_words(list(words)))
    assert not unknown, f"the README or the guide names analytics commands that do not exist: {unknown}"
    runner = CliRunner()
    for words in sorted(commands):
        answer = runner.invoke(analytics, [*words, "--help"])
        assert answer.exit_code == 0 and "Usage:" in answer.output, (words, answer.output)


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_the_readme_and_the_guide_say_how_to_build_the_guide(page):
    assert "make docs" in (REPO_ROOT / page).read_text()


def test_the_readme_stays_short():
    assert len((REPO_ROOT / "README.md").read_text().splitlines()) <= 160


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_of_the_readme_leads_somewhere():
    """The README is outside the guide's strict build: its links to the guide and its own anchors."""
    readme = (REPO_ROOT / "README.md").read_text()
    anchors = {_slug(heading) for heading in re.findall(r"^#+ (.+)$", FENCED.sub("", readme), re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert links
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        if path:
            assert (REPO_ROOT / path).exists(), f"the README links to {path}, which does not exist"
            if anchor and path.endswith(".md"):
                target = FENCED.sub("", (REPO_ROOT / path).read_text())
                assert anchor in {_slug(h) for h in re.findall(r"^#+ (.+)$", target, re.M)}, link
        else:
            assert anchor in anchors, f"the README links to #{anchor}, a heading it does not have"
