import EarshotAPI
import EarshotHTTP
import EarshotModels

/// OpenAI-compatible `GET /v1/models` and `GET /v1/models/{model}`: the speech tiers and every alias of one
/// (``ModelTier``), in OpenAI's model-list shape, so `client.models.list()` shows what `model` may be.
struct OpenAIModels: Sendable {
    struct Model: Encodable {
        var id: String
        var object = "model"
        var created = 0
        var ownedBy = "earshot"
        /// Earshot's: the tier the name runs (itself for a tier).
        var tier: String
        /// Earshot's: what the tier is.
        var description: String

        enum CodingKeys: String, CodingKey {
            case id, object, created, tier, description
            case ownedBy = "owned_by"
        }
    }

    struct List: Encodable {
        var object = "list"
        var data: [Model]
    }

    static var models: [Model] {
        let tiers = ModelTier.all.map { tier in
            Model(
                id: tier.name, tier: tier.name,
                description: "Whisper \(tier.modelName), "
                    + (tier.beamSize > 1 ? "beam search of width \(tier.beamSize)" : "greedy decoding"))
        }
        let aliases = ModelTier.aliases.map { alias in
            Model(id: alias.alias, tier: alias.tier, description: "an alias of \(alias.tier)")
        }
        return tiers + aliases
    }

    func register(on routes: APIRoutes) {
        routes.get(APIPath.openAIModels, .partner) { _, _, _ in
            try .json(List(data: Self.models))
        }
        routes.get(APIPath.openAIModel, .partner) { _, context, _ in
            let id = try context.parameters.require("model")
            guard let model = Self.models.first(where: { $0.id == id }) else {
                throw PlatformError.notFound(ModelTier.notOfferedMessage(id))
            }
            return try .json(model)
        }
    }
}
