"""Drives the console's Conversation page (Live → face-to-face conversation) in headless Chromium against a running
`earshot serve`: a person signs in, sets side A to English and side B to Spanish, taps side B and speaks Spanish
(Chromium's fake microphone plays a WAV file once), sees the Spanish words settle on side B with their English
translation, hears that translation spoken to side A (the page schedules every sample the server sent), ends the
conversation and opens the record it became.

Run by Tests/EarshotConsoleTests/ConsoleBrowserTests.swift (`twoPeopleConverseOnTheConversationPage`). Like
console_browser.py it prints one JSON object per line, {"step": ..., ...}, then {"done": true}; a failed check prints
{"failed": ...} and exits 1.
"""

from selenium.webdriver.common.by import By

from console_browser import Console, arguments, drive, fake_microphone


class ConversationConsole(Console):
    def __init__(self, args):
        super().__init__(args, flags=fake_microphone(args.speech))

    def finals_on(self, channel):
        """The final lines of side `channel` (one utterance may be cut into several turns at its pauses)."""
        return self.driver.find_elements(By.CSS_SELECTOR, f"#conv-items li.final[data-channel='{channel}']")

    def joined(self, rows, css):
        return " ".join(row.find_element(By.CSS_SELECTOR, css).text for row in rows)

    def run(self):
        self.step = "sign in"
        self.sign_in(self.args.email)
        self.report()

        self.step = "the conversation page"
        self.find('#bar nav a[href="#/live"]').click()
        self.find("#live-conversation").click()
        talk = self.find("#conv-talk-1")
        assert talk.is_enabled(), self.text("#conv-state")
        assert not self.find("#conv-end").is_enabled()
        self.find("#conv-language-0 option[value='en']").click()
        self.find("#conv-language-1 option[value='es']").click()
        self.report(state=self.text("#conv-state"))

        self.step = "side B speaks Spanish"
        talk.click()
        self.wait(lambda: self.text("#conv-state") == "Side B is speaking.", "side B speaking", 60)
        assert self.find("#conv-talk-1").get_attribute("aria-pressed") == "true"
        assert self.find("#conv-talk-0").get_attribute("aria-pressed") == "false"
        self.wait(lambda: "barcelona" in self.joined(self.finals_on(1), ".text").lower(),
                  "the Spanish words as final lines on side B", self.args.transcribe_timeout)
        self.wait(lambda: all(row.find_element(By.CSS_SELECTOR, ".translation").text.strip()
                              for row in self.finals_on(1)), "the English translations", self.args.transcribe_timeout)
        def translated(rows):
            return [row for row in rows
                    if not row.find_element(By.CSS_SELECTOR, ".translation").text.startswith("No translation")]
        self.wait(lambda: translated(self.finals_on(1))
                  and all(row.get_attribute("data-audio-ms") for row in translated(self.finals_on(1))),
                  "the translations spoken to side A", self.args.transcribe_timeout)
        rows = self.finals_on(1)
        played = []
        for row in translated(rows):
            audio_ms = int(row.get_attribute("data-audio-ms"))
            samples = int(row.get_attribute("data-played-samples") or 0)
            spoken = row.find_element(By.CSS_SELECTOR, ".spoken").text
            assert audio_ms > 300, audio_ms
            assert abs(samples * 1000 / 24000 - audio_ms) <= 25, (samples, audio_ms)
            assert spoken.startswith("Spoken to side A"), spoken
            played.append({"audio_ms": audio_ms, "played_samples": samples, "spoken": spoken})
        assert not self.finals_on(0), self.joined(self.finals_on(0), ".text")
        self.report(transcript=self.joined(rows, ".text"), translation=self.joined(rows, ".translation"),
                    lines=len(rows), played=played)
        self.shots("conversation")

        self.step = "end"
        self.find("#conv-end").click()
        link = self.find("#conv-record-link", 120)
        assert self.find("#conv-talk-0").is_enabled()
        self.report(state=self.text("#conv-state"), record=link.get_attribute("href"))

        self.step = "the record"
        link.click()
        self.wait(lambda: "barcelona" in self.text("#transcript").lower(), "the record's transcript", 60)
        self.report(source=self.find("#record-source").get_attribute("data-source"))

        self.step = "no policy violations"
        errors = self.policy_violations()
        assert not errors, errors
        self.report()


def main():
    drive(ConversationConsole(arguments("base", "artifacts", "email", "speech", transcribe_timeout=240.0)),
          "conversation-failure")


if __name__ == "__main__":
    main()
