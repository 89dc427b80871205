import EarshotAPI
import EarshotHTTP

/// `POST`/`GET /open/partner/api-keys` and `DELETE /open/partner/api-keys/{key_id}`: a partner's long-lived keys
/// (``APIKeys``). Partner credentials only (a partner token, or a key with the `partner` scope).
struct APIKeyRoutes: Sendable {
    let keys: APIKeys

    func register(on api: APIRoutes) {
        api.post(APIPath.apiKeys, .partner) { request, _, caller in
            let created = try await keys.create(partnerID: caller.partnerID, try request.decode(APIKeyRequest.self))
            return try .json(created, status: .created, headers: ["Cache-Control": "no-store"])
        }
        api.get(APIPath.apiKeys, .partner) { _, _, caller in
            try .json(APIKeyList(keys: try await keys.list(partnerID: caller.partnerID)))
        }
        api.delete(APIPath.apiKey, .partner) { _, context, caller in
            try .json(try await keys.revoke(partnerID: caller.partnerID, keyID: try context.parameters.require("key_id")))
        }
    }
}
