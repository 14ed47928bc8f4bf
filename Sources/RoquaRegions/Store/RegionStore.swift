import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO

/// Why the region store cannot be used; each case names its path.
public enum RegionStoreError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file cannot be opened or read; `reason` is SQLite's, in words.
    case cannotOpen(path: String, reason: String)
    /// The file is another SQLite database (its tables are named).
    case notARegionStore(path: String, reason: String)
    /// A restore into a store that already holds regions, without `replace`.
    case notEmpty(path: String, regions: Int)
    /// A write failed (disk full, read-only, locked too long); `reason` says which.
    case cannotWrite(path: String, reason: String)

    /// The store's path.
    public var path: String {
        switch self {
        case let .cannotOpen(path, _), let .notARegionStore(path, _), let .notEmpty(path, _), let .cannotWrite(path, _): path
        }
    }

    /// What is wrong and what to do, without the path: all an answer that must not show internal
    /// paths says (`roqua serve`'s).
    public var message: String {
        switch self {
        case let .cannotOpen(_, reason): "cannot open the region store: \(reason)"
        case let .notARegionStore(_, reason):
            "not a Roqua region store (\(reason)); give --store the path of a region store or of a new file"
        case let .notEmpty(_, regions): "the store already holds \(regions) regions; restore into an empty store, or pass --replace"
        case let .cannotWrite(_, reason): "cannot write the region store: \(reason)"
        }
    }

    /// `PATH: MESSAGE`.
    public var description: String { "\(path): \(message)" }

    /// The error for a failed SQLite call on the store at `path`, in words (disk full, read-only…).
    static func from(_ error: any Error, path: String, writing: Bool) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        let reason: String
        switch error.resultCode.primaryResultCode {
        case .SQLITE_FULL: reason = "the disk is full"
        case .SQLITE_READONLY: reason = "the file or its directory is read-only"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: reason = "the file is damaged or not a database"
        case .SQLITE_CANTOPEN: reason = "the file or its directory cannot be opened"
        case .SQLITE_BUSY, .SQLITE_LOCKED: reason = "another Roqua process kept it locked for too long"
        case .SQLITE_IOERR: reason = "input/output error (\(error.message ?? "disk"))"
        default: reason = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
        return writing ? RegionStoreError.cannotWrite(path: path, reason: reason) : RegionStoreError.cannotOpen(path: path, reason: reason)
    }
}

/// The user's visited regions: one SQLite file in WAL mode, schema changes through GRDB
/// migrations, every write in one IMMEDIATE transaction (so two processes importing at once
/// take turns instead of both deciding from the same old state), waiting up to two minutes
/// for another process's write to finish.
public final class RegionStore: Sendable {
    /// How the store is opened.
    public enum Access: Sendable {
        /// Created when missing; migrations run.
        case readWrite
        /// For verbs that only read: works on read-only media; a missing store reads as empty.
        case readOnly
    }

    /// The store file's path.
    public let path: String
    /// The components whose tables this store was opened with.
    public let components: [StoreComponent]
    let queue: DatabaseQueue
    /// How long a write waits for another writer (an import) to finish.
    static let busyTimeout: TimeInterval = 120
    /// Told about rows that cannot be read back whenever a read skips them.
    let unreadableHandler: (@Sendable ([UnreadableRegion]) -> Void)?

