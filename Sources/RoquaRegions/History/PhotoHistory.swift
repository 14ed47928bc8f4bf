import Foundation
import GRDB
import RoquaPhotos

/// A photo kept in the history: its path in the folder imported, when and where it was taken.
public struct PhotoTaken: Sendable, Equatable {
    public var path: String
    public var time: Date
    public var latitude: Double
    public var longitude: Double
}

extension RegionStore {
    /// The kept photos taken in `[from, to)` (all when nil), in time order.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func photos(from: Date? = nil, to: Date? = nil) throws -> [PhotoTaken] {
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let (start, end) = (from.map(ms) ?? Int64.min, to.map(ms) ?? Int64.max)
        return try read { db in
            // A photo's source holds its one fix (two when two photos share a path and differ).
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT s.name, b.data FROM fix_sources s JOIN fix_blocks b ON b.source = s.id
                    WHERE s.photo = 1 AND s.last_ms >= ? AND s.first_ms < ?
                    """, arguments: [start, end])
            var found: [PhotoTaken] = []
            while let row = try rows.next() {
                let name: String = row[0], data: Data = row[1]
                for fix in try FixBlock.decode(Array(data)) where fix.time >= start && fix.time < end {
                    let plain = fix.fix
                    found.append(
                        PhotoTaken(
                            path: name, time: plain.timestamp, latitude: plain.coordinate.latitude, longitude: plain.coordinate.longitude))
                }
            }
            return found.sorted { ($0.time, $0.path) < ($1.time, $1.path) }
        }
    }
}

extension RegionStore {
    /// Which of `days` (spans in time order, not overlapping) hold a kept fix: a track's or a photo's.
    /// A block's first and last fixes mark their days; only a block spanning a day not marked yet
    /// is read, so a month of a phone's fixes costs a few blocks, not every fix.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func recorded(_ days: [Range<Date>]) throws -> [Bool] {
        guard let last = days.last?.upperBound else { return [] }
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let starts = days.map { ms($0.lowerBound) }, ends = days.map { ms($0.upperBound) }
        var found = [Bool](repeating: false, count: days.count)
        /// The day holding `time`, if any.
        func day(_ time: Int64) -> Int? {
            var (low, high) = (0, ends.count)  // the first day ending after `time`
            while low < high {
                let middle = (low + high) / 2
                if ends[middle] > time { high = middle } else { low = middle + 1 }
            }
            return low < days.count && time >= starts[low] ? low : nil
        }
        try read { db in
            let blocks = try FixHistory.blocks(from: starts[0], through: ms(last) - 1, longest: try FixHistory.longestSpan(db), db)
            for block in blocks {
                for time in [block.start, block.end] { if let index = day(time) { found[index] = true } }
            }
            for block in blocks where found.indices.contains(where: { !found[$0] && starts[$0] < block.end && ends[$0] > block.start }) {
                for fix in try FixHistory.fixes(ofBlock: block.id, db) { if let index = day(fix.time) { found[index] = true } }
            }
        }
        return found
    }
}

extension RegionStore {
    /// Whether `path` names a kept photo (its path in the folder imported, as `photos` gives it),
    /// and where its file was: nil for a photo known from its Takeout sidecar alone or imported
    /// before folders were kept. A name that would leave its folder is no kept photo.
    /// - Throws: `RegionStoreError`.
    func photoFile(_ path: String) throws -> (kept: Bool, file: String?) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            return (false, nil)
        }
        return try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT folder FROM fix_sources WHERE photo = 1 AND name = ?", arguments: [path])
            else { return (false, nil) }
            return (true, (row[0] as String?).map { $0 + "/" + path })
        }
    }
}

/// A kept photo's preview, as `RegionStore.photoPreview` finds it.
public enum PhotoPreview: Sendable, Equatable {
    /// The JPEG the camera embedded in the photo's EXIF, or one made from its picture.
    case jpeg([UInt8])
    /// No photo of that name is kept (or it was known from a Takeout sidecar alone).
    case notKept
    /// The photo is kept but no preview can be had from its file (a PNG without one, a damaged
    /// picture), or it is no longer where it was imported from.
    case unavailable
}

extension RegionStore {
    /// The preview of kept photo `path`, from its file now: the one embedded in its EXIF, else
    /// (a JPEG, HEIC or AVIF) a thumbnail made from it and kept in the store's `ThumbnailCache`.
    /// - Throws: `RegionStoreError`.
    public func photoPreview(_ path: String) throws -> PhotoPreview {
        let (kept, file) = try photoFile(path)
        guard kept else { return .notKept }
        guard let file else { return .unavailable }
        if let embedded = PhotoThumbnail.read(path: file) { return .jpeg(embedded) }
        return (try? ThumbnailCache(store: self.path).thumbnail(of: file)).map { .jpeg($0) } ?? .unavailable
    }
}
