import Foundation
import GRDB
import RoquaIO

/// `roqua backup` / `roqua restore` of a whole store: one file holding everything it holds —
/// kept fixes, regions, flights, days, tiles, devices, unlocks, settings — so that a restored
/// store answers every query byte for byte as the original did.
///
/// The file: the line `ROQUA-BACKUP 1`, a gzip stream of a consistent copy of the store's SQLite
/// database (`VACUUM INTO`, made inside one read transaction), and the SHA-256 of everything
/// before it. A restore checks the digest before it reads a byte of the copy, expands it into a
/// private temporary file (bounded), checks that it is a sound region store, and copies it into
/// the store in one transaction (SQLite's backup API): a damaged or altered file changes nothing.
package enum StoreBackup {
    static let magic = Array("ROQUA-BACKUP 1\n".utf8)
    static let digestSize = 32
    /// The copy may expand to at most this many times the file's size (a hostile file is a bomb
    /// otherwise: the digest proves nothing, anyone can compute one).
    static let maximumExpansion = 64

    /// Why a backup cannot be restored; names the file.
    package struct Refused: Error, Sendable, Equatable, CustomStringConvertible {
        package let file: String
        package let reason: String
        package var description: String { "\(file): not a Roqua backup that can be restored: \(reason)" }
    }

    /// Whether `path` starts as a backup does (an export is JSON).
    package static func isBackup(_ path: String) throws -> Bool {
        (try? ByteStream(path: path).lookahead(12)) == Array(magic.prefix(12))
    }

    /// Writes a backup of `store` to `path` (0600, written beside and renamed into place).
    /// - Returns: the file's size in bytes.
    /// - Throws: `OutputError` when the file cannot be written, `RegionStoreError`.
    package static func write(_ store: RegionStore, to path: String) throws -> Int {
        let scratch = try PrivateScratch()
        let copy = scratch.file("store.sqlite")
        try store.copy(to: copy)
        let output = try OutputFile(path: path)
        var hasher = SHA256(), size = 0
        func emit(_ bytes: [UInt8]) throws {
            bytes.withUnsafeBytes { hasher.update($0) }
            try output.write(bytes)
            size += bytes.count
        }
        try emit(magic)
        let gzip = GzipWriter(level: 6)
        let input = try FileSource(path: copy)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try input.read(into: buffer, name: copy)
            if n == 0 { break }
            try gzip.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), emit)
        }
        try gzip.finish(emit)
        let digest = hasher.finalizeBytes()
        try output.write(digest)
        try output.commit()
        return size + digest.count
    }

    /// A backup checked and expanded, ready to be restored (`read`).
    package final class Checked {
        fileprivate let scratch: PrivateScratch
        fileprivate let source: DatabaseQueue
        let file: String

        fileprivate init(scratch: PrivateScratch, source: DatabaseQueue, file: String) {
            (self.scratch, self.source, self.file) = (scratch, source, file)
        }

        /// Replaces `store`'s content with the backup's: `store` must be empty (no region, no kept
        /// fix) unless `replace`.
        /// - Throws: `RegionStoreError.notEmpty`, `RegionStoreError` when it cannot be written.
        package func restore(into store: RegionStore, replace: Bool) throws {
            if !replace {
                let (regions, fixes) = try store.read { db in
                    (
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0,
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM fix_blocks") ?? 0
                    )
                }
                if regions + fixes > 0 { throw RegionStoreError.notEmpty(path: store.path, regions: regions) }
            }
            try store.replaceContents(with: source)
        }
    }

    /// The backup at `path`, its digest checked, its copy expanded into a private temporary file
    /// and checked to be a sound region store whose migrations are all among `components`' and
    /// the store's own — before any store is touched.
    /// - Throws: `Refused` for a file that is no sound backup, `OutputError` when the temporary
    ///   copy cannot be written.
    package static func read(_ path: String, components: [StoreComponent]) throws -> Checked {
        let scratch = try PrivateScratch()
        let copy = scratch.file("restored.sqlite")
        try expand(path, to: copy)
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let source = try DatabaseQueue(path: copy, configuration: configuration)
            try source.read { db in try check(db, file: path, known: Set(RegionStore.migrator(components).migrations)) }
            return Checked(scratch: scratch, source: source, file: path)
        } catch let error as Refused {
            throw error
        } catch {
            throw Refused(file: path, reason: "the copy inside is not a readable database (\(error))")
        }
    }

    /// The digest checked over the whole file first, then the copy expanded to `target`.
    private static func expand(_ path: String, to target: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Refused(file: path, reason: "it cannot be opened (\(String(cString: strerror(errno))))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Refused(file: path, reason: "it is not a regular file") }
        let size = Int(info.st_size)
        guard size > magic.count + digestSize else { throw Refused(file: path, reason: "it is too short (\(size) bytes)") }
        guard try RangeSource(path: path, offset: 0, length: magic.count).readAll() == magic else {
            throw Refused(file: path, reason: "it does not start with the backup header (a JSON export restores with the same command)")
        }
        let body = try RangeSource(path: path, offset: 0, length: size - digestSize)
        var hasher = SHA256()
        try body.forEachChunk { hasher.update($0) }
        let stored = try RangeSource(path: path, offset: size - digestSize, length: digestSize).readAll()
        guard hasher.finalizeBytes() == stored else {
            throw Refused(file: path, reason: "its checksum does not match: the file is damaged, cut short or altered")
        }
        let gzip = try GzipSource(inner: RangeSource(path: path, offset: magic.count, length: size - magic.count - digestSize), name: path)
        let output = try OutputFile(path: target)
        let limit = max(size, 1 << 20) * maximumExpansion
        var written = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        do {
            while true {
                let n = try gzip.read(into: buffer, name: path)
                if n == 0 { break }
                written += n
                guard written <= limit else {
                    throw Refused(file: path, reason: "it expands to more than \(maximumExpansion) times its size")
                }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
        } catch let error as InputError {
            throw Refused(file: path, reason: error.message)
        }
        try output.commit()
    }

    /// A sound region store of this or an older Roqua: SQLite's integrity check passes, it is a
    /// region store, and every migration it has run is one this Roqua knows.
    private static func check(_ db: Database, file: String, known: Set<String>) throws {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard integrity == ["ok"] else {
            throw Refused(file: file, reason: "the copy inside is damaged (\(integrity.prefix(2).joined(separator: "; ")))")
        }
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard tables.contains("grdb_migrations"), tables.contains("visited_regions") else {
            throw Refused(file: file, reason: "the copy inside is not a region store")
        }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        guard applied.contains(RegionSchema.first) else { throw Refused(file: file, reason: "the copy inside is not a region store") }
        if let newer = applied.first(where: { !known.contains($0) }) {
            throw Refused(file: file, reason: "it was made by a newer Roqua (its store has \"\(newer)\"); update Roqua to restore it")
        }
    }
}

/// A 0700 directory of temporary files, removed with everything in it when released.
final class PrivateScratch {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("roqua-scratch.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw OutputError.errno(NSTemporaryDirectory()) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// `length` bytes of a file from `offset`.
private final class RangeSource: ByteSource {
    private let fd: Int32
    private var offset: Int
    private var left: Int
    private let path: String

    init(path: String, offset: Int, length: Int) throws(InputError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, line: nil, message: "cannot be opened: \(String(cString: strerror(errno)))") }
        (self.path, self.offset, left) = (path, offset, length)
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        guard left > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, min(buffer.count, left), off_t(offset))
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw InputError(file: path, line: nil, message: "read failed: \(String(cString: strerror(errno)))") }
            guard n > 0 else { throw InputError(file: path, line: nil, message: "the file ended early") }
            offset += n
            left -= n
            return n
        }
    }

    func forEachChunk(_ body: (UnsafeRawBufferPointer) -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try read(into: buffer, name: path)
            if n == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { bytes += $0 }
        return bytes
    }
}
