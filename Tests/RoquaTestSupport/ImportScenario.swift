import Foundation
import RoquaBoundaries
import RoquaImport
import Testing

/// The existing DB is byte-identical, still opens, and nothing (no `.boundaries.sqlite.building-PID`,
/// no journal) was left beside it.
package func expectUntouched(
    _ existing: ExistingDatabase, ignoring: Set<String> = [],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(try existing.currentBytes() == existing.original, "the existing DB changed", sourceLocation: sourceLocation)
    #expect(try existing.currentSHA256() == existing.originalSHA256, sourceLocation: sourceLocation)
    #expect(
        try existing.leftovers().filter { !ignoring.contains($0) } == [], "files left beside the DB",
        sourceLocation: sourceLocation)
    _ = try BoundaryDatabase(path: existing.path)
}

/// The standard fixture (optionally changed) in a fresh directory, and a valid DB at the output path.
package struct Scenario {
    package let source: TempDirectory
    package let existing: ExistingDatabase
    package let fixture: AdminFixture

    package init(_ change: (inout AdminFixture) throws -> Void = { _ in }) throws {
        source = try TempDirectory("roqua-fixture")
        existing = try ExistingDatabase()
        var fixture = AdminFixture.standard()
        try change(&fixture)
        try fixture.write(in: source.path)
        self.fixture = fixture
    }

    package func path(_ file: String, _ ext: String = "shp") -> String {
        fixture[file].path(in: source.path, extension: ext)
    }

    /// Imports into the existing DB's path and returns the error, which must be an `E`.
    package func failure<E: Error>(
        _ type: E.Type, sources: [String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> E {
        try #require(throws: type, sourceLocation: sourceLocation) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: sources ?? [source.path], output: existing.path))
        }
    }
}
