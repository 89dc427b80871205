import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where webhooks may go: `callback_url` is checked in full when a task is created, and its host is resolved and
/// every address checked again at each delivery, so a partner cannot make the server connect to itself or to its
/// private network (SSRF).
///
/// Refused unless ``allowed`` covers them: loopback, unspecified, private (RFC 1918, CGNAT 100.64/10, IPv6 ULA
/// fc00::/7), link-local (169.254/16 — cloud metadata services — and fe80::/10), multicast, reserved, benchmarking
/// and documentation ranges, and IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64, 6to4) are judged as
/// the IPv4 address they carry. `webhook-allow-networks` lists the ranges an operator trusts (a receiver on
/// the same host or network).
struct CallbackPolicy: Sendable {
    /// Ranges that are allowed although they are not public.
    let allowed: [NetworkRange]

    /// The longest `callback_url` accepted.
    static let maximumLength = 2048

    /// Checks a `callback_url` when a task is created: an absolute `http` or `https` URL (any case) with a host,
    /// a port in 1-65535, no user name or password, at most ``maximumLength`` characters; a literal IP address
    /// must be public or allowed. Host names are resolved at delivery time (DNS can change).
    ///
    /// - Throws: a ``PlatformError`` 400 naming what is wrong.
    func validate(_ text: String) throws -> URLComponents {
        let components = try Self.parse(text)
        if let host = components.host, let address = IPAddress(host), !permits(address) {
            throw PlatformError.invalidArgument(
                "callback_url \"\(text.prefix(200))\" points at \(address), a loopback, private, link-local or "
                    + "reserved address; webhooks go to public addresses only (an operator can allow a network with "
                    + "webhook-allow-networks)")
        }
        return components
    }

    /// The syntax rules of ``validate(_:)`` (everything but the address check).
    static func parse(_ text: String) throws -> URLComponents {
        func refuse(_ why: String) -> PlatformError {
            .invalidArgument("callback_url \"\(text.prefix(200))\" \(why)")
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw refuse("is longer than \(Self.maximumLength) characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw refuse("is not an absolute http or https URL") }
        guard let host = components.host, !host.isEmpty else { throw refuse("has no host") }
        guard components.user == nil, components.password == nil else {
            throw refuse("must not carry a user name or password; authenticate with the webhook signature")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw refuse("has port \(port); a port is 1-65535")
        }
        guard !host.contains(where: { $0.isWhitespace || $0 == "%" }), isHostName(host) || IPAddress(host) != nil
        else { throw refuse("has an invalid host \"\(host.prefix(100))\"") }
        return components
    }

    /// Whether a webhook may connect to `address`.
    func permits(_ address: IPAddress) -> Bool {
        allowed.contains { $0.contains(address) } || address.isPublic
    }

    /// The addresses of `host` (resolved now), refused as a whole when one of them is not permitted — a host with
    /// one public and one private address could otherwise be steered to the private one.
    ///
    /// - Throws: ``Refusal`` when the name does not resolve or resolves to a refused address.
    func addresses(of host: String, port: Int) async throws -> [IPAddress] {
        if let literal = IPAddress(host) {
            guard permits(literal) else { throw Refusal.blocked }
            return [literal]
        }
        let resolved = try await Self.resolve(host, port: port)
        guard !resolved.isEmpty else { throw Refusal.unresolved }
        guard resolved.allSatisfy(permits) else { throw Refusal.blocked }
        return resolved
    }

    /// Why a delivery was not attempted. The descriptions are what partners see in the delivery log: they name
    /// the rule, never what a connection to the address would have revealed.
    enum Refusal: Error, CustomStringConvertible {
        case unresolved
        case blocked

        var description: String {
            switch self {
            case .unresolved: "callback host does not resolve"
            case .blocked: "callback host resolves to a non-public address (blocked)"
            }
        }
    }

    /// RFC 1123 host name: dot-separated labels of letters, digits and hyphens (no leading or trailing hyphen),
    /// each 1-63 characters, 253 at most.
    static func isHostName(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            let bytes = Array(label.utf8)
            guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-")
            else { return false }
            return bytes.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }

    /// `getaddrinfo` on a dispatch thread (it blocks; the cooperative pool must not).
    static func resolve(_ host: String, port: Int) async throws -> [IPAddress] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_family = AF_UNSPEC
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(host, String(port), &hints, &list)
                guard status == 0 else {
                    continuation.resume(throwing: Refusal.unresolved)
                    return
                }
                defer { freeaddrinfo(list) }
                var addresses: [IPAddress] = []
                var cursor = list
                while let entry = cursor {
                    if let address = entry.pointee.ai_addr.flatMap(IPAddress.init(socketAddress:)),
                        !addresses.contains(address)
                    {
                        addresses.append(address)
                    }
                    cursor = entry.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }
}

/// An IPv4 or IPv6 address as its bytes (4 or 16).
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    /// Parses a numeric address (`10.0.0.1`, `::1`, `[::1]`); nil for anything else.
    init?(_ text: String) {
        var text = text
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    init?(socketAddress address: UnsafeMutablePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    var isIPv6: Bool { bytes.count == 16 }

    /// The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
    /// `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`), if any.
    var embeddedIPv4: IPAddress? {
        guard isIPv6 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && (bytes[10..<12] == [0xff, 0xff] || bytes[10..<12] == [0, 0]) {
            return IPAddress(bytes: Array(bytes[12..<16]))
        }
        if bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] {
            return IPAddress(bytes: Array(bytes[12..<16]))
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    /// True for a globally routable unicast address.
    var isPublic: Bool {
        if let inner = embeddedIPv4 {
            // `::` and `::1` have the "compatible" shape: they are not public either.
            return inner.isPublic && !NetworkRange.ipv6Special.contains { $0.contains(self) }
        }
        let special = isIPv6 ? NetworkRange.ipv6Special : NetworkRange.ipv4Special
        return !special.contains { $0.contains(self) }
    }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv6 ? AF_INET6 : AF_INET
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A CIDR range (`10.0.0.0/8`, `fd00::/8`; a bare address is a single-address range).
struct NetworkRange: Sendable, Hashable, CustomStringConvertible {
    let base: IPAddress
    let prefixLength: Int

    /// Parses `address[/prefix]`; nil when malformed.
    init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        let length = parts.count == 2 ? Int(parts[1]) : bits
        guard let length, (0...bits).contains(length) else { return nil }
        self.init(base: address, prefixLength: length)
    }

    init(base: IPAddress, prefixLength: Int) {
        self.base = base
        self.prefixLength = prefixLength
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == base.bytes.count else {
            // An allowed IPv4 range also covers the IPv4 address an IPv6 one carries.
            return address.embeddedIPv4.map(contains) ?? false
        }
        var remaining = prefixLength
        for (a, b) in zip(address.bytes, base.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }

    var description: String { "\(base)/\(prefixLength)" }

    /// Not public: this network, private, CGNAT, loopback, link-local (metadata), IETF protocol assignments,
    /// documentation, benchmarking, multicast, reserved and broadcast.
    static let ipv4Special: [NetworkRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4",
    ].map { NetworkRange($0)! }

    /// Not public: unspecified, loopback, discard-only, documentation, ULA (private), link-local, site-local,
    /// multicast.
    static let ipv6Special: [NetworkRange] = [
        "::/128", "::1/128", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].map { NetworkRange($0)! }
}
