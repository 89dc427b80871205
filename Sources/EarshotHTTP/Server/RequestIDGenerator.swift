import EarshotCrypto
import Synchronization

/// Makes request ids in the shape of `Identifier.make(prefix: "req")` — `req_` and 20 Crockford base32 characters
/// (100 bits from a CSPRNG) — without the two `getrandom(2)` calls per request that `Identifier.make` costs:
/// random bytes are drawn from ``SecureRandom`` 4 KiB at a time and handed out under a lock.
final class RequestIDGenerator: Sendable {
    private static let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
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
        var high = random.0
        var low = random.1
        return String(unsafeUninitializedCapacity: 24) { out in
            out[0] = UInt8(ascii: "r")
            out[1] = UInt8(ascii: "e")
            out[2] = UInt8(ascii: "q")
            out[3] = UInt8(ascii: "_")
            for index in 0..<10 {
                out[4 + index] = Self.alphabet[Int(high & 31)]
                high >>= 5
                out[14 + index] = Self.alphabet[Int(low & 31)]
                low >>= 5
            }
            return 24
        }
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        if let bytes = try? SecureRandom.bytes(count) { return bytes }
        var generator = SystemRandomNumberGenerator()  // OpenSSL's generator failed: the kernel's, slower
        return (0..<count).map { _ in generator.next() }
    }
}
