import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTimeline

/// The kept history as stays and moves, with the places the stays make (`Places.cluster`):
/// what `roqua timeline`, `places` and `trips` answer from.
///
/// The store keeps the stays and moves its imports made (`RegionStore.keptTimeline`); other
/// stay thresholds, or a store that keeps none yet, segment every kept fix now, a month at a time.
public struct HistoryTimeline: Sendable {
    /// Every stay and move, in time order, not overlapping.
    public let entries: [TimelineEntry]
    /// The places the stays make, numbered in order of first visit.
    public let places: [Place]
    /// Per entry, the id of its place (stays), nil for moves.
    public let placeOfEntry: [Int?]
    /// The stay thresholds the entries were made with.
    public let settings: TimelineSettings

    /// The timeline of every kept fix of `store`.
    /// - Parameters:
    ///   - settings: the stay thresholds; nil for those the store's timeline was kept with.
    ///   - isOnLand: whether a boundary lies under a point (the boat mode's water test), for
    ///     segmenting with settings the store did not keep.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged` when the store cannot be read.
    public init(
        store: RegionStore, settings: TimelineSettings? = nil, timeZone: TimeZone, isOnLand: (Double, Double) -> Bool
    ) throws {
        let entries: [TimelineEntry]
        if let kept = try store.keptTimeline(), settings == nil || settings == kept.settings {
            (entries, self.settings) = (kept.entries, kept.settings)
        } else {
            let settings = settings ?? .standard
            (entries, self.settings) = (try store.segmentedTimeline(settings, isOnLand: isOnLand), settings)
        }
        self.entries = Self.linked(entries)
        (places, placeOfEntry) = Places.cluster(self.entries, meters: self.settings.stayMeters, timeZone: timeZone)
    }

    /// The entries that overlap `[from, to)`, with their indices, whole (a stay over midnight is in
    /// both days).
    public func entries(overlapping from: Date, _ to: Date) -> [(index: Int, entry: TimelineEntry)] {
        let (a, b) = (Self.milliseconds(from), Self.milliseconds(to))
        // Entries are in time order: start from the first that ends after `from`.
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].end <= a && entries[mid].start < a { low = mid + 1 } else { high = mid }
        }
        var found: [(Int, TimelineEntry)] = []
        var i = low
        while i < entries.count, entries[i].start < b {
            if entries[i].end > a || entries[i].start >= a { found.append((i, entries[i])) }
            i += 1
        }
        return found
    }

    /// The place of entry `index`'s stay, or of the stays a move links.
    public func place(ofEntry index: Int?) -> Place? {
        guard let index, index >= 0, index < placeOfEntry.count, let id = placeOfEntry[index] else { return nil }
        return places.first { $0.id == id }
    }

    /// Each move linked to the stay before and after it in the whole history (windows were
    /// segmented apart, so their own links stop at their edges).
    private static func linked(_ entries: [TimelineEntry]) -> [TimelineEntry] {
        var result = entries
        var previous: Int? = nil
        for i in result.indices {
            if result[i].stay != nil {
                previous = i
            } else if var move = result[i].move {
                move.fromStay = previous
                result[i] = .move(move)
            }
        }
        var next: Int? = nil
        for i in result.indices.reversed() {
            if result[i].stay != nil {
                next = i
            } else if var move = result[i].move {
                move.toStay = next
                result[i] = .move(move)
            }
        }
        return result
    }

    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    package static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
