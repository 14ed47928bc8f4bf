import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaImport

/// The boundary DB built from the bundled `data/` with the real importer, once per test process.
package enum Bundled {
    private static let built: Result<String, any Error> = Result {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("roqua-bundled-\(getpid())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = (directory as NSString).appendingPathComponent("boundaries.sqlite")
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [Repository.data], output: output))
        atexit {
            try? FileManager.default.removeItem(
                atPath: (NSTemporaryDirectory() as NSString)
                    .appendingPathComponent("roqua-bundled-\(getpid())"))
        }
        return output
    }
    private static let loadedIndex: Result<ResolverIndex, any Error> = Result { try ResolverIndex(path: path()) }

    package static func path() throws -> String { try built.get() }
    package static func database() throws -> BoundaryDatabase { try BoundaryDatabase(path: path()) }
    package static func index() throws -> ResolverIndex { try loadedIndex.get() }

    /// A GEOS geometry of one boundary (by code) in `context`.
    package static func geometry(_ code: String, in context: GEOSContext) throws -> Geometry {
        guard let wkb = try database().geometry(of: code)?.wkb else {
            throw BoundaryDatabaseError.notABoundaryDatabase(path: try path(), reason: "no boundary \(code)")
        }
        return try context.geometry(wkb: wkb)
    }
}
