"""Releases (issue 27) in the editor: channels made, published to, promoted and rolled back on the
Releases page, with the public URLs serving what the page says; release rules edited and saved,
an old app version's URL serving the pinned version and the preview saying so; a promotion
scheduled a few seconds ahead that fires; and what viewers and editors see."""
import datetime
import urllib.error
import urllib.request

from selenium.webdriver.support.ui import Select

from conftest import BASE_URL, Api, all_css, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait


def served_version(path):
    """The version a public URL serves (its X-Rivers-Version header), or its status when it fails."""
    try:
        with urllib.request.urlopen(f"{BASE_URL}{path}", timeout=15) as response:
            return int(response.headers["X-Rivers-Version"])
    except urllib.error.HTTPError as error:
        return error.code


def publish(api, note, channel=None):
    body = {"note": note}
    if channel:
        body["channel"] = channel
    return api.ok("POST", "publish", body)["version"]["number"]


def two_versions(api):
    """An app with versions 1 and 2 (production at 2)."""
    family = api.family()["id"]
    home = api.screen(family, "Home", home=True)
    publish(api, "first")
    api.ok("PATCH", f"screens/{home['id']}", {"name": "Home 2"}, etag="*")
    publish(api, "second")
    return home


def channel_row(browser, name):
    return visible(browser, f"#channels tr[data-channel='{name}']")


def wait_served(browser, name, version):
    wait(browser, lambda d: d.find_element("css selector", f"#channels tr[data-channel='{name}']").get_attribute("data-version") == str(version),
         message=f"{name} shows version {version}")


def test_make_a_channel_publish_to_it_promote_production_and_roll_back(browser, api):
    family = api.family()["id"]
    home = api.screen(family, "Home", home=True)
    publish(api, "first")
    sign_in(browser, api, "#/releases")
    row = channel_row(browser, "production")
    assert row.get_attribute("data-version") == "1" and "first" in row.text
    assert css(browser, "#channel-url-production").get_attribute("value") == f"{BASE_URL}/rivers/{api.app}/rivers.json"

    # A new channel, made in the page, serves version 1 at its own URL.
    set_value(visible(browser, "#new-channel-name"), "Staging")
    css(browser, "#create-channel").click()
    assert "lowercase letter" in visible(browser, "#new-channel-form .field-error").text
    set_value(css(browser, "#new-channel-name"), "staging")
    css(browser, "#create-channel").click()
    row = channel_row(browser, "staging")
    assert row.get_attribute("data-version") == "1"
    assert "Channel staging made" in visible(browser, "#channels-message").text
    assert css(browser, "#channel-url-staging").get_attribute("value") == f"{BASE_URL}/rivers/{api.app}/channels/staging/rivers.json"
    assert served_version(f"/rivers/{api.app}/channels/staging/rivers.json") == 1

    # Publishing to staging from the Publish page: staging gets version 2, production keeps 1.
    api.ok("PATCH", f"screens/{home['id']}", {"name": "Home, new"}, etag="*")
    go(browser, "#/publish")
    channel = visible(browser, "#publish-channel")
    wait(browser, lambda d: "staging" in [o.get_attribute("value") for o in Select(channel).options], message="staging offered")
    assert Select(channel).first_selected_option.get_attribute("value") == "production"
    Select(channel).select_by_value("staging")
    click(browser, css(browser, "#publish-button"))
    assert "channel staging" in visible(browser, "#publish-dialog-text").text
    visible(browser, "dialog[open] button[type=submit]").click()
    assert "to channel staging" in visible(browser, "#publish-message").text
    assert served_version(f"/rivers/{api.app}/channels/staging/rivers.json") == 2
    assert served_version(f"/rivers/{api.app}/rivers.json") == 1

    go(browser, "#/releases")
    wait_served(browser, "staging", 2)
    wait_served(browser, "production", 1)

    # Promote production to version 2 through the page: the main URL serves it.
    click(browser, css(browser, "#channels tr[data-channel='production'] [data-action='promote']"))
    Select(visible(browser, "#promote-version")).select_by_value("2")
    assert "get version 2 instead of version 1" in css(browser, "#promote-text").text
    visible(browser, "dialog[open] button[type=submit]").click()
    wait_served(browser, "production", 2)
    assert served_version(f"/rivers/{api.app}/rivers.json") == 2

    # The history says so.
    click(browser, css(browser, "#channels tr[data-channel='production'] .channel-history summary"))
    wait(browser, lambda d: "1 → 2" in css(d, "#channels tr[data-channel='production'] .history-list").text, message="history shows the move")
    browser.set_window_size(1440, 900)
    shot(browser, "61-releases-channels-1440")
    browser.set_window_size(1024, 768)
    shot(browser, "62-releases-channels-1024")
    assert unlabelled_controls(browser) == []

    # Roll back: production serves version 1 again.
    click(browser, css(browser, "#channels tr[data-channel='production'] [data-action='rollback']"))
    assert "to version 1" in visible(browser, "dialog[open] h2").text
    visible(browser, "dialog[open] .button.danger").click()
    wait_served(browser, "production", 1)
    assert served_version(f"/rivers/{api.app}/rivers.json") == 1
    # The open history follows.
    wait(browser, lambda d: "2 → 1" in css(d, "#channels tr[data-channel='production'] .history-list").text, message="history shows the rollback")


