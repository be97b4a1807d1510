"""Linux desktop integration files: the .desktop entry, the AppStream metainfo, the icons, the installer.

``desktop-file-validate`` and ``appstreamcli validate`` run when installed (skipped otherwise; on
Debian/Ubuntu: ``apt-get install desktop-file-utils appstream``); our own checks always run.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from okbot import __version__

REPO_ROOT = Path(__file__).resolve().parents[2]
RESOURCES = REPO_ROOT / "resources"
APP_ID = "io.okbot.OkBot"
DESKTOP_FILE = RESOURCES / "desktop" / f"{APP_ID}.desktop"
METAINFO_FILE = RESOURCES / "desktop" / f"{APP_ID}.metainfo.xml"
INSTALLER = RESOURCES / "desktop" / "install-desktop-entry.sh"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read_desktop_entry(path: Path) -> dict[str, str]:
    """The ``[Desktop Entry]`` group, keys case-sensitive, values verbatim."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def png_header(path: Path) -> tuple[int, int, int, int]:
    """(width, height, bit depth, colour type) from a PNG's IHDR chunk; ValueError if not a PNG."""
    data = path.read_bytes()[:33]
    if len(data) < 33 or data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    return width, height, depth, colour


def console_script_name() -> str:
    """The console script pyproject.toml declares for ``okbot.__main__:main``."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^(\S+)\s*=\s*"okbot\.__main__:main"', text, re.MULTILINE)
    assert match, "no console script for okbot.__main__:main in pyproject.toml"
    return match.group(1)


# --------------------------------------------------------------------------- the .desktop entry


def test_desktop_entry_has_the_required_keys() -> None:
    entry = read_desktop_entry(DESKTOP_FILE)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "OkBot"
    assert entry["Comment"].strip()
    assert entry["Icon"] == APP_ID  # a theme name, installed as hicolor/<size>/apps/<app id>.png
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Network" in entry["Categories"].split(";")


def test_desktop_entry_runs_the_console_script() -> None:
    entry = read_desktop_entry(DESKTOP_FILE)
    assert entry["Exec"].split()[0] == console_script_name()
    assert entry["TryExec"] == console_script_name()


def test_desktop_entry_names_the_window_class_qt_sets() -> None:
    # Qt's X11 WM_CLASS class is the application name okbot.ui.app sets.
    app_source = (REPO_ROOT / "okbot" / "ui" / "app.py").read_text(encoding="utf-8")
    assert f'APP_NAME = "{read_desktop_entry(DESKTOP_FILE)["StartupWMClass"]}"' in app_source


def test_desktop_file_validate_accepts_the_entry() -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    result = subprocess.run([tool, str(DESKTOP_FILE)], capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower()


# --------------------------------------------------------------------------- AppStream metainfo


@pytest.fixture(scope="module")
def component() -> ET.Element:
    """The metainfo's root ``<component>``."""
    return ET.parse(METAINFO_FILE).getroot()


def test_metainfo_identifies_the_desktop_entry(component: ET.Element) -> None:
    assert component.tag == "component" and component.get("type") == "desktop-application"
    assert component.findtext("id") == APP_ID
    launchable = component.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP_FILE.name
    assert component.findtext("provides/binary") == console_script_name()


def test_metainfo_has_name_summary_description_and_licenses(component: ET.Element) -> None:
    assert component.findtext("name") == "OkBot"
    assert (component.findtext("summary") or "").strip()
    assert component.findall("description/p"), "description needs at least one paragraph"
    assert component.findtext("metadata_license") in {"CC0-1.0", "MIT", "FSFAP"}
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = "MIT"$', pyproject, re.MULTILINE), "the licence as an SPDX expression"
    assert component.findtext("project_license") == "MIT"


def test_metainfo_newest_release_is_the_package_version(component: ET.Element) -> None:
    releases = component.findall("releases/release")
    assert releases, "no <release> in the metainfo"
    assert releases[0].get("version") == __version__, "add a <release> for the new version (newest first)"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", releases[0].get("date") or "")


def test_appstreamcli_accepts_the_metainfo() -> None:
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed (apt-get install appstream)")
    result = subprocess.run(
        [tool, "validate", "--no-net", str(METAINFO_FILE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------- icons


@pytest.mark.parametrize("size", ICON_SIZES)
def test_png_icon_is_a_square_rgba_png_of_its_size(size: int) -> None:
    path = RESOURCES / "icons" / f"okbot-{size}.png"
    assert path.is_file(), f"missing {path.name} (render with packaging/make_icons.py)"
    width, height, depth, colour = png_header(path)
    assert (width, height) == (size, size)
    assert (depth, colour) == (8, 6)  # 8-bit RGBA: a transparent background around the tile


def test_png_header_rejects_a_file_that_is_not_a_png(tmp_path: Path) -> None:
    fake = tmp_path / "okbot-16.png"
    fake.write_bytes(b"<svg/>" * 10)
    with pytest.raises(ValueError, match="not a PNG"):
        png_header(fake)


def test_svg_icon_is_square_svg() -> None:
    root = ET.parse(RESOURCES / "icons" / "okbot.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    _, _, width, height = (float(v) for v in root.get("viewBox", "").split())
    assert width == height > 0


# --------------------------------------------------------------------------- the installer script


def _installer(data_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return subprocess.run(
        ["sh", str(INSTALLER), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def _installed_files(data_home: Path) -> list[str]:
    return sorted(p.relative_to(data_home).as_posix() for p in data_home.rglob("*") if p.is_file())


needs_sh = pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")


@needs_sh
def test_installer_installs_entry_icons_and_metainfo_then_uninstalls(tmp_path: Path) -> None:
    data_home = tmp_path / "share"
    result = _installer(data_home, "--exec", "/opt/okbot/okbot")
    assert result.returncode == 0, result.stderr
    files = _installed_files(data_home)
    assert f"applications/{APP_ID}.desktop" in files
    assert f"metainfo/{APP_ID}.metainfo.xml" in files
    assert f"icons/hicolor/scalable/apps/{APP_ID}.svg" in files
    for size in ICON_SIZES:
        assert f"icons/hicolor/{size}x{size}/apps/{APP_ID}.png" in files
    entry = read_desktop_entry(data_home / "applications" / f"{APP_ID}.desktop")
    assert entry["Exec"] == entry["TryExec"] == "/opt/okbot/okbot"
    assert entry["Icon"] == APP_ID

    result = _installer(data_home, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert not [f for f in _installed_files(data_home) if APP_ID in f]


@needs_sh
def test_installer_rejects_an_unknown_option_and_installs_nothing(tmp_path: Path) -> None:
    result = _installer(tmp_path / "share", "--bogus")
    assert result.returncode == 2
    assert "unknown option --bogus" in result.stderr
    assert not (tmp_path / "share").exists()


@needs_sh
def test_installer_rejects_an_exec_path_with_spaces_and_installs_nothing(tmp_path: Path) -> None:
    result = _installer(tmp_path / "share", "--exec", "/opt/my apps/okbot")
    assert result.returncode == 1
    assert "must not contain spaces" in result.stderr
    assert not (tmp_path / "share").exists()
