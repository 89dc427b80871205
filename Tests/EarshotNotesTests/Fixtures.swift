import EarshotCore
import EarshotHTTP
import EarshotNotes
import EarshotTestSupport
import Foundation
import Synchronization

/// A product meeting, written as a speech recogniser would segment it (times in milliseconds).
enum Transcripts {
    static let meeting: [NoteSegment] = [
        line(0, 4200, "Anna", "Good morning everyone, let's review the launch plan for the new headphones."),
        line(
            4200, 9800, "Anna",
            "The factory confirmed that the first ten thousand units ship on the fourteenth of March."),
        line(
            9800, 15100, "Ben", "The battery tests are finished and the headphones last thirty two hours on one charge."
        ),
        line(
            15100, 20400, "Ben",
            "We found one problem: the charging case gets warm when it charges faster than fifteen watts."),
        line(20400, 25900, "Anna", "Then we limit fast charging to fifteen watts in the launch firmware."),
        line(25900, 30100, "Ben", "I will update the firmware and send a new build to the factory by Friday."),
        line(
            30100, 36300, "Chloe",
            "Marketing wants the price at one hundred and forty nine dollars, with a launch discount in the first week."
        ),
        line(36300, 41000, "Chloe", "The product page and the launch video are ready for review."),
        line(
            41000, 46800, "Anna",
            "Good. The retail partners need the final price and the photos before the end of the month."),
        line(46800, 51200, "Chloe", "I will send the price sheet and the photos to the retail partners on Monday."),
        line(
            51200, 56900, "Ben",
            "Support should get a short guide about the charging limit, so customers are not surprised."),
        line(56900, 61300, "Anna", "Agreed. Chloe, please write that guide with the support team next week."),
        line(61300, 64000, "Chloe", "Okay, will do."),
        line(
            64000, 69500, "Anna",
            "To sum up: firmware by Friday, prices and photos on Monday, and the support guide next week."),
    ]

    static let chineseMeeting: [NoteSegment] = [
        line(0, 3800, "A", "今天我们讨论新耳机的发布计划。"),
        line(3800, 8200, "B", "工厂确认第一批一万台会在三月十四日发货。"),
        line(8200, 12600, "B", "电池测试已经完成，耳机一次充电可以使用三十二个小时。"),
        line(12600, 17100, "A", "充电盒在快充时会发热，所以发布固件要把快充限制在十五瓦。"),
        line(17100, 21000, "B", "我会在周五之前更新固件，并把新版本发给工厂。"),
        line(21000, 25600, "C", "市场部建议售价一百四十九美元，第一周有发布折扣。"),
        line(25600, 29800, "C", "我们需要在月底之前把价格和照片发给零售合作伙伴。"),
        line(29800, 33500, "A", "好的，下周请支持团队准备一份关于充电限制的说明。"),
    ]

    static func line(_ start: Int, _ end: Int, _ speaker: String, _ text: String) -> NoteSegment {
        NoteSegment(startMs: start, endMs: end, speaker: speaker, text: text)
    }
}

/// The built-in model installed by scripts/setup-llm (make setup), shared by the suites that need it.
enum BuiltInModel {
    static var configuration: ManagedLlamaServer.Configuration {
        var configuration = ManagedLlamaServer.Configuration.installed(home: TestEnvironment.home.path)
        // A loaded 2-core machine (decoding suites beside this one) slows SmolLM2 several-fold: these bounds catch a
        // server that hangs, not a slow one. The suite's time limit is the hang guard.
        configuration.startupTimeout = .seconds(600)
        configuration.requestTimeout = .seconds(1200)
        return configuration
    }

    /// One managed server for the whole test process, started on first use; killed when the process exits.
    static let shared: ManagedLlamaServer = {
        let server = ManagedLlamaServer(configuration: configuration)
        Task { try await server.run() }
        atexit { BuiltInModel.killShared() }
        return server
    }()

    static let sharedPID = Mutex<Int32>(0)

    /// Records the shared child's pid for the exit handler.
    static func noteSharedPID() async {
        if let pid = await shared.processIdentifier { sharedPID.withLock { $0 = pid } }
    }

    static func killShared() {
        let pid = sharedPID.withLock { $0 }
        if pid > 0 { kill(pid, SIGKILL) }
    }
}

/// Starts a real HTTP server on 127.0.0.1:0 with `router`, runs `body` with its `/v1` base URL, then stops it.
func withProvider<T: Sendable>(_ router: Router, _ body: @Sendable (URL) async throws -> T) async throws -> T {
    _ = TestLog.path  // server logs go to the test process's log file, not the test output
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2)
    configuration.connectionTimeout = .seconds(30)
    configuration.shutdownGracePeriod = .seconds(1)
    let server = HTTPServer(router: router, configuration: configuration)
    let running = Task { try await server.run() }
    do {
        let port = try await server.waitUntilListening()
        let result = try await body(URL(string: "http://127.0.0.1:\(port)/v1")!)
        running.cancel()
        _ = try? await running.value
        return result
    } catch {
        running.cancel()
        _ = try? await running.value
        throw error
    }
}

/// A chat-completions response body whose message is `content`.
func completion(_ content: String) -> String {
    let escaped = String(decoding: try! JSONEncoder().encode(content), as: UTF8.self)
    return #"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"#
        + escaped + #"},"finish_reason":"stop"}]}"#
}

/// A port on 127.0.0.1 that nothing listens on (bound and closed a moment ago).
func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
