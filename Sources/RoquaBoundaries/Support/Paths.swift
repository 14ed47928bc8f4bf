import Foundation

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

    /// The bundled boundary dataset (a directory with `manifest.json`): `ROQUA_DATA`; else
    /// `share/roqua` of the prefix the binary is installed in (`PREFIX/bin/roqua`); else the
    /// `data/` folder of the source tree the binary was built in (`.build/release/roqua` lies two
    /// levels below it). Nil when none exists.
    package static func bundledData(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String? = nil
    ) -> String? {
        if let path = environment["ROQUA_DATA"], !path.isEmpty { return path }
        guard let binary = executable ?? runningExecutable() else { return nil }
        var directory = URL(fileURLWithPath: binary).resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/roqua")
        if hasManifest(installed.path) { return installed.path }
        for _ in 0..<4 {
            directory.deleteLastPathComponent()
            let data = directory.appendingPathComponent("data")
            if hasManifest(data.path) { return data.path }
        }
        return nil
    }

    private static func hasManifest(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("manifest.json"))
    }

    private static func runningExecutable() -> String? {
        Bundle.main.executableURL?.path ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    }
}
