import EarshotAPI
import Foundation
import Testing

@testable import EarshotServer

/// Perfusion evaluations through the platform API: a real transcription of JFK scored against its reference and
/// against a wrong one (the scores differ as they must), the HTML report escaped and sandboxed, the caller's
/// scope (another user's or tenant's evaluations and records are "not found"), and every refused request.
@Suite(.enabled(if: TestAudio.modelsInstalled, "speech models not installed (run `make models`)"))
struct EvaluationTests {
    static let jfk = "And so my fellow Americans, ask not what your country can do for you,\n"
        + "ask what you can do for your country."

    func evaluationPath(_ path: String, _ id: String) -> String { APIPath.filled(path, ["evaluation_id": id]) }

    @Test func aTranscribedRecordIsScoredAgainstItsReferenceWithTheEvalReport() async throws {
        try await TestPlatform.with { platform in
            let (_, partnerToken, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user, ["title": "JFK"]).record.recordID
            let clips: [[String: Any]] = [["record_id": id, "reference": Self.jfk]]

            // Not transcribed yet: 409, naming the record.
            let early = try await platform.send("POST", APIPath.evaluations, token: user, json: ["clips": clips])
            #expect(early.status == 409 && early.errorCode == "CONFLICT" && early.errorMessage.contains(id))

            let created = try await platform.send(
                "POST", platform.recordPath(APIPath.recordTasks, id), token: user, json: ["task_type": 0])
            let task = try created.decode(RecordTask.self)
            let done = try await platform.waitForRecordTask(id, task.taskID, token: user)
            try #require(done.status == .success, "\(done.error ?? "")")

            let scored = try await platform.send(
                "POST", APIPath.evaluations, token: user,
                json: ["title": "<script>alert(1)</script> inaugural", "clips": clips])
            try #require(scored.status == 201, "\(scored.text)")
            let good = try scored.decode(EvaluationItem.self)
            #expect(good.referenceWords == 22)
            #expect(good.wer <= 0.1, "WER \(good.wer)")
            #expect(good.language == "en" && good.models == ["asr-fast"])
            #expect(good.clips.map(\.recordID) == [id] && good.clips.first?.name == "JFK")

            // The same transcript against a wrong reference: the scorer really compared them.
            let wrong = try await platform.send(
                "POST", APIPath.evaluations, token: user,
                json: ["clips": [["record_id": id, "reference": "The quick brown fox jumps over the lazy dog."]]])
            let bad = try wrong.decode(EvaluationItem.self)
            #expect(bad.wer > 0.8, "WER \(bad.wer)")
            #expect(bad.title.hasPrefix("Perfusion evaluation 20"))

            // Listed newest first; one readable by id; the report is HTML, escaped and sandboxed.
            let listed = try await platform.send("GET", APIPath.evaluations, token: user).decode(EvaluationList.self)
            #expect(listed.evaluations.map(\.evaluationID) == [bad.evaluationID, good.evaluationID])
            let read = try await platform.send(
                "GET", evaluationPath(APIPath.evaluation, good.evaluationID), token: user)
            #expect(try read.decode(EvaluationItem.self) == good)
            let report = try await platform.send(
                "GET", evaluationPath(APIPath.evaluationReport, good.evaluationID), token: user)
            #expect(report.status == 200)
            #expect(report.header("Content-Type")?.hasPrefix("text/html") == true)
            let policy = report.header("Content-Security-Policy") ?? ""
            #expect(policy.contains("sandbox") && policy.contains("frame-ancestors 'self'"), "\(policy)")
            #expect(report.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; inaugural"))
            #expect(!report.text.contains("<script>alert"))
            #expect(report.text.lowercased().contains("country"))

            // The partner sees its user's evaluations; another user and another tenant see nothing.
            let byPartner = try await platform.send("GET", APIPath.evaluations + "?user_id=user-1", token: partnerToken)
            #expect(try byPartner.decode(EvaluationList.self).evaluations.count == 2)
            let other = try await platform.userToken(partnerToken: partnerToken, userID: "user-2")
            let (_, _, stranger) = try await platform.newUser("user-1", partner: "Globex")
            for token in [other, stranger] {
                let list = try await platform.send("GET", APIPath.evaluations, token: token)
                #expect(try list.decode(EvaluationList.self).evaluations.isEmpty)
                for path in [APIPath.evaluation, APIPath.evaluationReport] {
                    let answer = try await platform.send("GET", evaluationPath(path, good.evaluationID), token: token)
                    #expect(answer.status == 404 && answer.errorCode == "NOT_FOUND")
                }
                let delete = try await platform.send(
                    "DELETE", evaluationPath(APIPath.evaluation, good.evaluationID), token: token)
                #expect(delete.status == 404)
                // Nor can they score the record.
                let borrowed = try await platform.send(
                    "POST", APIPath.evaluations, token: token, json: ["clips": clips])
                #expect(borrowed.status == 404 && borrowed.errorCode == "NOT_FOUND")
            }

            // Deleting the record leaves the evaluation; deleting the evaluation removes it.
            let gone = try await platform.send("DELETE", platform.recordPath(APIPath.record, id), token: user)
            #expect(gone.status == 204)
            let kept = try await platform.send("GET", evaluationPath(APIPath.evaluation, good.evaluationID), token: user)
            #expect(kept.status == 200)
            let deleted = try await platform.send(
                "DELETE", evaluationPath(APIPath.evaluation, good.evaluationID), token: user)
            #expect(deleted.status == 204)
            let after = try await platform.send("GET", evaluationPath(APIPath.evaluation, good.evaluationID), token: user)
            #expect(after.status == 404)
        }
    }

    @Test func badRequestsAreRefusedWithClearErrors() async throws {
        try await TestPlatform.with { platform in
            let (_, _, user) = try await platform.newUser()
            let id = try await platform.createRecord(token: user).record.recordID
            let cases: [(Any, Int, String)] = [
                (["clips": [] as [Any]], 400, "1 to 200"),
                (["clips": [["record_id": id, "reference": "a"], ["record_id": id, "reference": "b"]]], 400, "once"),
                (["clips": [["record_id": id, "reference": "  \n "]]], 400, "empty"),
                (["clips": [["record_id": id, "reference": String(repeating: "a ", count: 100_001)]]], 400, "over"),
                (["language": "fr", "clips": [["record_id": id, "reference": "hello"]]], 400, "en or zh"),
                (["clips": [["record_id": "rec_nope", "reference": "hello"]]], 404, "no record"),
                (["clips": [["reference": "hello"]]], 400, "record_id"),
            ]
            for (body, status, words) in cases {
                let answer = try await platform.send("POST", APIPath.evaluations, token: user, json: body)
                #expect(answer.status == status, "\(body): \(answer.text)")
                #expect(answer.errorMessage.contains(words), "\(body): \(answer.text)")
            }
            let malformed = try await platform.send(
                "POST", APIPath.evaluations, token: user, body: Data("{\"clips\": [".utf8),
                headers: ["Content-Type": "application/json"])
            #expect(malformed.status == 400 && malformed.errorCode == "INVALID_ARGUMENT")
            let noToken = try await platform.send("GET", APIPath.evaluations)
            #expect(noToken.status == 401)
            let badID = try await platform.send("GET", evaluationPath(APIPath.evaluation, "../etc"), token: user)
            #expect(badID.status == 404)
        }
    }
}
