import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTimeline

/// Where a point lies, named offline: the units holding it and its locality.
public struct PlaceNames: Sendable, Equatable {
    public var country: UnitReference?
    public var province: UnitReference?
    public var district: UnitReference?
    public var locality: String?

    /// The most local names first, for a line of text: "Levent, Beşiktaş".
    public func short(language: Language) -> String? {
        let names = [locality, district?.name(language: language), province?.name(language: language), country?.name(language: language)]
            .compactMap { $0 }
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        return unique.isEmpty ? nil : unique.prefix(2).joined(separator: ", ")
    }

    /// The four names as members of an answer: `{"code", "name"}` per unit and `{"name"}` for the
    /// locality, `null` where there is none.
    func encode<Key: CodingKey>(
        into object: inout KeyedEncodingContainer<Key>, language: Language,
        keys: (country: Key, province: Key, district: Key, locality: Key)
    ) throws {
        try object.encode(country.map { UnitAnswer($0, language: language) }, forKey: keys.country)
        try object.encode(province.map { UnitAnswer($0, language: language) }, forKey: keys.province)
        try object.encode(district.map { UnitAnswer($0, language: language) }, forKey: keys.district)
        try object.encode(locality.map(LocalityName.init), forKey: keys.locality)
    }

    struct LocalityName: Encodable {
        var name: String
    }
}

/// Names points with the boundaries, offline, and tells land from water for the boat mode.
public final class PlaceNamer {
    private let index: ResolverIndex
    private let resolver: Resolver
    /// Points named so far: the first `queriesBeforeMemory` localities come from one query of the
    /// database's R*Tree each (~0.2 ms: a day's few stays), later ones from the places in memory,
    /// each country's read once (a decade's places in 30 countries cost 0.2 s to read).
    private var named = 0
    static let queriesBeforeMemory = 400

    /// - Throws: `BoundaryDatabaseError` when the boundary DB cannot be opened.
    public convenience init(boundaries path: String) throws {
        try self.init(index: ResolverIndex(path: path))
    }

    /// Names with an index already open (a server's).
    /// - Throws: `BoundaryDatabaseError` when the index's pieces cannot be read.
    public init(index: ResolverIndex) throws {
        self.index = index
        resolver = try Resolver(index: index)
    }

    /// The units and locality at a point (none at sea).
    /// - Throws: GRDB's `DatabaseError` when the localities cannot be read.
    public func names(latitude: Double, longitude: Double) throws -> PlaceNames {
        named += 1
        if named == Self.queriesBeforeMemory { _ = index.localities() }
        guard let answer = try? resolver.resolve(latitude: latitude, longitude: longitude) else { return PlaceNames() }
        let named = try index.withLocality(answer)
        return PlaceNames(country: named.country, province: named.province, district: named.district, locality: named.locality?.name)
    }

    /// Whether a country's boundary lies under the point itself (not the nearest one a few
    /// hundred metres off: the Bosphorus is water).
    public func isOnLand(latitude: Double, longitude: Double) -> Bool { resolver.isOnLand(latitude: latitude, longitude: longitude) }
}

/// `roqua timeline DAY --json` and `GET /api/timeline`: the day's stays and moves, whole (an
/// entry over midnight is in both days), in time order.
public struct TimelineAnswer: Encodable, Sendable {
    public var date: String
    public var timeZone: String
    public var entries: [Entry]
    /// Photos taken in the days asked that fall in no entry (a camera roll from before any tracker).
    public var photos: [PhotoAnswer]

    public init(date: String, timeZone: String, entries: [Entry], photos: [PhotoAnswer] = []) {
        (self.date, self.timeZone, self.entries, self.photos) = (date, timeZone, entries, photos)
    }

