// The partner backend of seed 001 ("your backend"), on EarshotKit: hands the app short-lived user tokens,
// submits transcriptions with the partner credentials, relays transcripts and receives signed webhooks.
// Configuration comes from the environment (see BackendConfiguration.swift); run it next to `earshot serve`:
//
//   EARSHOT_URL=http://127.0.0.1:8080 EARSHOT_CLIENT_ID=ptn_… EARSHOT_CLIENT_SECRET=sk_… \
//   BACKEND_SESSIONS=demo-session=user-42 swift run partner-backend
import EarshotCore
import EarshotHTTP
import EarshotKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let configuration: BackendConfiguration
do {
    configuration = try BackendConfiguration.load(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("partner-backend: cannot start:\n\(error.message)\n".utf8))
    exit(64)
}
LogSink.shared.bootstrap(level: .info)

// Everything that talks to Earshot goes through EarshotKit.
let tokens = PartnerTokenClient(
    baseURL: configuration.earshotURL, clientID: configuration.clientID, clientSecret: configuration.clientSecret)
let transcriptions = TranscriptionClient(
    client: EarshotClient(baseURL: configuration.earshotURL, tokenProvider: tokens.provider))

let publicURL = PublicURL()
let router = Router()
BackendRoutes(
    configuration: configuration, tokens: tokens, transcriptions: transcriptions,
    inbox: WebhookInbox(transcriptions: transcriptions), publicURL: publicURL
).register(on: router)
let server = HTTPServer(
    router: router,
    configuration: .init(host: configuration.host, port: configuration.port, errorMapper: BackendRoutes.map))

signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let serving = Task { try await server.run() }
let signals = [SIGTERM, SIGINT].map {
    DispatchSource.makeSignalSource(signal: $0, queue: DispatchQueue(label: "signals"))
}
for source in signals {
    source.setEventHandler { serving.cancel() }
    source.resume()
}
let port = try await server.waitUntilListening()
publicURL.set(configuration.publicURL ?? "http://\(configuration.host):\(port)")
FileHandle.standardError.write(
    Data(
        "partner-backend listening url=http://\(configuration.host):\(port) earshot=\(configuration.earshotURL)\n".utf8)
)
try await serving.value
