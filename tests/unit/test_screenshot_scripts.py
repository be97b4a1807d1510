"""``make screenshots`` on a machine without a Chinese font (issue 34, item 25): the English shots are made by
their own script; the Chinese one says it skipped and succeeds, writing nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_chinese_screenshots_are_skipped_with_a_reason_when_no_chinese_font_is_installed(tmp_path: Path) -> None:
    fonts = tmp_path / "fonts"  # fontconfig that knows no font at all
    fonts.mkdir()
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        f'<?xml version="1.0"?><fontconfig><dir>{fonts}</dir><cachedir>{tmp_path / "cache"}</cachedir></fontconfig>',
        encoding="utf-8",
    )
    out = tmp_path / "shots"
    done = subprocess.run(
        [sys.executable, "scripts/screenshots_zh.py", "--out", str(out)],
        cwd=REPO,
        env={**os.environ, "FONTCONFIG_FILE": str(conf), "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "skipped the Chinese screenshots: no Chinese font (Debian/Ubuntu: apt install fonts-noto-cjk)" in done.stderr
    assert not list(out.glob("*.png"))
