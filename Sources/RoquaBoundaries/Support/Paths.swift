import Foundation

public enum Roqua {
    public static let version = "0.1.0"
}

/// Where Roqua finds its data by default; every path can be overridden by a flag or variable.
public enum RoquaPaths {
    /// `$XDG_DATA_HOME/roqua` (default `~/.local/share/roqua`).
    public static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return (xdg as NSString).appendingPathComponent("roqua")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/share/roqua")
    }

    /// The boundary DB: `ROQUA_BOUNDARIES`, else `boundaries.sqlite` in the data home.
    public static func boundaries(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["ROQUA_BOUNDARIES"], !path.isEmpty { return path }
        return (dataHome(environment: environment) as NSString).appendingPathComponent("boundaries.sqlite")
    }

    /// The bundled dataset: `ROQUA_DATA`, else `data/` of the source tree this binary was built from.
    public static func bundledData(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["ROQUA_DATA"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // RoquaBoundaries
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()
        return root.appendingPathComponent("data").path
    }
}
