/// The release version of this build.
public enum EarshotVersion {
    /// Semantic version string.
    public static let current = "0.1.0-dev"
}
