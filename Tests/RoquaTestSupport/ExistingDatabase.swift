import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaImport

/// The bytes of a boundary DB built once from `AdminFixture.standard()`, shared by every test
/// that needs "a valid database already at the output path".
private let standardDatabase: Result<Data, any Error> = Result {
    let source = try TempDirectory("roqua-standard")
    let output = try TempDirectory("roqua-standard-out")
    try AdminFixture.standard().write(in: source.path)
    let path = output.file("boundaries.sqlite")
    _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: path))
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

/// A valid boundary DB alone in a fresh directory, to check that a failed import leaves it
/// byte-identical and leaves nothing else behind.
package final class ExistingDatabase: Sendable {
    package static let fileName = "boundaries.sqlite"

    package let directory: TempDirectory
    /// The DB's path: pass it as the import's output.
    package let path: String
    package let original: Data
    package let originalSHA256: String

    package init() throws {
        directory = try TempDirectory("roqua-existing")
        path = directory.file(Self.fileName)
        original = try standardDatabase.get()
        originalSHA256 = SHA256.hex(of: original)
        try original.write(to: URL(fileURLWithPath: path))
    }

    package func currentBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    package func currentSHA256() throws -> String {
        try SHA256.hex(ofFile: path)
    }

    /// Everything in the directory except the DB itself (a `.boundaries.sqlite.building-PID`
    /// file, a journal, …); empty after a clean failure.
    package func leftovers() throws -> [String] {
        try directory.contents().filter { $0 != Self.fileName }
    }
}
