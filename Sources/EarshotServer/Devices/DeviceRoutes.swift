import EarshotAPI
import EarshotHTTP

/// The device registry's routes (user token with `devices:bind`, or partner token acting for a user): homes,
/// the user's device defaults, binding, proofs, status reports, device recordings and Wi-Fi upload plans
/// (``DeviceRegistry``).
struct DeviceRoutes: Sendable {
    let devices: DeviceRegistry

    func register(on api: APIRoutes) {
        let access = Access.partnerOrUser(.devicesBind)
        api.get(APIPath.homes, access) { request, _, caller in
            try .json(try await devices.homes(for: caller, userID: try TokenService.userFilter(request.query)))
        }
        api.post(APIPath.homes, access) { request, _, caller in
            try .json(
                try await devices.createHome(for: caller, try request.decode(HomeCreateRequest.self)),
                status: .created)
        }
        api.patch(APIPath.home, access) { request, context, caller in
            try .json(
                try await devices.updateHome(
                    for: caller, id: try context.parameters.require("home_id"),
                    try request.decode(HomeUpdateRequest.self)))
        }
        api.delete(APIPath.home, access) { _, context, caller in
            try await devices.deleteHome(for: caller, id: try context.parameters.require("home_id"))
            return Response(status: .noContent)
        }
        api.get(APIPath.deviceDefaults, access) { request, _, caller in
            try .json(try await devices.defaults(for: caller, userID: try TokenService.userFilter(request.query)))
        }
        api.patch(APIPath.deviceDefaults, access) { request, _, caller in
            try .json(try await devices.updateDefaults(for: caller, try request.decode(DeviceDefaultsUpdateRequest.self)))
        }
        api.post(APIPath.devices, access) { request, _, caller in
            let (device, created) = try await devices.bind(for: caller, try request.decode(DeviceBindRequest.self))
            return try .json(device, status: created ? .created : .ok)
        }
        api.get(APIPath.devices, access) { request, _, caller in
            try .json(
                try await devices.list(
                    for: caller, userID: try TokenService.userFilter(request.query), homeID: request.query["home_id"]))
        }
        api.get(APIPath.device, access) { _, context, caller in
            try .json(try await devices.detail(for: caller, serial: try context.parameters.require("serial")))
        }
        api.patch(APIPath.device, access) { request, context, caller in
            try .json(
                try await devices.update(
                    for: caller, serial: try context.parameters.require("serial"),
                    try request.decode(DeviceUpdateRequest.self)))
        }
        api.delete(APIPath.device, access) { request, context, caller in
            let cleared: Bool
            switch request.query["clear"]?.lowercased() {
            case nil, "false", "0": cleared = false
            case "true", "1": cleared = true
            case let other?: throw PlatformError.invalidArgument("clear \"\(other.prefix(16))\" must be true or false")
            }
            try await devices.remove(for: caller, serial: try context.parameters.require("serial"), cleared: cleared)
            return Response(status: .noContent)
        }
        api.put(APIPath.deviceSecret, access) { request, context, caller in
            try .json(
                try await devices.setSecret(
                    for: caller, serial: try context.parameters.require("serial"),
                    try request.decode(DeviceSecretRequest.self)))
        }
        api.post(APIPath.deviceProof, access) { request, context, caller in
            try .json(
                try await devices.proof(
                    for: caller, serial: try context.parameters.require("serial"),
                    try request.decode(DeviceProofRequest.self)))
        }
        api.post(APIPath.deviceStatus, access) { request, context, caller in
            try .json(
                try await devices.report(
                    for: caller, serial: try context.parameters.require("serial"),
                    try request.decode(DeviceStatusReport.self)))
        }
        api.post(APIPath.deviceRecordings, access) { request, context, caller in
            let (recording, created) = try await devices.store(
                for: caller, serial: try context.parameters.require("serial"),
                try request.decode(DeviceRecordingRequest.self))
            return try .json(recording, status: created ? .created : .ok)
        }
        api.get(APIPath.deviceRecordings, access) { request, context, caller in
            try .json(
                try await devices.recordings(
                    for: caller, serial: try context.parameters.require("serial"),
                    after: try request.query.get("after", as: Int64.self),
                    limit: try request.query.get("limit", as: Int.self)))
        }
        api.post(APIPath.deviceUploadPlan, access) { request, context, caller in
            try .json(
                try await devices.uploadPlan(
                    for: caller, serial: try context.parameters.require("serial"),
                    try request.decode(DeviceUploadPlanRequest.self)))
        }
        api.post(APIPath.deviceUploadPlans, access) { request, context, caller in
            try .json(
                DeviceUploadPlans(
                    plans: try await devices.uploadPlans(
                        for: caller, serial: try context.parameters.require("serial"),
                        try request.decode(DeviceUploadPlansRequest.self).recordings)))
        }
    }
}
