import Foundation
import Testing

@testable import EarshotCore

@Suite struct LogContextTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000.25)

    /// The keys and values of a line's metadata, in order.
    func pairs(_ metadata: LogMetadata) -> [String] {
        metadata.map { "\($0.key)=\($0.value)" }
    }

    @Test func derivedLoggersAddMetadataWithoutChangingTheOriginal() {
        let base = Logger(label: "records")
        var job = base.with(["job_id": "job_1", "kind": "summary"])
        let retried = job.with(["kind": "translation", "attempt": "2"])
        job[metadataKey: "record_id"] = "rec_1"
        #expect(base.metadata.isEmpty)
        #expect(pairs(job.metadata) == ["job_id=job_1", "kind=summary", "record_id=rec_1"])
        #expect(pairs(retried.metadata) == ["job_id=job_1", "kind=translation", "attempt=2"])
        #expect(retried.label == "records")
        job[metadataKey: "kind"] = nil
        #expect(pairs(job.metadata) == ["job_id=job_1", "record_id=rec_1"])
    }

    @Test func aKeyRepeatedInALiteralAppearsOnceWithItsLastValue() {
        let metadata: LogMetadata = ["a": "1", "b": "2", "a": "3"]
        #expect(pairs(metadata) == ["a=3", "b=2"])
    }

    @Test func innerScopesOverrideOuterKeysAndTheOuterContextIsRestoredAfter() {
        let logger = Logger(label: "store")
        #expect(logger.lineMetadata(["k": "v"]) == ["k": "v"])
        LogContext.with(["request_id": "req_1", "step": "outer"]) {
            LogContext.with(["step": "inner", "job_id": "job_1"]) {
                #expect(pairs(logger.lineMetadata([:])) == ["request_id=req_1", "step=inner", "job_id=job_1"])
            }
            #expect(pairs(logger.lineMetadata([:])) == ["request_id=req_1", "step=outer"])
            #expect(pairs(LogContext.metadata) == ["request_id=req_1", "step=outer"])
        }
        #expect(LogContext.metadata.isEmpty)
        #expect(logger.lineMetadata([:]).isEmpty)
    }

    @Test func contextComesFirstAndTheMostSpecificValueWins() {
        let logger = Logger(label: "records", metadata: ["record_id": "rec_1", "source": "logger"])
        LogContext.with(["request_id": "req_1", "source": "context"]) {
            let line = logger.lineMetadata(["words": "120", "source": "call"])
            #expect(pairs(line) == ["request_id=req_1", "source=call", "record_id=rec_1", "words=120"])
        }
    }

    @Test func childTasksInheritTheContextButDetachedTasksDoNot() async {
        let logger = Logger(label: "workers")
        await LogContext.with(["job_id": "job_7"]) {
            async let child = logger.lineMetadata([:])
            let grouped = await withTaskGroup(of: LogMetadata.self) { group in
                group.addTask { logger.lineMetadata([:]) }
                return await group.next()!
            }
            let unstructured = await Task { logger.lineMetadata([:]) }.value
            let detached = await Task.detached { logger.lineMetadata([:]) }.value
            let rebound = await Task.detached { [metadata = LogContext.metadata] in
                LogContext.with(metadata) { logger.lineMetadata([:]) }
            }.value
            #expect(await child == ["job_id": "job_7"])
            #expect(grouped == ["job_id": "job_7"])
            #expect(unstructured == ["job_id": "job_7"])
            #expect(detached.isEmpty)
            #expect(rebound == ["job_id": "job_7"])
        }
    }

    @Test func contextKeysRenderInOrderAndEscapedInLogfmt() {
        let metadata = LogContext.with(["request_id": "req_1", "odd key=\"x\"": "a b"]) {
            Logger(label: "store").lineMetadata(["status": "ok", "": "empty key"])
        }
        let line = LogSink.render(
            timestamp: date, level: .info, label: "store", message: "saved", metadata: metadata, format: .logfmt)
        #expect(
            line
                == #"ts=2027-01-15T08:00:00.250Z level=info label=store msg=saved request_id=req_1 odd_key__x_="a b" status=ok _="empty key""#
        )
    }

    @Test func contextKeysRenderInOrderAndEscapedInJSON() throws {
        let metadata = LogContext.with(["request_id": "req_1", "job \"id\"": "job_1\n"]) {
            Logger(label: "store").lineMetadata(["status": "ok"])
        }
        let line = LogSink.render(
            timestamp: date, level: .info, label: "store", message: "saved", metadata: metadata, format: .json)
        #expect(
            line
                == #"{"ts":"2027-01-15T08:00:00.250Z","level":"info","label":"store","msg":"saved","request_id":"req_1","job \"id\"":"job_1\n","status":"ok"}"#
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["job \"id\""] == "job_1\n")
        #expect(object["request_id"] == "req_1")
    }
}