    /// The first instant of `day` (`YYYY-MM-DD`) in `zone` and of the day after; nil for text
    /// that is not a day of the calendar (`2024-02-30`).
    public static func span(of day: String, zone: TimeZone) -> (Date, Date)? {
        let parts = day.split(separator: "-", omittingEmptySubsequences: false)
        guard day.utf8.count == 10, parts.count == 3, parts.map(\.count) == [4, 2, 2],
            let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth)),
            calendar.dateComponents([.year, .month, .day], from: start) == DateComponents(year: year, month: month, day: dayOfMonth),
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, end)
    }

    /// The entries of `timeline` that overlap `day` (through `last`, when given and later; both
    /// must be days `span(of:zone:)` accepts), each stay named by `namer`, with the photos taken
    /// during each (`photos` gives those of a span).
    /// - Throws: GRDB's `DatabaseError` when the localities cannot be read, what `photos` throws.
    public init(
        day: String, through last: String? = nil, zone: TimeZone, timeline: HistoryTimeline, namer: PlaceNamer,
        photos: (Date, Date) throws -> [PhotoTaken] = { _, _ in [] }
    ) throws {
        guard let (from, end) = Self.span(of: day, zone: zone), let (_, lastEnd) = Self.span(of: last ?? day, zone: zone) else {
            preconditionFailure("not a day: \(day) or \(last ?? day)")
        }
        let to = max(end, lastEnd)
        let found = timeline.entries(overlapping: from, to)
        // Entries are whole: their photos are those of their whole span, not only of these days.
        let first = found.first.map { min(from, HistoryTimeline.date($0.entry.start)) } ?? from
        let last = found.last.map { max(to, HistoryTimeline.date($0.entry.end + 1)) } ?? to
        var taken = try photos(first, last)[...]
        var answers: [Entry] = []
        var outside: [PhotoAnswer] = []
        for (index, entry) in found {
            // Photos before this entry and in the days asked fall in none.
            while let photo = taken.first, HistoryTimeline.milliseconds(photo.time) < entry.start {
                if photo.time >= from && photo.time < to { outside.append(PhotoAnswer(photo)) }
                taken.removeFirst()
            }
            var during: [PhotoAnswer] = []
            while let photo = taken.first, HistoryTimeline.milliseconds(photo.time) <= entry.end {
                during.append(PhotoAnswer(photo))
                taken.removeFirst()
            }
            switch entry {
            case let .stay(stay):
                guard let place = timeline.place(ofEntry: index) else { continue }
                let names = try namer.names(latitude: stay.latitude, longitude: stay.longitude)
                answers.append(.stay(StayAnswer(stay, place: place, names: names, language: .local, photos: during)))
            case let .move(move):
                let (from, to) = (timeline.place(ofEntry: move.fromStay), timeline.place(ofEntry: move.toStay))
                answers.append(.move(MoveAnswer(move, from: from, to: to, photos: during)))
            }
        }
        outside += taken.filter { $0.time >= from && $0.time < to }.map(PhotoAnswer.init)
        self.init(date: day, timeZone: zone.identifier, entries: answers, photos: outside)
    }

    /// A stay or a move, each with its own members.
    public enum Entry: Encodable, Sendable {
        case stay(StayAnswer)
        case move(MoveAnswer)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case let .stay(stay): try stay.encode(to: encoder)
            case let .move(move): try move.encode(to: encoder)
            }
        }
    }
}

/// A stay: `{"type": "stay", start, end, lat, lon, place_id, label, country, province, district,
/// locality}`, a unit or label without a value `null`.
public struct StayAnswer: Encodable, Sendable {
    public var start: Date
    public var end: Date
    public var lat: Double
    public var lon: Double
    public var placeId: Int
    public var label: PlaceLabel?
    public var names: PlaceNames
    public var photos: [PhotoAnswer]
    var language: Language

    public init(_ stay: Stay, place: Place, names: PlaceNames, language: Language, photos: [PhotoAnswer] = []) {
        self.photos = photos
        start = HistoryTimeline.date(stay.start)
        end = HistoryTimeline.date(stay.end)
        (lat, lon) = (Self.rounded(stay.latitude), Self.rounded(stay.longitude))
        placeId = place.id
        label = place.label
        self.names = names
        self.language = language
    }

    /// Degrees to 1e-6 (about 10 cm): a stay's centre is good to metres, not to the 15th digit.
    static func rounded(_ degrees: Double) -> Double { (degrees * 1e6).rounded() / 1e6 }

    enum CodingKeys: String, CodingKey {
        case type, start, end, lat, lon, placeId, label, country, province, district, locality, photos
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode("stay", forKey: .type)
        try object.encode(photos, forKey: .photos)
        try object.encode(start, forKey: .start)
        try object.encode(end, forKey: .end)
        try object.encode(lat, forKey: .lat)
        try object.encode(lon, forKey: .lon)
        try object.encode(placeId, forKey: .placeId)
        try object.encode(label, forKey: .label)
        try names.encode(into: &object, language: language, keys: (.country, .province, .district, .locality))
    }

}

/// A move: `{"type": "move", start, end, mode, distance_km, from_place_id, to_place_id}`.
public struct MoveAnswer: Encodable, Sendable {
    public var start: Date
    public var end: Date
    public var mode: TravelMode
    public var distanceKm: Double
    public var fromPlaceId: Int?
    public var toPlaceId: Int?
    public var photos: [PhotoAnswer]

    public init(_ move: Move, from: Place?, to: Place?, photos: [PhotoAnswer] = []) {
        self.photos = photos
        start = HistoryTimeline.date(move.start)
        end = HistoryTimeline.date(move.end)
        mode = move.mode
        distanceKm = (move.meters / 100).rounded() / 10
        fromPlaceId = from?.id
        toPlaceId = to?.id
    }

    enum CodingKeys: String, CodingKey {
        case type, start, end, mode, distanceKm, fromPlaceId, toPlaceId, photos
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode("move", forKey: .type)
        try object.encode(photos, forKey: .photos)
        try object.encode(start, forKey: .start)
        try object.encode(end, forKey: .end)
        try object.encode(mode, forKey: .mode)
        try object.encode(distanceKm, forKey: .distanceKm)
        try object.encode(fromPlaceId, forKey: .fromPlaceId)
        try object.encode(toPlaceId, forKey: .toPlaceId)
    }
}

/// A photo in a timeline: `{"path", "time"}` (its path in the folder imported).
public struct PhotoAnswer: Encodable, Sendable, Equatable {
    public var path: String
    public var time: Date

