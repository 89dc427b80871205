# Earshot — the two entry points are `make run` and `make test` (see README.md).
SHELL := /bin/bash
EARSHOT_HOME ?= $(HOME)/.cache/earshot
export EARSHOT_HOME

.PHONY: run test setup bench-http

## Install what is missing (idempotent; cached under $(EARSHOT_HOME)).
setup:
	@scripts/setup

## Release build and `earshot serve` on 127.0.0.1:8080 with SQLite + ./data blobs.
run: setup
	swift build -c release --product earshot
	.build/release/earshot serve

## Everything that CI checks.
test: setup
	swift build --build-tests
	swift test --skip-build

## HTTP benchmark: our /healthz vs nginx (wrk), and a streamed 1 GiB PUT (MiB/s, peak RSS).
bench-http: setup
	swift build -c release --product earshot
	swift build -c release --product earshot-bench-upload
	Benchmarks/http/run

.PHONY: bench-asr
## ASR benchmark: asr-fast/asr-pro vs whisper-cli and faster-whisper on the same files (×realtime, WER, RSS, latency).
bench-asr: setup
	Benchmarks/asr/setup-peers
	PKG_CONFIG_PATH=$(EARSHOT_HOME)/whisper/lib/pkgconfig swift build -c release --product earshot-bench-asr \
		-Xlinker -rpath -Xlinker $(EARSHOT_HOME)/whisper/lib
	Benchmarks/asr/run
