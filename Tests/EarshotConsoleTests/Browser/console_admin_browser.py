"""Drives the console's Admin and Devices pages in headless Chromium against a running `earshot serve`.

Run by Tests/EarshotConsoleTests/ConsoleBrowserTests.swift (`theOwnerAdministersTheInstanceAndDevicesAreManaged`),
which creates the instance owner and a member account with `earshot accounts create` and starts the server with no
workers (so a transcription task waits until revoked) and webhooks allowed to 127.0.0.1. This script plays the
partner's receiver itself (an HTTP server on 127.0.0.1 answering 200) and, like console_browser.py, prints one JSON
object per line, {"step": ..., ...}, then {"done": true}; a failed check prints {"failed": ...} and exits 1.
"""

import http.server
import json
import threading
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from console_browser import PASSWORD, Console, arguments, drive

XSS_PARTNER = "<script>window.__xss=3</script>Acme <img src=x onerror=window.__xss=4>"
XSS_DEVICE = "<img src=x onerror=window.__xss=5>Desk card"
SERIAL = "ES1-CONSOLE01"


class Receiver(http.server.BaseHTTPRequestHandler):
    """The partner's webhook receiver: remembers each POST and answers 200."""
    received = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.received.append({"signature": self.headers.get("Earshot-Signature"), "body": body.decode()})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


