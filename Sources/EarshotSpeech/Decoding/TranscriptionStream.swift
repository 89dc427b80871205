/// What a running transcription reports, in order: progress and segments as they are decoded, then the
/// complete transcript exactly once, last.
public enum TranscriptionEvent: Sendable, Hashable {
    /// Fraction of the audio decoded so far (0…1), with the detected language once known.
    case progress(Double)
    /// The language, once detected or fixed (before the first segment).
    case language(code: String, probability: Double?)
    /// A finished segment (already through the hallucination filter; it appears unchanged in the transcript).
    case segment(Transcript.Segment)
    /// The whole transcript; the last event.
    case completed(Transcript)
}

/// A transcription in progress, as an `AsyncSequence` of ``TranscriptionEvent``s.
///
/// Nothing runs until the sequence is iterated: the first `next()` waits for a decode state from the pool,
/// then decoding runs on a dedicated thread. Cancel the iterating task (or stop iterating) to stop decoding;
/// whisper.cpp checks between encoder/decoder steps, so it stops within one step, and iteration throws
/// `CancellationError`. Iterate once.
public struct TranscriptionStream: AsyncSequence, Sendable {
    public typealias Element = TranscriptionEvent
    public typealias Failure = any Error

    let start:
        @Sendable (AsyncThrowingStream<TranscriptionEvent, any Error>.Continuation, CancellationFlag) async -> Void

    /// The iterator; see ``TranscriptionStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let start:
            @Sendable (AsyncThrowingStream<TranscriptionEvent, any Error>.Continuation, CancellationFlag) async -> Void
        private var events: AsyncThrowingStream<TranscriptionEvent, any Error>.AsyncIterator?
        private let flag = CancellationFlag()
        private var finished = false
        private var completed = false

        init(
            start:
                @escaping @Sendable (AsyncThrowingStream<TranscriptionEvent, any Error>.Continuation, CancellationFlag)
                async -> Void
        ) {
            self.start = start
        }

        public mutating func next() async throws -> TranscriptionEvent? {
            if finished { return nil }
            if events == nil {
                let (stream, continuation) = AsyncThrowingStream<TranscriptionEvent, any Error>.makeStream(
                    bufferingPolicy: .unbounded)
                let flag = self.flag
                continuation.onTermination = { termination in
                    if case .cancelled = termination { flag.cancel() }
                }
                events = stream.makeAsyncIterator()
                await start(continuation, flag)
            }
            let flag = self.flag
            var iterator = events!
            defer { events = iterator }
            do {
                let event = try await withTaskCancellationHandler {
                    try await iterator.next()
                } onCancel: {
                    flag.cancel()
                }
                if case .completed = event { completed = true }
                if event == nil {
                    finished = true
                    // AsyncThrowingStream ends quietly when the consuming task is cancelled; say so.
                    if !completed, flag.isCancelled || Task.isCancelled { throw CancellationError() }
                }
                return event
            } catch {
                finished = true
                throw error
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(start: start) }

    /// Iterates to the end and returns the transcript.
    ///
    /// - Throws: `CancellationError` if the task is cancelled; ``SpeechError`` if decoding fails.
    public func transcript() async throws -> Transcript {
        for try await event in self {
            if case .completed(let transcript) = event { return transcript }
        }
        try Task.checkCancellation()
        throw SpeechError(.decodeFailed, "transcription ended without a result")
    }
}
