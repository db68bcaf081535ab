"""Accounts and roles in the editor: one-time links, signing in with a password, the app switcher,
inviting a viewer (who then cannot change anything), tokens, settings and the activity log."""
import json
import os
import re
import subprocess
import urllib.request
import uuid

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import Select

from conftest import BASE_URL, Api, all_css, make_app, browser_errors, click, css, go, set_value, shot, unlabelled_controls, visible, wait

PASSWORD = "correct horse battery staple"


def rivers_bin():
    binary = os.environ.get("RIVERS_BIN")
    if not binary:
        pytest.skip("RIVERS_BIN is not set: run these tests with scripts/browser-tests.sh")
    return binary


def create_admin(email, name=None):
    """An instance administrator made with the CLI; answers the set-password link it prints last."""
    env = {**os.environ, "DATABASE_URL": os.environ["DATABASE_URL"], "PUBLIC_BASE_URL": BASE_URL, "LOG_LEVEL": "warning"}
    command = [rivers_bin(), "user", "create", email, "--admin"] + (["--name", name] if name else [])
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    link = out.strip().splitlines()[-1].strip()
    assert link.startswith(f"{BASE_URL}/link.html#"), out
    return link


def use_link_by_api(link, password, name=None):
    secret = link.split("#", 1)[1]
    body = {"password": password, **({"name": name} if name else {})}
    request = urllib.request.Request(f"{BASE_URL}/api/v1/link", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Link-Secret": secret})
    with urllib.request.urlopen(request, timeout=15) as response:
        assert response.status == 201


@pytest.fixture
def admin():
    """An instance administrator with a password, ready to sign in: (email, password)."""
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    use_link_by_api(create_admin(email), PASSWORD, "Ada Admin")
    return email, PASSWORD


def text_of(driver, selector):
    return driver.execute_script("return document.querySelector(arguments[0])?.textContent || ''", selector)


def password_sign_in(driver, email, password, app=None):
    driver.get(f"{BASE_URL}/")
    set_value(visible(driver, "#email"), email)
    set_value(css(driver, "#password"), password)
    css(driver, "#password-sign-in").click()
    visible(driver, "#nav a[data-nav='/screens']")
    if app:
        open_app(driver, app)


def open_app(driver, slug):
    """Opens an app with the top bar's switcher (an instance administrator sees every app; past
    the first page of them, the switcher's search finds it)."""
    if text_of(driver, "#app-slug") == slug:
        return
    option = f"#app-switcher option[value='{slug}']"
    if not all_css(driver, option):
        search = visible(driver, "#app-search")
        set_value(search, slug)
        visible(driver, option)
    Select(visible(driver, "#app-switcher")).select_by_value(slug)
    wait(driver, lambda d: text_of(d, "#app-slug") == slug and css(d, "#nav").is_displayed(), message=f"app {slug} opened")


def sign_out(driver):
    css(driver, "#sign-out").click()
    visible(driver, "#email")


def test_set_password_link_then_sign_out_and_in_with_the_password(browser):
    email = f"first-{uuid.uuid4().hex[:8]}@example.com"
    link = create_admin(email)

    browser.get(link)
    wait(browser, lambda d: "Set a password for" in css(d, "#link-title").text, message="link page")
    assert email in css(browser, "#link-title").text
    visible(browser, "#link-name")  # a new account: a name may be given
    assert unlabelled_controls(browser) == []
    # Too short: refused at the field, before the server is asked.
    set_value(css(browser, "#link-password"), "short")
    css(browser, "#link-submit").click()
    error = visible(browser, "#link-form .field-error")
    assert "10 characters" in error.text
    assert css(browser, "#link-password").get_attribute("aria-invalid") == "true"
    shot(browser, "40-link-set-password")
    set_value(css(browser, "#link-name"), "Grace Hopper")
    set_value(css(browser, "#link-password"), PASSWORD)
    css(browser, "#link-submit").click()

    # Signed in (the cookie), in the editor; an instance administrator manages every app.
    visible(browser, "#nav a[data-nav='/screens']")
    # The address names the app (issue 29, 1).
    assert re.search(r"/#/apps/[a-z0-9-]+/screens$", browser.current_url), browser.current_url
    assert css(browser, "#user-name").text == "Grace Hopper"
    for page in ("members", "tokens", "settings", "activity"):
        assert css(browser, f"#nav a[data-nav='/{page}']").is_displayed()
    assert browser.execute_script("return sessionStorage.getItem('rivers.token')") is None

    # The link works once.
    browser.get(link)
    wait(browser, lambda d: "used or has expired" in css(d, "#link-title").text, message="used link")

    # A reload stays signed in (the session cookie), then signing out ends the session.
    browser.get(f"{BASE_URL}/#/screens")
    visible(browser, "#nav a[data-nav='/screens']")
    sign_out(browser)
    browser.refresh()
    visible(browser, "#email")

    # Too many failed sign-ins (429): the wait the server asks for is shown, the button waits it out.
    browser.execute_script("""
      const real = window.fetch;
      window.fetch = (url, options = {}) => (options.method === 'POST' && String(url).endsWith('/api/v1/session'))
        ? Promise.resolve(new Response(JSON.stringify({type: '/problems/too-many-sign-ins', title: 'Too many failed sign-ins', status: 429,
            detail: 'too many failed attempts; try again in 2 seconds'}), {status: 429, headers: {'Content-Type': 'application/problem+json', 'Retry-After': '2'}}))
        : real(url, options);
      window.restoreFetch = () => { window.fetch = real; };
    """)
    set_value(css(browser, "#email"), email)
    set_value(css(browser, "#password"), PASSWORD)
    css(browser, "#password-sign-in").click()
    note = visible(browser, "#password-wait")
    assert "try again in 2 seconds" in note.text or "try again in 1 second" in note.text
    assert not css(browser, "#password-sign-in").is_enabled()
    wait(browser, lambda d: css(d, "#password-sign-in").is_enabled() and not css(d, "#password-wait").is_displayed(), timeout=5, message="wait over")
    browser.execute_script("window.restoreFetch()")

    # A wrong password is said at the field; the right one signs in.
    set_value(css(browser, "#email"), email)
    set_value(css(browser, "#password"), "not the password at all")
    css(browser, "#password-sign-in").click()
    error = visible(browser, "#password-form .field-error")
    assert "wrong" in error.text
    assert css(browser, "#password").get_attribute("aria-invalid") == "true"
    assert unlabelled_controls(browser) == []
    shot(browser, "41-sign-in-password")
    set_value(css(browser, "#password"), PASSWORD)
    css(browser, "#password-sign-in").click()
    visible(browser, "#nav a[data-nav='/screens']")
    assert css(browser, "#user-name").text == "Grace Hopper"
    assert [e for e in browser_errors(browser) if "401" not in e["message"]] == []


def test_admin_invites_a_viewer_who_cannot_change_anything(browsers, admin):
    app = os.environ["RIVERS_APP"]
    setup = Api(os.environ["RIVERS_TOKEN"], app)
    family = setup.family()
    viewer_email = f"viewer-{uuid.uuid4().hex[:8]}@example.com"

    boss = browsers()
    password_sign_in(boss, *admin, app=app)
    go(boss, "#/members")
    set_value(visible(boss, "#invite-email"), viewer_email)
    Select(css(boss, "#invite-role")).select_by_value("viewer")
    css(boss, "#invite-button").click()
    link = visible(boss, "#invite-link").get_attribute("value")
    assert link.startswith(f"{BASE_URL}/link.html#")
    assert viewer_email in css(boss, "#invite-result").text
    wait(boss, lambda d: d.find_elements("css selector", f"#invitations tr[data-email='{viewer_email}']"), message="pending invitation")
    assert unlabelled_controls(boss) == []
    shot(boss, "42-members")
    sign_out(boss)

    viewer = browsers()
    viewer.get(link)
    wait(viewer, lambda d: "You are invited to" in css(d, "#link-title").text, message="invitation page")
    assert "as viewer" in css(viewer, "#link-title").text
    shot(viewer, "43-link-invitation")
    set_value(visible(viewer, "#link-password"), PASSWORD)
    css(viewer, "#link-submit").click()
    visible(viewer, "#nav a[data-nav='/screens']")
    # One app: its name, no switcher; the role is shown.
    assert css(viewer, "#app-slug").text == app
    assert not css(viewer, "#app-switcher").is_displayed()
    assert css(viewer, "#app-role").text.lower() == "viewer"
    for page in ("members", "tokens", "settings", "activity"):
        assert not css(viewer, f"#nav a[data-nav='/{page}']").is_displayed(), page

    reason = "Your role in this app is viewer: viewers cannot change it"
    go(viewer, "#/families")
    new_family = visible(viewer, "#new-family-button")
    assert new_family.get_attribute("aria-disabled") == "true"
    assert reason in new_family.get_attribute("title")
    go(viewer, f"#/families/{family['id']}")
    save = wait(viewer, lambda d: next((b for b in all_css(d, "form.resource-form button[type=submit]") if b.is_displayed()), False))
    assert save.text == "Save family"
    assert not save.is_enabled()
    note_id = save.get_attribute("aria-describedby").split()[-1]
    note = css(viewer, f"#{note_id}")
    assert note.is_displayed() and reason in note.text
    delete = next(b for b in all_css(viewer, "button.danger") if b.text == "Delete family")
    assert not delete.is_enabled()
    shot(viewer, "44-viewer-family")

    # The screens page shows the screens, read only (issue 29, 6), not a New-screen form.
    go(viewer, "#/screens")
    assert "only editors, publishers and admins can change it" in visible(viewer, "#read-only-banner").text
    assert not [f for f in all_css(viewer, ".create-form") if f.is_displayed()]
    go(viewer, "#/publish")
    publish = visible(viewer, "#publish-button")
    assert not publish.is_enabled()
    assert "viewers cannot publish or roll back" in css(viewer, f"#{publish.get_attribute('aria-describedby').split()[-1]}").text
    shot(viewer, "44-viewer-publish")
    # An admin page opened by its address says why it is not there.
    go(viewer, "#/members")
    wait(viewer, lambda d: "cannot manage its members" in css(d, "#outlet").text, message="members refused")

    # The server agrees: the viewer's session (with its CSRF token) cannot write.
    answer = viewer.execute_async_script("""
      const app = arguments[0];
      const done = arguments[arguments.length - 1];
      fetch('/api/v1/session').then((r) => r.json())
        .then((s) => fetch(`/api/v1/apps/${app}/families`, {
          method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf_token}, body: '{}'}))
        .then((r) => r.json().then((p) => done([r.status, p.needs || null])));
    """, app)
    assert answer == [403, "editor"]

    # The admin sees the new member with their role.
    password_sign_in(boss, *admin, app=app)
    go(boss, "#/members")
    row = visible(boss, f"#members tr[data-email='{viewer_email}']")
    assert Select(row.find_element("css selector", "select")).first_selected_option.get_attribute("value") == "viewer"
    assert not boss.find_elements("css selector", f"#invitations tr[data-email='{viewer_email}']")
    shot(boss, "42-members-with-viewer")


def test_admin_creates_a_token_shown_once_and_revokes_it(browser, admin):
    app = os.environ["RIVERS_APP"]
    password_sign_in(browser, *admin, app=app)
    go(browser, "#/tokens")
    name = f"CI job {uuid.uuid4().hex[:6]}"
    set_value(visible(browser, "#token-name"), name)
    Select(css(browser, "#token-role")).select_by_value("editor")
    css(browser, "#create-token").click()
    token = visible(browser, "#new-token").get_attribute("value")
    assert token.startswith("rvs_")
    row = visible(browser, f"#tokens tr[data-name='{name}']")
    assert "editor" in row.text and "Ada Admin" in row.text
    assert unlabelled_controls(browser) == []
    shot(browser, "45-tokens")

    # The token works, with its role.
    made = Api(token, app)
    status, _, _ = made.call("GET", "families")
    assert status == 200

    # Shown once: back on the page, only its name is listed.
    go(browser, "#/screens")
    go(browser, "#/tokens")
    visible(browser, f"#tokens tr[data-name='{name}']")
    assert not browser.find_elements("css selector", "#new-token")

    click(browser, css(browser, f"#tokens tr[data-name='{name}'] button"))
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: not d.find_elements("css selector", f"#tokens tr[data-name='{name}']"), message="token revoked")
    status, _, _ = made.call("GET", "families")
    assert status == 401


