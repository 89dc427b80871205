import EarshotAPI
import EarshotHTTP

/// The upload and file routes (seed paths): plan, part `PUT` (signed URL), complete, list parts, abort, file
/// metadata and signed download.
struct UploadRoutes: Sendable {
    let uploads: UploadService
    /// Where part bodies are spooled: on the blob store's file system, so storing a part is a rename.
    let spoolDirectory: String

    func register(on api: APIRoutes) {
        api.post(APIPath.generatePresignedURLs, .partnerOrUser(.filesWrite)) { request, _, caller in
            let body = try request.decode(UploadPlanRequest.self)
            return try .json(
                try await uploads.plan(
                    for: caller, filesize: body.filesize, filetype: body.filetype, filename: body.filename))
        }
        api.signed(
            .uploadPart, body: .file(limit: uploads.configuration.chunkSize, directory: spoolDirectory)
        ) { request, context in
            let uploadID = try context.parameters.require("upload_id")
            guard let number = Int(try context.parameters.require("part_number")) else {
                throw PlatformError.invalidArgument("part number must be an integer")
            }
            guard case .file(let file) = request.body else {
                throw PlatformError.invalidArgument("the part's bytes are missing")
            }
            let etag = try await uploads.storePart(uploadID: uploadID, partNumber: number, file: file)
            return .empty(status: .ok, headers: ["ETag": etag])
        }
        api.post(APIPath.completeUpload, .partnerOrUser(.filesWrite)) { request, _, caller in
            let body = try request.decode(CompleteUploadRequest.self)
            return try .json(try await uploads.complete(for: caller, body))
        }
        api.get(APIPath.uploadParts, .partnerOrUser(.filesWrite)) { _, context, caller in
            try .json(try await uploads.status(for: caller, uploadID: try context.parameters.require("upload_id")))
        }
        api.delete(APIPath.upload, .partnerOrUser(.filesWrite)) { _, context, caller in
            try await uploads.abort(for: caller, uploadID: try context.parameters.require("upload_id"))
            return .empty()
        }
        api.get(APIPath.file, .partnerOrUser(.filesWrite)) { _, context, caller in
            try .json(try await uploads.fileInfo(for: caller, fileID: try context.parameters.require("file_id")))
        }
        api.signed(.fileDownload) { _, context in
            try await uploads.download(fileID: try context.parameters.require("file_id"))
        }
    }
}
