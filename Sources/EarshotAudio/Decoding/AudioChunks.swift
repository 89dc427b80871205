extension AudioDecoder {
    /// The decoded stream as consecutive chunks of up to `maxSamples` 16 kHz mono samples (every chunk but the
    /// last is full). Default chunk: 30 s, one Whisper window.
    ///
    /// Decoding runs on the decoder's dispatch queue. Cancelling the consuming task stops decoding between
    /// packets and makes `next()` throw `CancellationError`; the sequence is then finished. Errors are those of
    /// ``read(into:maxSamples:)`` — a truncated file yields every good chunk first, then throws.
    ///
    /// Memory: one chunk plus one decoded packet, independent of the file's length. The sequence shares the
    /// decoder's position: iterate it once.
    public func chunks(maxSamples: Int = 30 * AudioDecoder.sampleRate) -> AudioChunks {
        AudioChunks(decoder: self, maxSamples: max(1, maxSamples))
    }
}

/// Consecutive chunks of a decoder's 16 kHz mono output; see ``AudioDecoder/chunks(maxSamples:)``.
public struct AudioChunks: AsyncSequence, Sendable {
    public typealias Element = [Float]

    let decoder: AudioDecoder
    let maxSamples: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(decoder: decoder, maxSamples: maxSamples)
    }

    /// Pulls one chunk per `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let decoder: AudioDecoder
        let maxSamples: Int
        var finished = false

        public mutating func next() async throws -> [Float]? {
            guard !finished else { return nil }
            do {
                try Task.checkCancellation()
                let chunk = try await decoder.nextChunk(maxSamples: maxSamples)
                if chunk.isEmpty { finished = true }
                return chunk.isEmpty ? nil : chunk
            } catch {
                finished = true
                throw error
            }
        }
    }
}
