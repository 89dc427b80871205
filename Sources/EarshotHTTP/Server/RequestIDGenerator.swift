import EarshotCore
import EarshotCrypto
import Synchronization

/// Makes request ids (`Identifier.make(prefix: "req", randomBits:)`) without the two `getrandom(2)` calls per
/// request that `Identifier.make(prefix:)` costs: random bytes are drawn from ``SecureRandom`` 4 KiB at a time
/// and handed out under a lock.
final class RequestIDGenerator: Sendable {
    private static let bytesPerID = 16  // two 64-bit words, 50 bits used from each (as Identifier.make)
    private static let refill = 4096

    private struct Pool: ~Copyable {
        var bytes = [UInt8](repeating: 0, count: RequestIDGenerator.refill)
        var next = RequestIDGenerator.refill
    }

    private let pool = Mutex(Pool())

    /// A new `req_…` id.
    func make() -> String {
        var random = (UInt64(0), UInt64(0))
        pool.withLock { pool in
            if pool.next == pool.bytes.count {
                pool.bytes = Self.randomBytes(pool.bytes.count)
                pool.next = 0
            }
            withUnsafeMutableBytes(of: &random) { out in
                for index in 0..<Self.bytesPerID { out[index] = pool.bytes[pool.next + index] }
            }
            pool.next += Self.bytesPerID
        }
        return Identifier.make(prefix: "req", randomBits: random)
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        if let bytes = try? SecureRandom.bytes(count) { return bytes }
        var generator = SystemRandomNumberGenerator()  // OpenSSL's generator failed: the kernel's, slower
        return (0..<count).map { _ in generator.next() }
    }
}
