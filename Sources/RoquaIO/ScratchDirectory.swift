import Dispatch
import Foundation
import Synchronization

/// A private directory for work files (a layer unzipped or converted, a dry run's database):
/// made by `mkdtemp` (0700, a name no one else can have taken) in the temporary directory as
/// `roqua-PURPOSE-PID-XXXXXX`, and removed on every way out: when done or on an error (`remove`,
/// or when released), when the process is stopped by SIGINT, SIGTERM or SIGHUP (it removes its
/// directories, then ends as the signal says), and after a SIGKILL by the next Roqua that makes
/// one for the same purpose (a directory whose process is gone).
package final class ScratchDirectory {
    package let path: String

    /// - Throws: `OutputError` when the directory cannot be made.
    package init(purpose: String) throws(OutputError) {
        let temporary = NSTemporaryDirectory()
        let prefix = "roqua-\(purpose)-"
        for name in StaleFiles.names(in: temporary, prefix: prefix) {
            try? FileManager.default.removeItem(atPath: (temporary as NSString).appendingPathComponent(name))
        }
        var template = Array((temporary as NSString).appendingPathComponent("\(prefix)\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw OutputError.errno((temporary as NSString).appendingPathComponent(prefix + "…"))
        }
        path = String(cString: made)
        Live.add(path)
    }

    deinit { remove() }

    /// `name` inside the directory.
    package func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Removes the directory and everything in it (again: nothing).
    package func remove() {
        guard Live.take(path) else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The directories of this process not yet removed, and the signal handlers that remove them.
    private enum Live {
        static let paths = Mutex<Set<String>>([])
        /// Installed with the first directory: SIGINT, SIGTERM and SIGHUP, when they would end
        /// the process anyway (a handler already there, an embedding app's, is left alone), are
        /// taken by dispatch sources that remove the directories and end it as the signal would.
        nonisolated(unsafe) static let handlers: [any DispatchSourceSignal] = [SIGINT, SIGTERM, SIGHUP].compactMap { number in
            let previous = signal(number, SIG_IGN)
            guard previous == nil else {
                signal(number, previous)
                return nil
            }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
                // Now as if no one had taken the signal; unblocked here, where it is delivered
                // even when every other thread blocks it (a parent's mask, inherited).
                signal(number, nil)
                var only = sigset_t()
                sigemptyset(&only)
                sigaddset(&only, number)
                pthread_sigmask(SIG_UNBLOCK, &only, nil)
                kill(getpid(), number)
            }
            source.resume()
            return source
        }

        static func add(_ path: String) {
            _ = handlers
            paths.withLock { _ = $0.insert(path) }
        }

        static func take(_ path: String) -> Bool {
            paths.withLock { $0.remove(path) != nil }
        }
    }
}

/// Files and directories named `PREFIX` + a process id (+ anything) whose process no longer
/// runs: what a killed Roqua left behind. Reads the directory with `readdir` and makes a Swift
/// string only of names with the prefix: a big directory (a `/tmp` of thousands of files) costs a
/// scan, not thousands of strings.
package enum StaleFiles {
    package static func names(in directory: String, prefix text: String) -> [String] {
        let prefix = Array(text.utf8)
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let matches = withUnsafeBytes(of: &entry.pointee.d_name) { bytes in
                bytes.count > prefix.count && prefix.indices.allSatisfy { bytes[$0] == prefix[$0] }
            }
            guard matches else { continue }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            let rest = name.utf8.dropFirst(prefix.count)
            let pidText = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            // The id ends the name or a `-` follows it (an older name, say a UUID's digits, is not one).
            guard pidText.count == rest.count || rest.dropFirst(pidText.count).first == UInt8(ascii: "-"),
                let pid = Int32(String(decoding: pidText, as: UTF8.self)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else {
                continue
            }
            names.append(name)
        }
        return names
    }
}
