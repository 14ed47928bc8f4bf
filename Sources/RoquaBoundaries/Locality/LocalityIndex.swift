import Foundation
import GRDB
import Synchronization

/// A populated place from the boundary DB's `localities` table (GeoNames).
public struct Locality: Sendable, Equatable, Hashable {
    /// GeoNames' id of the place.
    public var geonameID: Int64
    /// The place's name as GeoNames writes it (its local name in Latin script, mostly).
    public var name: String
    /// GeoNames' population figure (0 where GeoNames has none).
    public var population: Int
    /// Great-circle distance in metres from the asked point to the place's centre.
    public var distanceMeters: Double
}

/// The boundary DB's populated places, read a country at a time when an answer first needs that
/// country, and searched in memory.
///
/// The rule (see `locality(at:country:province:district:)`): a place is a candidate when it belongs
/// to the country Roqua's polygons decided (and to the province and district, where the answer and
/// the place both have one: only Türkiye's places have districts) and the point
/// lies within its reach, `r = clamp(15 m · √population, 2 km, 30 km)` — about 2 km for a
/// village, 9 km for Thessaloniki, 28 km for Berlin. Places the data marks as part of a bigger
/// city (`part_of`: Berlin's boroughs Mitte, Charlottenburg) are never candidates: the city is.
/// Outside Türkiye the candidate with the smallest distance / reach wins, so a point inside a
/// city's reach gets the city rather than a neighbouring town; in Türkiye, where the province
/// already is the city and the district comes from HGK's polygons, the nearest candidate wins,
/// which adds the town or neighbourhood.
///
/// A batch in one city reads that country's places only (Türkiye's 3,968 in a few milliseconds,
/// where the whole world's 235 k take a tenth of a second). Codes are compared as small integers:
/// the resolver's unit codes, numbered once (`unitCodeIDs`).
///
/// Shared by every thread: a country is read once, under a lock, and published for lock-free
/// reads that touch no reference count (two threads counting references to the same country or
/// name cost more than the search itself).
public final class LocalityIndex: @unchecked Sendable {
    // @unchecked: `published` is written once per country, atomically, under `reading`; what it
    // points to is immutable and owned by `reading`'s dictionary until `deinit`.
    /// Metres of reach per √person.
    package static let reachPerRootPerson = 15.0
    /// The reach of a place with no or a tiny population, metres.
    package static let minReach = 2_000.0
    /// The reach of the largest cities, metres.
    package static let maxReach = 30_000.0
    /// Grid cell size in degrees; a cell lists every place whose reach box touches it.
    static let cellDegrees = 0.25
    /// A code no unit of the resolver has (a place's province the boundaries do not know).
    static let unknownCode = Int32.max
    /// How many countries a batch reads one query each before the rest are read in one pass.
    public static let countriesReadAlone = 12

    private let database: BoundaryDatabase
    /// The resolver's unit codes, by unit index.
    private let codes: [String]
    /// Every unit code of the resolver to a small number: the index of the first unit with it.
    private let codeIDs: [String: Int32]
    /// Per unit of the resolver (`UnitID.raw`), its code's number, for `hit(at:countryCode:…)`.
    package let unitCodeIDs: [Int32]
    /// Per code number, the country's places once read (`Unmanaged<CountryPlaces>`), else nil.
    private let published: UnsafeMutablePointer<Atomic<UnsafeRawPointer?>>
    /// Held while places are read (so two threads asking at once read them once): the countries
    /// read so far, which own what `published` points to.
    private let reading = Mutex<[Int32: CountryPlaces]>([:])
    private let turkiye: Int32
    /// After this many countries read one query each, the rest are read in one pass.
    private let countriesReadAlone: Int