def test_activity_lists_the_invitation_and_filters(browser, admin):
    app = os.environ["RIVERS_APP"]
    setup = Api(os.environ["RIVERS_TOKEN"], app)
    invited = f"guest-{uuid.uuid4().hex[:8]}@example.com"
    setup.ok("POST", "invitations", {"email": f"second-{invited}", "role": "viewer"})
    setup.ok("POST", "invitations", {"email": invited, "role": "editor"})

    password_sign_in(browser, *admin, app=app)
    go(browser, "#/activity")
    row = wait(browser, lambda d: next((r for r in all_css(d, "#audit tr[data-kind='invitation']") if invited in r.text), False),
               message="invitation in the activity")
    assert "Invitation created" in row.text
    assert f"{invited}: editor" in row.text
    assert unlabelled_controls(browser) == []
    # Issue 29, 3: each entry shows its own request id (the ids share their leading digits).
    shown = [c.text for c in all_css(browser, "#audit code.request-id")]
    full = [c.get_attribute("title") for c in all_css(browser, "#audit code.request-id")]
    assert len(shown) >= 2 and len(set(shown)) == len(set(full)), (shown, full)
    assert all(text.lstrip("…") == ident[-12:] for text, ident in zip(shown, full)), (shown, full)
    shot(browser, "46-activity")

    # Only invitations.
    Select(css(browser, "#audit-kind")).select_by_value("invitation")
    css(browser, "#audit-apply").click()
    wait(browser, lambda d: "kind=invitation" in d.current_url, message="filter in the address")
    wait(browser, lambda d: all_css(d, "#audit tbody tr"), message="filtered entries")
    assert {r.get_attribute("data-kind") for r in all_css(browser, "#audit tbody tr")} == {"invitation"}
    # Nothing by someone who never did anything.
    set_value(css(browser, "#audit-actor"), "nobody@example.com")
    css(browser, "#audit-apply").click()
    wait(browser, lambda d: "No entries match" in css(d, "#audit").text, message="empty filter")


