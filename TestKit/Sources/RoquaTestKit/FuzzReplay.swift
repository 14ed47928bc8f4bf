import Foundation

/// The fuzzers' seed corpora and every input that once crashed a parser (`FOLDER/regressions`,
/// one folder per target), replayed through the fuzzing program built without the fuzzer (its
/// replay mode drives the same entry points libFuzzer does).
public enum FuzzReplay {
    public struct Outcome: Sendable {
        public var target: String
        public var result: CommandResult
        /// The program exited 0 and said it ran every input without a crash.
        public var survived: Bool { result.status == 0 && result.stdout.contains("none crashed") }
    }

    /// The targets named by `FOLDER/corpus`'s subfolders (none when it is missing, which a test
    /// then sees as too few).
    public static func targets(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/corpus")) ?? []).sorted()
    }

    public static func run(program: String, folder: String) throws -> [Outcome] {
        try targets(in: folder).map { target in
            let folders = ["corpus", "regressions"].map { "\(folder)/\($0)/\(target)" }
            return Outcome(target: target, result: try CommandRunner.run(ProductsDirectory.product(program), [target] + folders))
        }
    }
}