    /// The number of places (parts of bigger cities included), counted when asked: opening the
    /// index reads nothing (a count of 235 k rows would cost a day's timeline a tenth of its time).
    /// - Throws: GRDB's `DatabaseError` when the read fails.
    public func count() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM localities") ?? 0 }
    }

    /// How many countries' places are in memory (with, after a pass over the whole table, every
    /// unit code the pass found none for).
    package var countriesRead: Int { reading.withLock { $0.count } }

    /// The reach of a place of `population`, metres.
    public static func reach(population: Int) -> Double {
        min(maxReach, max(minReach, reachPerRootPerson * Double(max(population, 0)).squareRoot()))
    }

    /// The places of an open boundary DB (none when its data has no localities), for answers in
    /// units with the codes `unitCodes` (by unit index). Reads nothing yet.
    /// - Parameter countriesReadAlone: after this many countries read one query each, every other
    ///   country's places are read in one pass (a batch across the world soon asks for them all);
    ///   `Int.max` reads a country only when asked (an import: a decade abroad touches a few dozen
    ///   countries, whose places take a tenth of the world's memory and time).
    public init(database: BoundaryDatabase, unitCodes: [String], countriesReadAlone: Int = LocalityIndex.countriesReadAlone) {
        self.countriesReadAlone = countriesReadAlone
        self.database = database
        codes = unitCodes
        var ids: [String: Int32] = [:]
        unitCodeIDs = unitCodes.enumerated().map { unit, code in
            if let id = ids[code] { return id }
            ids[code] = Int32(unit)
            return Int32(unit)
        }
        codeIDs = ids
        published = .allocate(capacity: max(unitCodes.count, 1))
        for i in 0..<max(unitCodes.count, 1) { (published + i).initialize(to: Atomic(nil)) }
        turkiye = ids["TR"] ?? -2
    }

    deinit {
        published.deinitialize(count: max(codes.count, 1))
        published.deallocate()
    }

    /// The locality of a point Roqua placed in `country` (and `province`, `district`), or nil when
    /// no place of that country reaches the point. `province` and `district` narrow the choice to
    /// the places of that unit, where the place's own unit is known.
    /// - Throws: GRDB's `DatabaseError` when the country's places cannot be read.
    public func locality(at point: Coordinate, country: String, province: String?, district: String? = nil) throws -> Locality? {
        guard let countryID = codeIDs[country] else { return nil }
        let hit = try hit(
            at: point, countryCode: countryID, provinceCode: province.map { codeIDs[$0] ?? Self.unknownCode } ?? -1,
            districtCode: district.map { codeIDs[$0] ?? Self.unknownCode } ?? -1)
        return hit.map(locality)
    }

    /// Which place of the country numbered `country` a locality answer found, and how far.
    package struct Hit: Sendable {
        let country: Int32
        let place: Int32
        package let meters: Double
    }

    /// `locality(at:country:province:district:)` with the codes as numbers (`unitCodeIDs`), -1
    /// for no province or district: what a batch asks millions of times.
    /// - Throws: GRDB's `DatabaseError` when the country's places cannot be read.
    package func hit(at point: Coordinate, countryCode: Int32, provinceCode: Int32, districtCode: Int32) throws -> Hit? {
        try places(ofCountry: countryCode)._withUnsafeGuaranteedRef { places in
            places.search(point, nearest: countryCode == turkiye, province: provinceCode, district: districtCode).map {
                Hit(country: countryCode, place: $0.place, meters: $0.meters)
            }
        }
    }

    /// The place a hit found.
    package func locality(_ hit: Hit) -> Locality {
        country(hit.country)._withUnsafeGuaranteedRef { places in
            let place = places.places[Int(hit.place)]
            return Locality(
                geonameID: place.id, name: places.withName(hit.place) { String(decoding: $0, as: UTF8.self) },
                population: Int(place.population), distanceMeters: hit.meters)
        }
    }

    /// The name of the place a hit found, as UTF-8, without making a string.
    package func withName<T>(_ hit: Hit, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        country(hit.country)._withUnsafeGuaranteedRef { $0.withName(hit.place, body) }
    }

    /// A country `hit` came from: read already.
    private func country(_ code: Int32) -> Unmanaged<CountryPlaces> {
        guard let raw = published[Int(code)].load(ordering: .acquiring) else { preconditionFailure("a hit of an unread country") }
        return Unmanaged.fromOpaque(raw)
    }

    /// The places of the country numbered `code`, read on first use.
    private func places(ofCountry code: Int32) throws -> Unmanaged<CountryPlaces> {
        if let raw = published[Int(code)].load(ordering: .acquiring) { return Unmanaged.fromOpaque(raw) }
        return try reading.withLock { read in
            if let raw = published[Int(code)].load(ordering: .acquiring) { return Unmanaged.fromOpaque(raw) }
            // A batch across the world soon asks for every country: one pass over the table reads
            // them all for less than a query each.
            let all = read.count >= countriesReadAlone
            var found = try self.read(country: all ? nil : code)
            if all {
                for other in codeIDs.values where found[other] == nil { found[other] = CountryPlaces.none }
            } else if found[code] == nil {
                found[code] = CountryPlaces.none
            }
            for (country, places) in found where read[country] == nil {
                read[country] = places
                published[Int(country)].store(Unmanaged.passUnretained(places).toOpaque(), ordering: .releasing)
            }
            return Unmanaged.passUnretained(read[code] ?? CountryPlaces.none)
        }
    }

    /// The places of the country numbered `code` (nil: of every country), by country.
    private func read(country code: Int32?) throws -> [Int32: CountryPlaces] {
        var byCountry: [Int32: CountryPlaces.Builder] = [:]
        try database.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, name, latitude, longitude, population, province_code, district_code, country_code
                    FROM localities WHERE part_of IS NULL
                    """ + (code == nil ? "" : " AND country_code = ?"), arguments: code.map { [codes[Int($0)]] } ?? [])
            var last: (code: String, id: Int32?) = ("", nil)
            while let row = try rows.next() {
                let countryCode: String = row[7]
                if countryCode != last.code { last = (countryCode, codeIDs[countryCode]) }
                guard let country = last.id else { continue }  // a country the boundaries do not have
                let population = Int32(clamping: row[4] as Int64)
                let province: String? = row[5], district: String? = row[6]
                let place = CountryPlaces.Place(
                    latitude: row[2], longitude: row[3], reach: Self.reach(population: Int(population)), id: row[0],
                    province: province.map { codeIDs[$0] ?? Self.unknownCode } ?? -1,
                    district: district.map { codeIDs[$0] ?? Self.unknownCode } ?? -1, population: population)
                let name: String = row[1]
                byCountry[country, default: CountryPlaces.Builder()].add(place, name: name)
            }
        }
        return byCountry.mapValues { CountryPlaces($0) }
    }

    @inline(__always)
    static func cell(_ degrees: Double) -> Int { Int((degrees / cellDegrees).rounded(.down)) }

    /// Cells east of 180° or west of -180° are the ones across the antimeridian.
    @inline(__always)
    static func wrap(_ cx: Int) -> Int {
        let n = Int(columns)
        return ((cx % n) + n) % n
    }

    /// A cell's number, non-negative: rows from the south pole up (a reach box may pass a pole by
    /// a few rows), columns from -180° east.
    @inline(__always)
    static func cellNumber(cx: Int, cy: Int) -> Int32 { Int32(cy + Int((90 / cellDegrees).rounded()) + 10) * columns + Int32(cx) }

    static let columns = Int32((360 / cellDegrees).rounded())
}

/// One country's places (its parts of bigger cities left out) and the grid of cells they reach,
/// in flat memory read without reference counting.
private final class CountryPlaces: @unchecked Sendable {
    // @unchecked: every buffer is filled in `init` and only read afterwards.
    struct Place: Sendable {
        var latitude: Double
        var longitude: Double
        var reach: Double
        var id: Int64
        /// The place's province and district as code numbers; -1 for none.
        var province: Int32
        var district: Int32
        var population: Int32
    }

    struct Cell: Sendable {
        var start: Int32
        var end: Int32
    }

    /// The places and their names while they are read.
    struct Builder {
        var places: [Place] = []
        var names: [UInt8] = []
        var nameEnds: [Int32] = []

        mutating func add(_ place: Place, name: String) {
            places.append(place)
            names.append(contentsOf: name.utf8)
            nameEnds.append(Int32(names.count))
        }
    }

    let places: UnsafeMutableBufferPointer<Place>
    private let names: UnsafeMutableBufferPointer<UInt8>
    /// Where each place's name ends in `names` (it starts where the one before ends).
    private let nameEnds: UnsafeMutableBufferPointer<Int32>
    /// Per cell number, the range of `members` listing the places whose reach box touches it.
    private let cells: [Int32: Cell]
    private let members: UnsafeMutableBufferPointer<Int32>

    /// A country without places.
    static let none = CountryPlaces(Builder())

    init(_ builder: Builder) {
        places = .allocate(capacity: max(builder.places.count, 1))
        _ = places.initialize(from: builder.places)
        names = .allocate(capacity: max(builder.names.count, 1))
        _ = names.initialize(from: builder.names)
        nameEnds = .allocate(capacity: max(builder.nameEnds.count, 1))
        _ = nameEnds.initialize(from: builder.nameEnds)
        // Every (cell, place) pair whose reach box touches the cell, as the cell's key above the
        // place's number, sorted: plain integers sort several times faster than tuples.
        var pairs: [UInt64] = []
        pairs.reserveCapacity(builder.places.count * 4)
        for (i, place) in builder.places.enumerated() {
            let dy = place.reach / Geodesy.earthRadius * 180 / .pi
            let dx = dy / max(cos(min(abs(place.latitude) + dy, 89.9) * .pi / 180), 1e-3)
            for cy in LocalityIndex.cell(place.latitude - dy)...LocalityIndex.cell(place.latitude + dy) {
                for cx in LocalityIndex.cell(place.longitude - dx)...LocalityIndex.cell(place.longitude + dx) {
                    pairs.append(UInt64(LocalityIndex.cellNumber(cx: LocalityIndex.wrap(cx), cy: cy)) << 32 | UInt64(i))
                }
            }
        }
        pairs.sort()
        var cells: [Int32: Cell] = [:]
        cells.reserveCapacity(pairs.count / 2)
        var start = 0
        for k in pairs.indices where k + 1 == pairs.count || pairs[k + 1] >> 32 != pairs[k] >> 32 {
            cells[Int32(truncatingIfNeeded: pairs[k] >> 32)] = Cell(start: Int32(start), end: Int32(k + 1))
            start = k + 1
        }
        self.cells = cells
        members = .allocate(capacity: max(pairs.count, 1))
        for (k, pair) in pairs.enumerated() { members[k] = Int32(truncatingIfNeeded: pair) }
    }

    deinit {
        places.deallocate()
        names.deallocate()
        nameEnds.deallocate()
        members.deallocate()
    }

    /// The place answering `point` by `LocalityIndex`'s rule, and its distance in metres.
    func search(_ point: Coordinate, nearest: Bool, province: Int32, district: Int32) -> (place: Int32, meters: Double)? {
        guard
            let cell = cells[
                LocalityIndex.cellNumber(
                    cx: LocalityIndex.wrap(LocalityIndex.cell(point.longitude)), cy: LocalityIndex.cell(point.latitude))]
        else { return nil }
        let metresPerDegree = Geodesy.earthRadius * .pi / 180
        var best: (place: Int32, score: Double, meters: Double)?
        for k in Int(cell.start)..<Int(cell.end) {
            let i = members[k]
            let place = places[Int(i)]
            if province >= 0, place.province >= 0, place.province != province { continue }
            if district >= 0, place.district >= 0, place.district != district { continue }
            // The great-circle distance is never shorter than the distance in latitude alone
            // (a hair's margin for rounding): most candidates end here without trigonometry.
            let bound = abs(point.latitude - place.latitude) * metresPerDegree * (1 - 1e-9)
            guard bound <= place.reach else { continue }
            if let b = best, (nearest ? bound : bound / place.reach) > b.score { continue }
            let meters = Geodesy.haversineMeters(point, Coordinate(latitude: place.latitude, longitude: place.longitude))
            guard meters <= place.reach else { continue }
            let score = nearest ? meters : meters / place.reach
            if let b = best, (b.score, places[Int(b.place)].id) <= (score, place.id) { continue }
            best = (i, score, meters)
        }
        return best.map { ($0.place, $0.meters) }
    }

    /// The name of place `i`, as UTF-8.
    func withName<T>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let start = i == 0 ? 0 : Int(nameEnds[Int(i) - 1])
        return body(UnsafeBufferPointer(rebasing: names[start..<Int(nameEnds[Int(i)])]))
    }
}
