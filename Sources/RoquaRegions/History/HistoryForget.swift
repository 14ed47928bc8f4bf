import Foundation
import GRDB
import RoquaIO
import RoquaPhotos

/// What the history holds (`roqua history`).
public struct HistorySummary: Sendable, Equatable, Codable {
    public struct Source: Sendable, Equatable, Codable {
        public var name: String
        public var fixes: Int
    }

    public var fixes: Int
    public var first: Date?
    public var last: Date?
    /// The kept fixes' size in the store (compressed blocks).
    public var bytes: Int
    public var sources: [Source]
    /// Files imported before the store kept fixes: their regions stand, but no fix of theirs is
    /// kept until they are imported again.
    public var importsBeforeHistory: Int
}

/// What `roqua forget` removed.
public struct ForgetSummary: Sendable, Equatable {
    /// Kept fixes deleted, and sources left with none (deleted too).
    public var fixes = 0
    public var sources = 0
    /// Import records made during the span (live posts, or files imported then).
    public var imports = 0
    /// The store re-derived from the fixes that remain.
    public var rebuild = RebuildSummary()
}

extension RegionStore {
    /// - Throws: `RegionStoreError` when the store cannot be read.
    public func history() throws -> HistorySummary {
        try read { db in
            let totals = try Row.fetchOne(
                db, sql: "SELECT COALESCE(SUM(count), 0), MIN(start_ms), MAX(end_ms), COALESCE(SUM(LENGTH(data)), 0) FROM fix_blocks")
            let sources = try Row.fetchAll(db, sql: "SELECT name, fixes FROM fix_sources WHERE fixes > 0 ORDER BY name").map {
                HistorySummary.Source(name: $0[0], fixes: $0[1])
            }
            func date(_ ms: Int64?) -> Date? { ms.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
            return HistorySummary(
                fixes: totals?[0] ?? 0, first: date(totals?[1]), last: date(totals?[2]), bytes: totals?[3] ?? 0,
                sources: sources,
                importsBeforeHistory: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports WHERE fixes_kept IS NULL") ?? 0)
        }
    }

    /// What the history holds of `[from, to)`: the fixes taken then (every block that overlaps the
    /// span read back and decoded), per source; `bytes` is the size of the blocks read.
    /// - Throws: `RegionStoreError` when the store cannot be read; `FixBlock.Damaged`.
    public func history(from: Date, to: Date) throws -> HistorySummary {
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let (start, end) = (ms(from), ms(to))
        return try read { db in
            var counts: [Int64: Int] = [:]
            var (first, last, bytes): (Int64?, Int64?, Int) = (nil, nil, 0)
            let blocks =
                end > start ? try FixHistory.blocks(from: start, through: end - 1, longest: try FixHistory.longestSpan(db), db) : []
            for block in blocks {
                let data = try Data.fetchOne(db, sql: "SELECT data FROM fix_blocks WHERE id = ?", arguments: [block.id]) ?? Data()
                bytes += data.count
                for fix in try FixBlock.decode(Array(data)) where fix.time >= start && fix.time < end {
                    counts[block.source, default: 0] += 1
                    first = min(first ?? fix.time, fix.time)
                    last = max(last ?? fix.time, fix.time)
                }
            }
            let names = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, name FROM fix_sources").map {
                    ($0[0] as Int64, $0[1] as String)
                })
            func date(_ ms: Int64?) -> Date? { ms.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
            return HistorySummary(
                fixes: counts.values.reduce(0, +), first: date(first), last: date(last), bytes: bytes,
                sources: counts.map { HistorySummary.Source(name: names[$0.key] ?? "source \($0.key)", fixes: $0.value) }
                    .sorted { $0.name < $1.name },
                importsBeforeHistory: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports WHERE fixes_kept IS NULL") ?? 0)
        }
    }

    /// Every kept fix taken in `[from, to)`, of every source, in time order.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func fixes(from: Date, to: Date) throws -> [Fix] {
        try read { db in
            try FixHistory.fixes(
                from: Int64((from.timeIntervalSince1970 * 1000).rounded(.down)),
                to: Int64((to.timeIntervalSince1970 * 1000).rounded(.down)), db
            ).map(\.fix)
        }
    }

    /// Runs `body` in one write transaction with SQLite's secure delete on, then truncates the
    /// write-ahead log: what `body` deletes leaves no bytes in the store's files. The thumbnails
    /// made from photos (`ThumbnailCache`) are removed too; they are made again when asked for.
    package func writeScrubbing<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
            defer { try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = OFF") } }
            let result = try queue.write(body)
            try queue.writeWithoutTransaction { db in _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            ThumbnailCache(store: path).clear()
            return result
        } catch {
            throw RegionStoreError.from(error, path: path, writing: true)
        }
    }
}

extension TrackImporter {
    /// Deletes the kept fixes taken in `[from, to)` (milliseconds) and the import records made
    /// then, then derives everything again from the fixes that remain, in `db`'s transaction (run
    /// it through `RegionStore.writeScrubbing` so the deleted bytes are overwritten).
    package func forget(from: Int64, to: Int64, discardingUnkept: Bool = false, _ db: Database) throws -> ForgetSummary {
        var summary = ForgetSummary()
        var touched = Set<Int64>()
        for block in try FixHistory.blocks(from: from, through: to - 1, longest: try FixHistory.longestSpan(db), db) {
            let fixes = try FixHistory.fixes(ofBlock: block.id, db)
            let remaining = fixes.filter { $0.time < from || $0.time >= to }
            guard remaining.count < fixes.count else { continue }
            summary.fixes += fixes.count - remaining.count
            try db.execute(sql: "DELETE FROM fix_blocks WHERE id = ?", arguments: [block.id])
            touched.insert(block.source)
            if !remaining.isEmpty { _ = try FixHistory.insertBlock(remaining[...], source: block.source, db) }
        }
        for source in touched {
            try db.execute(
                sql: """
                    UPDATE fix_sources SET (fixes, first_ms, last_ms) =
                        (SELECT COALESCE(SUM(count), 0), MIN(start_ms), MAX(end_ms) FROM fix_blocks WHERE source = fix_sources.id)
                    WHERE id = ?
                    """, arguments: [source])
        }
        for source in touched {
            try db.execute(sql: "DELETE FROM fix_sources WHERE id = ? AND fixes = 0", arguments: [source])
            summary.sources += db.changesCount
        }
        try db.execute(
            sql: "DELETE FROM imports WHERE imported_at >= ? AND imported_at < ?",
            arguments: [
                try StoreTime.text(Date(timeIntervalSince1970: Double(from) / 1000)),
                try StoreTime.text(Date(timeIntervalSince1970: Double(to) / 1000)),
            ])
        summary.imports = db.changesCount
        try KeptTimeline.forgot(from: from, to: to, db)
        summary.rebuild = try rederive(db, discardingUnkept: discardingUnkept)
        return summary
    }
}

extension RegionStore {
    /// The kept fixes taken in `[from, to)` as GPX 1.1: one track per source (its name the
    /// source's), its fixes in time order in one segment, with each one's time, and its accuracy
    /// and speed when kept (as `hdop`-free extensions other tools ignore: `<pdop>` would lie).
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func historyGPX(from: Date, to: Date) throws -> String {
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let (start, end) = (ms(from), ms(to))
        let bySource: [(String, [KeptFix])] = try read { db in
            guard end > start else { return [] }
            var fixes: [Int64: [KeptFix]] = [:]
            for block in try FixHistory.blocks(from: start, through: end - 1, longest: try FixHistory.longestSpan(db), db) {
                fixes[block.source, default: []] += try FixHistory.fixes(ofBlock: block.id, db).filter { $0.time >= start && $0.time < end }
            }
            let names = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, name FROM fix_sources").map {
                    ($0[0] as Int64, $0[1] as String)
                })
            return fixes.filter { !$0.value.isEmpty }.map { (names[$0.key] ?? "source \($0.key)", $0.value.inTimeOrder()) }.sorted {
                $0.0 < $1.0
            }
        }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Roqua" xmlns="http://www.topografix.com/GPX/1/1">

            """
        for (name, fixes) in bySource {
            out += "  <trk><name>\(XMLText.escape(name))</name><trkseg>\n"
            for kept in fixes {
                let fix = kept.fix
                out +=
                    "    <trkpt lat=\"\(fix.coordinate.latitude)\" lon=\"\(fix.coordinate.longitude)\"><time>\(style.format(fix.timestamp))</time>"
                var extensions = ""
                if let accuracy = fix.accuracy { extensions += "<accuracy>\(accuracy)</accuracy>" }
                if let speed = fix.speed { extensions += "<speed>\(speed)</speed>" }
                out += (extensions.isEmpty ? "" : "<extensions>\(extensions)</extensions>") + "</trkpt>\n"
            }
            out += "  </trkseg></trk>\n"
        }
        return out + "</gpx>\n"
    }
}
