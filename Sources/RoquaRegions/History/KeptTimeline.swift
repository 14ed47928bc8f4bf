import Foundation
import GRDB
import GRDBSQLite
import RoquaBoundaries
import RoquaIO
import RoquaTimeline

/// The kept history's stays and moves (`Timeline.segment`), kept in the store beside the fixes
/// they come from and updated in the same transaction: an import or a live post segments again
/// from just before its earliest new fix, a rebuild or a forget everything. A day's timeline is
/// then a read, not a pass over a decade of fixes.
///
/// The settings the entries were made with are remembered under `settingsKey`; a store without
/// them (from before this table, or restored from a backup made before it) has no kept
/// timeline, and readers segment the fixes themselves until the next import makes one.
package enum KeptTimeline {
    static let settingsKey = "timeline"
    /// At most this many days of fixes are segmented at a time…
    static let windowDays: Int64 = 30
    /// …and about this many blocks of a track's fixes (4,096 each), so that memory follows a
    /// sixty-five thousand fixes (about 10 MB), not a decade of them nor a dense month.
    static let windowBlocks = 16

    static func createTable(_ db: Database) throws {
        // One row per entry; entries never overlap and their starts strictly increase, so the
        // start is the key. A stay has its centre and fix count, a move its mode and length.
        try db.execute(
            sql: """
                CREATE TABLE timeline_entries (
                    start_ms INTEGER PRIMARY KEY,
                    end_ms INTEGER NOT NULL,
                    mode TEXT,
                    meters REAL,
                    latitude REAL,
                    longitude REAL,
                    fixes INTEGER
                )
                """)
        // The spans `roqua forget` emptied: no stay or move bridges one (a night at home either
        // side of a forgotten day would otherwise claim the day), so none is shown of them.
        try db.execute(sql: "CREATE TABLE forgotten_spans (from_ms INTEGER NOT NULL, to_ms INTEGER NOT NULL)")
        // A photo is a point, not a track: its source makes no move (`FixHistory.fixes(tracksOnly:)`).
        try db.execute(sql: "ALTER TABLE fix_sources ADD COLUMN photo INTEGER NOT NULL DEFAULT 0")
        try db.execute(sql: "CREATE INDEX fix_sources_photos ON fix_sources(photo, first_ms)")
        try MapTileKeeper.createTable(db)
    }

    /// Notes that `[from, to)` (ms) was forgotten.
    static func forgot(from: Int64, to: Int64, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO forgotten_spans (from_ms, to_ms) VALUES (?, ?)", arguments: [from, to])
    }

    /// The forgotten spans (ms), by start.
    static func forgotten(_ db: Database) throws -> [Range<Int64>] {
        try Row.fetchAll(db, sql: "SELECT from_ms, to_ms FROM forgotten_spans WHERE to_ms > from_ms ORDER BY from_ms").map {
            ($0[0] as Int64)..<($0[1] as Int64)
        }
    }

    private struct Remembered: Codable {
        var stayMinutes: Int
        var stayMeters: Double
    }

    /// The settings the kept entries were made with; nil when the store keeps no timeline.
    static func remembered(_ db: Database) throws -> TimelineSettings? {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [settingsKey]),
            let values = try? CheckedJSONDecoder().decode(Remembered.self, from: Data(text.utf8))
        else { return nil }
        return try? TimelineSettings(stayMinutes: values.stayMinutes, stayMeters: values.stayMeters)
    }

    private static func remember(_ settings: TimelineSettings, _ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let values = Remembered(stayMinutes: settings.stayMinutes, stayMeters: settings.stayMeters)
        try db.execute(
            sql: "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            arguments: [settingsKey, String(decoding: try encoder.encode(values), as: UTF8.self)])
    }

    /// Segments the kept fixes again from just before `from` (ms; everything when nil or when
    /// the store keeps no timeline yet) to the end, with `settings` (the remembered ones, else
    /// the defaults, when nil), replacing the entries from there on.
    ///
    /// The restart is the start of the entry before the one `from` falls in: segmenting from an
    /// entry's start gives what segmenting from the beginning gives (the windows rely on it too),
    /// and one entry more leaves room for a stay the new fixes extend backwards.
    /// - Parameters:
    ///   - maxAccuracy: fixes less accurate than this (metres) are left out, as the regions leave them.
    ///   - isOnLand: whether a boundary lies under a point (the boat mode's water test).
    static func update(
        from: Int64?, settings: TimelineSettings? = nil, maxAccuracy: Double, isOnLand: (Double, Double) -> Bool,
        _ db: Database
    ) throws {
        let known = try remembered(db)
        let settings = settings ?? known ?? .standard
        var start = Int64.min
        if let from, known == settings { start = try restart(from: from, db) }
        let entries = try segment(
            from: start, settings: settings, isOnLand: isOnLand, source: StoredFixes(db, maxAccuracy: maxAccuracy),
            breaks: try forgotten(db))
        try replace(from: start, with: entries, settings: settings, db)
    }

    /// Where `update` starts again for fixes kept from `from` (ms) on, with the remembered
    /// settings: the start of the entry before the one `from` falls in.
    static func restart(from: Int64, _ db: Database) throws -> Int64 {
        guard try remembered(db) != nil else { return .min }
        let before = try Int64.fetchAll(
            db, sql: "SELECT start_ms FROM timeline_entries WHERE start_ms <= ? ORDER BY start_ms DESC LIMIT 2", arguments: [from])
        return before.last ?? .min
    }

    /// The entries from `start` (ms) on replaced by `entries`, made with `settings`.
    static func replace(from start: Int64, with entries: [TimelineEntry], settings: TimelineSettings, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM timeline_entries WHERE start_ms >= ?", arguments: [start])
        let writer = try RowWriter(
            db,
            sql: "INSERT INTO timeline_entries (start_ms, end_ms, mode, meters, latitude, longitude, fixes) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for entry in entries {
            try writer.write { values in
                switch entry {
                case .stay(let stay):
                    values.add(stay.start)
                    values.add(stay.end)
                    values.add(nil as String?)
                    values.add(nil as Double?)
                    values.add(stay.latitude)
                    values.add(stay.longitude)
                    values.add(Int64(stay.fixes))
                case .move(let move):
                    values.add(move.start)
                    values.add(move.end)
                    values.add(move.mode.rawValue)
                    values.add(move.meters)
                    values.add(nil as Double?)
                    values.add(nil as Double?)
                    values.add(nil as Int64?)
                }
            }
        }
        try remember(settings, db)
    }

    /// Each mode with its name's bytes, as the table keeps it.
    private static let modes = TravelMode.allCases.map { (text: Array($0.rawValue.utf8), mode: $0) }

    /// Every kept entry in time order (moves unlinked: `fromStay`/`toStay` nil), with the
    /// settings they were made with; nil when the store keeps no timeline.
    /// - Throws: `FixBlock.Damaged` for an entry without its times, centre, fix count or length, or
    ///   with an unknown mode.
    static func entries(_ db: Database) throws -> (settings: TimelineSettings, entries: [TimelineEntry])? {
        guard let settings = try remembered(db) else { return nil }
        var entries: [TimelineEntry] = []
        // Read by position, the mode's text compared as bytes: a decade's 25 k entries are read
        // for every day asked (GRDB's typed subscripts and a string per move cost 40 % more).
        entries.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timeline_entries") ?? 0)
        let statement = try db.makeStatement(
            sql: "SELECT start_ms, end_ms, mode, meters, latitude, longitude, fixes FROM timeline_entries ORDER BY start_ms")
        let rows = try Row.fetchCursor(statement)
        let s = statement.sqliteStatement
        while try rows.next() != nil {
            let start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1)
            guard sqlite3_column_type(s, 0) == SQLITE_INTEGER, sqlite3_column_type(s, 1) == SQLITE_INTEGER else {
                throw FixBlock.Damaged(description: "the kept timeline has an entry without a start and end near \(start)")
            }
            func isNumber(_ column: Int32) -> Bool { [SQLITE_FLOAT, SQLITE_INTEGER].contains(sqlite3_column_type(s, column)) }
            if sqlite3_column_type(s, 2) == SQLITE_NULL {
                guard isNumber(4), isNumber(5), sqlite3_column_type(s, 6) == SQLITE_INTEGER else {
                    throw FixBlock.Damaged(description: "the kept timeline has a stay without its centre or fix count at \(start)")
                }
                entries.append(
                    .stay(
                        Stay(
                            start: start, end: end, latitude: sqlite3_column_double(s, 4), longitude: sqlite3_column_double(s, 5),
                            fixes: Int(sqlite3_column_int64(s, 6)))))
            } else {
                let text = UnsafeBufferPointer(start: sqlite3_column_text(s, 2), count: Int(sqlite3_column_bytes(s, 2)))
                guard let mode = modes.first(where: { $0.text.elementsEqual(text) })?.mode else {
                    let quoted = Echo.quoted(String(decoding: text, as: UTF8.self))
                    throw FixBlock.Damaged(description: "the kept timeline has an unknown mode \(quoted) at \(start)")
                }
                guard isNumber(3) else {
                    throw FixBlock.Damaged(description: "the kept timeline has a move without its length at \(start)")
                }
                entries.append(
                    .move(Move(start: start, end: end, mode: mode, meters: sqlite3_column_double(s, 3), fromStay: nil, toStay: nil)))
            }
        }
        return (settings, entries)
    }

    static func accurate(_ fixes: [KeptFix], maxAccuracy: Double) -> [TimelineFix] {
        // Kept accuracy is in decimetres, -1 for none (a fix without one is kept, as the regions keep it).
        let limit = maxAccuracy * 10
        return fixes.compactMap { fix in
            guard Double(fix.accuracy) <= limit else { return nil }
            return TimelineFix(
                time: fix.time, latitude: Double(fix.latitude) / 1e7, longitude: Double(fix.longitude) / 1e7,
                accuracy: fix.accuracy < 0 ? nil : Double(fix.accuracy) / 10, speed: fix.speed < 0 ? nil : Double(fix.speed) / 100)
        }
    }

    /// The entries of the fixes from `from` (ms) to the last, segmented a window at a time: each
    /// window's last entry may be cut short by the window's end, so it is dropped and the next
    /// window starts where it started, and sees it whole. The history is segmented apart on either
    /// side of each of `breaks` (spans no entry may bridge, by start), as if it ended there and
    /// began again.
    static func segment(
        from: Int64, settings: TimelineSettings, isOnLand: (Double, Double) -> Bool, source: some SegmentSource,
        breaks: [Range<Int64>]
    ) throws -> [TimelineEntry] {
        guard let first = try source.first() else { return [] }
        var entries: [TimelineEntry] = []
        var start = max(from, first)
        var window = try source.reach(from: start)
        while try source.end(within: start) == nil {
            // The history stops at the next break as it stops at its end.
            let next = try breaks.first { try $0.upperBound > start && source.end(within: $0.lowerBound) == nil }
            let reach = start + window
            let windowEnd: Int64, stops: Bool
            if let next {
                let stop = max(next.lowerBound, start)
                (windowEnd, stops) = (min(reach, stop), reach >= stop)
            } else if let end = try source.end(within: reach) {
                (windowEnd, stops) = (end, true)
            } else {
                (windowEnd, stops) = (reach, false)
            }
            let found = Timeline.segment(
                windowEnd > start ? try source.fixes(start, windowEnd) : [], settings: settings, isOnLand: isOnLand)
            if stops {
                entries += found
                guard let next else { break }
                start = next.upperBound
                window = try source.reach(from: start)
                continue
            }
            // No stay after the first entry (one entry filling the window, or moves): look further.
            guard found.count >= 2, let cut = found.last?.start, cut > start else {
                window *= 2
                continue
            }
            entries += found.dropLast()
            start = cut
            window = try source.reach(from: start)
        }
        return entries
    }
}