def test_settings_rename_change_slug_and_delete(browser, admin):
    binary = rivers_bin()
    slug = f"bt-{uuid.uuid4().hex[:10]}"
    token = subprocess.run([binary, "app", "create", slug, "--quiet"], check=True, capture_output=True, text=True).stdout.strip()
    scratch = Api(token, slug)

    password_sign_in(browser, *admin, app=slug)
    go(browser, "#/settings")
    set_value(visible(browser, "#app-name-input"), "Scratch app")
    css(browser, "#rename-app").click()
    wait(browser, lambda d: "Scratch app" in Select(css(d, "#app-switcher")).first_selected_option.text, message="renamed in the switcher")

    new_slug = f"{slug}-moved"
    set_value(css(browser, "#app-slug-input"), new_slug)
    assert f"/rivers/{new_slug}/" in css(browser, "#slug-new-url").text
    assert "90 days" in css(browser, "#slug-warning").text
    assert unlabelled_controls(browser) == []
    shot(browser, "47-settings")
    css(browser, "#change-slug").click()
    dialog = visible(browser, "dialog[open]")
    assert "90 days" in dialog.text
    dialog.find_element("css selector", ".button.danger").click()
    wait(browser, lambda d: text_of(d, "#app-slug") == new_slug, message="slug changed")
    status, body, _ = Api(token, new_slug).call("GET", f"/api/v1/apps/{new_slug}")
    assert status == 200 and body["name"] == "Scratch app"

    # The editor keeps working under the new slug.
    go(browser, "#/families")
    visible(browser, "#new-family-button")

    go(browser, "#/settings")
    click(browser, visible(browser, "#delete-app"))
    dialog = visible(browser, "dialog[open]")
    shot(browser, "48-delete-app-dialog")
    dialog.find_element("css selector", ".button.danger").click()
    def reopened(d):
        try:  # the page reloads: what was found may be gone the next moment
            return d.execute_script("return !document.getElementById('nav').hidden") and text_of(d, "#app-slug") not in ("", new_slug)
        except WebDriverException:
            return False
    wait(browser, reopened, message="another app opened")
    assert new_slug not in [o.get_attribute("value") for o in Select(css(browser, "#app-switcher")).options]
    status, _, _ = scratch.call("GET", "families")
    assert status == 401  # the app's tokens stopped with it


