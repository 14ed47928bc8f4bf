import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaTimeline

/// A unit seen for the first time, by code and name.
public struct FirstVisit: Sendable, Equatable {
    /// The unit's level.
    public var level: AdminLevel
    /// The unit's code.
    public var code: String
    /// The unit's local name.
    public var name: String
}

/// What importing one file did.
public struct TrackImportSummary: Sendable, Equatable {
    /// The file's name as messages give it (`archive.zip:inner/path` for an archive entry).
    public var file: String
    /// The detected format's raw value (`gpx`, `csv`, …); empty when the file was not a track.
    public var format: String
    /// The same content was imported before: nothing was added.
    public var alreadyImported = false
    /// Imported before the store kept fixes: its fixes were kept now, nothing was counted again.
    public var keptOnly = false
    /// Fixes kept in the history by this import (not kept before, by this or another import).
    public var fixesKept = 0
    /// Found by walking a directory or archive and not a track file: why (nothing was read).
    public var notATrack: String?
    /// Fixes read from the file, assumed-time ones included.
    public var fixesRead = 0
    /// Points without a time that were skipped (no `assumedTime` given).
    public var untimedSkipped = 0
    /// Points without a time given the assumed time (and counted in `fixesRead`).
    public var untimedAssumed = 0
    /// Records passed over for an impossible value (the rest of the file was read).
    public var skipped = SkippedRecords()
    /// Fixes the clustering dropped, per reason.
    public var dropped: [ClusterDropReason: Int] = [:]
    /// Regions the file created.
    public var newRegions = 0
    /// Fixes that started a new visit of an existing region.
    public var revisits = 0
    /// Flights found in the file (`FlightFilter`): their fixes light nothing.
    public var flights: [Flight] = []
    /// Fixes taken in flight (in `flights`), counted in `fixesRead`, clustered into nothing.
    public var inFlight = 0
    /// Single fixes far off between two near each other (GPS glitches): lit nothing.
    public var glitches = 0
    /// A folder of photos (format `photos`): what its photos gave; nil for a track.
    public var photos: PhotoCounts?
    /// Units seen for the first time because of this file: by new region, widest level first.
    public var firsts: [FirstVisit] = []
    /// The events this import caused (also yielded to the importer's stream, if it has one).
    public var events: [RegionEvent] = []
    /// Inside `alongside` only: every readable region as the store now holds it, in id order —
    /// what `RegionStore.regions(_:)` would read back, so the achievements need not read a
    /// million regions again. nil once the summary leaves the importer.
    package var storedRegions: [VisitedRegion]?

    /// All dropped fixes, whatever the reason.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }
}

/// Track file → visited regions in the store: read streaming, clustered against every stored
/// region, new regions enriched offline, everything written in one transaction per file (an
/// error or a kill before the commit leaves the store as it was), events yielded after commit.
public final class TrackImporter {
    /// The store regions are read from and written to.
    public let store: RegionStore
    /// Names new regions' country, province and district.
    public let enricher: RegionEnricher
    /// The validated clustering thresholds.
    public let settings: ClusteringSettings
    /// Where events are yielded after each commit; `nil` for none.
    public let events: RegionEventStream?
    /// When a fix is in flight.
    public let flights: FlightSettings

    /// - Throws: `ClusteringSettingsError` for a setting outside its range (checked before anything is read).
    public init(
        store: RegionStore, enricher: RegionEnricher, settings: ClusteringSettings = .default,
        flights: FlightSettings = .default, events: RegionEventStream? = nil
    ) throws {
        try settings.validate()
        try flights.validate()
        self.store = store
        self.enricher = enricher
        self.settings = settings
        self.flights = flights
        self.events = events
    }

    /// Imports one file: its fixes clustered against every stored region and written in one
    /// transaction; events yielded after the commit.
    /// - Throws: `TrackReadError` for malformed input and for a file with no timed fix (nothing
    ///   written, nothing recorded), `RegionStoreError`.
    public func importFile(_ path: String, options: TrackReadOptions = TrackReadOptions()) throws -> TrackImportSummary {
        try importSource(TrackSource(file: path), options: options) { _, _ in () }.summary
    }

    /// As `importFile(_:)`, running `alongside` inside the same transaction after the regions are
    /// written, so what it writes (the achievements' unlocks) commits with them or not at all.
    package func importFile<T>(
        _ path: String, alongside: (Database, TrackImportSummary) throws -> T
    )
        throws -> (summary: TrackImportSummary, extra: T?)
    {
        try importSource(TrackSource(file: path), alongside: alongside)
    }

