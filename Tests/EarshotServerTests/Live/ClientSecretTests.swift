import EarshotAPI
import EarshotServer
import EarshotServerTestSupport
import EarshotTestSupport
import Foundation
import Testing

/// Client secrets for browsers and apps (docs/live.md#client-secrets): minted the OpenAI way by a partner or user
/// token, used on `/v1/realtime` by the Python `websockets` client from the browser subprotocol and as a Bearer,
/// refused when expired, forged, revoked or used anywhere else.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct ClientSecretTests {
    static let client = #"""
        import asyncio, base64, json, sys
        import websockets
        base, secrets, pcm16 = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
        url = base.replace("http", "ws", 1) + "/v1/realtime"
        out = {}

        def browser(secret):
            return ["realtime", "openai-insecure-api-key." + secret]

        async def beta():
            # As a browser: the secret in the subprotocol list; the minted settings are the session's from the start.
            async with websockets.connect(url + "?intent=transcription", subprotocols=browser(secrets["beta"]),
                                          max_size=None) as ws:
                created = json.loads(await ws.recv())
                audio = open(pcm16, "rb").read()[:4 * 32000]
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(audio).decode()}))
                await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                while True:
                    event = json.loads(await ws.recv())
                    if event["type"].endswith("transcription.completed") or event["type"] == "error":
                        break
                return {"subprotocol": ws.subprotocol, "created": created, "last": event,
                        "record": ws.response.headers.get("Earshot-Record-Id")}

        async def ga():
            # As an app: the secret as a Bearer, GA event names.
            headers = {"Authorization": "Bearer " + secrets["ga"]}
            async with websockets.connect(url, additional_headers=headers) as ws:
                return {"created": json.loads(await ws.recv())}

        async def refused(secret):
            try:
                async with websockets.connect(url + "?intent=transcription", subprotocols=browser(secret)) as ws:
                    return {"status": 101}
            except websockets.exceptions.InvalidStatus as error:
                return {"status": error.response.status_code, "body": error.response.body.decode()}

        async def main():
            out["beta"] = await beta()
            out["ga"] = await ga()
            for name in ["expired", "forged", "token", "revoked"]:
                out[name] = await refused(secrets[name])
            print(json.dumps(out))

        asyncio.run(main())
        """#

    /// `POST path` with a JSON body.
    static func mint(_ platform: TestPlatform, _ path: String, token: String?, _ body: [String: Any]) async throws
        -> TestPlatform.HTTPResult
    {
        try await platform.send("POST", path, token: token, json: body)
    }

    /// The console's Live page mints with its session cookie and CSRF token, at the root and — when the API has a
    /// prefix, to which the cookie is scoped — under the prefix too; the root still serves OpenAI clients' tokens.
    @Test func theConsolesSessionCookieMintsWithItsCSRFToken() async throws {
        for prefix in ["", "/developer/api"] {
            try await TestPlatform.with({ $0.apiPrefix = prefix }) { platform in
                let api = platform.base.absoluteString + prefix
                _ = try await AccountsTests.account(platform, "ada@example.com")
                let signedIn = try await platform.send(
                    "POST", api + APIPath.accountSignIn,
                    json: ["email": "ada@example.com", "password": AccountsTests.password, "session": "cookie"])
                try #require(signedIn.status == 200, "\(signedIn.text)")
                let csrf = try signedIn.decode(SignInResponse.self).csrfToken ?? ""
                let cookies = try #require(signedIn.header("Set-Cookie"))
                let token = try #require(cookies.firstMatch(of: /earshot_session=([^;]+)/)?.1)
                let cookie = ["Cookie": "earshot_session=\(token)"]
                let path = api + APIPath.realtimeClientSecrets

                let withoutCSRF = try await platform.send("POST", path, json: [:], headers: cookie)
                #expect(withoutCSRF.status == 403, "\(prefix): \(withoutCSRF.text)")
                let minted = try await platform.send(
                    "POST", path, json: ["session": ["type": "transcription"]],
                    headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
                #expect(minted.status == 200, "\(prefix): \(minted.text)")
                #expect((minted.object?["value"] as? String)?.hasPrefix("ek_") == true)

                let partner = try await platform.createPartner()
                let partnerToken = try await platform.send(
                    "POST", api + APIPath.partnerToken,
                    json: ["client_id": partner.clientID, "client_secret": partner.clientSecret]
                ).decode(TokenResponse.self).accessToken
                let root = try await Self.mint(platform, APIPath.realtimeClientSecrets, token: partnerToken, [:])
                #expect(root.status == 200, "\(prefix): \(root.text)")
            }
        }
    }

    @Test func secretsOpenTheLiveEndpointWithTheirSettingsAndNothingElse() async throws {
        guard let clip = try LiveClip.make("client-secrets") else { return }
        defer { clip.remove() }
        let pcm16 = clip.pcm16
        try await TestPlatform.with({ $0.liveSecretTTL = .seconds(1) }) { platform in
            // The default lifetime (1 s here) elapses while the rest is minted.
            let (_, partnerToken, userToken) = try await platform.newUser("listener-1")
            let expired = try await Self.mint(platform, APIPath.realtimeClientSecrets, token: partnerToken, [:])
            #expect(expired.status == 200, "\(expired.text)")
            #expect(expired.header("Cache-Control") == "no-store")

            // Beta, by a user token: the session's settings, answered as the session with its client_secret.
            let settings: [String: Any] = [
                "input_audio_format": "pcm16", "input_audio_sample_rate": 16000, "turn_detection": NSNull(),
                "input_audio_transcription": ["model": "whisper-1", "language": "en", "prompt": "JFK's inaugural"],
                "client_secret": ["expires_after": ["anchor": "created_at", "seconds": 590]],
            ]
            let beta = try await Self.mint(platform, APIPath.realtimeTranscriptionSessions, token: userToken, settings)
            try #require(beta.status == 200, "\(beta.text)")
            let betaObject = try #require(beta.object)
            #expect(betaObject["object"] as? String == "realtime.transcription_session")
            #expect(betaObject["input_audio_sample_rate"] as? Int == 16000)
            let betaSecret = try #require(betaObject["client_secret"] as? [String: Any])
            let betaValue = try #require(betaSecret["value"] as? String)
            #expect(betaValue.hasPrefix("ek_"))
            let now = Int(Date().timeIntervalSince1970)
            #expect(((now + 580)...(now + 591)).contains(betaSecret["expires_at"] as? Int ?? 0))

            // GA, by a partner token: {value, expires_at, session}. The secrets the client uses live the longest
            // they may (10 min), so a loaded machine's slow first session cannot expire them before they are tried.
            let ga = try await Self.mint(
                platform, APIPath.realtimeClientSecrets, token: partnerToken,
                [
                    "expires_after": ["anchor": "created_at", "seconds": 600],
                    "session": [
                        "type": "transcription",
                        "audio": [
                            "input": ["format": ["type": "audio/pcm", "rate": 16000], "turn_detection": NSNull()]
                        ],
                    ],
                ])
            try #require(ga.status == 200, "\(ga.text)")
            let gaValue = try #require(ga.object?["value"] as? String)
            #expect((ga.object?["session"] as? [String: Any])?["type"] as? String == "transcription")

            // Minting refuses what a session would refuse, and lifetimes out of bounds; only a token mints.
            let refusals: [(String, [String: Any], String?)] = [
                (APIPath.realtimeTranscriptionSessions, ["input_audio_format": "mp3"], userToken),
                (APIPath.realtimeTranscriptionSessions, ["input_audio_transcription": ["model": "gpt-9"]], userToken),
                (APIPath.realtimeClientSecrets, ["expires_after": ["seconds": 5]], partnerToken),
                (APIPath.realtimeClientSecrets, ["expires_after": ["seconds": 100_000]], partnerToken),
                (APIPath.realtimeClientSecrets, ["session": ["type": "realtime"]], partnerToken),
                (APIPath.realtimeClientSecrets, ["session": "transcription"], partnerToken),
                (APIPath.realtimeTranscriptionSessions, ["input_audio_transcription": "whisper-1"], userToken),
                (APIPath.realtimeTranscriptionSessions, ["turn_detection": ["prefix_padding_ms": "300"]], userToken),
                (APIPath.realtimeTranscriptionSessions, ["turn_detection": ["silence_duration_ms": 250.5]], userToken),
                (APIPath.realtimeTranscriptionSessions, ["client_secret": "60"], userToken),
                (APIPath.realtimeClientSecrets, ["expires_after": ["anchor": "now", "seconds": 60]], partnerToken),
                (
                    APIPath.realtimeTranscriptionSessions,
                    ["input_audio_transcription": ["prompt": String(repeating: "Ask not. ", count: 500)]], userToken
                ),
            ]
            for (path, body, token) in refusals {
                let response = try await Self.mint(platform, path, token: token, body)
                #expect(response.status == 400, "\(body): \(response.text)")
            }
            let notJSON = try await platform.send(
                "POST", APIPath.realtimeClientSecrets, token: partnerToken, body: Data("session=1".utf8),
                headers: ["Content-Type": "application/json"])
            #expect(notJSON.status == 400, "\(notJSON.text)")
            #expect(try await Self.mint(platform, APIPath.realtimeClientSecrets, token: nil, [:]).status == 401)
            let secretMints = try await Self.mint(platform, APIPath.realtimeClientSecrets, token: gaValue, [:])
            #expect(secretMints.status == 401 && secretMints.errorMessage.contains("only opens"), "\(secretMints.text)")

            // A secret opens nothing but the live endpoint, with or without its prefix.
            for credential in [betaValue, String(betaValue.dropFirst(3))] {
                let records = try await platform.send("GET", APIPath.records, token: credential)
                #expect(records.status == 401 && records.errorMessage.contains("only opens"), "\(records.text)")
            }
            #expect(try await platform.send("GET", APIPath.openAIModels, token: gaValue).status == 401)

            // Forged (one signature character changed), a token dressed as a secret, a revoked tenant's secret.
            var forgedCharacters = Array(betaValue)
            forgedCharacters[forgedCharacters.count - 6] =
                forgedCharacters[forgedCharacters.count - 6] == "A" ? "B" : "A"
            let forged = String(forgedCharacters)
            let (revokedPartner, revokedToken) = try await platform.newPartnerToken()
            let revoked = try #require(
                try await Self.mint(
                    platform, APIPath.realtimeClientSecrets, token: revokedToken,
                    ["expires_after": ["seconds": 600]]
                ).object?["value"]
                    as? String)
            try await PartnerAdministration(configuration: platform.configuration)
                .setStatus(revokedPartner.clientID, active: false)
            try await Task.sleep(for: .seconds(2))

            let secrets = [
                "beta": betaValue, "ga": gaValue, "expired": try #require(expired.object?["value"] as? String),
                "forged": forged, "token": "ek_" + partnerToken, "revoked": revoked,
            ]
            let result = try await Program(RealtimeTranscriptionTests.python).run(
                [
                    "-c", Self.client, platform.base.absoluteString,
                    String(decoding: try JSONSerialization.data(withJSONObject: secrets), as: UTF8.self), pcm16.path,
                ], timeout: .seconds(600))
            try #require(result.status == 0, "\(result)")
            let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

            // The browser's session started with the minted settings and transcribes; it is the user's record.
            let betaOut = try #require(out["beta"] as? [String: Any])
            #expect(betaOut["subprotocol"] as? String == "realtime")
            let created = try #require((betaOut["created"] as? [String: Any])?["session"] as? [String: Any])
            #expect(created["input_audio_sample_rate"] as? Int == 16000)
            #expect(created["turn_detection"] is NSNull)
            let transcription = created["input_audio_transcription"] as? [String: Any]
            #expect(transcription?["model"] as? String == "whisper-1")
            #expect(transcription?["language"] as? String == "en")
            #expect(transcription?["prompt"] as? String == "JFK's inaugural")
            let last = try #require(betaOut["last"] as? [String: Any])
            #expect(last["type"] as? String == "conversation.item.input_audio_transcription.completed", "\(last)")
            #expect((last["transcript"] as? String ?? "").lowercased().contains("americans"), "\(last)")
            let recordID = try #require(betaOut["record"] as? String)
            let record = try await LiveRecordsTests.record(recordID, platform, token: userToken)
            #expect(record.record.userID == "listener-1")
            let (_, strangerToken) = try await platform.newPartnerToken()
            #expect(
                try await platform.send(
                    "GET", APIPath.filled(APIPath.record, ["record_id": recordID]), token: strangerToken
                )
                .status == 404)

            // The app's session (GA, Bearer) started at the minted rate.
            let gaCreated = try #require((out["ga"] as? [String: Any])?["created"] as? [String: Any])
            #expect(gaCreated["type"] as? String == "session.created")
            let format = ((gaCreated["session"] as? [String: Any])?["audio"] as? [String: Any])
                .flatMap { ($0["input"] as? [String: Any])?["format"] as? [String: Any] }
            #expect(format?["rate"] as? Int == 16000)

            // Expired, forged, a token in a secret's clothes, a disabled tenant's: 401 before the upgrade, saying why.
            let reasons = [
                "expired": "expired", "forged": "signature", "token": "not a client secret", "revoked": "partner",
            ]
            for (name, reason) in reasons {
                let refusal = try #require(out[name] as? [String: Any])
                #expect(refusal["status"] as? Int == 401, "\(name): \(refusal)")
                #expect((refusal["body"] as? String ?? "").contains(reason), "\(name): \(refusal)")
            }
        }
    }
}
