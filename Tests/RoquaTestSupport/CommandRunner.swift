import Foundation

/// Where SwiftPM put the built products of this test run (`.build/debug`, or whatever
/// `--scratch-path` chose): the directory holding the test bundle.
public enum ProductsDirectory {
    public static var path: String {
        // macOS: the .xctest bundle is loaded by Xcode's xctest tool; its parent is the products dir.
        if let bundle = (Bundle.allBundles + [Bundle.main]).first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return (bundle.bundlePath as NSString).deletingLastPathComponent
        }
        // Linux: the test bundle is itself the running executable.
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")
        return executable.resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The built product `name` (e.g. "roqua") next to the test bundle.
    public static func product(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}

public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public enum CommandRunner {
    /// Runs `executable` with `arguments` and waits; output is captured, stdin is empty.
    public static func run(_ executable: String, _ arguments: [String],
                           environment: [String: String]? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus,
                             stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self))
    }
}
