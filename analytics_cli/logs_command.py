"""`analytics logs [component] [-f]`: read the components' logs under `$ANALYTICS_HOME/logs`."""
from __future__ import annotations

import os
import time
from collections import deque
from pathlib import Path

import click

from analytics_cli.component_logs import logs_directory
from pipelines.settings import Settings, SettingsError


def _tail(path: Path, lines: int) -> list[str]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return list(deque(handle, maxlen=lines))


def _follow(paths: list[Path], prefix: bool) -> None:
    """Print what is appended to the files until Ctrl-C, reopening a file that was rotated."""
    handles: dict[Path, tuple[int, object]] = {}
    for path in paths:
        handle = path.open(encoding="utf-8", errors="replace")
        handle.seek(0, os.SEEK_END)
        handles[path] = (os.fstat(handle.fileno()).st_ino, handle)
    try:
        while True:
            quiet = True
            for path, (inode, handle) in list(handles.items()):
                for line in iter(handle.readline, ""):
                    quiet = False
                    click.echo(f"{path.stem:<18} | {line}" if prefix else line, nl=False)
                try:
                    if os.stat(path).st_ino != inode:  # rotated: continue with the new file
                        handle.close()
                        handle = path.open(encoding="utf-8", errors="replace")
                        handles[path] = (os.fstat(handle.fileno()).st_ino, handle)
                except FileNotFoundError:
                    pass
            if quiet:
                time.sleep(0.3)
    except KeyboardInterrupt:
        pass
    finally:
        for _, handle in handles.values():
            handle.close()


@click.command("logs")
@click.argument("component", required=False)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines until Ctrl-C.")
@click.option("-n", "--lines", default=50, show_default=True, help="Lines to show from the end.")
def logs(component: str | None, follow: bool, lines: int) -> None:
    """Show a component's log (collector, workbench, dagster-webserver, dagster-daemon, dbt, ...);
    without a component, the last lines of each."""
    try:
        directory = logs_directory(Settings.from_env().home)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    available = sorted(path.stem for path in directory.glob("*.log"))
    if component is not None and component not in available:
        known = ", ".join(available) or "none yet: `analytics up` writes them"
        raise click.ClickException(f"no log named {component!r} in {directory} (logs: {known})")
    names = [component] if component else available
    if not names:
        click.echo(f"no logs yet in {directory}: `analytics up` writes them")
        return
    for name in names:
        path = directory / f"{name}.log"
        if not component:
            click.echo(click.style(f"==> {path} <==", bold=True))
        for line in _tail(path, lines):
            click.echo(line, nl=False)
    if follow:
        _follow([directory / f"{name}.log" for name in names], prefix=component is None)
