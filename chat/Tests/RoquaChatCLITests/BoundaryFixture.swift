import Foundation
import RoquaImport

/// The geocoder's boundary DB, built once per test process from the repository's bundled `data/`
/// with its public importer: what `roqua-chat send --location` names places with.
enum Bundled {
    private static let built: Result<String, any Error> = Result {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // RoquaChatCLITests
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()  // Tests, chat, the repository
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("roqua-chat-boundaries-\(getpid())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = (directory as NSString).appendingPathComponent("boundaries.sqlite")
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [repository.appendingPathComponent("data").path], output: output))
        atexit {
            try? FileManager.default.removeItem(
                atPath: (NSTemporaryDirectory() as NSString)
                    .appendingPathComponent("roqua-chat-boundaries-\(getpid())"))
        }
        return output
    }

    static func path() throws -> String { try built.get() }
}
