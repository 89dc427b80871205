#!/usr/bin/env python3
"""Reference speaker embeddings from the Resemblyzer 0.1.4 Python package (torch), for the parity fixture and the
bench peer. Not used at run time.

    resemblyzer_embed.py REQUEST.json > RESPONSE.json

REQUEST: {"audio": "x.wav" (16 kHz mono), "clips": [[start_s, end_s], ...]}
RESPONSE: {"embeddings": [[256 floats], ...], "seconds": embedding wall time (model load excluded)}

Each clip is embedded exactly as EarshotDiarization.ResemblyzerEmbedder does: normalize_volume(-30 dBFS,
increase_only) then VoiceEncoder.embed_utterance (partials of 1.6 s at rate 1.3, mean, L2). Runs in the venv made by
Benchmarks/diarization/run ($EARSHOT_HOME/venv-diarization).
"""
import json, sys, time
import numpy as np
import soundfile
import torch
from resemblyzer import VoiceEncoder
from resemblyzer.audio import normalize_volume

torch.set_num_threads(1)
request = json.load(open(sys.argv[1]))
wav, sr = soundfile.read(request["audio"], dtype="float32")
assert sr == 16000 and wav.ndim == 1, "expects 16 kHz mono"
encoder = VoiceEncoder("cpu", verbose=False)
started = time.perf_counter()
out = []
for start, end in request["clips"]:
    clip = wav[int(round(start * sr)):int(round(end * sr))]
    clip = normalize_volume(clip, -30, increase_only=True).astype(np.float32)
    out.append([float(x) for x in encoder.embed_utterance(clip)])
json.dump({"embeddings": out, "seconds": time.perf_counter() - started}, sys.stdout)
