"""faster-whisper peer for Benchmarks/asr/run: one model load, then each file of a manifest; JSON lines out.

usage: python faster_whisper_peer.py MODEL_DIR MANIFEST BEAM THREADS [WARMUP_WAV]
"""
import json
import resource
import sys
import time
import wave

import numpy as np
from faster_whisper import WhisperModel


def read(path):
    with wave.open(path, "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0


model_dir, manifest, beam, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=threads)


def transcribe(audio):
    segments, _ = model.transcribe(
        audio, language="en", beam_size=beam, best_of=1 if beam == 1 else 5, condition_on_previous_text=False,
        vad_filter=False)
    return " ".join(s.text.strip() for s in segments)


if len(sys.argv) > 5:
    transcribe(read(sys.argv[5]))
total_audio = total = 0.0
for line in open(manifest):
    path = line.rstrip("\n").split("\t")[0]
    audio = read(path)
    start = time.perf_counter()
    text = transcribe(audio)
    seconds = time.perf_counter() - start
    total_audio += len(audio) / 16000
    total += seconds
    print(json.dumps({"file": path, "audio_s": len(audio) / 16000, "seconds": seconds, "text": text}), flush=True)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"summary": True, "audio_s": total_audio, "seconds": total, "xrealtime": total_audio / total,
                  "peak_rss_mb": peak}))
