/// The OpenAPI 3.1 document of the whole API, as stored.
///
/// One source of truth: `docs/openapi.json` (what readers and API tools use). `openapi.json` next to this file is
/// a symlink to it, embedded at build time as an `.embedInCode` resource (Package.swift), so the binary needs no
/// file at run time. Edit `docs/openapi.json`; `OpenAPITests` checks that the served document equals it and that
/// it documents exactly the routes the server registers. ``OpenAPIRoutes`` sets `servers` and `api-prefix` when
/// serving.
enum OpenAPIDocument {
    /// The UTF-8 JSON bytes of `docs/openapi.json` at build time.
    static var bytes: [UInt8] { PackageResources.openapi_json }
}
