import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// A boundary DB whose cell index is damaged or from another version is an error that says to
/// re-run `roqua import`: never a crash, never a wrong answer.
@Suite struct CellIndexStoreTests {
    /// İstanbul's 1° tile: row 41 + 90, column 28 + 180.
    static let istanbulTile = (41 + 90) * 360 + (28 + 180)

    /// A writable copy of the bundled DB, changed by `change`.
    private func copy(in directory: TempDirectory, _ change: (Database) throws -> Void) throws -> String {
        let path = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: try Bundled.path(), toPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write(change)
        try queue.close()
        return path
    }

    private func expectRebuildMessage(_ error: some Error, _ path: String) {
        let text = String(describing: error)
        #expect(text.contains(path) && text.contains("roqua import"), "\(text)")
    }

    @Test(arguments: ["truncated", "bad magic", "entry count out of range"])
    func aDamagedTileIsAnError(_ damage: String) throws {
        let directory = try TempDirectory()
        let path = try copy(in: directory) { db in
            var blob = try #require(try Data.fetchOne(db, sql: "SELECT data FROM cell_tiles WHERE id = ?", arguments: [Self.istanbulTile]))
            switch damage {
            case "truncated": blob.removeLast(8)
            case "bad magic": blob[0] ^= 0xFF
            default:
                // The first leaf record's entry count (leaves section: after the header and the nodes).
                let nodes = Int(blob.withUnsafeBytes { $0.load(fromByteOffset: 4, as: UInt32.self) })
                let leaves = (24 + 4 * nodes + 7) & ~7
                let leafCount = Int(blob.withUnsafeBytes { $0.load(fromByteOffset: 8, as: UInt32.self) })
                let words = (leaves + 4 * leafCount + 7) & ~7
                let first = Int(blob.withUnsafeBytes { $0.load(fromByteOffset: leaves, as: UInt32.self) })
                let count = words + 4 * first
                blob.replaceSubrange(count..<(count + 4), with: withUnsafeBytes(of: Int32(9_999_999).littleEndian) { Data($0) })
            }
            try db.execute(sql: "UPDATE cell_tiles SET data = ? WHERE id = ?", arguments: [blob, Self.istanbulTile])
        }
        // Opening reads no tile; the first point in the damaged tile does.
        let resolver = try Resolver(path: path)
        #expect(try resolver.resolve(latitude: 39.92, longitude: 32.85).province?.code == "TR-06")  // Ankara: another tile
        do {
            _ = try resolver.resolve(latitude: 41.02, longitude: 28.97)
            Issue.record("a damaged tile was read without an error")
        } catch {
            expectRebuildMessage(error, path)
        }
    }

    @Test func aDatabaseWithoutACellIndexIsAnError() throws {
        let directory = try TempDirectory()
        let path = try copy(in: directory) { db in try db.execute(sql: "DELETE FROM cell_index") }
        #expect(throws: BoundaryDatabaseError.self) { try ResolverIndex(path: path) }
        do { _ = try ResolverIndex(path: path) } catch { expectRebuildMessage(error, path) }
    }

    @Test func anOlderSchemaIsRefusedWithAHint() throws {
        let directory = try TempDirectory()
        let path = try copy(in: directory) { db in try db.execute(sql: "UPDATE meta SET value = '1' WHERE key = 'schema_version'") }
        do {
            _ = try BoundaryDatabase(path: path)
            Issue.record("a schema 1 database was opened")
        } catch let error as BoundaryDatabaseError {
            #expect(error == .unsupportedSchema(path: path, found: 1, supported: 3))
            expectRebuildMessage(error, path)
        }
    }
}
