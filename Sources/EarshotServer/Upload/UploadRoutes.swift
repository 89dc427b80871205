import EarshotAPI
import EarshotHTTP

/// The upload and file routes (seed paths): plan, part `PUT` (signed URL), complete, list parts, abort, file
/// metadata and signed download.
struct UploadRoutes: Sendable {
    let uploads: UploadService
    let tokens: TokenService
    /// Where part bodies are spooled: on the blob store's file system, so storing a part is a rename.
    let spoolDirectory: String

    func register(on api: some RouteBuilder) {
        api.post(APIPath.generatePresignedURLs) { request, _ in
            let caller = try await tokens.authenticate(request)
            let body = try request.decode(UploadPlanRequest.self)
            return try .json(try await uploads.plan(for: caller, filesize: body.filesize, filetype: body.filetype))
        }
        api.put(
            APIPath.uploadPart, body: .file(limit: uploads.configuration.chunkSize, directory: spoolDirectory)
        ) { request, context in
            let uploadID = try context.parameters.require("upload_id")
            let part = try context.parameters.require("part_number")
            try await uploads.signer.verify(
                method: .put, path: "/open/partner/files/upload/parts/\(uploadID)/\(part)", query: request.query)
            guard let number = Int(part) else { throw PlatformError.invalidArgument("part number must be an integer") }
            guard case .file(let file) = request.body else {
                throw PlatformError.invalidArgument("the part's bytes are missing")
            }
            let etag = try await uploads.storePart(uploadID: uploadID, partNumber: number, file: file)
            return .empty(status: .ok, headers: ["ETag": etag])
        }
        api.post(APIPath.completeUpload) { request, _ in
            let caller = try await tokens.authenticate(request)
            let body = try request.decode(CompleteUploadRequest.self)
            return try .json(try await uploads.complete(for: caller, body))
        }
        api.get(APIPath.uploadParts) { request, context in
            let caller = try await tokens.authenticate(request)
            return try .json(
                try await uploads.status(for: caller, uploadID: try context.parameters.require("upload_id")))
        }
        api.delete(APIPath.upload) { request, context in
            let caller = try await tokens.authenticate(request)
            try await uploads.abort(for: caller, uploadID: try context.parameters.require("upload_id"))
            return .empty()
        }
        api.get(APIPath.file) { request, context in
            let caller = try await tokens.authenticate(request)
            return try .json(try await uploads.fileInfo(for: caller, fileID: try context.parameters.require("file_id")))
        }
        api.get(APIPath.fileDownload) { request, context in
            let fileID = try context.parameters.require("file_id")
            try await uploads.signer.verify(
                method: .get, path: "/open/partner/files/\(fileID)/download", query: request.query)
            return try await uploads.download(fileID: fileID)
        }
    }
}
