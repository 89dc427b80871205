"""The official `openai` Python SDK, unmodified, against `earshot serve`.

Run by Tests/EarshotCLITests/OpenAISDKTests.swift (make test) with:
  BASE          the server, http://127.0.0.1:PORT
  TOKEN         a partner token (the SDK's api_key)
  USER_TOKEN    a user token (refused: the OpenAI endpoints are partner-only)
  SPEECH        one speaker (JFK's inaugural clip)
  DIALOGUE      two espeak-ng voices taking turns
  ENROLMENT     a sample of the dialogue's first voice (a known speaker)
  SCRATCH       a directory for files the tests write
"""

import base64
import io
import json
import os
import unittest

import openai
from openai import OpenAI

BASE = os.environ["BASE"] + "/v1"
client = OpenAI(base_url=BASE, api_key=os.environ["TOKEN"], max_retries=0, timeout=600)
PHRASE = "ask not what your country can do for you"


def speech():
    return open(os.environ["SPEECH"], "rb")


class Transcriptions(unittest.TestCase):
    def test_json_text_srt_vtt(self):
        with speech() as f:
            r = client.audio.transcriptions.create(model="whisper-1", file=f)
        self.assertIn(PHRASE, r.text.lower())
        self.assertEqual(r.usage.type, "duration")
        self.assertAlmostEqual(r.usage.seconds, 11.0, delta=0.2)
        with speech() as f:
            text = client.audio.transcriptions.create(model="asr-fast", file=f, response_format="text")
        self.assertIn(PHRASE, text.lower())
        with speech() as f:
            srt = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="srt")
        self.assertTrue(srt.startswith("1\n00:00:00,"), srt)
        with speech() as f:
            vtt = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="vtt")
        self.assertTrue(vtt.startswith("WEBVTT"), vtt)

    def test_verbose_json_has_real_tokens_compression_ratio_and_words(self):
        with speech() as f:
            r = client.audio.transcriptions.create(
                model="whisper-1", file=f, response_format="verbose_json", language="en",
                timestamp_granularities=["word", "segment"], temperature=0, prompt="JFK inaugural address.")
        self.assertEqual(r.language, "en")
        self.assertAlmostEqual(r.duration, 11.0, delta=0.2)
        self.assertTrue(r.segments)
        for s in r.segments:
            self.assertLess(s.start, s.end)
            self.assertTrue(s.tokens, "every segment lists its token ids")
            self.assertTrue(all(isinstance(t, int) and t >= 0 for t in s.tokens))
            self.assertGreater(s.compression_ratio, 0.5)
            self.assertLess(s.compression_ratio, 2.4, "natural speech does not compress like a loop")
            self.assertLess(s.avg_logprob, 0)
        self.assertGreater(len(r.words), 15)

    def test_logprobs(self):
        with speech() as f:
            r = client.audio.transcriptions.create(model="whisper-1", file=f, include=["logprobs"])
        self.assertTrue(r.logprobs)
        self.assertEqual("".join(p.token for p in r.logprobs).strip(), r.text)
        self.assertTrue(all(p.logprob <= 0 for p in r.logprobs))

    def test_stream_yields_deltas_then_done(self):
        with speech() as f:
            stream = client.audio.transcriptions.create(model="whisper-1", file=f, stream=True)
            events = list(stream)
        types = [e.type for e in events]
        self.assertGreaterEqual(types.count("transcript.text.delta"), 1, types)
        self.assertEqual(types[-1], "transcript.text.done")
        deltas = "".join(e.delta for e in events if e.type == "transcript.text.delta")
        self.assertEqual(deltas, events[-1].text)
        self.assertIn(PHRASE, events[-1].text.lower())

    def test_stream_with_logprobs(self):
        with speech() as f:
            events = list(client.audio.transcriptions.create(
                model="whisper-1", file=f, stream=True, include=["logprobs"]))
        deltas = [e for e in events if e.type == "transcript.text.delta"]
        self.assertTrue(all(e.logprobs for e in deltas))
        self.assertTrue(events[-1].logprobs)

    def test_chunking_strategies(self):
        for strategy in ["auto", {"type": "server_vad", "threshold": 0.4, "silence_duration_ms": 300,
                                  "prefix_padding_ms": 100}]:
            with speech() as f:
                r = client.audio.transcriptions.create(model="whisper-1", file=f, chunking_strategy=strategy)
            self.assertIn(PHRASE, r.text.lower())

    def test_keywords_are_accepted(self):
        with speech() as f:
            r = client.audio.transcriptions.create(model="whisper-1", file=f, keywords=["Americans"])
        self.assertIn("americans", r.text.lower())


