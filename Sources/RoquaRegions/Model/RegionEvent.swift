/// What happened to the user's record, in the order it happened. Later features (statistics,
/// achievements) consume these instead of re-reading the whole store after every fix.
public enum RegionEvent: Sendable, Equatable {
    /// A region was created, as stored (with its id).
    case newRegion(VisitedRegion)
    /// A stored region got one or more new visits (one event per region and import); the region as updated.
    case revisit(VisitedRegion)
    /// The first region ever in this unit.
    case firstCountry(code: String, name: String)
    /// The first region ever in this province.
    case firstProvince(code: String, name: String)
    /// The first region ever in this district.
    case firstDistrict(code: String, name: String)
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
