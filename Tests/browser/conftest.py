"""Fixtures of the editor's browser tests (run by scripts/browser-tests.sh).

The script starts a real server and passes: RIVERS_URL (its address), RIVERS_TOKEN (a fresh app's
token), RIVERS_BIN and DATABASE_URL (so tests can make more apps with the CLI), and
RIVERS_SCREENSHOTS (where the screenshots of the main views go).
"""
import json
import os
import pathlib
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE_URL = os.environ.get("RIVERS_URL", "").rstrip("/")
SCREENSHOTS = pathlib.Path(os.environ.get("RIVERS_SCREENSHOTS") or pathlib.Path(__file__).resolve().parents[2] / "screenshots")
WAIT = 10

if not BASE_URL:
    pytest.skip("RIVERS_URL is not set: run these tests with scripts/browser-tests.sh", allow_module_level=True)


class Api:
    """A small client of the JSON API, for setting up and checking what the browser did."""

    def __init__(self, token, app):
        self.token = token
        self.app = app

    def call(self, method, path, body=None, etag=None, auth=True):
        url = path if path.startswith("http") else f"{BASE_URL}{path if path.startswith('/') else '/api/v1/apps/' + self.app + '/' + path}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if auth:
            request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if etag:
            request.add_header("If-Match", etag)
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                raw = response.read()
                return response.status, (json.loads(raw) if raw and "json" in response.headers.get("Content-Type", "") else raw), response.headers
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = raw
            return error.code, payload, error.headers

    def ok(self, method, path, body=None, etag=None):
        status, payload, _ = self.call(method, path, body, etag)
        assert 200 <= status < 300, f"{method} {path} answered {status}: {payload}"
        return payload

    def family(self, family_id=None):
        family_id = family_id or f"FAM_{uuid.uuid4().hex[:6].upper()}"
        return self.ok("POST", "families", {
            "id": family_id, "name": f"Phones {family_id}",
            "reference_size": {"width": 320, "height": 568},
            "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10},
            "interitem_spacing": 10, "line_spacing": 10,
            "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}, {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778}],
        })

    def screen(self, family_id, name="Screen", components=None, **extra):
        body = {"name": name, "family": family_id, "ui_components": components or [], **extra}
        return self.ok("POST", "screens", body)


def make_app():
    """A fresh app and its token, made with the CLI (every test gets an app of its own)."""
    binary = os.environ.get("RIVERS_BIN")
    if not binary:
        pytest.skip("RIVERS_BIN is not set: run these tests with scripts/browser-tests.sh")
    slug = f"bt-{uuid.uuid4().hex[:10]}"
    token = subprocess.run([binary, "app", "create", slug, "--quiet"], check=True, capture_output=True, text=True).stdout.strip()
    return Api(token, slug)


@pytest.fixture
def api():
    return make_app()


def new_driver():
    if os.environ.get("RIVERS_BROWSER", "chromium") == "firefox":
        # A manual check in Firefox: RIVERS_BROWSER=firefox GECKODRIVER=/path/to/geckodriver.
        from selenium.webdriver.firefox.service import Service as FirefoxService
        options = webdriver.FirefoxOptions()
        options.add_argument("-headless")
        options.add_argument("--width=1280")
        options.add_argument("--height=800")
        driver = webdriver.Firefox(service=FirefoxService(os.environ.get("GECKODRIVER", "geckodriver")), options=options)
        driver.set_window_size(1280, 800)
        return driver
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--window-size=1280,800", "--disable-dev-shm-usage", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.implicitly_wait(0)
    return driver


# Browsers are started once and reused (starting Chromium costs seconds a test): after each test
# a browser is reset (its storage cleared, a blank page, the default window size) and goes back to
# the pool; one that cannot be reset is quit.
_idle = []
_all = []


def reset(driver):
    try:
        # Leaving an edited page asks first (beforeunload): not between tests.
        driver.execute_script("window.addEventListener('beforeunload', (e) => e.stopImmediatePropagation(), true)")
    except WebDriverException:
        pass
    driver.get(f"{BASE_URL}/favicon.svg")
    try:
        driver.switch_to.alert.accept()
    except WebDriverException:
        pass
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    driver.delete_all_cookies()  # a session cookie is the next test's business
    driver.get("about:blank")
    driver.set_window_size(1280, 800)
    browser_log(driver)  # the console so far is not the next test's