def test_activity_pages_through_older_entries(browser, admin, api):
    for i in range(55):
        api.ok("POST", "invitations", {"email": f"many-{i}@example.com", "role": "viewer"})
    password_sign_in(browser, *admin, app=api.app)
    go(browser, "#/activity?kind=invitation")
    wait(browser, lambda d: len(all_css(d, "#audit tbody tr")) == 50, message="first page")
    assert "50 of 55" in css(browser, "#audit-count").text
    newest = css(browser, "#audit tbody tr").text
    assert "many-54@example.com" in newest  # newest first
    click(browser, css(browser, "#audit-more"))
    wait(browser, lambda d: len(all_css(d, "#audit tbody tr")) == 55, message="older entries")
    assert "many-0@example.com" in all_css(browser, "#audit tbody tr")[-1].text
    assert not browser.find_elements("css selector", "#audit-more")


def test_an_administrator_with_many_apps_finds_one_by_searching(browser, admin):
    """The switcher holds the first 100 apps; past that a search field asks the server for the
    apps whose slug or name contains what is typed."""
    prefix = f"many-{uuid.uuid4().hex[:6]}"
    subprocess.run(["/usr/lib/postgresql/15/bin/psql", os.environ["DATABASE_URL"], "-q", "-v", "ON_ERROR_STOP=1", "-c",
                    f"INSERT INTO apps (id, slug, name) SELECT gen_random_uuid(), '{prefix}-' || lpad(n::text, 3, '0'), 'Many ' || n "
                    "FROM generate_series(1, 105) AS n"], check=True, capture_output=True)
    target = f"zz-{prefix}-target"
    subprocess.run([rivers_bin(), "app", "create", target, "--name", "The Needle", "--quiet"], check=True, capture_output=True,
                   env={**os.environ, "LOG_LEVEL": "warning"})
    email, password = admin
    password_sign_in(browser, email, password)
    search = visible(browser, "#app-search")
    assert not all_css(browser, f"#app-switcher option[value='{target}']"), "past the first page"
    set_value(search, "needle")
    visible(browser, f"#app-switcher option[value='{target}']")
    shot(browser, "team-app-search")
    set_value(search, "no app is called this")
    wait(browser, lambda d: "No app matches" in text_of(d, "#app-switcher"))
    open_app(browser, target)
    assert text_of(browser, "#app-slug") == target
    # A reload opens it again, though it is not on the first page.
    browser.refresh()
    wait(browser, lambda d: text_of(d, "#app-slug") == target, message="the app chosen stays open")


