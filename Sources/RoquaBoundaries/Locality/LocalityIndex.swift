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
    /// Per unit of the resolver (`UnitID.raw`), its code's number, for `hit(at:units:)`: read by
    /// every worker of a batch, so not an array (whose reference count they would share).
    private let unitCodeIDs: UnsafeMutableBufferPointer<Int32>
    /// Per code number, the country's places once read (`Unmanaged<CountryPlaces>`), else nil.
    private let published: UnsafeMutablePointer<Atomic<UnsafeRawPointer?>>
    /// Held while places are read (so two threads asking at once read them once): the countries
    /// read so far, which own what `published` points to.
    private let reading = Mutex<[Int32: CountryPlaces]>([:])
    private let turkiye: Int32
    /// After this many countries read one query each, the rest are read in one pass.
    private let countriesReadAlone: Int
    /// False: read the places from their rows even where the DB has packs (to compare the two).
    private let readsPacks: Bool

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
    /// - Parameters:
    ///   - countriesReadAlone: after this many countries read one query each, every other
    ///   country's places are read in one pass (a batch across the world soon asks for them all);
    ///   `Int.max` reads a country only when asked (an import: a decade abroad touches a few dozen
    ///   countries, whose places take a tenth of the world's memory and time).
    ///   - readsPacks: false reads the places from their rows, as in a DB made before the packs.
    public init(
        database: BoundaryDatabase, unitCodes: [String], countriesReadAlone: Int = LocalityIndex.countriesReadAlone,
        readsPacks: Bool = true
    ) {
        self.countriesReadAlone = countriesReadAlone
        self.readsPacks = readsPacks
        self.database = database
        codes = unitCodes
        var ids: [String: Int32] = [:]
        unitCodeIDs = .allocate(capacity: max(unitCodes.count, 1))
        for (unit, code) in unitCodes.enumerated() {
            unitCodeIDs[unit] = ids[code] ?? Int32(unit)
            if ids[code] == nil { ids[code] = Int32(unit) }
        }
        codeIDs = ids
        published = .allocate(capacity: max(unitCodes.count, 1))
        for i in 0..<max(unitCodes.count, 1) { (published + i).initialize(to: Atomic(nil)) }
        turkiye = ids["TR"] ?? -2
    }

    deinit {
        published.deinitialize(count: max(codes.count, 1))
        published.deallocate()
        unitCodeIDs.deallocate()
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

    /// `locality(at:country:province:district:)` for an answer given as the resolver's units
    /// (`UnitID.raw`; -1 for no province or district): what a batch asks millions of times.
    /// - Throws: GRDB's `DatabaseError` when the country's places cannot be read.
    package func hit(at point: Coordinate, units: (country: Int32, province: Int32, district: Int32)) throws -> Hit? {
        try hit(
            at: point, countryCode: unitCodeIDs[Int(units.country)],
            provinceCode: units.province >= 0 ? unitCodeIDs[Int(units.province)] : -1,
            districtCode: units.district >= 0 ? unitCodeIDs[Int(units.district)] : -1)
    }

    /// `locality(at:country:province:district:)` with the codes as numbers (`unitCodeIDs`), -1
    /// for no province or district.
    /// - Throws: GRDB's `DatabaseError` when the country's places cannot be read.
    private func hit(at point: Coordinate, countryCode: Int32, provinceCode: Int32, districtCode: Int32) throws -> Hit? {
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

    /// The places of the country numbered `code` (nil: of every country), by country: from the
    /// packs `roqua import` made, or from the rows in a DB made before them.
    /// - Throws: GRDB's `DatabaseError`; `BoundaryDatabaseError` for a damaged pack.
    private func read(country code: Int32?) throws -> [Int32: CountryPlaces] {
        let filter = code == nil ? "" : " AND country_code = ?"
        let arguments: StatementArguments = code.map { [codes[Int($0)]] } ?? []
        var packs: [Int32: LocalityPack] = [:]
        try database.read { db in
            guard readsPacks, try db.tableExists("locality_packs") else {
                var byCountry: [Int32: [(place: LocalityPack.Place, name: String, province: String?, district: String?)]] = [:]
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, name, latitude, longitude, population, province_code, district_code, country_code
                        FROM localities WHERE part_of IS NULL
                        """ + filter, arguments: arguments)
                while let row = try rows.next() {
                    guard let country = codeIDs[row[7]] else { continue }  // a country the boundaries do not have
                    let place = LocalityPack.Place(
                        latitude: row[2], longitude: row[3], id: row[0], population: Int32(clamping: row[4] as Int64),
                        province: -1, district: -1)
                    byCountry[country, default: []].append((place, row[1], row[5], row[6]))
                }
                packs = byCountry.mapValues { LocalityPack($0) }
                return
            }
            let rows = try Row.fetchCursor(db, sql: "SELECT country_code, data FROM locality_packs WHERE 1" + filter, arguments: arguments)
            while let row = try rows.next() {
                let countryCode: String = row[0]
                guard let country = codeIDs[countryCode] else { continue }
                let decoded = try row.withUnsafeData(atIndex: 1) { data in
                    (data ?? Data()).withUnsafeBytes { bytes in
                        Result { () throws(LocalityPack.Damage) in try LocalityPack(decoding: bytes) }
                    }
                }
                switch decoded {
                case .success(let pack): packs[country] = pack
                case .failure(let damage):
                    throw BoundaryDatabaseError.notABoundaryDatabase(
                        path: database.path,
                        reason: "the places of \(countryCode) are damaged: \(damage.reason); rebuild it with `roqua import`")
                }
            }
        }
        return packs.mapValues { CountryPlaces($0, codeIDs: codeIDs) }
    }

    @inline(__always)
    static func cell(_ degrees: Double) -> Int { Int((degrees / cellDegrees).rounded(.down)) }

    /// Cells east of 180° or west of -180° are the ones across the antimeridian.
    @inline(__always)
    static func wrap(_ cx: Int) -> Int {
        ((cx % columns) + columns) % columns
    }

    static let columns = Int((360 / cellDegrees).rounded())
    static let rows = Int((180 / cellDegrees).rounded())
}

/// One country's places (its parts of bigger cities left out) and the grid of cells they reach,
/// in flat memory read without reference counting.
private final class CountryPlaces: @unchecked Sendable {
    // @unchecked: every buffer is filled in `init` and only read afterwards.
    struct Place: Sendable {
        var latitude: Double
        var longitude: Double
        var reach: Double
        /// The cosine of the latitude, for `Geodesy.haversineMeters(φ1:cosφ1:φ2:cosφ2:dλ:)`.
        var cosLatitude: Double
        var id: Int64
        /// The place's province and district as code numbers; -1 for none.
        var province: Int32
        var district: Int32
        var population: Int32
    }

    let places: UnsafeMutableBufferPointer<Place>
    private let names: UnsafeMutableBufferPointer<UInt8>
    /// Where each place's name ends in `names` (it starts where the one before ends).
    private let nameEnds: UnsafeMutableBufferPointer<UInt32>
    /// The cells the places reach.
    private let grid: CellGrid
    /// Per cell of `grid`, where its run of `members` starts (it ends where the next starts; one
    /// more entry ends the last): the places whose reach box touches the cell.
    private let starts: UnsafeMutableBufferPointer<Int32>
    private let members: UnsafeMutableBufferPointer<Int32>

    /// A country without places.
    static let none = CountryPlaces(LocalityPack(), codeIDs: [:])

    /// The places of `pack`, their codes numbered by `codeIDs` (`LocalityIndex.unknownCode` for
    /// a code the resolver does not have).
    init(_ pack: LocalityPack, codeIDs: [String: Int32]) {
        let numbers = pack.codes.map { codeIDs[$0] ?? LocalityIndex.unknownCode }
        places = .allocate(capacity: max(pack.places.count, 1))
        for (i, place) in pack.places.enumerated() {
            places.initializeElement(
                at: i,
                to: Place(
                    latitude: place.latitude, longitude: place.longitude, reach: LocalityIndex.reach(population: Int(place.population)),
                    cosLatitude: cos(place.latitude * .pi / 180),
                    id: place.id, province: place.province >= 0 ? numbers[Int(place.province)] : -1,
                    district: place.district >= 0 ? numbers[Int(place.district)] : -1, population: place.population))
        }
        names = .allocate(capacity: max(pack.names.count, 1))
        _ = names.initialize(from: pack.names)
        nameEnds = .allocate(capacity: max(pack.nameEnds.count, 1))
        _ = nameEnds.initialize(from: pack.nameEnds)
        grid = pack.cells.grid
        starts = .allocate(capacity: pack.cells.starts.count)
        _ = starts.initialize(from: pack.cells.starts)
        members = .allocate(capacity: max(pack.cells.members.count, 1))
        _ = members.initialize(from: pack.cells.members)
    }

    deinit {
        places.deallocate()
        names.deallocate()
        nameEnds.deallocate()
        starts.deallocate()
        members.deallocate()
    }

    /// The place answering `point` by `LocalityIndex`'s rule, and its distance in metres.
    func search(_ point: Coordinate, nearest: Bool, province: Int32, district: Int32) -> (place: Int32, meters: Double)? {
        guard
            let cell = grid.number(
                cx: LocalityIndex.wrap(LocalityIndex.cell(point.longitude)), cy: LocalityIndex.cell(point.latitude))
        else { return nil }
        let metresPerDegree = Geodesy.earthRadius * .pi / 180
        var best: (place: Int32, score: Double, meters: Double)?
        let φ = point.latitude * .pi / 180, cosφ = cos(φ)
        for k in Int(starts[cell])..<Int(starts[cell + 1]) {
            let i = members[k]
            let place = places[Int(i)]
            if province >= 0, place.province >= 0, place.province != province { continue }
            if district >= 0, place.district >= 0, place.district != district { continue }
            // The great-circle distance is never shorter than the distance in latitude alone
            // (a hair's margin for rounding): most candidates end here without trigonometry.
            let bound = abs(point.latitude - place.latitude) * metresPerDegree * (1 - 1e-9)
            guard bound <= place.reach else { continue }
            if let b = best, (nearest ? bound : bound / place.reach) > b.score { continue }
            let meters = Geodesy.haversineMeters(
                φ1: φ, cosφ1: cosφ, φ2: place.latitude * .pi / 180, cosφ2: place.cosLatitude,
                dλ: (place.longitude - point.longitude) * .pi / 180)
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