    /// As `importFile(_:alongside:)` for any source (a file, a `.gz`, an archive entry).
    /// `progress` is called with the fixes read so far, every few thousand fixes; what it throws
    /// stops the import, and the transaction is rolled back (a server shutting down).
    package func importSource<T>(
        _ source: TrackSource, options: TrackReadOptions = TrackReadOptions(),
        progress: ((Int) throws -> Void)? = nil,
        alongside: (Database, TrackImportSummary) throws -> T
    ) throws -> (summary: TrackImportSummary, extra: T?) {
        switch try identify(source) {
        case let .finished(summary): return (summary, nil)
        case let .toRead(format, checksum, detected):
            var reader: any FixReader = BackgroundFixReader(try format.open(source, options: options, continuing: detected))
            return try write(
                source, format: format, options: options, checksum: checksum, reader: &reader, progress: progress,
                alongside: alongside)
        }
    }

    /// The first half of `importSource` without the store's write lock: the source read and
    /// checked, its fixes kept in a private file at `spool` (an error here writes nothing).
    /// `commit` then clusters and writes them. Between the two the store is free for others.
    /// - Throws: `TrackReadError` for malformed input, `OutputError` when the spool cannot be
    ///   written, what `progress` throws.
    package func prepare(
        _ source: TrackSource, options: TrackReadOptions = TrackReadOptions(), spool: String,
        progress: ((Int) throws -> Void)? = nil
    ) throws -> PreparedImport {
        switch try identify(source) {
        case let .finished(summary): return .finished(summary)
        case let .toRead(format, checksum, detected):
            var reader = try format.open(source, options: options, continuing: detected)
            let fixes = try FixSpool.write(&reader, to: spool, progress: progress)
            return .ready(PreparedTrack(source: source, format: format, options: options, checksum: try checksum.value(), fixes: fixes))
        }
    }

    /// The second half: `track`'s fixes clustered against the regions stored now and written
    /// in one transaction, as `importSource` does; the spool is removed either way.
    /// - Throws: as `importSource`.
    package func commit<T>(
        _ track: PreparedTrack, progress: ((Int) throws -> Void)? = nil,
        alongside: (Database, TrackImportSummary) throws -> T
    ) throws -> (summary: TrackImportSummary, extra: T?) {
        defer { track.fixes.remove() }
        var reader: any FixReader = BackgroundFixReader(try track.fixes.reader())
        return try write(
            track.source, format: track.format, options: track.options, checksum: Checksum(track.checksum), reader: &reader,
            progress: progress, alongside: alongside)
    }

    private enum Identity {
        case finished(TrackImportSummary)
        /// `detected`: where detection stopped, for a reader that goes on from there.
        case toRead(TrackFormat, checksum: Checksum, detected: JSONScanner?)
    }

    /// What the store knows of a file's content.
    enum ImportState {
        /// Never imported.
        case new
        /// Imported, its fixes kept: nothing to do.
        case kept
        /// Imported before the store kept fixes: its fixes are kept now, nothing derived again.
        case beforeHistory
    }

    static func importState(_ db: Database, checksum: String) throws -> ImportState {
        guard let row = try Row.fetchOne(db, sql: "SELECT fixes_kept FROM imports WHERE checksum = ?", arguments: [checksum]) else {
            return .new
        }
        return (row[0] as Int?) == nil ? .beforeHistory : .kept
    }

    /// The source's format and checksum, or the summary when there is nothing to read: not a
    /// track (met while walking), or already imported.
    private func identify(_ source: TrackSource) throws -> Identity {
        // A store that has imported nothing holds no file's checksum: the import starts at once
        // and the checksum is computed beside it (a decade's 2.3 GB Records.json: 1.1 s), from
        // before the detection for a file the user named (which is read or refused; the
        // detection may read far into a JSON file, on one core).
        let beside = try source.checksummedFile.flatMap { file in try store.read { db in try !Self.hasImports(db) } ? file : nil }
        let early = beside.flatMap { source.foundByWalking ? nil : Checksum(ofFile: $0) }
        let format: TrackFormat
        var detected: JSONScanner?
        switch try TrackDetection.detect(try source.open(), name: source.name, stoppedIn: &detected) {
        case let .format(found): format = found
        case let .notATrack(reason):
            // Named by the user, a file that is no track is an error; met while walking a
            // folder or an archive (a Takeout's Settings.json), it is passed over and reported.
            guard source.foundByWalking else { throw TrackReadError(file: source.name, line: nil, message: reason) }
            var summary = TrackImportSummary(file: source.name, format: "")
            summary.notATrack = reason
            return .finished(summary)
        }
        if let beside { return .toRead(format, checksum: early ?? Checksum(ofFile: beside), detected: detected) }
        let checksum = try source.checksum()
        // Checked again under the write lock: another process may import the same file meanwhile.
        if try store.read({ db in try Self.importState(db, checksum: checksum) }) == .kept {
            var summary = TrackImportSummary(file: source.name, format: format.rawValue)
            summary.alreadyImported = true
            return .finished(summary)
        }
        return .toRead(format, checksum: Checksum(checksum), detected: detected)
    }

