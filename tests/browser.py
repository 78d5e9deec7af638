"""Headless Chromium for the tests that look at what a person sees: the DOM after scripts ran, and screenshots.

Debian's ``chromium`` (``.ci/run`` installs it where it is missing), each call with a fresh
profile and nothing that reaches the network, driven by its own command line (``--dump-dom``,
``--screenshot``). :func:`colours` reads a screenshot back (PNG, decoded here), so that a test
can tell a drawn page from an empty one.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
#: How long the page's scripts may run (virtual time) before the DOM is taken.
SCRIPT_BUDGET_MS = 5000


def executable() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if executable() is None:
        return "Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
    return None


def _run(url: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="gangconf-chromium-") as profile:
        return subprocess.run([executable(), *FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=timeout)


#: What the Allure Report shows when one of its file:// fetches failed. Headless Chromium fails one
#: now and then on a loaded machine (the same static page then loads on the next try), so a page
#: that says it is taken again, up to :data:`FETCH_ATTEMPTS` times in all.
FETCH_FAILED = "Failed to fetch"
FETCH_ATTEMPTS = 3


def dom(url: str) -> str:
    """The page's DOM once its scripts have run."""
    for _ in range(FETCH_ATTEMPTS):
        done = _run(url, f"--virtual-time-budget={SCRIPT_BUDGET_MS}", "--dump-dom")
        assert done.returncode == 0, done.stderr[-2000:]
        if FETCH_FAILED not in done.stdout:
            break
    return done.stdout


def screenshot(url: str, target: Path, *, width: int = 1280, height: int = 900) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    done = _run(url, f"--virtual-time-budget={SCRIPT_BUDGET_MS}", f"--window-size={width},{height}",
                f"--screenshot={target}")
    assert done.returncode == 0 and target.is_file(), done.stderr[-2000:]
    return target


def colours(png: Path) -> Counter:
    """How many pixels of each (r, g, b) colour a screenshot has (8-bit RGB or RGBA, not interlaced)."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is no PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and not interlace, f"unexpected PNG format {header}"
    channels = 3 if colour_type == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    previous, counts, at = bytearray(stride), Counter(), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        counts.update(zip(line[0::channels], line[1::channels], line[2::channels]))
        previous = line
    return counts


def hex_colour(value: str) -> tuple[int, int, int]:
    value = value.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
