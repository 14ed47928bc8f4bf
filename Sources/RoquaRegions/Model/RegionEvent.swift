/// What happened to the user's record, in the order it happened. Later features (statistics,
/// achievements) consume these instead of re-reading the whole store after every fix.
public enum RegionEvent: Sendable, Equatable {
    case newRegion(VisitedRegion)
    case revisit(VisitedRegion)
    /// The first region ever in this unit.
    case firstCountry(code: String, name: String)
    case firstProvince(code: String, name: String)
    case firstDistrict(code: String, name: String)
}

/// A typed `AsyncStream` of region events with its continuation; events are yielded only
/// after the transaction that made them true has committed.
public final class RegionEventStream: Sendable {
    public let events: AsyncStream<RegionEvent>
    private let continuation: AsyncStream<RegionEvent>.Continuation

    public init(bufferingNewest limit: Int = 100_000) {
        (events, continuation) = AsyncStream.makeStream(of: RegionEvent.self, bufferingPolicy: .bufferingNewest(limit))
    }

    func yield(_ event: RegionEvent) { continuation.yield(event) }

    public func finish() { continuation.finish() }
}
