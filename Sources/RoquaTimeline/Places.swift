import Foundation

/// What a place is to the person, judged from when they are there.
public enum PlaceLabel: String, Sendable, Codable, CaseIterable {
    /// The place holding most of the hours between 22:00 and 06:00 local time.
    case home
    /// Another place holding most of the weekday hours between 09:00 and 17:00 local time.
    case work
}

/// A place the person stays at again and again: the stays whose centres lie close together.
public struct Place: Sendable, Equatable {
    /// Identifier, 1 for the first place visited, 2 for the next new one, and so on.
    public var id: Int
    /// Latitude of the centre in degrees: the mean of its stays' centres.
    public var latitude: Double
    /// Longitude of the centre in degrees.
    public var longitude: Double
    /// Number of stays at the place.
    public var stays: Int
    /// Total time of those stays, in hours.
    public var hours: Double
    /// Home or work, when the place is one.
    public var label: PlaceLabel?

    /// A place `id` centred on `latitude`/`longitude` (degrees) with `stays` stays totalling `hours` hours.
    public init(id: Int, latitude: Double, longitude: Double, stays: Int, hours: Double, label: PlaceLabel?) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.stays = stays
        self.hours = hours
        self.label = label
    }
}

/// Clusters stays into places (trackintel's locations) and labels home and work.
public enum Places {
    /// A place needs at least this many hours in all to be labelled home or work.
    public static let labelMinimumHours = 10.0
    /// A stay joins a place when its centre is within this many times the stay radius of the place's centre.
    public static let joinShare = 1.5

    /// The places of the stays in `entries`, ids in order of first visit, and for each entry the id of
    /// its place (nil for moves). A stay joins the nearest place within `meters` × 1.5 of its centre,
    /// else starts a new one. Home is the place with most hours from 22:00 to 06:00 local time, work the
    /// other place with most hours from 09:00 to 17:00 local on Monday to Friday; each needs at least
    /// 10 hours in all. Linear in the number of stays (a grid finds the nearby places).
    /// - Parameters:
    ///   - entries: a timeline from `Timeline.segment`.
    ///   - meters: the stay radius in metres (`TimelineSettings.stayMeters`).
    ///   - timeZone: the person's time zone, for the home and work hours.
    public static func cluster(_ entries: [TimelineEntry], meters: Double, timeZone: TimeZone) -> (places: [Place], placeOfEntry: [Int?]) {
        let join = max(meters, 1) * joinShare
        var grid = PlaceGrid(cellMeters: 2 * join)
        var places: [Place] = []
        var night: [Int64] = []
        var office: [Int64] = []
        var sums: [(latitude: Double, longitude: Double)] = []
        var placeOfEntry = [Int?](repeating: nil, count: entries.count)
        for (index, entry) in entries.enumerated() {
            guard let stay = entry.stay else { continue }
            var best: Int? = nil
            var bestDistance = join
            grid.forEachNear(stay.latitude, stay.longitude) { candidate in
                let d = Geodesy.haversine(places[candidate].latitude, places[candidate].longitude, stay.latitude, stay.longitude)
                if d <= bestDistance {
                    best = candidate
                    bestDistance = d
                }
            }
            let p: Int
            if let best {
                p = best
            } else {
                p = places.count
                places.append(Place(id: p + 1, latitude: stay.latitude, longitude: stay.longitude, stays: 0, hours: 0, label: nil))
                sums.append((0, 0))
                night.append(0)
                office.append(0)
                grid.insert(p, stay.latitude, stay.longitude)
            }
            places[p].stays += 1
            places[p].hours += Double(stay.end - stay.start) / Double(LocalTime.hour)
            sums[p].latitude += stay.latitude
            sums[p].longitude += stay.longitude
            places[p].latitude = sums[p].latitude / Double(places[p].stays)
            places[p].longitude = sums[p].longitude / Double(places[p].stays)
            night[p] += LocalTime.overlap(
                start: stay.start, end: stay.end, fromHour: 22, toHour: 30, weekdaysOnly: false, timeZone: timeZone)
            office[p] += LocalTime.overlap(
                start: stay.start, end: stay.end, fromHour: 9, toHour: 17, weekdaysOnly: true, timeZone: timeZone)
            placeOfEntry[index] = p + 1
        }
        let home = busiest(places, night, except: nil)
        if let home { places[home].label = .home }
        if let work = busiest(places, office, except: home) { places[work].label = .work }
        return (places, placeOfEntry)
    }

    /// Index of the place with most `time` (ms), more than zero, among places of at least 10 hours, skipping `except`.
    private static func busiest(_ places: [Place], _ time: [Int64], except: Int?) -> Int? {
        var best: Int? = nil
        for i in places.indices where i != except && time[i] > 0 && places[i].hours >= labelMinimumHours {
            if best.map({ time[i] > time[$0] }) ?? true { best = i }
        }
        return best
    }
}

/// Places filed by grid cell of about `cellMeters`, so that a stay meets only the places near it.
private struct PlaceGrid {
    /// Cell height in degrees of latitude.
    let cellDegrees: Double
    /// Place indices per cell key.
    var cells: [Int64: [Int]] = [:]

    /// An empty grid of cells `cellMeters` metres on a side.
    init(cellMeters: Double) {
        cellDegrees = cellMeters / Geodesy.metersPerDegree
    }

    /// Key of the cell in latitude row `row` holding longitude `longitude`.
    private func key(row: Int64, longitude: Double) -> Int64 {
        let rowLatitude = min(89.9, abs((Double(row) + 0.5) * cellDegrees))
        let width = cellDegrees / max(Geodesy.cosine(ofLatitude: rowLatitude), 0.001)
        let column = Int64((longitude / width).rounded(.down))
        return row &* 1_000_003 &+ column
    }

    /// Files place `index` under the cell of `latitude`/`longitude` (degrees).
    mutating func insert(_ index: Int, _ latitude: Double, _ longitude: Double) {
        let row = Int64((latitude / cellDegrees).rounded(.down))
        cells[key(row: row, longitude: longitude), default: []].append(index)
    }

    /// Calls `body` with the index of each place filed in the cells around `latitude`/`longitude`
    /// (degrees); nothing is allocated (a decade's stays ask this for each of their 12 k).
    func forEachNear(_ latitude: Double, _ longitude: Double, _ body: (Int) -> Void) {
        let row = Int64((latitude / cellDegrees).rounded(.down))
        for r in (row - 1)...(row + 1) {
            let rowLatitude = min(89.9, abs((Double(r) + 0.5) * cellDegrees))
            let width = cellDegrees / max(Geodesy.cosine(ofLatitude: rowLatitude), 0.001)
            for dx in -1...1 {
                cells[key(row: r, longitude: longitude + Double(dx) * width)]?.forEach(body)
            }
        }
    }
}
