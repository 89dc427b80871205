"""Drives the Earshot web console in headless Chromium, as a person would, against a running `earshot serve`.

Run by Tests/EarshotConsoleTests/ConsoleBrowserTests.swift, which starts the server, creates the second account,
answers the verification code (from the server's log channel) through --code-file, and checks this script's output:
one JSON object per line, {"step": ..., ...}; the last line is {"done": true}. Any failed check raises, prints
{"failed": step, "error": ...} and exits 1, after saving a screenshot of the moment.
"""

import argparse
import json
import os
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

PASSWORD = "correct horse battery staple"
XSS_TITLE = "<script>window.__xss=1</script><img src=x onerror=window.__xss=2>"


def fake_microphone(speech):
    """Chromium switches for a microphone that plays the WAV file `speech` once, allowed without asking."""
    return ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={speech}%noloop")


class Console:
    def __init__(self, args, flags=()):
        """`flags`: more Chromium switches (the live page's fake microphone)."""
        self.args = args
        self.step = "start"
        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--lang=en-US",
                     "--window-size=1280,900", *flags):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(args.chromedriver))
        self.driver.set_page_load_timeout(60)
        self.driver.set_script_timeout(60)

    # MARK: helpers

    def report(self, **fields):
        print(json.dumps({"step": self.step, **fields}), flush=True)

    def sign_in(self, email):
        """Signs in with `email` and PASSWORD and waits for the library."""
        self.open("#/sign-in")
        self.type_into("#f-address", email)
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", "the library", 60)

    def policy_violations(self):
        """The Content-Security-Policy violations the browser logged so far."""
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and "Content Security Policy" in entry["message"]]

    def wait(self, condition, what, timeout=30):
        try:
            # The page re-renders parts of itself (a saved rename, a finished task): an element found a moment ago
            # may be gone, which only means "look again".
            return WebDriverWait(self.driver, timeout, poll_frequency=0.2,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition())
        except TimeoutException:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")

    def find(self, css, timeout=30):
        return self.wait(lambda: self.visible(css), f"`{css}` to show", timeout)

    def visible(self, css):
        for element in self.driver.find_elements(By.CSS_SELECTOR, css):
            if element.is_displayed():
                return element
        return None

    def text(self, css):
        element = self.visible(css)
        return element.text if element else ""

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def open(self, hash_path):
        self.driver.get(self.args.base + "/" + hash_path)

    def type_into(self, css, text, clear=True):
        element = self.find(css)
        if clear:
            element.clear()
        element.send_keys(text)
        return element

    def screenshot(self, name):
        path = os.path.join(self.args.artifacts, name + ".png")
        self.driver.save_screenshot(path)
        return path

    def api(self, method, path):
        """A same-origin API call from the page, with the session cookie and the CSRF header (as the console does)."""
        return self.driver.execute_async_script(
            """const [method, path, done] = arguments;
            const csrf = (document.cookie.split('; ').find((c) => c.startsWith('earshot_csrf=')) || '').slice(13);
            fetch(path, {method, headers: {'X-CSRF-Token': csrf}})
              .then(async (r) => done({status: r.status, csp: r.headers.get('Content-Security-Policy') || '', text: await r.text()}))
              .catch((e) => done({status: 0, text: String(e)}));""", method, path)

    def shots(self, name):
        """Screenshots at 1280 px and 390 px, light and dark."""
        saved = []
        self.js("window.scrollTo(0, 0)")
        for width, height in ((1280, 900), (390, 844)):
            self.driver.set_window_size(width, height)
            for scheme in ("light", "dark"):
                self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
                    "features": [{"name": "prefers-color-scheme", "value": scheme}]})
                time.sleep(0.3)
                saved.append(self.screenshot(f"{name}-{width}-{scheme}"))
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        self.driver.set_window_size(1280, 900)
        return saved

    # MARK: the journey

    def run(self):
        self.step = "sign-in page"
        self.open("")
        self.wait(lambda: self.driver.current_url.endswith("#/sign-in"), "the redirect to #/sign-in")
        assert self.text("h1") == "Sign in to Earshot", self.text("h1")
        self.shots("sign-in")
        self.report(url=self.driver.current_url)

        self.step = "sign up"
        self.find("a[href='#/sign-up']").click()
        self.find("#f-address")
        self.type_into("#f-address", self.args.email)
        self.type_into("#f-nickname", "Ada")
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("h1") == "Enter your code", "the code form", 60)
        print(json.dumps({"step": self.step, "need_code": True}), flush=True)
        code = self.wait_for_code()
        self.type_into("#f-code", code + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", "the library after verifying", 60)
        assert self.text("#who") == "Ada", self.text("#who")
        self.report(who=self.text("#who"))

        self.step = "sign out and in"
        self.find("#sign-out").click()
        self.wait(lambda: self.driver.current_url.endswith("#/sign-in"), "the sign-in page after signing out")
        assert "You are signed out." in self.text(".notice"), self.text(".notice")
        self.type_into("#f-address", self.args.email)
        self.type_into("#f-password", "wrong password" + Keys.ENTER)
        self.wait(lambda: self.text("#form-error"), "the wrong-password message")
        wrong = self.text("#form-error")
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", "the library after signing in", 60)
        self.report(wrong_password=wrong)

        self.step = "upload a non-audio file"
        fake = os.path.join(self.args.artifacts, "not-audio.wav")
        with open(fake, "w") as handle:
            handle.write("these are notes, not sound\n" * 40)
        self.driver.find_element(By.ID, "upload-file").send_keys(fake)
        self.wait(lambda: self.text("#upload-error"), "the upload error", 60)
        refused = self.text("#upload-error")
        assert refused.startswith("not-audio.wav: ") and len(refused) > 30, refused
        self.report(error=refused)

        self.step = "an interrupted upload resumes"
        # Slow the upload down, leave the page once the first part is stored, come back and choose the file again.
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 96 * 1024})
        self.driver.find_element(By.ID, "upload-file").send_keys(self.args.audio)
        self.wait(lambda: float(self.find("#upload-progress").get_attribute("value") or 0) >= 30,
                  "the first part to be sent", 60)
        self.driver.refresh()
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.find("#upload")
        self.js("""window.__statuses = [];
            new MutationObserver(() => {
              const status = document.getElementById('upload-status');
              if (status && status.textContent) window.__statuses.push(status.textContent);
            }).observe(document.body, {subtree: true, childList: true, characterData: true});""")

        self.step = "upload speech"
        started = time.monotonic()
        self.driver.find_element(By.ID, "upload-file").send_keys(self.args.audio)
        self.wait(lambda: "#/records/rec_" in self.driver.current_url, "the record page after the upload", 120)
        record_url = self.driver.current_url
        statuses = self.js("return window.__statuses")
        assert any("(resumed)" in status for status in statuses), statuses
        record_id = record_url.split("#/records/")[1].split("?")[0]

        self.step = "the library shows the running transcription until it ends"
        # Transcribing and telling speakers apart takes seconds; the list is read well within them.
        self.open("#/")
        item = f"#records li[data-record='{record_id}']"
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, item + " .badge.busy"), "the running task's badge")
        busy = self.text(item + " .badge.busy")
        assert busy.startswith("Transcribing"), busy
        self.wait(lambda: not self.driver.find_elements(By.CSS_SELECTOR, item + " .badge.busy")
                  and "transcript" in [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, item + " .badge.ok")],
                  "the list to show the transcript without a reload", self.args.transcribe_timeout)
        self.report(busy=busy)

        self.step = "the transcript on the record page"
        self.open(f"#/records/{record_id}")
        self.wait(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, ".sentence")) >= 3,
                  "three transcript sentences", self.args.transcribe_timeout)
        sentences = self.js("return [...document.querySelectorAll('.sentence')].map((b) => "
                            "({start: +b.dataset.start, speaker: b.querySelector('.speaker')?.textContent ?? null, "
                            "text: b.querySelector('.text').textContent}))")
        self.report(record_id=record_id, seconds=round(time.monotonic() - started, 1), sentences=sentences,
                    first_status=next(status for status in statuses if "(resumed)" in status))

        self.step = "waveform"
        self.find("#wave")
        painted = self.js("""const c = document.getElementById('wave');
            const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0; for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
            return {painted: n, width: c.width, height: c.height, buckets: +c.dataset.drawn};""")
        assert painted["buckets"] > 0 and painted["painted"] > painted["width"], painted
        self.report(**painted)

        self.step = "click the third sentence"
        third = self.driver.find_elements(By.CSS_SELECTOR, ".sentence")[2]
        target = int(third.get_attribute("data-start")) / 1000
        third.click()
        self.wait(lambda: abs(self.js("return document.getElementById('player').currentTime") - target) < 1.5,
                  f"the player to move to {target} s")
        now = self.js("return document.getElementById('player').currentTime")
        assert now >= target - 0.05, (now, target)
        self.js("document.getElementById('player').pause()")
        self.report(target=target, current_time=now)

        self.step = "keyboard"
        # Focus stays on the clicked sentence: Tab moves to the next one, Enter plays from there.
        fourth = self.driver.find_elements(By.CSS_SELECTOR, ".sentence")[3]
        target = int(fourth.get_attribute("data-start")) / 1000
        self.driver.switch_to.active_element.send_keys(Keys.TAB)
        assert self.js("return document.activeElement === arguments[0]", fourth), "Tab did not reach the next sentence"
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        self.wait(lambda: abs(self.js("return document.getElementById('player').currentTime") - target) < 1.5,
                  f"the player to move to {target} s after Enter")
        self.js("document.getElementById('player').pause()")
        self.report(target=target, current_time=self.js("return document.getElementById('player').currentTime"))

        self.step = "accessible names on the record page"
        self.report(controls=self.check_names())

        self.step = "rename a speaker"
        if not self.visible("#speaker-0"):
            raise AssertionError("no speakers shown (diarization found none)")
        old = self.wait(lambda: self.visible("#speaker-0").get_attribute("value"), "the first speaker's name")
        self.type_into("#speaker-0", "Alice" + Keys.ENTER)
        self.wait(lambda: "Alice" in [s.text for s in self.driver.find_elements(By.CSS_SELECTOR, ".sentence .speaker")],
                  "Alice in the transcript")
        # A rename is saved when the field loses focus too: type, click elsewhere, nothing is lost.
        second = self.wait(lambda: self.visible("#speaker-1").get_attribute("value"), "the second speaker's name")
        self.type_into("#speaker-1", "Bea")
        self.find("#transcript-title").click()
        self.wait(lambda: "Bea" in [s.text for s in self.driver.find_elements(By.CSS_SELECTOR, ".sentence .speaker")],
                  "Bea in the transcript after clicking elsewhere")
        self.driver.refresh()
        self.wait(lambda: {"Alice", "Bea"} <= {s.text for s in self.driver.find_elements(
            By.CSS_SELECTOR, ".sentence .speaker")}, "Alice and Bea in the transcript after a reload")
        exported = self.api("GET", self.find("#export-txt").get_attribute("href"))
        assert exported["status"] == 200 and "[Alice]" in exported["text"] and "[Bea]" in exported["text"], exported
        self.report(renamed=[old, second], export=exported["text"][:200])

        self.step = "summarize"
        # The button is enabled once the record's transcript is loaded; a click before that does nothing.
        self.wait(lambda: self.find("#run-summary").is_enabled(), "the Summarize button to be enabled")
        self.find("#run-summary").click()
        self.wait(lambda: self.visible("#summary"), "the summary", self.args.transcribe_timeout)
        self.wait(lambda: "Summary success" in self.text("#tasks"), "the summary task's success")
        abstract = self.text("#summary p")
        assert abstract, "empty summary"
        jumps = self.driver.find_elements(By.CSS_SELECTOR, "#summary button.link")
        moved = None
        if jumps:
            target = self.js("return arguments[0].textContent", jumps[-1])
            jumps[-1].click()
            self.wait(lambda: self.js("return document.getElementById('player').currentTime") > 0, "a seek")
            self.js("document.getElementById('player').pause()")
            moved = {"link": target, "current_time": self.js("return document.getElementById('player').currentTime")}
            minutes, seconds = target.split(":")
            assert 0 <= moved["current_time"] - (int(minutes) * 60 + int(seconds)) < 2, moved
        self.report(abstract=abstract[:200], jump=moved)

        self.step = "translate"
        Select(self.find("#translate-from")).select_by_value("speech")
        self.wait(lambda: self.find("#run-translate").is_enabled(), "the Translate button to be enabled")
        self.find("#run-translate").click()
        self.wait(lambda: self.visible("#translations"), "the translation", self.args.transcribe_timeout)
        rows = self.js("return [...document.querySelectorAll('#translations tbody tr')].map((r) => "
                       "[...r.cells].map((c) => c.textContent))")
        spoken = self.js("return [...document.querySelectorAll('.sentence .text')].map((e) => e.textContent)")
        beside = " ".join(row[1] for row in rows)
        assert len(rows) >= 3 and all(row[2] for row in rows), rows
        assert all(text in beside for text in spoken), ("an original sentence is missing beside the translation", rows)
        self.report(rows=rows[:3])

        self.step = "screenshots"
        self.shots("record")
        self.open("#/")
        self.find(".record .title")
        self.shots("library")
        self.report(controls=self.check_names())

        self.step = "search"
        word = self.args.search
        self.type_into("#q", word + Keys.ENTER)
        hit = self.find("a.hit")
        snippet = hit.text
        assert word.lower() in self.js("return arguments[0].querySelector('mark').textContent", hit).lower(), snippet
        href = hit.get_attribute("href")
        at = int(href.split("?t=")[1]) / 1000
        hit.click()
        self.wait(lambda: self.visible(".sentence[aria-current='true']") is not None,
                  "the hit's sentence to be marked as the current one")
        current = self.visible(".sentence[aria-current='true']")
        assert word.lower() in current.text.lower(), current.text
        position = self.js("return document.getElementById('player').currentTime")
        assert abs(position - at) < 0.5, (position, at)
        self.report(snippet=snippet, at=at, current_time=position)

        self.step = "HTML in titles is text"
        self.find("#edit-title").click()
        self.type_into("#edit-title-input", XSS_TITLE)
        self.type_into("#edit-tags-input", "<b>bold</b>, work" + Keys.ENTER)
        self.wait(lambda: self.text("#record-title") == XSS_TITLE, "the literal title")
        assert self.js("return window.__xss") is None
        self.open("#/")
        self.wait(lambda: self.text(".record .title") == XSS_TITLE, "the literal title in the library")
        assert "#<b>bold</b>" in self.text(".record .tags")
        assert self.js("return window.__xss") is None
        assert not self.driver.find_elements(By.CSS_SELECTOR, "main img, main b, main script")
        self.report(title=self.text(".record .title"))

        self.step = "HTML in search snippets is text"
        self.type_into("#q", "xss" + Keys.ENTER)
        hit = self.find("a.hit")
        assert "<script>window.__xss=1</script>" in hit.text, hit.text
        assert not self.driver.find_elements(By.CSS_SELECTOR, "main img, main script")
        assert self.js("return window.__xss") is None
        self.report(snippet=hit.text)

        self.step = "filter by tag"
        self.open("#/")
        self.find(".record a.tag[href='#/?tag=work']").click()
        self.wait(lambda: self.driver.current_url.endswith("#/?tag=work")
                  and self.driver.find_elements(By.CSS_SELECTOR, "#records[data-loaded] .record"), "the filtered list")
        assert [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".record .title")] == [XSS_TITLE]
        assert self.find("#filter-tag").get_attribute("value") == "work"
        self.open("#/?tag=nothing-has-this")
        self.wait(lambda: self.text("#records .empty"), "the empty filtered list")
        self.report(empty=self.text("#records .empty"))

        self.step = "a second account's library"
        self.find("#sign-out").click()
        self.wait(lambda: self.driver.current_url.endswith("#/sign-in"), "the sign-in page")
        self.type_into("#f-address", self.args.other_email)
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", "Bob's library")
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#records[data-loaded] .record"), "Bob's records")
        titles = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".record .title")]
        assert XSS_TITLE not in titles, "Bob sees Ada's record"
        self.report(shown=len(titles))

        self.step = "first page of a large library"
        timings = []
        for attempt in range(3):
            timings.append(self.js("""document.getElementById('main').replaceChildren();
                const t0 = performance.now();
                location.hash = '#/?attempt=' + arguments[0];
                return new Promise((resolve) => {
                  const check = () => document.querySelector('#records[data-loaded]')
                    ? resolve(performance.now() - t0) : requestAnimationFrame(check);
                  requestAnimationFrame(check);
                });""", attempt))
        rows = len(self.driver.find_elements(By.CSS_SELECTOR, ".record"))
        first = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".record .title")]
        self.find("#more").click()
        self.wait(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, ".record")) == 2 * rows, "the second page")
        both = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".record .title")]
        assert both[:rows] == first and len(set(both)) == len(both), "paging repeated or moved records"
        self.report(render_ms=[round(t, 1) for t in timings], rows=rows)

        self.step = "another account's record is not found (Bob opens Ada's)"
        self.open(f"#/records/{record_id}")
        self.wait(lambda: self.text("h1") == "Not found", "Not found for Ada's record")
        self.report(shown=self.text("main"))

        self.step = "an ended session goes back to sign-in"
        cookie = self.driver.get_cookie("earshot_session")
        ended = self.api("POST", self.args.prefix + "/open/accounts/sign-out")
        assert ended["status"] == 204, ended
        self.driver.add_cookie({k: cookie[k] for k in ("name", "value", "path") if k in cookie})
        self.open("#/")
        self.wait(lambda: self.driver.current_url.endswith("#/sign-in"), "the sign-in page for the ended session")
        self.report(notice=self.text(".notice"))

        self.step = "delete"
        self.type_into("#f-address", self.args.email)
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", "Ada's library")
        self.open(f"#/records/{record_id}")
        self.find("#delete").click()
        self.wait(lambda: self.driver.switch_to.alert, "the confirmation")
        self.driver.switch_to.alert.accept()
        self.wait(lambda: self.text("#library-title") == "Library", "the library after deleting")
        self.wait(lambda: not self.driver.find_elements(By.CSS_SELECTOR, ".record .title"), "an empty library")
        self.open(f"#/records/{record_id}")
        self.wait(lambda: self.text("h1") == "Not found", "Not found after deleting")
        self.report()

        self.step = "quality: a reference clip scored"
        # JFK with its reference, a stray file the page names as unpaired; the clip is uploaded, transcribed and
        # scored on the server; the evaluation shows its figures and the sandboxed HTML report, then is deleted.
        self.open("#/quality")
        self.find("#quality-form")
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#no-evaluations, #evaluations"), "the list")
        stray = os.path.join(self.args.artifacts, "notes.pdf")
        with open(stray, "w") as handle:
            handle.write("not a clip")
        self.driver.find_element(By.ID, "quality-files").send_keys(
            "\n".join([self.args.reference_audio, self.args.reference_text, stray]))
        self.wait(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#quality-pairs li")) == 2, "the pairs")
        pairs = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#quality-pairs li")]
        assert pairs[0] == "jfk.wav ↔ jfk.txt" and "notes.pdf" in pairs[1], pairs
        self.type_into("#quality-title", "Inaugural <i>check</i>")
        self.find("#quality-run").click()
        self.wait(lambda: "#/quality/evl_" in self.driver.current_url, "the evaluation page",
                  self.args.transcribe_timeout)
        self.wait(lambda: self.text("#evaluation-title") == "Inaugural <i>check</i>", "the literal title")
        figures = dict(zip([e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#evaluation-figures dt")],
                           [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#evaluation-figures dd")]))
        wer = float(figures["WER"].rstrip(" %"))
        assert wer <= 10 and figures["Reference words"] == "22", figures
        report = self.find("#evaluation-report")
        assert report.get_attribute("src").endswith("/report"), report.get_attribute("src")
        fetched = self.api("GET", report.get_attribute("src"))
        assert fetched["status"] == 200 and "sandbox" in fetched["csp"] and "<i>check</i>" not in fetched["text"], \
            {k: v if k != "text" else v[:200] for k, v in fetched.items()}
        self.shots("quality")
        self.report(figures=figures, controls=self.check_names())
        self.open("#/quality")
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#evaluations tbody tr"), "the evaluation listed")
        self.find("#evaluations tbody a").click()
        self.find("#evaluation-delete").click()
        self.wait(lambda: self.driver.switch_to.alert, "the confirmation")
        self.driver.switch_to.alert.accept()
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#no-evaluations"), "no evaluations left")
        self.report()

        self.step = "console errors"
        errors = self.policy_violations()
        assert not errors, errors
        self.report()

    def check_names(self):
        """Every visible control has an accessible name (Chromium's computed label, as a screen reader reads it)."""
        controls = [e for e in self.driver.find_elements(By.CSS_SELECTOR, "a, button, input, select, canvas, audio")
                    if e.is_displayed()]
        unnamed = [e.get_attribute("outerHTML")[:120] for e in controls if not (e.accessible_name or "").strip()]
        assert not unnamed, unnamed
        return len(controls)

    def wait_for_code(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(self.args.code_file):
                with open(self.args.code_file) as handle:
                    code = handle.read().strip()
                if len(code) == 6:
                    return code
            time.sleep(0.2)
        raise AssertionError("no verification code arrived in " + self.args.code_file)


def arguments(*required, **defaults):
    """The script's command line: `required` options, the browser's paths and `defaults` (name: value)."""
    parser = argparse.ArgumentParser()
    for name in required:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--prefix", default="")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    for name, value in defaults.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return parser.parse_args()


def drive(console, failure):
    """Runs the journey: {"done": true} at the end; a failure prints {"failed": ...} with a screenshot named
    `failure` and exits 1. The browser is closed either way."""
    try:
        console.run()
        print(json.dumps({"done": True}), flush=True)
    except Exception as error:  # noqa: BLE001 - every failure is reported the same way
        shot = None
        try:
            shot = console.screenshot(failure)
        except Exception:  # noqa: BLE001
            pass
        print(json.dumps({"failed": console.step, "error": f"{type(error).__name__}: {error}", "screenshot": shot,
                          "url": console.driver.current_url}), flush=True)
        sys.exit(1)
    finally:
        console.driver.quit()


def main():
    args = arguments("base", "code-file", "audio", "reference-audio", "reference-text", "artifacts", "email",
                     "other-email", "search", transcribe_timeout=240.0)
    drive(Console(args), "failure")


if __name__ == "__main__":
    main()
