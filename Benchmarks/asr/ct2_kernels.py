"""CTranslate2 (faster-whisper's engine) Whisper base int8: encoder time per 30 s window, decoder time per token.

usage: python ct2_kernels.py MODEL_DIR WAV THREADS ROUNDS   (prints two JSON lines; used by Benchmarks/asr/kernels)
"""
import json
import sys
import time
import wave

import ctranslate2
import numpy as np
from faster_whisper.feature_extractor import FeatureExtractor

model_dir, wav, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with wave.open(wav, "rb") as w:
    audio = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
window = np.zeros(16000 * 30, dtype=np.float32)
window[: min(len(audio), len(window))] = audio[: len(window)]
mel = FeatureExtractor(feature_size=80)(window)[:, :3000]
features = ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None], dtype=np.float32))
model = ctranslate2.models.Whisper(model_dir, device="cpu", compute_type="int8", intra_threads=threads)

model.encode(features, to_cpu=True)  # warm-up
times = []
for _ in range(rounds):
    start = time.perf_counter()
    encoded = model.encode(features, to_cpu=True)
    times.append(time.perf_counter() - start)
print(json.dumps({"what": "encode", "ms": min(times) * 1000}))

# Greedy decoding of text tokens (no timestamps, end-of-text suppressed, so no round stops early). The cost per
# token is the difference between a long and a short generation over the difference in tokens: the first step's
# cross-attention set-up cancels out, as in whisper-bench's 256 single-token decodes.
sot, english, transcribe, no_timestamps, end_of_text = 50258, 50259, 50359, 50363, 50257


def generate(length):
    best, tokens = None, 0
    for _ in range(rounds + 1):  # the first round warms up
        start = time.perf_counter()
        result = model.generate(
            encoded, [[sot, english, transcribe, no_timestamps]], beam_size=1, max_length=length,
            suppress_tokens=[end_of_text])
        seconds = time.perf_counter() - start
        best = seconds if best is None or seconds < best else best
        tokens = len(result[0].sequences_ids[0])
    return best, tokens


short_s, short_n = generate(64)
long_s, long_n = generate(320)
print(json.dumps({"what": "decode", "ms_per_token": (long_s - short_s) * 1000 / (long_n - short_n),
                  "tokens": [short_n, long_n]}))