    public init(_ photo: PhotoTaken) {
        (path, time) = (photo.path, photo.time)
    }
}

/// `roqua places --json`: one place the stays make, with its names.
public struct PlaceAnswer: Encodable, Sendable {
    public var placeId: Int
    public var lat: Double
    public var lon: Double
    public var label: PlaceLabel?
    public var stays: Int
    public var hours: Double
    public var names: PlaceNames
    var language: Language

    public init(_ place: Place, names: PlaceNames, language: Language) {
        placeId = place.id
        (lat, lon) = (StayAnswer.rounded(place.latitude), StayAnswer.rounded(place.longitude))
        label = place.label
        stays = place.stays
        hours = (place.hours * 10).rounded() / 10
        self.names = names
        self.language = language
    }

    enum CodingKeys: String, CodingKey {
        case placeId, lat, lon, label, stays, hours, country, province, district, locality
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(placeId, forKey: .placeId)
        try object.encode(lat, forKey: .lat)
        try object.encode(lon, forKey: .lon)
        try object.encode(label, forKey: .label)
        try object.encode(stays, forKey: .stays)
        try object.encode(hours, forKey: .hours)
        try names.encode(into: &object, language: language, keys: (.country, .province, .district, .locality))
    }
}

/// `roqua trips --json`: one trip away from home with a night 50 km or more from it.
public struct TripAnswer: Encodable, Sendable {
    public var start: Date
    public var end: Date
    public var nights: Int
    /// The countries and provinces of the trip's far stays, by code, in the order first met.
    public var countries: [String]
    public var provinces: [String]
    public var distanceKm: Double
    /// Where the trip spent most time, named.
    public var destination: PlaceNames?
    var language: Language

    /// `trip` with `names` of each of its far stays (in order), the destination's among them.
    public init(_ trip: Trip, farStayNames names: [Int: PlaceNames], language: Language) {
        start = HistoryTimeline.date(trip.start)
        end = HistoryTimeline.date(trip.end)
        nights = trip.nights
        var countries: [String] = [], provinces: [String] = []
        for stay in trip.farStays {
            if let code = names[stay]?.country?.code, !countries.contains(code) { countries.append(code) }
            if let code = names[stay]?.province?.code, !provinces.contains(code) { provinces.append(code) }
        }
        (self.countries, self.provinces) = (countries, provinces)
        distanceKm = (trip.meters / 100).rounded() / 10
        destination = trip.destination.flatMap { names[$0] }
        self.language = language
    }

    enum CodingKeys: String, CodingKey {
        case start, end, nights, countries, provinces, distanceKm, destination
    }

    enum NameKeys: String, CodingKey {
        case country, province, district, locality
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(start, forKey: .start)
        try object.encode(end, forKey: .end)
        try object.encode(nights, forKey: .nights)
        try object.encode(countries, forKey: .countries)
        try object.encode(provinces, forKey: .provinces)
        try object.encode(distanceKm, forKey: .distanceKm)
        if let destination {
            var names = object.nestedContainer(keyedBy: NameKeys.self, forKey: .destination)
            try destination.encode(into: &names, language: language, keys: (.country, .province, .district, .locality))
        } else {
            try object.encodeNil(forKey: .destination)
        }
    }
}

/// `roqua year YEAR --json`: a year in review.
public struct YearAnswer: Encodable, Sendable {
    public var year: Int
    /// Units first visited that year (by any region, not only stays), by code.
    public var new: NewUnits
    /// Local days with a stay in another country than home's.
    public var daysAbroad: Int
    /// Kilometres moved that year, per mode (every mode listed, 0 for none).
    public var distanceKm: [String: Double]
    /// The places with most hours that year, most first.
    public var topPlaces: [TopPlace]
    /// The trips that began that year.
    public var trips: [TripAnswer]

    public init(year: Int, new: NewUnits, daysAbroad: Int, distanceKm: [String: Double], topPlaces: [TopPlace], trips: [TripAnswer]) {
        self.year = year
        self.new = new
        self.daysAbroad = daysAbroad
        self.distanceKm = distanceKm
        self.topPlaces = topPlaces
        self.trips = trips
    }

    public struct NewUnits: Encodable, Sendable {
        public var countries: [String]
        public var provinces: [String]
        public var districts: [String]

        public init(countries: [String], provinces: [String], districts: [String]) {
            (self.countries, self.provinces, self.districts) = (countries, provinces, districts)
        }
    }

    public struct TopPlace: Encodable, Sendable {
        public var placeId: Int
        public var label: PlaceLabel?
        public var hours: Double
        public var name: String?

        public init(placeId: Int, label: PlaceLabel?, hours: Double, name: String?) {
            (self.placeId, self.label, self.hours, self.name) = (placeId, label, (hours * 10).rounded() / 10, name)
        }

        enum CodingKeys: String, CodingKey {
            case placeId, label, hours, name
        }

        public func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(placeId, forKey: .placeId)
            try object.encode(label, forKey: .label)
            try object.encode(hours, forKey: .hours)
            try object.encode(name, forKey: .name)
        }
    }
}