/// What `KeptTimeline.segment` reads: the fixes, where the history begins and ends, and how far a
/// window of segmentation reaches.
protocol SegmentSource {
    /// The first fix's time (ms), nil for none.
    func first() throws -> Int64?
    /// The end of the history (the last fix's time + 1 ms) when it is at most `limit`, else nil.
    func end(within limit: Int64) throws -> Int64?
    /// The fixes in `[a, b)` (ms), in time order, those less accurate than the settings' limit left out.
    func fixes(_ a: Int64, _ b: Int64) throws -> [TimelineFix]
    /// How far (ms) from `start` a window reaches: `KeptTimeline.windowBlocks` blocks of a
    /// track's fixes, at least an hour and at most `KeptTimeline.windowDays` days.
    func reach(from start: Int64) throws -> Int64
}

extension SegmentSource {
    /// `reach(from:)` given the start (ms) of the `KeptTimeline.windowBlocks + 1`-th block of a
    /// track after `start`, nil when there are not that many.
    static func reach(from start: Int64, toBlock next: Int64?) -> Int64 {
        let longest = KeptTimeline.windowDays * 86_400_000
        return next.map { min(max($0 - start, 3_600_000), longest) } ?? longest
    }
}

/// The kept fixes of tracks (not photos), read from the store.
struct StoredFixes: SegmentSource {
    let db: Database
    let maxAccuracy: Double
    /// The first and last time (ms) of a kept fix of a track, nil for none.
    private let bounds: (Int64, Int64)?

