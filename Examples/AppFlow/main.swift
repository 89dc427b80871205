// The app side of seed 001 as a command line, on EarshotKit only: a user token from your backend, the recording
// uploaded straight to Earshot with progress (resumable), the backend told, the transcript polled and printed.
// Start `earshot serve` and `partner-backend` first (README → "Use from an app"), then:
//
//   swift run app-flow --backend http://127.0.0.1:3000 --session demo-session --journal .uploads memo.m4a
//
// With a recorder (`earshot device simulate` running): bind the card with the code it shows, sync it with progress,
// and print each recording's transcript as it finishes (DeviceFlow.swift):
//
//   swift run app-flow --backend http://127.0.0.1:3000 --session demo-session --device ES1-4F2A9C --code 493027
import EarshotAPI
import EarshotKit
import Foundation

func say(_ line: String) {
    // Unbuffered, so a pipe sees each progress line as it happens.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ line: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data(("app-flow: " + line + "\n").utf8))
    exit(status)
}

let arguments: Arguments
do {
    arguments = try Arguments(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error.message)\n\n\(Arguments.usage)", status: 64)
}

/// Seed 001's app flow: token → upload with progress → report → wait → print.
func run(_ arguments: Arguments) async throws {
    // 1. The user token comes from your backend; EarshotKit asks again once when Earshot answers 401.
    let backend = BackendClient(baseURL: arguments.backend, session: arguments.session)
    let client = EarshotClient(baseURL: arguments.earshot, tokenProvider: { try await backend.userToken() })

    if let serial = arguments.device {
        try await DeviceFlow(client: client, arguments: arguments).run(serial: serial)
        return
    }
    guard let fileURL = arguments.file else { return }

    // 2. Upload straight to Earshot's storage, printing progress as parts finish.
    let uploader = FileUploader(client: client, configuration: .init(stateDirectory: arguments.journal))
    let upload = try uploader.prepare(fileAt: fileURL)
    async let uploaded = upload.run()
    for await progress in upload.progress {
        let percent = Int(progress.fractionCompleted * 100)
        say(
            "upload \(progress.completedBytes)/\(progress.totalBytes) bytes \(percent)% "
                + "(part \(progress.completedParts)/\(progress.totalParts))")
    }
    let file = try await uploaded
    say(
        "uploaded \(file.fileID): sent \(file.partsSent) part\(file.partsSent == 1 ? "" : "s")"
            + (file.resumed ? " (resumed)" : ""))

    // 3. Your backend submits the transcription with its partner credentials; 4. poll it until done.
    let id = try await backend.reportComplete(downloadURL: file.downloadURL)
    say("transcribing \(id)")
    for segment in try await backend.waitForTranscript(id) {
        say(segment.line)
    }
}

do {
    try await run(arguments)
} catch {
    // One line naming the EarshotError code, message, HTTP status and request id.
    fail("\(error)".replacingOccurrences(of: "\n", with: " "), status: 1)
}