    /// Whether the store has recorded any import.
    static func hasImports(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM imports)") ?? false
    }

    /// What the store knows of a source whose checksum may still be computed: nothing, without
    /// waiting for it, when the store has recorded no import.
    static func importState(_ db: Database, checksum: Checksum) throws -> ImportState {
        guard try hasImports(db) else { return .new }
        return try importState(db, checksum: checksum.value())
    }

    private func write<T>(
        _ source: TrackSource, format: TrackFormat, options: TrackReadOptions, checksum: Checksum,
        reader: inout any FixReader,
        progress: ((Int) throws -> Void)?,
        alongside: (Database, TrackImportSummary) throws -> T
    ) throws -> (summary: TrackImportSummary, extra: T?) {
        var summary = TrackImportSummary(file: source.name, format: format.rawValue)
        let outcome = try store.write { db -> (TrackImportSummary, T?) in
            let state = try Self.importState(db, checksum: checksum)
            if state == .kept {
                summary.alreadyImported = true
                return (summary, nil)
            }
            summary.keptOnly = state == .beforeHistory
            var unfinished = try record(
                &reader, name: source.name, historyName: source.historyName, format: format, options: options, checksum: checksum,
                into: &summary,
                progress: progress, db: db)
            let extra = try alongside(db, summary)
            try unfinished.finish(db)
            summary.storedRegions = nil
            return (summary, extra)
        }
        outcome.0.events.forEach { events?.yield($0) }
        return outcome
    }

    /// The import's stages inside the open transaction — read, keep (`FixKeeper`), derive
    /// (`RegionDerivation`: filter, cluster, travel), enrich and write, events — against the
    /// regions stored at this moment, under the write lock. What goes on on other threads meanwhile
    /// (the map's tiles, a timeline segmented from the fixes as they were kept) is returned, to be
    /// finished once the caller has done its part.
    private func record(
        _ reader: inout any FixReader, name: String, historyName: String, format: TrackFormat, options: TrackReadOptions,
        checksum: Checksum,
        into summary: inout TrackImportSummary, progress: ((Int) throws -> Void)?, db: Database
    ) throws -> Unfinished {
        var derivation = RegionDerivation(
            settings: settings, flights: flights, enricher: enricher,
            existing: try store.readableRegions(db, growing: true))
        // Keep, then derive what was newly kept (in time order within each block); a file
        // imported before the history only fills it.
        var keeper = try FixKeeper(source: historyName, db)
        var tiles = MapTileKeeper(maxAccuracy: settings.maxAccuracy, db)
        // A live source's posts go on from fixes kept before: the store segments those.
        var timeline = try TimelineFeed(enabled: !options.continuing, maxAccuracy: settings.maxAccuracy, resolver: enricher.resolver, db)
        var earliest = Int64.max
        let derives = !summary.keptOnly
        // A live source goes on from the last fix its earlier posts settled; the fixes they kept
        // but could not settle yet (a fast last fix) are settled now, with this batch.
        if derives, options.continuing, let (settled, waiting) = try FixHistory.continuation(of: historyName, db) {
            derivation.resume(after: settled.fix)
            derivation.derive(waiting)
            tiles.resume(source: 0, after: waiting.last ?? settled)
        }
        while let fix = try reader.next() {
            summary.fixesRead += 1
            // Every reader checks this itself; checked again because nothing outside the window
            // may reach the store, whatever reader produced it.
            guard TrackValues.isInWindow(fix.timestamp) else {
                throw TrackReadError(
                    file: name, line: nil,
                    message: "fix \(summary.fixesRead) has a time outside 1970-01-01 … 2100-01-01")
            }
            if summary.fixesRead % 8192 == 0 { try progress?(summary.fixesRead) }
            guard let kept = KeptFix(fix) else {
                summary.dropped[.invalidCoordinate, default: 0] += 1
                continue
            }
            let fresh = try keeper.add(kept)
            if !fresh.isEmpty {
                earliest = min(earliest, fresh.first?.time ?? .max)
                if derives { derivation.derive(fresh) }
                try tiles.add(source: 0, fresh)
                try timeline.add(fresh, db)
            }
        }
        let fresh = try keeper.finish()
        earliest = min(earliest, fresh.first?.time ?? .max)
        try tiles.add(source: 0, fresh)
        if !fresh.isEmpty { try timeline.add(fresh, db) }
        try tiles.close()
        if derives {
            derivation.derive(fresh)
            if options.continuing {
                if let settled = derivation.settledUntil { try FixHistory.settled(historyName, until: settled, db) }
            } else {
                derivation.endSource()
            }
        }
        summary.fixesKept = keeper.kept
        if options.assumedTime == nil {
            summary.untimedSkipped = reader.untimedPoints
        } else {
            summary.untimedAssumed = reader.untimedPoints
        }
        summary.skipped = reader.skipped
        // Nothing read is never recorded as imported: the same file, fixed or read with
        // `--assume-time`, must still be importable later.
        guard summary.fixesRead > 0 else {
            if let refusal = reader.skipped.refusal { throw refusal }
            if reader.untimedPoints > 0 {
                throw TrackReadError(
                    file: name, line: nil,
                    message: "no timestamps: \(reader.untimedPoints) point(s) without a time "
                        + "and none with one (a planned route is not a visit; pass --assume-time TIME to import it as walked then)")
            }
            throw TrackReadError(file: name, line: nil, message: "no fixes: the file holds no positions with a time")
        }
        let counts = derivation.counts
        summary.dropped.merge(counts.dropped, uniquingKeysWith: +)
        if keeper.duplicates > 0 { summary.dropped[.duplicate, default: 0] += keeper.duplicates }
        (summary.newRegions, summary.revisits, summary.flights) = (counts.newRegions, counts.revisits, counts.flights)
        (summary.inFlight, summary.glitches) = (counts.inFlight, counts.glitches)
        let stream = timeline.close()
        let written = try derivation.write(db)
        if keeper.kept > 0, stream == nil {
            try KeptTimeline.update(from: earliest, maxAccuracy: settings.maxAccuracy, isOnLand: isOnLand, db)
        }
        let checksum = try checksum.value()
        if summary.keptOnly {
            try db.execute(sql: "UPDATE imports SET fixes_kept = ? WHERE checksum = ?", arguments: [summary.fixesKept, checksum])
        } else {
            try db.execute(
                sql: """
                    INSERT INTO imports (checksum, file, format, imported_at, fixes_read, fixes_dropped, new_regions, revisits, fixes_kept)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    checksum, (name as NSString).lastPathComponent, format.rawValue, try StoreTime.text(Date()),
                    summary.fixesRead, summary.droppedTotal, summary.newRegions, summary.revisits, summary.fixesKept,
                ])
        }
        (summary.events, summary.firsts, summary.storedRegions) = (written.events, written.firsts, written.stored)
        return Unfinished(tiles: tiles, timeline: stream)
    }

    /// What an import's other threads are still doing when its own stages are done.
    struct Unfinished {
        var tiles: MapTileKeeper
        let timeline: TimelineStream?

        /// Waits for the other threads and writes what they made.
        mutating func finish(_ db: Database) throws {
            try timeline?.finish(db)
            try tiles.finish()
        }
    }
}

extension TrackImporter {
    /// Whether a country's boundary lies under the point itself (not the nearest one a few
    /// hundred metres off: the Bosphorus is water), for the timeline's boat mode.
    func isOnLand(_ latitude: Double, _ longitude: Double) -> Bool { enricher.resolver.isOnLand(latitude: latitude, longitude: longitude) }
}

/// What `TrackImporter.prepare` found.
package enum PreparedImport {
    /// Nothing to write: not a track (met while walking a folder or an archive), or already imported.
    case finished(TrackImportSummary)
    /// Read and checked; `TrackImporter.commit` writes it.
    case ready(PreparedTrack)
}

/// A track read and checked, its fixes in a `FixSpool`, waiting for `TrackImporter.commit`.
package struct PreparedTrack {
    let source: TrackSource
    let format: TrackFormat
    let options: TrackReadOptions
    let checksum: String
    let fixes: FixSpool
}

/// A source's checksum, known or being computed on another core.
final class Checksum: @unchecked Sendable {
    /// Set once, before `done` is signalled (at once for a known checksum).
    private var result: Result<String, any Error>?
    private let done = DispatchSemaphore(value: 0)

    /// A checksum known already.
    init(_ known: String) {
        result = .success(known)
        done.signal()
    }

    /// The SHA-256 of `file` (`TrackSource.checksummedFile`), computed from now on by a thread of
    /// its own (not a dispatch queue: the import waits for it, maybe from a pool thread itself).
    init(ofFile file: String) {
        let thread = Thread {
            self.result = Result { try SHA256.hex(ofFile: file) }
            self.done.signal()
        }
        thread.name = "roqua-checksum"
        thread.start()
    }

    /// The checksum, waiting for it.
    /// - Throws: what computing it threw (the file could not be read).
    func value() throws -> String {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