def test_a_rule_sends_an_old_app_version_to_a_pinned_version(browser, api):
    two_versions(api)
    api.ok("PUT", "channels/staging", {"version": 2})
    api.ok("PUT", "channels/qa", {"version": 1})
    sign_in(browser, api, "#/releases")
    visible(browser, "#no-rules")
    channel_row(browser, "qa")

    # What the editor can tell at once, at the field, in plain words.
    css(browser, "#add-rule").click()
    set_value(visible(browser, "#rule-0-from"), "5.2")
    set_value(css(browser, "#rule-0-below"), "5.2")
    click(browser, css(browser, "#save-rules"))
    errors = visible(browser, "#release-rules .field-error")
    assert "Below version must be above From version (5.2)" in css(browser, "#rule-0-below").find_element("xpath", "..").text
    assert "choose a channel or a version" in css(browser, "#rule-0-target").find_element("xpath", "..").text
    assert errors

    # google_play below 5.2 → version 1, pinned.
    Select(css(browser, "#rule-0-store")).select_by_value("google_play")
    set_value(css(browser, "#rule-0-from"), "")
    Select(css(browser, "#rule-0-target")).select_by_value("version:1")
    assert "Google Play apps below 5.2 → version 1 (pinned)" in css(browser, "#rule-0-who").text
    # A second rule for any store from 5 → qa overlaps it: said beside it as it is edited.
    css(browser, "#add-rule").click()
    set_value(visible(browser, "#rule-1-from"), "5")
    Select(css(browser, "#rule-1-target")).select_by_value("channel:qa")
    assert "Overlaps rule 1" in visible(browser, "#rule-1-warning").text
    assert not css(browser, "#rule-0-warning").is_displayed()
    assert "Unsaved changes" in css(browser, "#rules-state").text

    # The server's refusal lands at its field: qa is removed before the save.
    api.ok("DELETE", "channels/qa")
    click(browser, css(browser, "#save-rules"))
    target_field = css(browser, "#rule-1-target").find_element("xpath", "..")
    wait(browser, lambda d: "This app has no channel qa" in target_field.text, message="server problem at the target")
    assert "Rule 2" in css(browser, "#rules-errors").text
    # Move the second rule up and back, then point it at staging and save.
    # (A move draws the list again: each control is looked for once the move has been drawn.)
    def target_of(d, i):
        return Select(css(d, f"#rule-{i}-target")).first_selected_option.get_attribute("value")
    click(browser, css(browser, "button[aria-label='Move rule 2 up']"))
    wait(browser, lambda d: target_of(d, 0) == "channel:qa", message="the second rule moved up")
    click(browser, css(browser, "button[aria-label='Move rule 1 down']"))
    wait(browser, lambda d: target_of(d, 1) == "channel:qa", message="and back down")
    Select(css(browser, "#rule-1-target")).select_by_value("channel:staging")
    click(browser, css(browser, "#save-rules"))
    wait(browser, lambda d: css(d, "#rules-state").text.startswith("Saved"), message="rules saved")
    wait(browser, lambda d: "Overlaps rule 1" in css(d, "#rule-1-warning").text, message="the overlap is still said")

    rules = api.ok("GET", "release-rules")
    assert rules["rules"] == [
        {"store": "google_play", "from_version": None, "below_version": "5.2", "version": 1},
        {"store": None, "from_version": "5", "below_version": None, "channel": "staging"},
    ]
    assert [w["pointer"] for w in rules["warnings"]] == ["/rules/1"]
    assert served_version(f"/rivers/{api.app}/google_play/5.1/rivers.json") == 1
    assert served_version(f"/rivers/{api.app}/google_play/5.2/rivers.json") == 2  # rule 2: staging
    assert served_version(f"/rivers/{api.app}/apple_store/4.0/rivers.json") == 2  # production

    # Which URL gets what: the resolve preview and the examples.
    Select(css(browser, "#resolve-store")).select_by_value("google_play")
    set_value(css(browser, "#resolve-version"), "5.1")
    click(browser, css(browser, "#resolve-button"))
    answer = visible(browser, "#resolve-answer")
    assert answer.get_attribute("data-version") == "1" and "version 1, pinned" in answer.text and "rule 1" in answer.text
    assert css(browser, "#resolve-url").get_attribute("value") == f"{BASE_URL}/rivers/{api.app}/google_play/5.1/rivers.json"
    example = visible(browser, "#rule-examples tr[data-rule='0']")
    assert f"/rivers/{api.app}/google_play/5.1/rivers.json" in example.text and "version 1 (pinned)" in example.text
    assert "channel staging" in css(browser, "#rule-examples tr[data-rule='1']").text
    assert "production" in css(browser, "#rule-examples tr[data-rule='none']").text

    # staging cannot be removed while a rule sends apps to it: the page says why.
    click(browser, css(browser, "#channels tr[data-channel='staging'] [data-action='remove']"))
    visible(browser, "dialog[open] .button.danger").click()
    message = visible(browser, "#channels-message .field-error")
    assert "staging was not removed" in message.text and "release rule 2" in message.text
    channel_row(browser, "staging")

    click(browser, css(browser, "#rules-panel h2"))
    shoot_panel(browser, "rules-panel", "63-releases-rules-1440", "64-releases-rules-1024")
    assert unlabelled_controls(browser) == []


