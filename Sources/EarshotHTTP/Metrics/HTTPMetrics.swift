import Synchronization

/// Request counters and latency histograms, rendered in the Prometheus text exposition format.
///
/// The server records one observation per finished request, labelled by method, route *pattern* (never the raw
/// path, so cardinality stays bounded; unmatched requests use `route="unmatched"`) and status. Thread-safe; mount
/// ``render()`` at `/metrics`.
public final class HTTPMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds (Prometheus client defaults plus 1 ms).
    public static let defaultBuckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct CounterKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    struct RouteKey: Hashable {
        let method: String
        let route: String
    }

    struct Histogram {
        var buckets: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    struct State {
        var requests: [CounterKey: UInt64] = [:]
        var latency: [RouteKey: Histogram] = [:]
        /// WebSocket connections closed, by close code.
        var webSocketsClosed: [UInt16: UInt64] = [:]
    }

    private let bounds: [Double]
    private let state = Mutex(State())
    private let inFlightCount = Atomic<Int>(0)
    private let openWebSockets = Atomic<Int>(0)

    /// Creates an empty registry with the given latency bucket bounds (seconds, ascending).
    public init(buckets: [Double] = HTTPMetrics.defaultBuckets) {
        precondition(buckets == buckets.sorted() && !buckets.isEmpty, "buckets must be ascending")
        bounds = buckets
    }

    /// Records a finished request.
    public func record(method: String, route: String, status: Int, duration: Duration) {
        let seconds = duration.seconds
        let bucket = bounds.firstIndex { seconds <= $0 } ?? bounds.count
        state.withLock { state in
            state.requests[CounterKey(method: method, route: route, status: status), default: 0] += 1
            let key = RouteKey(method: method, route: route)
            var histogram = state.latency[key] ?? Histogram(buckets: Array(repeating: 0, count: bounds.count + 1))
            histogram.buckets[bucket] += 1
            histogram.sum += seconds
            histogram.count += 1
            state.latency[key] = histogram
        }
    }

    func started() {
        inFlightCount.add(1, ordering: .relaxed)
    }

    func finished() {
        inFlightCount.subtract(1, ordering: .relaxed)
    }

    func webSocketOpened() {
        openWebSockets.add(1, ordering: .relaxed)
    }

    func webSocketClosed(code: WebSocketCloseCode) {
        openWebSockets.subtract(1, ordering: .relaxed)
        state.withLock { $0.webSocketsClosed[code.rawValue, default: 0] += 1 }
    }

    /// WebSocket connections currently open.
    public var webSockets: Int { openWebSockets.load(ordering: .relaxed) }

    /// Requests currently being handled.
    public var inFlight: Int { inFlightCount.load(ordering: .relaxed) }

    /// How many requests finished with this method, route pattern and status.
    public func count(method: String, route: String, status: Int) -> UInt64 {
        state.withLock { $0.requests[CounterKey(method: method, route: route, status: status)] ?? 0 }
    }

    /// Requests finished since start by status class (`2` for 2xx, `4` for 4xx…): the sums of
    /// `earshot_http_requests_total` over methods and routes.
    public func requestsByStatusClass() -> [Int: UInt64] {
        state.withLock { state in
            var classes: [Int: UInt64] = [:]
            for (key, count) in state.requests { classes[key.status / 100, default: 0] += count }
            return classes
        }
    }

    /// The Prometheus text exposition (version 0.0.4) of every series, sorted for stable output.
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        let inFlight = self.inFlight
        var out = ""
        out += "# HELP earshot_http_requests_total HTTP requests handled, by method, route pattern and status.\n"
        out += "# TYPE earshot_http_requests_total counter\n"
        let counters = snapshot.requests.sorted {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }
        for (key, value) in counters {
            out +=
                "earshot_http_requests_total{method=\"\(Self.escape(key.method))\",route=\"\(Self.escape(key.route))\","
            out += "status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP earshot_http_request_duration_seconds Time from request headers to response completion.\n"
        out += "# TYPE earshot_http_request_duration_seconds histogram\n"
        let histograms = snapshot.latency.sorted { ($0.key.route, $0.key.method) < ($1.key.route, $1.key.method) }
        for (key, histogram) in histograms {
            let labels = "method=\"\(Self.escape(key.method))\",route=\"\(Self.escape(key.route))\""
            var cumulative: UInt64 = 0
            for (index, bound) in bounds.enumerated() {
                cumulative += histogram.buckets[index]
                let le = Self.format(bound)
                out += "earshot_http_request_duration_seconds_bucket{\(labels),le=\"\(le)\"} \(cumulative)\n"
            }
            out += "earshot_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(histogram.count)\n"
            out += "earshot_http_request_duration_seconds_sum{\(labels)} \(histogram.sum)\n"
            out += "earshot_http_request_duration_seconds_count{\(labels)} \(histogram.count)\n"
        }
        out += "# HELP earshot_http_requests_in_flight HTTP requests currently being handled.\n"
        out += "# TYPE earshot_http_requests_in_flight gauge\n"
        out += "earshot_http_requests_in_flight \(inFlight)\n"
        out += "# HELP earshot_websocket_connections Open WebSocket connections.\n"
        out += "# TYPE earshot_websocket_connections gauge\n"
        out += "earshot_websocket_connections \(webSockets)\n"
        out += "# HELP earshot_websocket_closed_total WebSocket connections closed, by close code.\n"
        out += "# TYPE earshot_websocket_closed_total counter\n"
        for (code, count) in snapshot.webSocketsClosed.sorted(by: { $0.key < $1.key }) {
            out += "earshot_websocket_closed_total{code=\"\(code)\"} \(count)\n"
        }
        return out
    }

    private static func format(_ bound: Double) -> String {
        bound == bound.rounded() ? "\(Int(bound))" : "\(bound)"
    }

    static func escape(_ value: String) -> String {
        var out = ""
        for ch in value {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }
}
