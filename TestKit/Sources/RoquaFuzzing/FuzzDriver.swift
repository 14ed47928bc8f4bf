import Foundation

/// The one harness of every fuzzing program (`roqua-fuzz` here, `roqua-chat-fuzz` in the
/// tour-group package): a program hands its table of targets to `FuzzDriver.main`.
///
/// Built normally, the program is a replayer: `PROGRAM TARGET FILE|DIR…` feeds every file to the
/// target's parser (the saved corpus and crash regressions run this way in the test suites).
/// Built by scripts/checks/fuzz.sh with `-sanitize=fuzzer,address -DFUZZING`, it hands over to
/// libFuzzer's driver, which calls the entry below with the target named by ROQUA_FUZZ_TARGET.
public enum FuzzDriver {
    /// One parser of outside input: it must finish or throw an error that describes itself; a
    /// crash, a hang, a leak or unbounded memory is a bug.
    public typealias Target = @Sendable (Data) throws -> Void

    public static func main(program: String, targets: [String: Target]) -> Never {
        #if FUZZING
        let name = ProcessInfo.processInfo.environment["ROQUA_FUZZ_TARGET"] ?? ""
        guard let target = targets[name] else {
            FileHandle.standardError.write(Data("ROQUA_FUZZ_TARGET must be one of \(targets.keys.sorted())\n".utf8))
            exit(2)
        }
        selected = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { bytes, count in fuzzOneInput(bytes, count) })
        #else
        replay(program: program, targets: targets)
        #endif
    }

    static func replay(program: String, targets: [String: Target]) -> Never {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = targets[name] else {
            print("usage: \(program) TARGET FILE|DIR…   targets: \(targets.keys.sorted().joined(separator: ", "))")
            exit(2)
        }
        var files: [String] = []
        for path in arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var failed = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            do { try target(data) } catch {
                failed += 1
                _ = "\(error)"  // every error must describe itself without trapping
            }
        }
        print("\(name): \(files.count) inputs replayed, \(failed) rejected with an error, none crashed")
        exit(0)
    }

    /// The target libFuzzer drives: written once before the driver starts, then only read, on
    /// the driver's one thread. (Not a `Mutex`: each `withLock` re-wrapped the stored closure in
    /// reabstraction thunks, which piled up until the stack overflowed — the fuzzer found it.)
    nonisolated(unsafe) static var selected: Target?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    guard let target = FuzzDriver.selected else { return 0 }
    do { try target(Data(bytes: bytes, count: count)) } catch {
        _ = "\(error)"  // every error must describe itself without trapping
    }
    return 0
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32
#endif

/// Inputs become files in one scratch directory per process (in memory where /dev/shm exists).
public enum Scratch {
    public static let directory: String = {
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = (root as NSString).appendingPathComponent("roqua-fuzz-\(getpid())")
        // An unusable directory fails at the first write.
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    public static func file(_ name: String, _ data: Data) -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: data)  // a failure shows as the parser not finding the file
        return path
    }
}
