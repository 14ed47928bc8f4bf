import Foundation
import GRDB

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
