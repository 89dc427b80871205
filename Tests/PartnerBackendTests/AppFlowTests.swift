import EarshotAPI
import EarshotEval
import EarshotKit
import EarshotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Seed 001 end to end across real processes: the app gets a user token from the partner backend, uploads a real
/// clip with EarshotKit's FileUploader, reports it to the backend, polls the backend for the transcript; Earshot
/// calls the backend's webhook, which verifies the signature.
@Suite(.serialized, .exclusive("speech decoding")) struct AppFlowTests {
    static var jfk: URL { TestEnvironment.jfk }
    static var modelsInstalled: Bool { TestEnvironment.exist(TestEnvironment.asrFastModel, jfk) }
    static let reference =
        "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."

    @Test(.enabled(if: modelsInstalled, "needs the asr-fast model and jfk.wav: run `make setup` and `make models`"))
    func theSeedFlowTranscribesARealClipAndTheWebhookVerifies() async throws {
        try await PartnerStack.with { stack in
            // 1. The app: a user token from its backend, then FileUploader straight to Earshot's storage.
            let (token, expiresIn) = try await stack.userToken()
            #expect(expiresIn == 3600)
            let app = EarshotClient(
                baseURL: stack.earshot, token: token, tokenProvider: { try await stack.userToken().token })
            let uploader = FileUploader(
                client: app, configuration: .init(stateDirectory: stack.directory.appendingPathComponent("state")))
            let upload = try await uploader.upload(fileAt: Self.jfk)

            // 2. Report the DownloadUrl to the backend, which submits the task with its partner credentials.
            let complete = try await stack.call(
                "POST", "/recordings/complete", json: ["file_url": upload.downloadURL, "user_id": "alice"])
            try #require(complete.status == 202, "\(String(decoding: complete.data, as: UTF8.self))")
            let id = try #require(complete.object["transcription_id"] as? String)
            #expect(
                ["PENDING", "RECEIVED", "STARTED", "PROGRESS", "SUCCESS"].contains(complete.object["status"] as? String)
            )
            // Reporting the same recording again does not create a second task.
            let again = try await stack.call(
                "POST", "/recordings/complete", json: ["file_url": upload.downloadURL, "user_id": "alice"])
            #expect(again.object["transcription_id"] as? String == id)

            // 3. Poll the backend until SUCCESS (the seed polls every 3 s; faster here).
            var transcript = PartnerStack.Answer(status: 0, data: Data())
            let deadline = ContinuousClock.now + .seconds(300)
            while ContinuousClock.now < deadline {
                transcript = try await stack.call("GET", "/recordings/\(id)/transcript")
                try #require(transcript.status == 200, "\(String(decoding: transcript.data, as: UTF8.self))")
                let status = transcript.object["status"] as? String
                if status == "SUCCESS" { break }
                try #require(status != "FAILURE" && status != "REVOKED", "\(transcript.object)")
                try await Task.sleep(for: .milliseconds(250))
            }
            let segments = try #require(transcript.object["segments"] as? [[String: Any]], "\(transcript.object)")
            let text = segments.compactMap { $0["text"] as? String }.joined(separator: " ")
            let normalizer = TextNormalizer(configuration: .defaults(for: .english))
            let wer = PairsBenchmark.score([(normalizer.normalize(Self.reference), normalizer.normalize(text))])
                .errorRate
            #expect(wer <= 0.1, "WER \(wer): \(text)")
            let times = segments.map { ($0["start_ms"] as? Int ?? -1, $0["end_ms"] as? Int ?? -1) }
            #expect(times.allSatisfy { $0.0 >= 0 && $0.0 < $0.1 && $0.1 <= 11_500 }, "\(times)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "\(times)")
            #expect((times.first?.0 ?? .max) < 2_000 && (times.last?.1 ?? 0) > 8_000, "\(times)")

            // The recording is in alice's library, whichever door it came through: listed with its transcript,
            // found by search, summarised and exported as a note — with the app's own user token.
            let library = RecordsClient(client: app)
            let records = try await library.list()
            let record = try #require(records.records.first, "\(records)")
            #expect(records.records.count == 1 && record.fileID == upload.fileID && record.userID == "alice")
            #expect(record.hasTranscript)
            let found = try await library.search("your country")
            #expect(found.hits.map(\.record.recordID) == [record.recordID])
            let summary = try await library.wait(for: try await library.run(RecordTaskRequest(taskType: 1), on: record.recordID))
            #expect(summary.status == .success, "\(summary.error ?? "")")
            let note = String(decoding: try await library.export(record.recordID, as: "md"), as: UTF8.self)
            #expect(note.contains("## Summary") && note.lowercased().contains("ask not what your country"), "\(note)")

            // Another user of the same app cannot read it; no session is refused.
            #expect(try await stack.call("GET", "/recordings/\(id)/transcript", session: "session-bob").status == 404)
            let anonymous = try await stack.call("GET", "/recordings/\(id)/transcript", session: nil)
            #expect(anonymous.status == 401 && anonymous.errorCode == "UNAUTHORIZED")

            // 4. Earshot's webhook reached the backend and passed its signature check (it answers 2xx only then).
            let partner = TranscriptionClient(
                client: EarshotClient(
                    baseURL: stack.earshot,
                    tokenProvider: PartnerTokenClient(
                        baseURL: stack.earshot, clientID: stack.clientID, clientSecret: stack.clientSecret
                    ).provider))
            var delivery: WebhookDelivery?
            while ContinuousClock.now < deadline {
                delivery = try await partner.webhookDeliveries(id).first
                if delivery?.state == "delivered" { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(delivery?.state == "delivered", "\(String(describing: delivery))")
            #expect(delivery?.url == stack.backend.absoluteString + "/webhooks/earshot")
            #expect(delivery?.attemptLog.last?.status == 204)

            // 5. Forged, tampered and stale webhooks are refused with 401; a correctly signed one is accepted.
            let body = try JSONEncoder().encode(try await partner.get(id))
            let verifier = WebhookVerifier(secret: try await partner.webhookSecret())
            let now = Int64(Date().timeIntervalSince1970)
            func post(_ signature: String?, _ payload: Data = body) async throws -> PartnerStack.Answer {
                try await stack.call(
                    "POST", "/webhooks/earshot", session: nil, body: payload,
                    headers: signature.map { [WebhookSignature.header: $0, "Content-Type": "application/json"] } ?? [:])
            }
            let forged = WebhookVerifier(secret: "whsec_guessed").sign(body: body, timestamp: now)
            for (signature, payload) in [
                (forged, body), (nil, body),
                (verifier.sign(body: body, timestamp: now - 3600), body),
                (verifier.sign(body: body, timestamp: now), Data(#"{"task_id":"task_forged"}"#.utf8)),
            ] as [(String?, Data)] {
                let refused = try await post(signature, payload)
                #expect(refused.status == 401 && refused.errorCode == "UNAUTHORIZED", "\(signature ?? "nil")")
            }
            #expect(try await post(verifier.sign(body: body, timestamp: now)).status == 204)
        }
    }
}