    /// `$ROQUA_STORE`, else `regions.sqlite` in Roqua's data home.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["ROQUA_STORE"], !path.isEmpty { return path }
        return (RoquaPaths.dataHome(environment: environment) as NSString).appendingPathComponent("regions.sqlite")
    }

    /// Opens (creating when missing, unless read-only) the store at `path`, with the tables of `components`.
    /// - Throws: `RegionStoreError` when the file cannot be opened, is another kind of SQLite
    ///   database (a boundary database, say), or cannot be migrated.
    /// - Parameters:
    ///   - unreadable: called with the rows a read had to skip (see `unreadableRegions`).
    ///   - upgraded: called with the path of the copy kept of a store from an older Roqua, made
    ///     beside it before it was upgraded (`PATH.before-upgrade`, 0600).
    public init(
        path: String, components: [StoreComponent] = [], access: Access = .readWrite,
        unreadable: (@Sendable ([UnreadableRegion]) -> Void)? = nil,
        upgraded: ((String) -> Void)? = nil
    ) throws {
        self.path = path
        self.components = components
        unreadableHandler = unreadable
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        config.prepareDatabase { db in
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        do {
            switch access {
            case .readOnly where !FileManager.default.fileExists(atPath: path):
                queue = try DatabaseQueue(configuration: config)  // nothing stored yet: an empty store
                try Self.migrator(components).migrate(queue)
                return
            case .readOnly:
                var readOnly = config
                readOnly.readonly = true
                let probe = try Self.openReadOnly(path, readOnly)
                try probe.read { db in try Self.checkIdentity(db, path: path) }
                // A store from an older Roqua is upgraded by the first command that opens it,
                // reading or not (the upgrade re-evaluates what it holds: see `RegionSchema`).
                if try !probe.read({ db in try Self.migrator(components).hasCompletedMigrations(db) }),
                    FileManager.default.isWritableFile(atPath: path)
                {
                    try probe.close()
                    try Self.openWritable(path, config, components, upgraded: upgraded).close()
                    queue = try Self.openReadOnly(path, readOnly)
                } else {
                    queue = probe
                }
            case .readWrite:
                queue = try Self.openWritable(path, config, components, upgraded: upgraded)
            }
        } catch let error as RegionStoreError {
            throw error
        } catch let error as DatabaseError {
            throw RegionStoreError.from(error, path: path, writing: false)
        } catch let error as CocoaError {
            throw RegionStoreError.cannotOpen(path: path, reason: error.localizedDescription)
        } catch let error as OutputError {
            throw RegionStoreError.cannotOpen(path: path, reason: error.description)
        }
    }

    /// A WAL database opens read-only only where SQLite can create its `-shm` file; on read-only
    /// media it is opened as immutable instead, which is exact as long as no write-ahead log holds
    /// changes not yet in the main file (then the user is told to copy both files somewhere writable).
    private static func openReadOnly(_ path: String, _ config: Configuration) throws -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            return queue
        } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode.primaryResultCode) {
            var info = stat()
            if stat(path + "-wal", &info) == 0, info.st_size > 0 {
                throw RegionStoreError.cannotOpen(
                    path: path,
                    reason: "it is on read-only media and its -wal file holds changes not "
                        + "yet in the main file; copy both to writable storage and open the copy")
            }
            let encoded =
                path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? path
            return try DatabaseQueue(path: "file:\(encoded)?immutable=1", configuration: config)
        }
    }

    /// The store's own migrations, then each component's.
    /// Opens (creating) the store for writing, migrated to the current schema.
    private static func openWritable(
        _ path: String, _ config: Configuration, _ components: [StoreComponent],
        upgraded: ((String) -> Void)? = nil
    ) throws -> DatabaseQueue {
        let directory = (path as NSString).deletingLastPathComponent
        try PrivateFiles.makeDirectory(directory)
        try PrivateFiles.createIfMissing(path)
        // Processes opening one new store at once take turns: checking what the file holds and
        // migrating it is one step, so no process sees (or repeats) another's half-made schema.
        let lock = OpenLock(path: path)
        defer { lock.release() }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.writeWithoutTransaction { db in
            try Self.checkIdentity(db, path: path)
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        let migrator = Self.migrator(components)
        if let copy = try Self.keepBeforeUpgrade(queue, path: path, migrator: migrator) { upgraded?(copy) }
        try migrator.migrate(queue)
        return queue
    }

    /// A store some of whose migrations ran (one an older Roqua made) and not all: a copy of it as
    /// it is, beside it (`PATH.before-upgrade`, or `-2`, `-3`… when that name is taken), before
    /// the upgrade changes it. Returns the copy's path, or nil when there is nothing to upgrade.
    private static func keepBeforeUpgrade(_ queue: DatabaseQueue, path: String, migrator: DatabaseMigrator) throws -> String? {
        let (applied, complete) = try queue.read { db in (try migrator.appliedIdentifiers(db), try migrator.hasCompletedMigrations(db)) }
        guard !applied.isEmpty, !complete else { return nil }
        let base = path + ".before-upgrade"
        guard let copy = ([base] + (2...99).map { "\(base)-\($0)" }).first(where: { !FileManager.default.fileExists(atPath: $0) }) else {
            throw RegionStoreError.cannotWrite(path: path, reason: "\(base) … \(base)-99 all exist: move some away to upgrade the store")
        }
        // Made private and empty first: VACUUM INTO fills an empty file and keeps its mode.
        try PrivateFiles.createIfMissing(copy)
        do {
            try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw error
        }
        return copy
    }

    static func migrator(_ components: [StoreComponent]) -> DatabaseMigrator {
        var migrator = RegionSchema.migrator
        for migration in components.flatMap(\.migrations) {
            migrator.registerMigration(migration.identifier, migrate: migration.migrate)
        }
        return migrator
    }

    /// A new file, or one this store's migrations made; any other SQLite database is refused
    /// before a table is added to it.
    private static func checkIdentity(_ db: Database, path: String) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        guard !tables.isEmpty, tables != ["grdb_migrations"] else { return }  // new, or being made by another process
        guard tables.contains("grdb_migrations"),
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM grdb_migrations WHERE identifier = ?",
                arguments: [RegionSchema.first]) == true
        else {
            let shown = tables.sorted().prefix(4).joined(separator: ", ")
            throw RegionStoreError.notARegionStore(path: path, reason: "it holds the tables \(shown)\(tables.count > 4 ? ", …" : "")")
        }
    }

    /// Replaces everything the store holds with `source`'s pages in one transaction (SQLite's
    /// backup API), then brings it to this Roqua's schema (a backup of an older one is upgraded).
    package func replaceContents(with source: DatabaseQueue) throws {
        do {
            try source.backup(to: queue)
            try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            try Self.migrator(components).migrate(queue)
        } catch {
            throw RegionStoreError.from(error, path: path, writing: true)
        }
    }

    /// A consistent, compact copy of the whole store at `path` (`VACUUM INTO`: one snapshot,
    /// outside any transaction, while others may go on reading).
    package func copy(to path: String) throws {
        do { try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) } } catch {
            throw RegionStoreError.from(error, path: self.path, writing: false)
        }
    }

    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch { throw RegionStoreError.from(error, path: path, writing: false) }
    }

    /// One IMMEDIATE transaction: committed when `body` returns, rolled back when it throws.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.write(body) } catch { throw RegionStoreError.from(error, path: path, writing: true) }
    }

    /// Every readable region, in id order; rows that cannot be read back (see `unreadableRegions`) are left out.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func allRegions() throws -> [VisitedRegion] {
        try read { db in try readableRegions(db) }
    }

    /// Every readable region inside an open transaction; rows that cannot be read are reported.
    package func readableRegions(_ db: Database, growing: Bool = false) throws -> [VisitedRegion] {
        let (readable, unreadable) = try Self.regions(db, growing: growing)
        report(unreadable: unreadable)
        return readable
    }

    /// Rows in `visited_regions`, unreadable ones included.
    ///
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func regionCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0 }
    }

    /// Whether a file with this content was imported before.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func hasImport(checksum: String) throws -> Bool {
        try read { db in try Self.hasImport(db, checksum: checksum) }
    }

    static func hasImport(_ db: Database, checksum: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM imports WHERE checksum = ?", arguments: [checksum]) ?? false
    }

    /// Codes of every country, province and district any region lies in.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func visitedCodes() throws -> Set<String> {
        try read { db in try Self.visitedCodes(db) }
    }

    static func visitedCodes(_ db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT country_code FROM places WHERE country_code IS NOT NULL
                    UNION SELECT province_code FROM places WHERE province_code IS NOT NULL
                    UNION SELECT district_code FROM places WHERE district_code IS NOT NULL
                    """))
    }
}
