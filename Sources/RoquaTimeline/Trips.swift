import Foundation

/// A journey away from home that includes at least one night spent 50 km or more from it.
public struct Trip: Sendable, Equatable {
    /// When the person left home (end of the last home stay before), in ms since 1970 UTC.
    public var start: Int64
    /// When they were back (start of the next home stay), in ms since 1970 UTC.
    public var end: Int64
    /// Number of 03:00 local instants in the trip spent at least 50 km from home.
    public var nights: Int
    /// Entry indices of the trip's stays at least 50 km from home, in time order.
    public var farStays: [Int]
    /// Sum of the lengths of the trip's moves, in metres.
    public var meters: Double
    /// Entry index of the far stay holding most time, nil when there is none.
    public var destination: Int?

    /// A trip from `start` to `end` (ms since 1970 UTC) with its nights away, far stays, length in metres and destination.
    public init(start: Int64, end: Int64, nights: Int, farStays: [Int], meters: Double, destination: Int?) {
        self.start = start
        self.end = end
        self.nights = nights
        self.farStays = farStays
        self.meters = meters
        self.destination = destination
    }
}

/// Finds the trips (times away from home with a night far away) in a timeline.
public enum Trips {
    /// A stay this many metres or more from home is far.
    public static let farMeters = 50_000.0
    /// The local hour at which a night is counted.
    public static let nightHour: Int64 = 3

    /// The trips of `entries`: each time between two stays at the home place that contains a 03:00
    /// local instant spent at least 50 km from home. A day trip is not a trip, nor is time away before
    /// the first or after the last home stay. No home place, no trips.
    /// - Parameters:
    ///   - entries: a timeline from `Timeline.segment`.
    ///   - places: the places from `Places.cluster`; the one labelled home is home.
    ///   - placeOfEntry: the place id of each entry from `Places.cluster`.
    ///   - timeZone: the person's time zone, for the 03:00 instants.
    public static func find(_ entries: [TimelineEntry], places: [Place], placeOfEntry: [Int?], timeZone: TimeZone) -> [Trip] {
        guard let home = places.first(where: { $0.label == .home }), placeOfEntry.count == entries.count else { return [] }
        let homeStays = entries.indices.filter { placeOfEntry[$0] == home.id }
        var distance = [Double](repeating: 0, count: entries.count)
        for (i, entry) in entries.enumerated() {
            if let stay = entry.stay { distance[i] = Geodesy.haversine(home.latitude, home.longitude, stay.latitude, stay.longitude) }
        }
        var trips: [Trip] = []
        for (a, b) in zip(homeStays, homeStays.dropFirst()) where b > a + 1 {
            let start = entries[a].end
            let end = entries[b].start
            var nights = 0
            var cursor = a + 1
            for instant in LocalTime.instants(ofHour: nightHour, from: start, to: end, timeZone: timeZone) {
                while cursor < b - 1 && entries[cursor].end < instant { cursor += 1 }
                if whereabouts(entries, distance, cursor) >= farMeters { nights += 1 }
            }
            guard nights > 0 else { continue }
            var far: [Int] = []
            var meters = 0.0
            for i in (a + 1)..<b {
                if let move = entries[i].move { meters += move.meters } else if distance[i] >= farMeters { far.append(i) }
            }
            let destination = far.max { entries[$0].end - entries[$0].start < entries[$1].end - entries[$1].start }
            trips.append(Trip(start: start, end: end, nights: nights, farStays: far, meters: meters, destination: destination))
        }
        return trips
    }

    /// Distance from home in metres of entry `i`: a stay's own, a move's farther end's.
    private static func whereabouts(_ entries: [TimelineEntry], _ distance: [Double], _ i: Int) -> Double {
        guard let move = entries[i].move else { return distance[i] }
        return max(move.fromStay.map { distance[$0] } ?? 0, move.toStay.map { distance[$0] } ?? 0)
    }
}
