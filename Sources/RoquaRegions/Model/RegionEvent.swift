import Foundation

/// What happened to the user's record, in the order it happened. Later features (statistics,
/// achievements) consume these instead of re-reading the whole store after every fix.
public enum RegionEvent: Sendable, Equatable {
    /// A region was created (read it from the store by its id).
    case newRegion(Touch)
    /// A stored region got one or more new visits (one event per region and import).
    case revisit(Touch)
    /// The first region ever in this unit.
    case firstCountry(code: String, name: String)
    /// The first region ever in this province.
    case firstProvince(code: String, name: String)
    /// The first region ever in this district.
    case firstDistrict(code: String, name: String)

    /// A region an import made or visited again: its id and when its latest visit ended. Not the
    /// whole region: an import that makes a million regions would carry a quarter of a gigabyte
    /// of them, and whoever needs more reads the store (events come after the commit).
    public struct Touch: Sendable, Equatable {
        /// The region's id in the store.
        public var id: Int64
        /// The end of the region's latest visit (its latest start when it has no end).
        public var latestVisit: Date

        /// - Parameters: as the properties.
        public init(id: Int64, latestVisit: Date) {
            self.id = id
            self.latestVisit = latestVisit
        }

        /// The stored `region`'s touch; nil when it has no id (not stored).
        public init?(_ region: VisitedRegion) {
            guard let id = region.id else { return nil }
            self.init(id: id, latestVisit: region.latestVisit)
        }
    }
}

/// A typed `AsyncStream` of region events with its continuation; events are yielded only
/// after the transaction that made them true has committed.
public final class RegionEventStream: Sendable {
    /// The events, in the order they happened; ends after `finish()`.
    public let events: AsyncStream<RegionEvent>
    private let continuation: AsyncStream<RegionEvent>.Continuation

    /// Creates a stream that keeps at most the newest `limit` events a slow consumer has not taken.
    public init(bufferingNewest limit: Int = 100_000) {
        (events, continuation) = AsyncStream.makeStream(of: RegionEvent.self, bufferingPolicy: .bufferingNewest(limit))
    }

    func yield(_ event: RegionEvent) { continuation.yield(event) }

    /// Ends the stream; consumers see its end after the events already yielded.
    public func finish() { continuation.finish() }
}
