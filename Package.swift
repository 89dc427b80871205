// swift-tools-version:6.0
// Earshot — self-hosted AI voice notes. See docs/architecture.md for the module map.
import PackageDescription

/// Strict concurrency and Swift 6 mode everywhere (set once, applied to every Swift target below).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

var targets: [Target] = []
var products: [Product] = []

// MARK: - Core
targets += [
    .target(name: "EarshotCore", swiftSettings: swiftSettings),
    .testTarget(name: "EarshotCoreTests", dependencies: ["EarshotCore"], swiftSettings: swiftSettings),
]

// MARK: - Native libraries (one systemLibrary per C library)

// MARK: - Crypto

// MARK: - HTTP

// MARK: - Store

// MARK: - Eval
targets += [
    .target(name: "EarshotEval", dependencies: ["EarshotCore"], swiftSettings: swiftSettings),
    .testTarget(name: "EarshotEvalTests", dependencies: ["EarshotEval"], swiftSettings: swiftSettings),
]

// MARK: - Server

// MARK: - Executable
targets += [
    .executableTarget(
        name: "earshot",
        dependencies: ["EarshotCore"],
        swiftSettings: swiftSettings
    ),
]
products += [.executable(name: "earshot", targets: ["earshot"])]

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
