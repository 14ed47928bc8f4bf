import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTimeline

/// The kept history as stays and moves (`Timeline.segment`), with the places the stays make
/// (`Places.cluster`): what `roqua timeline`, `places` and `trips` answer from.
///
/// Read a window of the history at a time (`windowDays`), so memory follows a month of fixes,
/// not a decade: each window's last entry may be cut short by the window's end, so it is
/// dropped and the next window starts where it started, and sees it whole.
public struct HistoryTimeline: Sendable {
    /// Every stay and move, in time order, not overlapping.
    public let entries: [TimelineEntry]
    /// The places the stays make, numbered in order of first visit.
    public let places: [Place]
    /// Per entry, the id of its place (stays), nil for moves.
    public let placeOfEntry: [Int?]

    /// Days of fixes read at a time.
    static let windowDays: Int64 = 30

    /// Segments every kept fix of `store`.
    /// - Parameters:
    ///   - isOnLand: whether a boundary lies under a point (the boat mode's water test).
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged` when the store cannot be read.
    public init(
        store: RegionStore, settings: TimelineSettings, timeZone: TimeZone, isOnLand: (Double, Double) -> Bool
    ) throws {
        var entries: [TimelineEntry] = []
        let history = try store.history()
        // The fixes the regions are derived from: those the import's accuracy setting keeps (a
        // 200 m fix far off would end a drive and start a phantom walk).
        let maxAccuracy = try store.derivedWith().clustering.maxAccuracy
        if let first = history.first, let last = history.last {
            let end = Self.milliseconds(last) + 1
            var start = Self.milliseconds(first)
            var window = Self.windowDays * 86_400_000
            while start < end {
                let windowEnd = min(start + window, end)
                let fixes = try store.fixes(from: Self.date(start), to: Self.date(windowEnd)).lazy
                    .filter { ($0.accuracy ?? 0) <= maxAccuracy }.map(Self.timelineFix)
                let found = Timeline.segment(Array(fixes), settings: settings, isOnLand: isOnLand)
                if windowEnd == end {
                    entries += found
                    break
                }
                // One entry filling the window: it may go on beyond it, so look further.
                guard found.count >= 2, let cut = found.last?.start, cut > start else {
                    window *= 2
                    continue
                }
                entries += found.dropLast()
                start = cut
                window = Self.windowDays * 86_400_000
            }
        }
        self.entries = Self.linked(entries)
        (places, placeOfEntry) = Places.cluster(self.entries, meters: settings.stayMeters, timeZone: timeZone)
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

    static func timelineFix(_ fix: Fix) -> TimelineFix {
        TimelineFix(
            time: milliseconds(fix.timestamp), latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude,
            accuracy: fix.accuracy, speed: fix.speed)
    }
}
