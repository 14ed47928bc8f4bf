import Foundation
import GRDB
import RoquaBoundaries
import Testing

/// The boundary DB built from the bundled `data/` with the real importer, once per test process.
enum Bundled {
    private static let built: Result<String, any Error> = Result {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("roqua-bundled-\(getpid())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = (directory as NSString).appendingPathComponent("boundaries.sqlite")
        _ = try BoundaryImporter.run(ImportOptions(sources: [RoquaPaths.bundledData()], output: output))
        atexit { try? FileManager.default.removeItem(atPath: (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("roqua-bundled-\(getpid())")) }
        return output
    }
    private static let loadedIndex: Result<ResolverIndex, any Error> = Result { try ResolverIndex(path: path()) }

    static func path() throws -> String { try built.get() }
    static func database() throws -> BoundaryDatabase { try BoundaryDatabase(path: path()) }
    static func index() throws -> ResolverIndex { try loadedIndex.get() }

    /// A GEOS geometry of one boundary (by code) in `context`.
    static func geometry(_ code: String, in context: GEOSContext) throws -> Geometry {
        let wkb = try database().read { db in
            try Data.fetchOne(db, sql: "SELECT geometry FROM boundaries WHERE code = ?", arguments: [code])
        }
        return try context.geometry(wkb: try #require(wkb))
    }
}
