"""Drives the console's Live page in headless Chromium against a running `earshot serve`: a person signs in, presses
Start and speaks (Chromium's fake microphone plays a WAV file once), sees their words settle as a final line with its
time, presses Stop and opens the record the session became.

Run by Tests/EarshotConsoleTests/ConsoleBrowserTests.swift (`aPersonSpeaksOnTheLivePageAndKeepsTheRecord`), which
creates the account with `earshot accounts create`. Like console_browser.py it prints one JSON object per line,
{"step": ..., ...}, then {"done": true}; a failed check prints {"failed": ...} and exits 1.
"""

from selenium.webdriver.common.by import By

from console_browser import Console, arguments, drive, fake_microphone


class LiveConsole(Console):
    def __init__(self, args):
        super().__init__(args, flags=fake_microphone(args.speech))

    def finals(self):
        return [element.text for element in self.driver.find_elements(By.CSS_SELECTOR, "#live-items li.final .text")]

    def run(self):
        self.step = "sign in"
        self.sign_in(self.args.email)
        self.report()

        self.step = "the live page"
        self.find('#bar nav a[href="#/live"]').click()
        start = self.find("#live-start")
        assert start.is_enabled(), self.text("#live-state")
        assert not self.find("#live-stop").is_enabled()
        self.report(state=self.text("#live-state"))

        self.step = "speak"
        self.find("#live-language option[value='en']").click()
        # Interim text (the words not yet stable, greyed after the stable ones) is replaced as the speaker goes on:
        # record every one the page shows.
        self.driver.execute_script("""
            window.interimSeen = [];
            new MutationObserver(() => {
              for (const span of document.querySelectorAll('#live-items .interim')) {
                if (span.textContent.trim()) window.interimSeen.push(span.textContent.trim());
              }
            }).observe(document.querySelector('#live-items'), { childList: true, subtree: true, characterData: true });
        """)
        start.click()
        self.wait(lambda: self.text("#live-state") == "Listening.", "listening", 60)
        # The clip ends "... ask what you can do for your country."; its last turn settles after the pause that
        # follows. (ConsoleBrowserTests scores all the final lines against what was said.)
        self.wait(lambda: any("what you can do for your country" in text.lower() for text in self.finals()),
                  "the clip's last words as a final line", self.args.transcribe_timeout)
        finals = self.finals()
        times = [element.text for element in self.driver.find_elements(By.CSS_SELECTOR, "#live-items li.final .time")]
        assert all(t and ":" in t for t in times), times
        interim = self.driver.execute_script("return window.interimSeen")
        assert interim, "no interim text was shown while the clip was spoken"
        assert not any(e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#live-items li.final .interim")), \
            "a final line still shows interim text"
        self.report(finals=finals, times=times, interim=interim[:5])
        self.shots("live")

        self.step = "stop"
        self.find("#live-stop").click()
        link = self.find("#live-record-link", 90)
        assert self.find("#live-start").is_enabled()
        self.report(state=self.text("#live-state"), record=link.get_attribute("href"))

        self.step = "the record"
        link.click()
        self.wait(lambda: "your country" in self.text("#transcript").lower(), "the record's transcript", 60)
        source = self.find("#record-source").get_attribute("data-source")
        assert source.startswith("live"), source
        self.report(source=source)

        self.step = "no policy violations"
        errors = self.policy_violations()
        assert not errors, errors
        self.report()


def main():
    drive(LiveConsole(arguments("base", "artifacts", "email", "speech", transcribe_timeout=240.0)), "live-failure")


if __name__ == "__main__":
    main()