class Diarization(unittest.TestCase):
    def test_diarized_json_labels_two_speakers(self):
        with open(os.environ["DIALOGUE"], "rb") as f:
            r = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="diarized_json")
        self.assertEqual(r.task, "transcribe")
        speakers = [s.speaker for s in r.segments]
        self.assertEqual(speakers[0], "A", "speakers are lettered in order of appearance")
        self.assertGreaterEqual(len(set(speakers)), 2, speakers)
        self.assertTrue(all(s.isalpha() and s.isupper() for s in speakers), speakers)
        for s in r.segments:
            self.assertEqual(s.type, "transcript.text.segment")
            self.assertTrue(s.id.startswith("seg_"))
            self.assertLess(s.start, s.end)
        self.assertIn("headphones", r.text.lower())

    def test_known_speakers_are_named(self):
        with open(os.environ["ENROLMENT"], "rb") as sample:
            reference = "data:audio/wav;base64," + base64.b64encode(sample.read()).decode()
        with open(os.environ["DIALOGUE"], "rb") as f:
            r = client.audio.transcriptions.create(
                model="whisper-1", file=f, response_format="diarized_json",
                known_speaker_names=["Agent"], known_speaker_references=[reference])
        speakers = set(s.speaker for s in r.segments)
        self.assertIn("Agent", speakers, speakers)

    def test_streamed_diarization_sends_speaker_segments(self):
        with open(os.environ["DIALOGUE"], "rb") as f:
            events = list(client.audio.transcriptions.create(
                model="whisper-1", file=f, response_format="diarized_json", stream=True))
        segments = [e for e in events if e.type == "transcript.text.segment"]
        self.assertGreaterEqual(len(set(e.speaker for e in segments)), 2)
        self.assertEqual(events[-1].type, "transcript.text.done")


class Models(unittest.TestCase):
    def test_list_and_retrieve(self):
        ids = [m.id for m in client.models.list()]
        for name in ["asr-fast", "asr-pro", "whisper-1", "ikho-asr-fast", "ikho-asr-pro"]:
            self.assertIn(name, ids)
        self.assertEqual(client.models.retrieve("whisper-1").id, "whisper-1")
        with self.assertRaises(openai.NotFoundError):
            client.models.retrieve("gpt-9")


class Translations(unittest.TestCase):
    def test_translation(self):
        with speech() as f:
            r = client.audio.translations.create(model="whisper-1", file=f)
        self.assertIn("country", r.text.lower())


class Refusals(unittest.TestCase):
    def test_unsupported_parameters_are_400_naming_them(self):
        with speech() as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                client.audio.transcriptions.create(model="whisper-1", file=f, languages=["en", "de"])
        self.assertIn("languages", caught.exception.message)
        with speech() as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                client.audio.transcriptions.create(model="whisper-1", file=f, extra_body={"diarize": True})
        self.assertIn("diarize", caught.exception.message)
        with speech() as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                client.audio.transcriptions.create(model="whisper-1", file=f, include=["everything"])
        self.assertIn("include", caught.exception.message)

    def test_credentials_and_models(self):
        bad = OpenAI(base_url=BASE, api_key="not-a-token", max_retries=0)
        with speech() as f:
            with self.assertRaises(openai.AuthenticationError):
                bad.audio.transcriptions.create(model="whisper-1", file=f)
        user = OpenAI(base_url=BASE, api_key=os.environ["USER_TOKEN"], max_retries=0)
        with speech() as f:
            with self.assertRaises(openai.PermissionDeniedError):
                user.audio.transcriptions.create(model="whisper-1", file=f)
        with speech() as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                client.audio.transcriptions.create(model="gpt-9", file=f)
        self.assertIn("asr-fast", caught.exception.message)


