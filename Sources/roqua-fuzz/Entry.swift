import Foundation

// Built normally, this is a replayer: `roqua-fuzz TARGET FILE|DIR…` feeds every file to the
// target's parser (the saved corpus and crash regressions run this way in the test suite).
// Built by scripts/fuzz.sh with `-sanitize=fuzzer,address -DFUZZING`, `main` hands over to
// libFuzzer's driver, which calls the entry below with the target named by ROQUA_FUZZ_TARGET.

private let fuzzTarget: FuzzTargets.Target = {
    let name = ProcessInfo.processInfo.environment["ROQUA_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.all[name] else {
        FileHandle.standardError.write(Data("ROQUA_FUZZ_TARGET must be one of \(FuzzTargets.all.keys.sorted())\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    do { try fuzzTarget(Data(bytes: bytes, count: count)) } catch {
        _ = "\(error)"  // every error must describe itself without trapping
    }
    return 0
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@main
struct Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { bytes, count in fuzzOneInput(bytes, count) })
    }
}
#else
@main
struct Replay {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTargets.all[name] else {
            print("usage: roqua-fuzz TARGET FILE|DIR…   targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))")
            exit(2)
        }
        var files: [String] = []
        for path in arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                files += try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var failed = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            do { try target(data) } catch {
                failed += 1
                _ = "\(error)"
            }
        }
        print("\(name): \(files.count) inputs replayed, \(failed) rejected with an error, none crashed")
    }
}
#endif
