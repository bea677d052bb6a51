"""The browser the page tests share: Debian's chromium driven by Playwright (never a downloaded one), one per
test module; a test that asks for it skips, saying why, where chromium is not installed."""

import os
import shutil

import pytest

CHROMIUM = os.environ.get("QABASE_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
NO_CHROMIUM = "chromium is not installed (Debian: apt-get install chromium fonts-noto-cjk; .ci/setup installs both)"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright  # the dev extra; drives the system chromium

    # the page's Content-Security-Policy forbids eval: wait with locator assertions (expect), not wait_for_function
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"] if os.geteuid() == 0 else [])
        yield b
        b.close()