class Speech(unittest.TestCase):
    SENTENCE = "Please remember to bring your umbrella, the forecast says it will rain all afternoon."

    def test_every_format(self):
        wav = client.audio.speech.create(model="tts-1", voice="alloy", input=self.SENTENCE).content
        self.assertEqual(wav[:4], b"RIFF")
        self.assertEqual(wav[8:12], b"WAVE")
        self.assertEqual(int.from_bytes(wav[24:28], "little"), 24000)
        self.assertEqual(int.from_bytes(wav[40:44], "little"), len(wav) - 44)
        pcm = client.audio.speech.create(
            model="gpt-4o-mini-tts", voice="nova", input=self.SENTENCE, response_format="pcm", speed=1.25,
            instructions="Speak warmly.").content
        seconds = len(pcm) / 48000
        self.assertTrue(2 < seconds < 8, seconds)
        opus = client.audio.speech.create(model="tts-1-hd", voice="onyx", input=self.SENTENCE, response_format="opus")
        self.assertEqual(opus.content[:4], b"OggS")
        self.assertIn(b"OpusHead", opus.content[:100])
        mp3 = client.audio.speech.create(model="tts-1", voice="ballad", input=self.SENTENCE, response_format="mp3")
        self.assertTrue(mp3.content[:3] == b"ID3" or mp3.content[0] == 0xFF, mp3.content[:4])
        flac = client.audio.speech.create(model="tts-1", voice="verse", input=self.SENTENCE, response_format="flac")
        self.assertEqual(flac.content[:4], b"fLaC")
        aac = client.audio.speech.create(model="tts-1", voice="sage", input=self.SENTENCE, response_format="aac")
        self.assertEqual(aac.content[0], 0xFF)

    def test_streaming_response_to_a_file_and_back_through_transcription(self):
        path = os.path.join(os.environ["SCRATCH"], "speech.wav")
        with client.audio.speech.with_streaming_response.create(
                model="tts-1", voice="echo", input=self.SENTENCE, response_format="wav",
                stream_format="audio") as response:
            self.assertEqual(response.headers["content-type"], "audio/wav")
            response.stream_to_file(path)
        with open(path, "rb") as f:
            text = client.audio.transcriptions.create(model="whisper-1", file=f, language="en").text.lower()
        for word in ["remember", "umbrella", "forecast", "rain", "afternoon"]:
            self.assertIn(word, text)

    def test_refusals(self):
        def refused(**kwargs):
            params = dict(model="tts-1", voice="alloy", input="Hello.")
            params.update(kwargs)
            with self.assertRaises(openai.BadRequestError) as caught:
                client.audio.speech.create(**params)
            return caught.exception.message
        self.assertIn("wav, pcm, opus, mp3, aac, flac", refused(response_format="aiff"))
        self.assertIn("darth", refused(voice="darth"))
        self.assertIn("4096", refused(input="a" * 4097))
        self.assertIn("tts-1", refused(model="whisper-1"))
        self.assertIn("temperature", refused(extra_body={"temperature": 1}))
        self.assertIn("stream_format", refused(stream_format="sse"))
        bad = OpenAI(base_url=BASE, api_key="not-a-token", max_retries=0)
        with self.assertRaises(openai.AuthenticationError):
            bad.audio.speech.create(model="tts-1", voice="alloy", input="Hello.")
        user = OpenAI(base_url=BASE, api_key=os.environ["USER_TOKEN"], max_retries=0)
        with self.assertRaises(openai.PermissionDeniedError):
            user.audio.speech.create(model="tts-1", voice="alloy", input="Hello.")


if __name__ == "__main__":
    unittest.main(verbosity=2)