    init(_ db: Database, maxAccuracy: Double) throws {
        self.db = db
        self.maxAccuracy = maxAccuracy
        let row = try Row.fetchOne(db, sql: "SELECT MIN(first_ms), MAX(last_ms) FROM fix_sources WHERE photo = 0 AND fixes > 0")
        if let row, let first: Int64 = row[0], let last: Int64 = row[1] { bounds = (first, last) } else { bounds = nil }
    }

    func first() -> Int64? { bounds?.0 }

    func end(within limit: Int64) -> Int64? {
        guard let last = bounds?.1 else { return .min }
        return last + 1 <= limit ? last + 1 : nil
    }

    func fixes(_ a: Int64, _ b: Int64) throws -> [TimelineFix] {
        KeptTimeline.accurate(try FixHistory.fixes(from: a, to: b, tracksOnly: true, db), maxAccuracy: maxAccuracy)
    }

    func reach(from start: Int64) throws -> Int64 {
        let next = try Int64.fetchOne(
            db,
            sql: """
                SELECT start_ms FROM fix_blocks WHERE start_ms > ? AND source NOT IN (SELECT id FROM fix_sources WHERE photo = 1)
                ORDER BY start_ms LIMIT 1 OFFSET ?
                """, arguments: [start, KeptTimeline.windowBlocks])
        return Self.reach(from: start, toBlock: next)
    }
}

