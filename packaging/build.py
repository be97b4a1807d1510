"""Build the one-folder desktop app (``dist/okbot/``) and its archive, then smoke-test it.

``make package`` runs this with the system Python. Steps:

1. a separate build venv (``.venv-package``; the dev venv stays clean) with the project's runtime
   dependencies and the ``package`` extra (PyInstaller), re-installed only when they change;
2. a check that the tiktoken encoding files in ``resources/tiktoken/`` (bundled with the rest of
   ``resources/``) match the sha256 of ``resources/encodings.json``;
3. the translation catalogues compiled (``scripts/i18n.py release``: ``resources/i18n/*.ts`` → ``.qm``,
   bundled with the rest of ``resources/``), then PyInstaller with ``packaging/okbot.spec``;
4. ``install-desktop-entry.sh`` next to the executable, and
   ``dist/okbot-<version>-<os>-<arch>.tar.gz``;
5. ``packaging/smoke_test.py`` against the result (skip with ``--no-smoke``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGING = REPO / "packaging"
STAMP_NAME = ".okbot-package-requirements"


class BuildError(Exception):
    """A build step failed; the message says which and what to do."""


def log(message: str) -> None:
    """One progress line on stdout."""
    print(f"==> {message}", flush=True)


def project_version() -> str:
    """``okbot.__version__``, read from the source (nothing is imported)."""
    text = (REPO / "okbot" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.MULTILINE)
    if not match:
        raise BuildError("no __version__ in okbot/__init__.py")
    return match.group(1)


def build_requirements() -> list[str]:
    """The runtime dependencies plus the ``package`` extra, from pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError as exc:
            raise BuildError("reading pyproject.toml needs Python >= 3.11 (or tomli): set PYTHON=python3.11") from exc
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project.get("optional-dependencies", {}).get("package")
    if not extra:
        raise BuildError("pyproject.toml has no [project.optional-dependencies] package extra")
    return [*project["dependencies"], *extra]


def run(cmd: list[str], **kwargs: object) -> None:
    """Run ``cmd`` (echoed), raising :class:`BuildError` when it fails."""
    print("   $ " + " ".join(str(c) for c in cmd), flush=True)
    result = subprocess.run(cmd, check=False, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        raise BuildError(f"command failed with exit code {result.returncode}: {' '.join(map(str, cmd[:3]))}")


def ensure_build_venv(venv: Path) -> Path:
    """The build venv's interpreter, with the requirements installed (only when they changed)."""
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"creating the build venv {venv}")
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    requirements = build_requirements()
    stamp = venv / STAMP_NAME
    wanted = "\n".join(requirements) + "\n"
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        log("installing PyInstaller and the runtime dependencies into the build venv")
        run([str(python), "-m", "pip", "install", "-q", *requirements])
        stamp.write_text(wanted, encoding="utf-8")
    else:
        log(f"build venv {venv} is up to date")
    return python


def check_encodings() -> list[str]:
    """Every encoding of ``resources/encodings.json`` is in ``resources/tiktoken/`` with its sha256.

    Returns ``["o200k_base (3.4 MiB)", …]``; raises naming what is missing or corrupt.
    """
    resources = REPO / "resources"
    table = json.loads((resources / "encodings.json").read_text(encoding="utf-8"))["encodings"]
    checked, problems = [], []
    for name, spec in table.items():
        path = resources / "tiktoken" / spec["file"]
        if not path.is_file():
            problems.append(f"{path} is missing")
        elif _sha256(path) != spec["sha256"]:
            problems.append(f"{path} does not match its sha256 (restore it: git checkout -- {path.relative_to(REPO)})")
        else:
            checked.append(f"{name} ({mib(path.stat().st_size)})")
    if problems:
        raise BuildError("; ".join(problems))
    return checked


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_pyinstaller(python: Path, dist: Path, work: Path) -> Path:
    """Run PyInstaller on the spec; return the app folder (``dist/okbot``)."""
    run(
        [
            str(python),
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            str(dist),
            "--workpath",
            str(work),
            str(PACKAGING / "okbot.spec"),
        ]
    )
    app = dist / "okbot"
    if not (app / "okbot").is_file():
        raise BuildError(f"PyInstaller produced no {app / 'okbot'}")
    for catalogue in ("okbot/resources/i18n/okbot_zh_CN.qm", "PySide6/Qt/translations/qtbase_zh_CN.qm"):
        if not any(app.rglob(Path(catalogue).name)):
            raise BuildError(f"the app lacks {catalogue}: its windows would not be translated")
    shutil.copy2(REPO / "resources" / "desktop" / "install-desktop-entry.sh", app / "install-desktop-entry.sh")
    (app / "install-desktop-entry.sh").chmod(0o755)
    return app


def missing_system_libraries(app: Path) -> dict[str, list[str]]:
    """Per platform plugin (xcb, wayland …), the libraries neither the bundle nor this system has.

    The bundle takes shared libraries from the build machine; what is missing here must come from
    the target desktop (any X11 or Wayland desktop has them). Empty when ``ldd`` is unavailable.
    """
    if shutil.which("ldd") is None:
        return {}
    internal = app / "_internal"
    env = {**os.environ, "LD_LIBRARY_PATH": f"{internal}:{internal / 'PySide6/Qt/lib'}"}
    missing = {}
    for plugin in sorted(internal.glob("PySide6/Qt/plugins/platforms/libq*.so")):
        result = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, env=env, check=False)
        libs = sorted({line.split()[0] for line in result.stdout.splitlines() if "not found" in line})
        if libs:
            missing[plugin.stem.removeprefix("libq")] = libs
    return missing


def make_archive(app: Path, version: str) -> Path:
    """``dist/okbot-<version>-<os>-<arch>.tar.gz`` holding the ``okbot/`` folder (symlinks kept)."""
    system = platform.system().lower()
    archive = app.parent / f"okbot-{version}-{system}-{platform.machine()}.tar.gz"
    tmp = archive.with_suffix(".tmp")
    with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
        tar.add(app, arcname=app.name)
    tmp.replace(archive)
    return archive


def folder_size(path: Path) -> int:
    """Bytes of every regular file below ``path`` (symlinks not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def mib(size: int) -> str:
    """``size`` bytes as MiB with one decimal."""
    return f"{size / 2**20:.1f} MiB"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry (``make package``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=REPO / ".venv-package", help="build venv (default .venv-package)")
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="output folder (default dist)")
    parser.add_argument("--no-smoke", action="store_true", help="skip the smoke test")
    args = parser.parse_args(argv)

    started = time.monotonic()
    try:
        version = project_version()
        python = ensure_build_venv(args.venv.resolve())
        for line in check_encodings():
            log(f"bundling encoding {line}")
        log("compiling the translations")
        run([str(python), str(REPO / "scripts" / "i18n.py"), "release"])
        log("running PyInstaller (about a minute)")
        app = run_pyinstaller(python, args.dist.resolve(), REPO / "build" / "package" / "pyinstaller")
        for platform_name, libs in missing_system_libraries(app).items():
            log(f"note: the {platform_name} platform plugin needs from the target system: {' '.join(libs)}")
        archive = make_archive(app, version)
        log(
            f"built {app} ({mib(folder_size(app))}) and {archive.name} ({mib(archive.stat().st_size)}) "
            f"in {time.monotonic() - started:.0f} s"
        )
        if not args.no_smoke:
            log("smoke test")
            run([str(python), str(PACKAGING / "smoke_test.py"), str(app)])
    except BuildError as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