@pytest.fixture(scope="session", autouse=True)
def _quit_browsers():
    yield
    for driver in _all:
        try:
            driver.quit()
        except WebDriverException:
            pass


@pytest.fixture
def browsers(request):
    """Gives browsers on demand (browsers() → one more); they go back to the pool after the test."""
    made = []

    def make():
        driver = _idle.pop() if _idle else None
        if driver is None:
            driver = new_driver()
            _all.append(driver)
        made.append(driver)
        return driver

    yield make
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for i, driver in enumerate(made):
        if failed:
            try:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(SCREENSHOTS / f"failed-{request.node.name}-{i}.png"))
                for entry in browser_log(driver):
                    print("browser console:", entry)
            except WebDriverException:
                pass
        try:
            reset(driver)
            _idle.append(driver)
        except WebDriverException:
            _all.remove(driver)
            try:
                driver.quit()
            except WebDriverException:
                pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def browser(browsers):
    return browsers()


# Helpers used by the tests -----------------------------------------------------------------------

def wait(driver, condition, timeout=WAIT, message=""):
    def safe(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(safe, message)


def css(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector)


def all_css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def visible(driver, selector, timeout=WAIT):
    return wait(driver, lambda d: next((e for e in all_css(d, selector) if e.is_displayed()), False), timeout, f"{selector} not visible")


def token_form(driver):
    """The sign-in page's token field: the page opens on email and password; a link switches."""
    wait(driver, lambda d: css(d, "#sign-in-form").is_displayed() or css(d, "#use-token").is_displayed(), message="sign-in page")
    if not css(driver, "#token").is_displayed():
        css(driver, "#use-token").click()
    return visible(driver, "#token")


def sign_in(driver, api, path="#/screens", live=True):
    """Signs in with the app's token. `live=False`: this tab does not follow the app live (as a
    tab whose stream is late or cut), to reach the paths of a stale copy (412, a stale delete)."""
    driver.get(f"{BASE_URL}/")
    if not live:
        driver.execute_script("sessionStorage.setItem('rivers.live', 'off')")
    field = token_form(driver)
    field.send_keys(api.token)
    css(driver, "#sign-in-button").click()
    visible(driver, "#nav a[data-nav='/screens']")
    go(driver, path)


def go(driver, path):
    driver.execute_script("location.hash = arguments[0]", path.lstrip("#") if path.startswith("#") else path)
    time.sleep(0.05)


def shot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    time.sleep(0.2)  # let the last paint land
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def click(driver, element):
    """Clicks an element after scrolling it to the middle of its pane: the editor's Save bar stays
    at the top of a long form, so a control just below the pane's top edge may be under it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def set_value(element, text):
    """Replaces an input's text the way a user would (select all, type)."""
    element.click()
    element.send_keys("\ue009a")  # Ctrl+A
    element.send_keys("\ue017")  # Delete
    if text:
        element.send_keys(text)


def browser_log(driver):
    """The console log (Chromium only; other browsers give none)."""
    try:
        return driver.get_log("browser")
    except (WebDriverException, AttributeError):
        return []


def browser_errors(driver):
    """Console errors other than expected HTTP failures (404 of missing routes, 412, 422)."""
    return [e for e in browser_log(driver)
            if e["level"] == "SEVERE" and "Failed to load resource" not in e["message"]]


UNLABELLED = """
const named = (el) => {
  const by = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent || '').join('');
  if ((el.getAttribute('aria-label') || '').trim() || by.trim()) return true;
  if (el.labels && [...el.labels].some((l) => l.textContent.trim())) return true;
  if (el.matches('button, a, [role=button], summary')) return Boolean(el.textContent.trim());
  return false;
};
return [...document.querySelectorAll('input, select, textarea, button, a[href], [role=button], summary')]
  .filter((el) => el.type !== 'hidden' && el.getClientRects().length > 0)
  .filter((el) => !named(el))
  .map((el) => el.outerHTML.slice(0, 160));
"""


def unlabelled_controls(driver):
    """Visible controls without an accessible name (label, aria-label(ledby) or text)."""
    return driver.execute_script(UNLABELLED)