def shoot_panel(browser, panel, wide, narrow):
    """Screenshots of one panel at 1440 and at 1024 pixels."""
    for (width, height), name in (((1440, 900), wide), ((1024, 768), narrow)):
        browser.set_window_size(width, height)
        browser.execute_script("document.getElementById(arguments[0]).scrollIntoView()", panel)
        shot(browser, name)


def test_a_promotion_scheduled_in_the_page_fires(browser, api):
    two_versions(api)
    sign_in(browser, api, "#/releases")
    wait_served(browser, "production", 2)
    visible(browser, "#no-schedules")

    # One far ahead, cancelled.
    Select(visible(browser, "#schedule-version")).select_by_value("1")
    later = (datetime.datetime.now() + datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    browser.execute_script("arguments[0].value = arguments[1]", css(browser, "#schedule-at"), later)
    click(browser, css(browser, "#create-schedule"))
    row = visible(browser, "#schedules tr[data-state='pending']")
    click(browser, row.find_element("css selector", "button"))
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: all_css(d, "#schedules tr[data-state='cancelled']"), message="cancelled")

    # A time in the past is refused at its field.
    past = (datetime.datetime.now() - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    browser.execute_script("arguments[0].value = arguments[1]", css(browser, "#schedule-at"), past)
    click(browser, css(browser, "#create-schedule"))
    assert "must be in the future" in visible(browser, "#schedule-form .field-error").text

    # One 3 seconds ahead (the browser's local time, sent with its offset): it fires, and the page says so.
    soon = (datetime.datetime.now() + datetime.timedelta(seconds=3)).strftime("%Y-%m-%dT%H:%M:%S")
    browser.execute_script("arguments[0].value = arguments[1]", css(browser, "#schedule-at"), soon)
    Select(css(browser, "#schedule-channel")).select_by_value("production")
    Select(css(browser, "#schedule-version")).select_by_value("1")
    click(browser, css(browser, "#create-schedule"))
    visible(browser, "#schedules tr[data-state='pending']")
    # Pending first.
    assert css(browser, "#schedules tbody tr").get_attribute("data-state") == "pending"
    wait(browser, lambda d: all_css(d, "#schedules tr[data-state='fired']"), timeout=15, message="the schedule fired")
    fired = css(browser, "#schedules tr[data-state='fired']")
    assert "fired" in fired.text and "production" in fired.text and "late" not in fired.text
    wait_served(browser, "production", 1)
    assert served_version(f"/rivers/{api.app}/rivers.json") == 1
    shoot_panel(browser, "schedules-panel", "65-releases-schedules-1440", "66-releases-schedules-1024")


def test_rules_changed_by_someone_else_meanwhile_are_not_overwritten(browser, api):
    two_versions(api)
    api.ok("PUT", "release-rules", {"rules": [{"store": "apple_store", "from_version": "6.0", "version": 2}]})
    sign_in(browser, api, "#/releases", live=False)
    visible(browser, "#rule-0-store")
    api.ok("PUT", "release-rules", {"rules": [{"store": "google_play", "below_version": "4", "version": 1}]}, etag='"1"')
    set_value(css(browser, "#rule-0-from"), "6.1")
    click(browser, css(browser, "#save-rules"))
    assert "someone else changed the rules first" in visible(browser, "#rules-errors .field-error").text
    assert api.ok("GET", "release-rules")["rules"][0]["store"] == "google_play"  # theirs stays
    assert css(browser, "#rule-0-from").get_attribute("value") == "6.1"  # mine too, on screen
    click(browser, visible(browser, "#reload-rules"))
    wait(browser, lambda d: Select(css(d, "#rule-0-store")).first_selected_option.get_attribute("value") == "google_play", message="theirs shown")
    assert css(browser, "#rule-0-below").get_attribute("value") == "4"


CONTROLS = "#channels [data-action], #new-channel-form, #release-rules-form, #schedule-form, #schedules button"


def test_viewers_see_it_all_read_only_and_editors_make_preview_links_only(browser, api):
    two_versions(api)
    api.ok("PUT", "channels/staging", {"version": 1})
    api.ok("PUT", "release-rules", {"rules": [{"store": "google_play", "below_version": "5.2", "version": 1}]})
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).isoformat()
    api.ok("POST", "schedules", {"channel": "staging", "version": 2, "at": soon})

    viewer = Api(api.ok("POST", "tokens", {"name": "viewer", "role": "viewer"})["token"], api.app)
    sign_in(browser, viewer, "#/releases")
    channel_row(browser, "staging")
    assert "viewer" in visible(browser, "#releases-role").text
    visible(browser, "#release-rules-table tr[data-index='0']")
    assert "Google Play" in css(browser, "#release-rules-table").text
    visible(browser, "#schedules tr[data-state='pending']")
    assert all_css(browser, CONTROLS) == []
    assert not all_css(browser, "#create-preview-link")
    # Someone's promotion and rule change show without a reload (the live stream).
    api.ok("PUT", "channels/staging", {"version": 2})
    wait_served(browser, "staging", 2)
    api.ok("PUT", "release-rules", {"rules": [{"store": "google_play", "below_version": "5.3", "version": 1}]}, etag='"1"')
    wait(browser, lambda d: "5.3" in css(d, "#release-rules-table").text, message="the rules follow")
    # The channel's history and the resolve preview are for everyone.
    click(browser, css(browser, "#channels tr[data-channel='staging'] .channel-history summary"))
    visible(browser, "#channels tr[data-channel='staging'] .history-list")
    set_value(css(browser, "#resolve-version"), "5.1")
    Select(css(browser, "#resolve-store")).select_by_value("google_play")
    click(browser, css(browser, "#resolve-button"))
    assert visible(browser, "#resolve-answer").get_attribute("data-version") == "1"
    browser.set_window_size(1440, 900)
    shot(browser, "67-releases-viewer-1440")

    editor = Api(api.ok("POST", "tokens", {"name": "editor", "role": "editor"})["token"], api.app)
    browser.execute_script("sessionStorage.clear(); localStorage.clear();")
    sign_in(browser, editor, "#/releases")
    channel_row(browser, "staging")
    visible(browser, "#create-preview-link")
    assert all_css(browser, CONTROLS) == []
    assert "editor" in css(browser, "#releases-role").text