def test_the_app_is_in_every_address_and_remembered(browser, admin):
    """Issue 29, 1: every address names its app; a screen link opened in a new tab (a fresh page)
    opens that app's screen, not the first app's; the next sign-in opens the app used last."""
    first, second = make_app(), make_app()
    family = second.family()
    screen = second.screen(family["id"], "Deep link target")
    password_sign_in(browser, *admin, app=first.app)
    wait(browser, lambda d: f"#/apps/{first.app}/screens" in d.current_url, message="the app in the address")
    # A link to the other app's screen, opened in a page of its own.
    browser.get(f"{BASE_URL}/#/apps/{second.app}/screens/{screen['id']}")
    wait(browser, lambda d: text_of(d, "#app-slug") == second.app, message="the linked app opened")
    visible(browser, "input[data-pointer='/name']")
    wait(browser, lambda d: css(d, "input[data-pointer='/name']").get_attribute("value") == "Deep link target", message="the linked screen")
    assert f"#/apps/{second.app}/screens/{screen['id']}" in browser.current_url
    # The views' own links carry the app too.
    assert all(a.get_attribute("href").split("#", 1)[1].startswith(f"/apps/{second.app}/")
               for a in all_css(browser, "#nav a[data-nav]"))
    # Signed out and in again: the app used last opens.
    browser.delete_all_cookies()
    browser.execute_script("sessionStorage.clear()")
    password_sign_in(browser, *admin)
    wait(browser, lambda d: text_of(d, "#app-slug") == second.app, message="the last app remembered")
