import EarshotAPI
import EarshotKit

/// Verified webhooks: the final state of each task Earshot told us about, deduplicated by delivery id.
///
/// In memory for the example; a real backend writes the transcript to its database here (and can then answer
/// `GET /recordings/{id}/transcript` without asking Earshot at all).
actor WebhookInbox {
    private let transcriptions: TranscriptionClient
    private var verifier: WebhookVerifier?
    private var finished: [String: TranscriptionTask] = [:]
    private var seenDeliveries: Set<String> = []

    init(transcriptions: TranscriptionClient) {
        self.transcriptions = transcriptions
    }

    /// Verifies the raw webhook and records its task. Returns false for a repeated delivery (already recorded).
    ///
    /// - Throws: `EarshotError` `.unauthorized` for a missing, forged or stale signature.
    func receive(signature: String?, delivery: String?, body: [UInt8]) async throws -> Bool {
        let task = try await currentVerifier().verifiedTask(signature: signature, body: body)
        if let delivery, !seenDeliveries.insert(delivery).inserted { return false }
        finished[task.taskID] = task
        return true
    }

    /// The final task a webhook reported, if one arrived.
    func task(_ taskID: String) -> TranscriptionTask? {
        finished[taskID]
    }

    /// The verifier, asking Earshot for the webhook secret on first use (so the backend starts without Earshot).
    private func currentVerifier() async throws -> WebhookVerifier {
        if let verifier { return verifier }
        let made = WebhookVerifier(secret: try await transcriptions.webhookSecret())
        verifier = made
        return made
    }
}
