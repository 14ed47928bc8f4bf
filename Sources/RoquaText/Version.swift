/// Facts about this build of Roqua, shared by every program of both packages (the lowest module
/// holds it so that the tour-group server, which links no resolver, prints the same version).
public enum Roqua {
    /// The version every program prints (`--version`) and each imported DB records.
    public static let version = "0.3.0"
}
