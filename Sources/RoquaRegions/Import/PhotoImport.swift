import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaPhotos

/// What a folder of photos gave: how many were read, how many had a place and a time, and why
/// the others gave no fix.
public struct PhotoCounts: Sendable, Equatable, Codable {
    /// Photos (or sidecars alone) read.
    public var read = 0
    /// Photos that gave a fix.
    public var located = 0
    /// Photos that gave none, by reason (`PhotoCounts.reason`).
    public var skipped: [String: Int] = [:]
    /// The first few photos refused as damaged or unreadable, with what is wrong.
    public var problems: [String] = []

    static var problemsShown: Int { 5 }

    /// A skip reason in words, the key of `skipped`.
    static func reason(_ reason: SkipReason) -> String {
        switch reason {
        case .noPosition: "no position"
        case .noTime: "no time"
        case .noTimeZone: "local time without a zone"
        case .unsupportedFormat: "not a photo Roqua reads"
        case .malformed: "damaged metadata"
        case .unreadable: "unreadable"
        }
    }
}

extension TrackImporter {
    /// Imports a batch of photos: each photo's position and time (read from its metadata only,
    /// `PhotoReader`) is kept as one fix of a source named by its path in the folder, and derives
    /// regions, days and tiles like any fix — but each on its own, so no two photos make a
    /// flight, and the timeline makes no move of them. All in one transaction, with `alongside`;
    /// a batch giving the same fixes again is found imported.
    /// - Parameter timeZone: the zone of photos with a local time and no offset (nil: skipped, counted).
    /// - Throws: `RegionStoreError`, and what `alongside` throws (nothing is then written).
    package func importPhotos<T>(
        _ batch: PhotoBatch, timeZone: TimeZone?, alongside: (Database, TrackImportSummary) throws -> T
    ) throws -> (summary: TrackImportSummary, extra: T?) {
        var summary = TrackImportSummary(file: batch.name, format: "photos")
        var counts = PhotoCounts()
        var found: [(name: String, fix: KeptFix, folder: String?)] = []
        let reader = PhotoReader(timeZone: timeZone)
        for file in batch.files {
            counts.read += 1
            switch reader.read(photoPath: file.photo, sidecarPath: file.sidecar) {
            case .fix(let photo):
                let fix = Fix(
                    coordinate: Coordinate(latitude: photo.latitude, longitude: photo.longitude), timestamp: photo.time,
                    accuracy: photo.accuracy)
                guard TrackValues.isInWindow(photo.time), let kept = KeptFix(fix) else {
                    counts.skipped[PhotoCounts.reason(.noTime), default: 0] += 1
                    continue
                }
                counts.located += 1
                found.append((file.historyName, kept, file.photo.flatMap { Self.folder(of: $0, named: file.historyName) }))
            case .skipped(let reason):
                counts.skipped[PhotoCounts.reason(reason), default: 0] += 1
                switch reason {
                case .malformed(let what), .unreadable(let what):
                    if counts.problems.count < PhotoCounts.problemsShown {
                        counts.problems.append("\(file.photo ?? file.sidecar ?? ""): \(what)")
                    }
                default: break
                }
            }
        }
        summary.photos = counts
        summary.fixesRead = found.count
        guard !found.isEmpty else { return (summary, nil) }
        found.sort { ($0.fix.time, $0.name) < ($1.fix.time, $1.name) }
        let checksum = Self.checksum(found.map { ($0.name, $0.fix) })
        let outcome = try store.write { db -> (TrackImportSummary, T?) in
            if try Self.importState(db, checksum: checksum) == .kept {
                // The same photos again, perhaps from where their folder was moved: previews are read there now.
                try Self.attach(found, db)
                summary.alreadyImported = true
                return (summary, nil)
            }
            var derivation = RegionDerivation(
                settings: settings, flights: flights, enricher: enricher, existing: try store.readableRegions(db, growing: true))
            var tiles = MapTileKeeper(maxAccuracy: settings.maxAccuracy, db)
            // A photo's block spans no time: the longest stays what it was.
            let longest = try FixHistory.longestSpan(db)
            for (index, (name, fix, _)) in found.enumerated() {
                var keeper = try FixKeeper(source: name, longest: longest, db)
                let fresh = try keeper.add(fix) + keeper.finish()
                if keeper.duplicates > 0 { summary.dropped[.duplicate, default: 0] += keeper.duplicates }
                guard !fresh.isEmpty else { continue }
                summary.fixesKept += fresh.count
                try db.execute(sql: "UPDATE fix_sources SET photo = 1 WHERE name = ?", arguments: [name])
                derivation.derive(fresh)
                derivation.endSource()
                // A photo is a point: lit on the heat map, joined to no line.
                try tiles.add(source: Int64(index), fresh)
                tiles.endSource(Int64(index))
            }
            try tiles.finish()
            try Self.attach(found, db)
            let counts = derivation.counts
            summary.dropped.merge(counts.dropped, uniquingKeysWith: +)
            (summary.newRegions, summary.revisits) = (counts.newRegions, counts.revisits)
            let written = try derivation.write(db)
            if summary.fixesKept > 0 {
                try KeptTimeline.update(from: found[0].fix.time, maxAccuracy: settings.maxAccuracy, isOnLand: isOnLand, db)
            }
            try db.execute(
                sql: """
                    INSERT INTO imports (checksum, file, format, imported_at, fixes_read, fixes_dropped, new_regions, revisits, fixes_kept)
                    VALUES (?, ?, 'photos', ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    checksum, (batch.name as NSString).lastPathComponent, try StoreTime.text(Date()), summary.fixesRead,
                    summary.droppedTotal, summary.newRegions, summary.revisits, summary.fixesKept,
                ])
            (summary.events, summary.firsts, summary.storedRegions) = (written.events, written.firsts, written.stored)
            let extra = try alongside(db, summary)
            summary.storedRegions = nil
            return (summary, extra)
        }
        outcome.0.events.forEach { events?.yield($0) }
        return outcome
    }

    /// Records where each photo's file is now, kept before or just now.
    private static func attach(_ found: [(name: String, fix: KeptFix, folder: String?)], _ db: Database) throws {
        let update = try db.makeStatement(sql: "UPDATE fix_sources SET folder = ? WHERE photo = 1 AND name = ?")
        for (name, _, folder) in found where folder != nil { try update.execute(arguments: [folder, name]) }
    }

    /// The absolute folder a photo was found in: its path without its name in the history
    /// (the photo's path inside the folder imported); nil when they do not fit.
    static func folder(of photo: String, named name: String) -> String? {
        let absolute = URL(fileURLWithPath: photo).standardizedFileURL.path
        guard absolute.hasSuffix("/" + name) else { return nil }
        return String(absolute.dropLast(name.utf8.count + 1))
    }

    /// What the batch gave, as the import record's checksum: the same photos give the same one,
    /// wherever the folder lies (their names in it, times and positions; never their content).
    private static func checksum(_ found: [(name: String, fix: KeptFix)]) -> String {
        var hasher = SHA256()
        for (name, fix) in found {
            let line = "\(name)\t\(fix.time)\t\(fix.latitude)\t\(fix.longitude)\t\(fix.accuracy)\n"
            Array(line.utf8).withUnsafeBytes { hasher.update($0) }
        }
        return "photos:" + hasher.finalize()
    }
}
