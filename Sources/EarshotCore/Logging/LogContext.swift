/// Metadata that every log line written inside a scope carries, whichever ``Logger`` writes it.
///
/// ```swift
/// try await LogContext.with(["job_id": job.id, "kind": job.kind]) {
///     try await job.run()   // `Logger(label: "store").info("saved")` → … msg=saved job_id=job_… kind=summary
/// }
/// ```
///
/// The metadata is a task-local value, so code deep in the call tree logs with the request's or job's id without
/// any plumbing. Scopes nest: an inner scope adds its keys to the outer ones, and its value wins for a key both
/// set; the outer metadata is back once the inner scope returns. In a line, context keys come first (outermost
/// first), then the logger's own ``Logger/metadata``, then the call's; a key set at several levels keeps its first
/// position and takes the most specific value (call over logger over context).
///
/// What inherits the context: everything the operation calls, child tasks (`async let`, task-group children) and
/// unstructured `Task { … }` created inside the scope (they copy the task-locals). `Task.detached` starts with no
/// context: capture ``metadata`` before detaching and bind it again inside (`LogContext.with(metadata) { … }`).
/// The synchronous ``with(_:_:)`` also works on threads that run no Swift task (libmicrohttpd's worker threads);
/// the binding then lasts for the call on that thread.
///
/// Swift traps when a task-local is bound directly in the body of `withTaskGroup` (outside a child task): bind it
/// inside `group.addTask { … }` or around the whole group.
public enum LogContext {
    @TaskLocal static var current = LogMetadata()

    /// The metadata bound by the enclosing scopes (empty outside any).
    public static var metadata: LogMetadata { current }

    /// Runs `operation` with `metadata` added to the context of every line it logs.
    public static func with<Result>(_ metadata: LogMetadata, _ operation: () throws -> Result) rethrows -> Result {
        try $current.withValue(current.merging(metadata), operation: operation)
    }

    /// Runs `operation` with `metadata` added to the context of every line it logs, including lines of its child
    /// tasks.
    public static func with<Result>(
        _ metadata: LogMetadata, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $current.withValue(current.merging(metadata), operation: operation, isolation: isolation)
    }
}
