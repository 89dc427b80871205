/// What an access token may do. A partner token may do everything within its tenant; a user token only what an
/// app needs.
enum Scope: String, Sendable, CaseIterable {
    /// Everything the partner may do (issue user tokens, and later submit tasks, manage webhooks…).
    case partner
    /// Upload files (presigned plans, complete, list parts, abort) and read the user's own files.
    case filesWrite = "files:write"
    /// Bind and unbind the user's devices.
    case devicesBind = "devices:bind"
    /// Read the user's own records.
    case recordsRead = "records:read"
    /// Create, edit, delete the user's own records and run offline tasks on them.
    case recordsWrite = "records:write"

    /// The scopes of every user token.
    static let user: [Scope] = [.filesWrite, .devicesBind, .recordsRead, .recordsWrite]
}
