/// How a person travelled during a move, judged from its speed profile (and water under it for boats).
public enum TravelMode: String, Sendable, Codable, CaseIterable {
    /// On foot: 85 % of the time under 10 km/h.
    case walk
    /// By bicycle: steady 10–30 km/h, at a median under 20 km/h.
    case cycle
    /// By car, bus or any road vehicle: up to about 160 km/h, stop and go.
    case road
    /// By train: sustained over 160 km/h on land.
    case rail
    /// By boat: 5–60 km/h mostly over water.
    case boat
    /// By plane: sustained over 270 km/h, or a hole crossed faster than 250 km/h over more than 100 km.
    case flight
    /// Nothing can be said: a hole in the fixes that fits no neighbouring mode.
    case unknown
}

/// A time spent at one place: at least the stay minutes within about the stay metres.
public struct Stay: Sendable, Equatable {
    /// Time of the first fix of the stay, in ms since 1970 UTC.
    public var start: Int64
    /// Time of the last fix of the stay, in ms since 1970 UTC.
    public var end: Int64
    /// Latitude of the centre in degrees: accuracy-weighted mean of the fixes near it, outliers excluded.
    public var latitude: Double
    /// Longitude of the centre in degrees.
    public var longitude: Double
    /// Number of fixes that made the stay (outliers skipped inside it are not counted).
    public var fixes: Int

    /// A stay from `start` to `end` (ms since 1970 UTC) centred on `latitude`/`longitude` (degrees), made of `fixes` fixes.
    public init(start: Int64, end: Int64, latitude: Double, longitude: Double, fixes: Int) {
        self.start = start
        self.end = end
        self.latitude = latitude
        self.longitude = longitude
        self.fixes = fixes
    }
}

/// A journey by one mode between two instants; consecutive moves with different modes are separate entries.
public struct Move: Sendable, Equatable {
    /// Start of the move, in ms since 1970 UTC (the end of the stay before, when there is one).
    public var start: Int64
    /// End of the move, in ms since 1970 UTC (the start of the stay after, when there is one).
    public var end: Int64
    /// How the person travelled.
    public var mode: TravelMode
    /// Length in metres: the sum of great-circle steps between the fixes of the move.
    public var meters: Double
    /// Index in the entries array of the stay before this move, nil when the timeline starts moving.
    public var fromStay: Int?
    /// Index in the entries array of the stay after this move, nil when the timeline ends moving.
    public var toStay: Int?

    /// A move from `start` to `end` (ms since 1970 UTC) by `mode` over `meters` metres between the stays at entry indices `fromStay` and `toStay`.
    public init(start: Int64, end: Int64, mode: TravelMode, meters: Double, fromStay: Int?, toStay: Int?) {
        self.start = start
        self.end = end
        self.mode = mode
        self.meters = meters
        self.fromStay = fromStay
        self.toStay = toStay
    }
}

/// One piece of a timeline: a stay or a move. Entries come in time order and do not overlap.
public enum TimelineEntry: Sendable, Equatable {
    /// Time spent at one place.
    case stay(Stay)
    /// Travel by one mode.
    case move(Move)

    /// Start of the entry, in ms since 1970 UTC.
    public var start: Int64 {
        switch self {
        case .stay(let stay): return stay.start
        case .move(let move): return move.start
        }
    }

    /// End of the entry, in ms since 1970 UTC.
    public var end: Int64 {
        switch self {
        case .stay(let stay): return stay.end
        case .move(let move): return move.end
        }
    }

    /// The stay, when the entry is one.
    public var stay: Stay? {
        if case .stay(let stay) = self { return stay }
        return nil
    }

    /// The move, when the entry is one.
    public var move: Move? {
        if case .move(let move) = self { return move }
        return nil
    }
}
