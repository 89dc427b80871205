internal import CLibPQ
internal import Dispatch
internal import EarshotCore
internal import EarshotStore
internal import Foundation
internal import Synchronization

/// One connection that `LISTEN`s on a channel and yields each payload, on a dedicated dispatch queue.
///
/// It waits on the connection's socket with `poll` (a quarter of a second at a time, so it notices when its
/// stream is dropped), reconnects with a one-second pause when the connection fails, and closes the connection
/// when the consumer stops iterating.
enum PostgresListener {
    static func stream(
        channel: String, parameters: ConnectionParameters, logger: Logger
    ) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
        let stopped = Atomic<Bool>(false)
        continuation.onTermination = { _ in stopped.store(true, ordering: .releasing) }
        DispatchQueue(label: "earshot.store.postgres.listen").async {
            var connection: PostgresConnection?
            defer { connection?.close() }
            var warned = false
            while !stopped.load(ordering: .acquiring) {
                if connection == nil || connection?.isHealthy != true {
                    do {
                        let opened = try PostgresConnection(parameters)
                        try opened.executeScript("LISTEN " + quoted(channel))
                        connection = opened
                        if warned { logger.notice("listening again for notifications", metadata: ["channel": channel]) }
                        warned = false
                    } catch {
                        if !warned {
                            logger.warning(
                                "cannot listen for notifications; retrying every second",
                                metadata: ["channel": channel, "error": "\(error)"])
                            warned = true
                        }
                        connection = nil
                        for _ in 0..<4 where !stopped.load(ordering: .acquiring) { usleep(250_000) }
                        continue
                    }
                }
                guard let open = connection else { continue }
                for payload in open.receiveNotifications(waitingAtMost: 250) { continuation.yield(payload) }
            }
            continuation.finish()
        }
        return stream
    }

    /// `"name"` with embedded quotes doubled.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
