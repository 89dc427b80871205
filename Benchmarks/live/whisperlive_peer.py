"""bench-live's peer process, run with $EARSHOT_HOME/peers/whisperlive/bin/python (Benchmarks/live/setup-peers).

  serve PORT MODEL_DIR MAX_CLIENTS   WhisperLive's WebSocket server (faster-whisper backend, one shared model,
                                     int8 on CPU as it chooses), on 127.0.0.1:PORT until killed.
  offline MODEL_DIR WAV...           faster-whisper offline, whole file, word timestamps: one JSON line per file,
                                     {"file", "text", "words": [[word, start, end], ...]}.

WhisperLive's server module imports torch only to ask `torch.cuda.is_available()` (and for the TensorRT backend's
VAD, not used here); torch is not installed (see setup-peers), so that one question is answered here: no CUDA.
"""
import json, logging, os, sys, types


def no_torch():
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(is_available=lambda: False)
    sys.modules["torch"] = torch


def serve(port, model, max_clients):
    no_torch()
    logging.basicConfig(level=logging.WARNING)
    from whisper_live.server import TranscriptionServer
    TranscriptionServer().run(
        "127.0.0.1", port=int(port), backend="faster_whisper", faster_whisper_custom_model_path=model,
        single_model=True, max_clients=int(max_clients), max_connection_time=3600,
        cache_path=os.path.join(os.environ.get("EARSHOT_HOME", "/tmp"), "peers", "whisperlive-cache"))


def offline(model, files):
    from faster_whisper import WhisperModel
    whisper = WhisperModel(model, device="cpu", compute_type="int8", cpu_threads=2)
    for path in files:
        segments, _ = whisper.transcribe(path, language="en", beam_size=5, word_timestamps=True, vad_filter=True)
        words, texts = [], []
        for segment in segments:
            texts.append(segment.text.strip())
            words += [[w.word.strip(), round(w.start, 3), round(w.end, 3)] for w in segment.words or []]
        print(json.dumps({"file": path, "text": " ".join(texts), "words": words}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(*sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "offline":
        offline(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