class AdminConsole(Console):
    # MARK: helpers

    def call(self, method, path, body=None, token=None):
        """The platform API from this script (a partner's backend): JSON in, (status, JSON) out."""
        request = urllib.request.Request(self.args.base + self.args.prefix + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            return error.code, json.loads(text) if text else None

    def partner_token(self, client_id, secret):
        status, answer = self.call("POST", "/open/partner/token", {"client_id": client_id, "client_secret": secret})
        return status, (answer or {}).get("access_token")

    def page_api(self, method, path, body=None):
        """A same-origin call from the page with the session cookie and CSRF header, as the console makes."""
        return self.driver.execute_async_script(
            """const [method, path, body, done] = arguments;
            const csrf = (document.cookie.split('; ').find((c) => c.startsWith('earshot_csrf=')) || '').slice(13);
            const headers = {'X-CSRF-Token': csrf};
            if (body !== null) headers['Content-Type'] = 'application/json';
            fetch(path, {method, headers, body: body === null ? undefined : JSON.stringify(body)})
              .then(async (r) => { const t = await r.text(); done({status: r.status, json: t ? JSON.parse(t) : null}); })
              .catch((e) => done({status: 0, json: String(e)}));""", method, self.args.prefix + path, body)

    def accept(self, what):
        self.wait(lambda: self.driver.switch_to.alert, what)
        text = self.driver.switch_to.alert.text
        self.driver.switch_to.alert.accept()
        return text

    def sign_in(self, email):
        self.open("#/sign-in")
        self.find("#f-address")
        self.type_into("#f-address", email)
        self.type_into("#f-password", PASSWORD + Keys.ENTER)
        self.wait(lambda: self.text("#library-title") == "Library", f"{email}'s library", 60)

    def no_xss(self):
        assert self.js("return window.__xss") is None, self.js("return window.__xss")
        assert not self.driver.find_elements(By.CSS_SELECTOR, "main img, main script")

    # MARK: the journey

    def run(self):
        receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=receiver.serve_forever, daemon=True).start()
        hook = f"http://127.0.0.1:{receiver.server_address[1]}/hook"

        self.step = "the owner signs in and sees Admin"
        self.sign_in(self.args.owner_email)
        self.find("#nav-admin").click()
        self.wait(lambda: self.text("h1") == "Admin", "the Admin page")
        self.wait(lambda: self.visible("#admin-status"), "the health section")
        checks = {e.get_attribute("data-check"): e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#admin-checks li")}
        assert set(checks) == {"metadata", "blobs", "disk"} and all(t.startswith("ok") for t in checks.values()), checks
        requests = int(self.text("#figure-requests"))
        assert requests > 0 and int(self.text("#figure-partners")) == 2, (requests, self.text("#figure-partners"))
        self.report(checks=checks, requests=requests)

        self.step = "create a partner: its secret is shown once"
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#partners[data-loaded] li"), "the partners")
        self.type_into("#partner-name", XSS_PARTNER + Keys.ENTER)
        self.find("#new-secret")
        client_id, secret = self.text("#new-client-id"), self.text("#new-client-secret")
        assert client_id.startswith("ptn_") and secret.startswith("sk_"), (client_id, secret)
        card = f"#partners li[data-partner='{client_id}']"
        self.wait(lambda: self.text(card + " .partner-name") == XSS_PARTNER, "the partner's literal name")
        self.no_xss()
        self.find("#new-secret-done").click()
        self.open("#/")
        self.open("#/admin")
        self.wait(lambda: self.visible(card), "the partner after a reload")
        assert secret not in self.driver.page_source, "the secret is shown again"
        status, token = self.partner_token(client_id, secret)
        assert status == 200 and token, status
        self.report(partner=client_id)

        self.step = "a webhook delivery and its redelivery"
        # As the partner's backend: a user, a file, a task with a callback; revoking the queued task is its event.
        status, user = self.call("POST", "/open/partner/user-token", {"user_id": "u1"}, token)
        assert status == 200, user
        user_token = user["access_token"]
        status, plan = self.call("POST", "/open/partner/files/upload/generate-presigned-urls",
                                 {"filesize": 16, "filetype": "wav"}, user_token)
        assert status == 200, plan
        part = urllib.request.Request(plan["Parts"][0]["PresignedUrl"], data=b"0123456789abcdef", method="PUT")
        with urllib.request.urlopen(part, timeout=30) as answer:
            etag = answer.headers["ETag"]
        status, done = self.call("POST", "/open/partner/files/upload/complete-upload", {
            "file_id": plan["FileId"], "upload_id": plan["UploadId"], "filetype": "wav",
            "part_list": [{"part_number": 1, "etag": etag}]}, user_token)
        assert status == 200, done
        status, task = self.call("POST", "/open/partner/transcriptions", {
            "file_url": plan["FileId"], "model": "asr-fast", "callback_url": hook, "user_id": "u1"}, token)
        assert status == 201, task
        status, revoked = self.call("POST", f"/open/partner/transcriptions/{task['task_id']}/revoke", None, token)
        assert status in (200, 202), (status, revoked)
        self.wait(lambda: len(Receiver.received) >= 1, "the webhook at the receiver", 60)
        # The table is re-read with its Refresh button until it shows what the receiver saw; rows are read and
        # clicked in one script each, since a refresh redraws them.

        def delivered(count):
            self.find("#refresh-deliveries").click()
            time.sleep(0.3)
            rows = self.js("""return [...document.querySelectorAll('#deliveries tbody tr')].map((r) => ({
                id: r.dataset.delivery, state: r.querySelector('[data-state]').dataset.state,
                text: [...r.cells].map((c) => c.textContent).join(' | ')}))""")
            return rows if len(rows) == count and all(r["state"] == "delivered" for r in rows) else None

        first = self.wait(lambda: delivered(1), "the delivered delivery", 60)[0]
        assert XSS_PARTNER in first["text"] and "HTTP 200" in first["text"] and task["task_id"] in first["text"], first
        self.no_xss()
        self.js("document.querySelector(`#deliveries tr[data-delivery='${arguments[0]}'] button.redeliver`).click()",
                first["id"])
        self.wait(lambda: len(Receiver.received) >= 2, "the redelivered webhook", 60)
        both = self.wait(lambda: delivered(2), "two delivered deliveries", 60)
        assert both[1]["id"] == first["id"], ("newest first", both)
        assert Receiver.received[0]["body"] == Receiver.received[1]["body"]
        self.report(deliveries=len(Receiver.received), row=first["text"])

        self.step = "rotate the secret with an overlap, disable and enable"
        Select(self.find("#rotate-overlap")).select_by_value("3600")
        self.find(card + " button.rotate").click()
        asked = self.accept("the rotation's confirmation")
        assert "1 hour" in asked, asked
        self.find("#new-secret")
        rotated = self.text("#new-client-secret")
        assert rotated.startswith("sk_") and rotated != secret
        assert self.partner_token(client_id, secret)[0] == 200, "the old secret stopped during its overlap"
        assert self.partner_token(client_id, rotated)[0] == 200
        self.find("#new-secret-done").click()
        self.find(card + " button.toggle").click()
        self.accept("the disable confirmation")
        self.wait(lambda: self.visible(card + " [data-status='disabled']"), "the disabled badge")
        assert self.partner_token(client_id, rotated)[0] == 401, "a disabled partner got a token"
        assert self.call("GET", "/open/partner/webhooks/secret", None, token)[0] == 401, "an old token still works"
        self.find(card + " button.toggle").click()
        self.wait(lambda: self.visible(card + " [data-status='active']"), "the active badge again")
        status, fresh = self.partner_token(client_id, rotated)
        assert status == 200
        self.find(card + " button.reveal").click()
        shown = self.wait(lambda: self.text(card + " .webhook-secret code"), "the webhook secret")
        assert shown == self.call("GET", "/open/partner/webhooks/secret", None, fresh)[1]["secret"], shown
        self.report(rotated=True)

        self.step = "admin screenshots"
        self.open("#/")
        self.open("#/admin")
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#deliveries tbody tr"), "the admin page again")
        self.js("document.getElementById('status').textContent = ''")
        self.shots("admin")
        self.report(controls=self.check_names())

        self.step = "register a device through the API"
        # What an app does when it binds a card (docs/devices.md): register, hand over the secret, relay its status.
        bound = self.page_api("POST", "/open/partner/devices",
                              {"serial": SERIAL, "model": "ES1", "firmware": "1.2.0", "name": XSS_DEVICE})
        assert bound["status"] == 201, bound
        secret = self.js("return btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))")
        assert self.page_api("PUT", f"/open/partner/devices/{SERIAL}/secret", {"secret": secret})["status"] == 200
        report = {"battery": 76, "charging": True, "storage_used": 12_500_000, "storage_total": 64_000_000,
                  "recording_count": 3, "recording": False}
        reported = self.page_api("POST", f"/open/partner/devices/{SERIAL}/status", {"report": report})
        assert reported["status"] == 200, reported
        self.report(device=bound["json"]["serial"])

        self.step = "the devices page"
        self.find("a[href='#/devices']").click()
        device = f"li.device[data-serial='{SERIAL}']"
        self.wait(lambda: self.visible(device), "the device card")
        card_text = self.text(device)
        assert self.text(device + " .device-name").startswith(XSS_DEVICE), self.text(device + " .device-name")
        for expected in ("Online", "76 % (charging)", "12.5 MB of 64 MB", "1.2.0", SERIAL):
            assert expected in card_text, (expected, card_text)
        assert self.text(device + " [data-fact='last-seen'] dd") not in ("", "never")
        self.no_xss()
        self.report(card=card_text)

        self.step = "device defaults"
        self.wait(lambda: self.visible("#defaults-form"), "the defaults form")
        transcribe = self.find("#default-auto_transcribe")
        if transcribe.is_selected():
            transcribe.click()
        Select(self.find("#default-language")).select_by_value("fr")
        Select(self.find("#default-model")).select_by_value("asr-pro")
        self.find("#defaults-form button[type=submit]").click()
        self.wait(lambda: self.text("#defaults-status").startswith("Saved"), "the saved defaults")
        saved = self.page_api("GET", "/open/partner/device-defaults")["json"]
        assert (saved["auto_transcribe"], saved["language"], saved["transcription_model"]) == (False, "fr", "asr-pro"), saved
        self.driver.refresh()
        self.wait(lambda: self.visible("#defaults-form"), "the defaults form after a reload")
        assert not self.find("#default-auto_transcribe").is_selected()
        assert Select(self.find("#default-language")).first_selected_option.get_attribute("value") == "fr"
        self.wait(lambda: "not transcribed" in self.text(device + " [data-fact='settings'] dd"), "the device following")
        self.report(defaults=saved)

        self.step = "homes: add, make current, rename, move the device, delete the empty one"
        first_home = self.find("section.home").get_attribute("data-home")
        self.type_into("#home-name", "Office" + Keys.ENTER)
        office = self.wait(lambda: next((s for s in self.driver.find_elements(By.CSS_SELECTOR, "section.home")
                                         if s.find_element(By.CSS_SELECTOR, "h3").text == "Office"), None), "Office")
        office_id = office.get_attribute("data-home")
        office.find_element(By.CSS_SELECTOR, "button.make-current").click()
        home = f"section.home[data-home='{office_id}']"
        self.wait(lambda: self.visible(home + " [data-current='true']"), "Office as the current home")
        self.type_into(f"#rename-{office_id}", "Studio" + Keys.ENTER)
        self.wait(lambda: self.text(home + " h3") == "Studio", "the renamed home")
        Select(self.find(f"#move-{SERIAL}")).select_by_value(office_id)
        self.wait(lambda: self.visible(home + " " + device), "the device in Studio")
        self.find(f"section.home[data-home='{first_home}'] button.delete-home").click()
        self.accept("the home's delete confirmation")
        self.wait(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "section.home")) == 1, "one home left")
        homes = self.page_api("GET", "/open/partner/homes")["json"]["homes"]
        assert [(h["name"], h["current"], h["device_count"]) for h in homes] == [("Studio", True, 1)], homes
        self.report(homes=homes)

        self.step = "rename the device"
        renamed = "Kitchen <b>card</b>"
        self.type_into(f"#rename-{SERIAL}", renamed + Keys.ENTER)
        self.wait(lambda: self.text(device + " .device-name").startswith(renamed), "the renamed device")
        assert not self.driver.find_elements(By.CSS_SELECTOR, "main b")
        self.report(name=renamed)

        self.step = "devices screenshots"
        self.js("document.getElementById('status').textContent = ''")
        self.shots("devices")
        self.report(controls=self.check_names())

        self.step = "a device's recording shows its device's name"
        # A second of silence as a WAV, uploaded by the page and registered as the device's recording 1.
        stored = self.driver.execute_async_script(
            """const [prefix, serial, done] = arguments;
            const csrf = (document.cookie.split('; ').find((c) => c.startsWith('earshot_csrf=')) || '').slice(13);
            const call = async (method, path, body) => {
              const r = await fetch(prefix + path, {method, headers: {'Content-Type': 'application/json',
                'X-CSRF-Token': csrf}, body: JSON.stringify(body)});
              const json = await r.json();
              if (!r.ok) throw new Error(path + ': ' + JSON.stringify(json));
              return json;
            };
            (async () => {
              const samples = 16000, wav = new DataView(new ArrayBuffer(44 + samples * 2));
              const text = (at, s) => [...s].forEach((c, i) => wav.setUint8(at + i, c.charCodeAt(0)));
              text(0, 'RIFF'); wav.setUint32(4, 36 + samples * 2, true); text(8, 'WAVEfmt ');
              wav.setUint32(16, 16, true); wav.setUint16(20, 1, true); wav.setUint16(22, 1, true);
              wav.setUint32(24, 16000, true); wav.setUint32(28, 32000, true); wav.setUint16(32, 2, true);
              wav.setUint16(34, 16, true); text(36, 'data'); wav.setUint32(40, samples * 2, true);
              const bytes = new Uint8Array(wav.buffer);
              const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
                .map((b) => b.toString(16).padStart(2, '0')).join('');
              const plan = await call('POST', '/open/partner/files/upload/generate-presigned-urls',
                {filesize: bytes.length, filetype: 'wav', filename: 'rec-1.wav'});
              const put = await fetch(plan.Parts[0].PresignedUrl, {method: 'PUT', body: bytes});
              await call('POST', '/open/partner/files/upload/complete-upload', {file_id: plan.FileId,
                upload_id: plan.UploadId, filetype: 'wav', part_list: [{part_number: 1, etag: put.headers.get('ETag')}]});
              return call('POST', `/open/partner/devices/${serial}/recordings`, {recording_id: 1,
                started_at_ms: Date.now() - 60000, duration_ms: 1000, size: bytes.length, codec: 'wav',
                sha256: digest, file_id: plan.FileId});
            })().then(done, (e) => done({error: String(e)}));""", self.args.prefix, SERIAL)
        assert "record_id" in stored, stored
        record = stored["record_id"]
        self.open("#/")
        item = f"#records li[data-record='{record}']"
        self.wait(lambda: self.visible(item), "the device's record in the library")
        self.wait(lambda: self.text(item + " .badge.source") == renamed, "the device's name as the record's source")
        options = lambda: self.js("return [...document.querySelectorAll('#filter-source option')].map((o) => [o.value, o.text])")
        self.wait(lambda: [f"device:{SERIAL}", renamed] in options(), "the device in the source filter")
        self.open(f"#/?source=device:{SERIAL}")
        self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#records[data-loaded] .record"), "the filtered list")
        assert [e.get_attribute("data-record") for e in self.driver.find_elements(By.CSS_SELECTOR, ".record")] == [record]
        assert Select(self.find("#filter-source")).first_selected_option.get_attribute("value") == f"device:{SERIAL}"
        self.open(f"#/records/{record}")
        self.wait(lambda: self.text("#record-source") == renamed, "the device's name on the record page")
        assert not self.driver.find_elements(By.CSS_SELECTOR, "main b")
        self.report(record=record)

        self.step = "remove the device"
        self.open("#/devices")
        self.find(device + " button.remove").click()
        asked = self.accept("the removal's confirmation")
        assert renamed in asked and SERIAL in asked, asked
        self.wait(lambda: not self.driver.find_elements(By.CSS_SELECTOR, device), "the device gone")
        self.wait(lambda: self.visible("section.home .empty"), "the empty home")
        self.open("#/")
        self.wait(lambda: self.text(item + " .badge.source") == f"device {SERIAL}", "the record kept, named by serial")
        self.report(kept=record)

        self.step = "a member sees no Admin"
        self.find("#sign-out").click()
        self.wait(lambda: self.driver.current_url.endswith("#/sign-in"), "the sign-in page")
        self.sign_in(self.args.member_email)
        assert not self.visible("#nav-admin"), "a member sees the Admin link"
        self.open("#/admin")
        self.wait(lambda: self.visible("#not-owner"), "the not-the-owner page")
        assert "earshot accounts grant-owner acc_" in self.text("main pre"), self.text("main pre")
        refused = self.page_api("GET", "/open/admin/partners")
        assert refused["status"] == 403 and refused["json"]["error"]["code"] == "OWNER_REQUIRED", refused
        self.report(refused=refused["json"]["error"]["code"])

        self.step = "console errors"
        errors = self.policy_violations()
        assert not errors, errors
        self.report()
        receiver.shutdown()


def main():
    drive(AdminConsole(arguments("base", "artifacts", "owner-email", "member-email")), "admin-failure")


if __name__ == "__main__":
    main()