extension RegionStore {
    /// The kept stays and moves in time order (moves unlinked) and the settings they were made
    /// with; nil when the store keeps none yet (before its next import or rebuild).
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged` for a damaged row.
    public func keptTimeline() throws -> (settings: TimelineSettings, entries: [TimelineEntry])? {
        try read { db in try KeptTimeline.entries(db) }
    }

    /// The stays and moves of every kept fix segmented now with `settings`, as an import would
    /// keep them (the same windows, the same accuracy filter); for settings other than the kept ones.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func segmentedTimeline(_ settings: TimelineSettings, isOnLand: (Double, Double) -> Bool) throws -> [TimelineEntry] {
        try read { db in
            let maxAccuracy = try DeriveSettings.remembered(db).clustering.maxAccuracy
            return try KeptTimeline.segment(
                from: .min, settings: settings, isOnLand: isOnLand, source: StoredFixes(db, maxAccuracy: maxAccuracy),
                breaks: try KeptTimeline.forgotten(db))
        }
    }
}

extension RegionStore {
    /// The stay thresholds the kept timeline was made with, nil when the store keeps none yet.
    /// - Throws: `RegionStoreError`.
    public func timelineSettings() throws -> TimelineSettings? {
        try read { db in try KeptTimeline.remembered(db) }
    }
}
