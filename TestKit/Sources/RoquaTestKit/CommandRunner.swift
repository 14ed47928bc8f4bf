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
    /// The child's own peak resident set size (VmHWM), when it was run with `measuringMemory`;
    /// otherwise 0. (`wait4`'s `ru_maxrss` cannot serve: Linux records the spawning process's
    /// peak in it at `exec`, so a child of a large test process seems as large as its parent.)
    public var maxRSSKilobytes: Int = 0
}

/// A child process started by `CommandRunner.start`; its output goes to temporary files.
public final class RunningCommand {
    public let pid: pid_t
    private let directory: TempDirectory

    init(pid: pid_t, directory: TempDirectory) {
        self.pid = pid
        self.directory = directory
    }

    public func kill(_ signal: Int32 = SIGKILL) { Glibc.kill(pid, signal) }

    /// What the child has written to stderr so far (it may still be running), e.g. to learn
    /// the port a server chose.
    public var stderrSoFar: String {
        (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? ""  // "": not written yet
    }

    /// Waits for the child to end and collects what it printed. With `measuringMemory`, the
    /// child's peak RSS is read from `/proc/PID/status` (VmHWM, which only grows) every 2 ms
    /// while it runs; the last reading before it exits is its peak.
    public func wait(measuringMemory: Bool = false) -> CommandResult {
        var status: Int32 = 0
        var peak = 0
        while true {
            let options = measuringMemory ? WNOHANG : 0
            let reaped = waitpid(pid, &status, options)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { break }
            if reaped == 0 {
                peak = max(peak, Self.highWaterKilobytes(pid))
                usleep(2_000)
            }
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return CommandResult(
            status: exitStatus,
            stdout: (try? String(contentsOfFile: directory.file("stdout"), encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "",
            maxRSSKilobytes: peak)
    }

    /// VmHWM of a running process in kB; 0 when it cannot be read (the process is exiting).
    private static func highWaterKilobytes(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
    }
}

public enum CommandRunner {
    /// Copies the program at `source` to `destination` (mode 0755) through a descriptor no child
    /// can inherit (`O_CLOEXEC`): with Foundation's copy, a child another test thread spawned
    /// during the copy kept the file open for writing as long as it ran (a slow import: minutes),
    /// and starting the copy failed with ETXTBSY.
    public static func copyProgram(_ source: String, to destination: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination, "errno": errno]) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                guard written > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination, "errno": errno]) }
                offset += written
            }
        }
    }

    /// Starts `executable` with `arguments`; stdin is the file `stdin` (or empty), stdout and
    /// stderr go to temporary files. posix_spawn rather than Foundation's Process, whose pipes and
    /// exit notification can hang when parallel tests spawn children at the same time.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: String? = nil
    ) throws -> RunningCommand {
        let directory = try TempDirectory("roqua-run")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory.file("stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, directory.file("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        // ETXTBSY: a binary a test has just copied may still be open for writing in a child that
        // another test thread spawned during the copy (Foundation's copy does not open with
        // O_CLOEXEC, so the child keeps the descriptor while it runs); it goes when that child
        // ends, so try again for up to 10 s.
        var attempts = 0
        while spawned == ETXTBSY, attempts < 500 {
            attempts += 1
            usleep(20_000)
            spawned = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        }
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable, "errno": spawned])
        }
        return RunningCommand(pid: pid, directory: directory)
    }

    /// Runs `executable` to its end (see `start`); `measuringMemory` fills `maxRSSKilobytes`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: String? = nil, measuringMemory: Bool = false
    ) throws -> CommandResult {
        try start(executable, arguments, environment: environment, stdin: stdin).wait(measuringMemory: measuringMemory)
    }
}
