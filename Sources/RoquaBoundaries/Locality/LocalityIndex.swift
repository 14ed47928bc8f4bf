import Foundation
import GRDB

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

/// The boundary DB's populated places, loaded once and searched in memory.
///
/// The rule (see `locality(at:country:province:district:)`): a place is a candidate when it belongs
/// to the country Roqua's polygons decided (and to the province and district, where the answer and
/// the place both have one: only Türkiye's places have districts) and the point
/// lies within its reach, `r = clamp(15 m · √population, 2 km, 30 km)` — about 2 km for a
/// village, 9 km for Thessaloniki, 28 km for Berlin. Places the data marks as part of a bigger
/// city (`part_of`: Berlin's boroughs Mitte, Charlottenburg) are never candidates: the city is.
/// Outside Türkiye the candidate with the smallest distance / reach wins, so a point inside a
/// city's reach gets the city rather than a neighbouring town; in Türkiye, where the province already is the city and the district comes from HGK's
/// polygons, the nearest candidate wins, which adds the town or neighbourhood.
///
/// Immutable once built, so Sendable: one per `ResolverIndex`, shared by every thread.
public final class LocalityIndex: Sendable {
    /// Metres of reach per √person.
    package static let reachPerRootPerson = 15.0
    /// The reach of a place with no or a tiny population, metres.
    package static let minReach = 2_000.0
    /// The reach of the largest cities, metres.
    package static let maxReach = 30_000.0
    /// Grid cell size in degrees; a cell lists every place whose reach box touches it.
    static let cellDegrees = 0.25

    private let ids: [Int64]
    private let names: [String]
    private let latitudes: [Double]
    private let longitudes: [Double]
    private let populations: [Int32]
    private let reaches: [Double]
    private let countries: [Int32]
    private let provinces: [Int32]  // -1: GeoNames' province could not be tied to a Roqua one
    private let districts: [Int32]  // -1: none (outside Türkiye)
    private let isPart: [Bool]  // a borough of a bigger city (`part_of`): the city answers instead
    private let codes: [String: Int32]
    private let turkiye: Int32
    private let grid: [Int64: [Int32]]

    /// The number of places.
    public var count: Int { ids.count }

    /// The reach of a place of `population`, metres.
    public static func reach(population: Int) -> Double {
        min(maxReach, max(minReach, reachPerRootPerson * Double(max(population, 0)).squareRoot()))
    }

    /// Loads the places of an open boundary DB (none when its data has no localities).
    /// - Throws: GRDB's `DatabaseError` when the read fails.
    public init(database: BoundaryDatabase) throws {
        var ids: [Int64] = [], names: [String] = [], lats: [Double] = [], lons: [Double] = []
        var pops: [Int32] = [], countries: [Int32] = [], provinces: [Int32] = [], districts: [Int32] = []
        var isPart: [Bool] = []
        var codes: [String: Int32] = [:]
        func intern(_ code: String) -> Int32 {
            if let id = codes[code] { return id }
            let id = Int32(codes.count)
            codes[code] = id
            return id
        }
        try database.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, name, latitude, longitude, population, country_code, province_code, district_code, part_of
                    FROM localities ORDER BY id
                    """)
            while let row = try rows.next() {
                ids.append(row[0])
                names.append(row[1])
                lats.append(row[2])
                lons.append(row[3])
                pops.append(Int32(clamping: row[4] as Int64))
                countries.append(intern(row[5]))
                let province: String? = row[6]
                provinces.append(province.map(intern) ?? -1)
                let district: String? = row[7]
                districts.append(district.map(intern) ?? -1)
                isPart.append((row[8] as Int64?) != nil)
            }
        }
        var reaches: [Double] = []
        reaches.reserveCapacity(ids.count)
        var grid: [Int64: [Int32]] = [:]
        for i in ids.indices {
            let reach = Self.reach(population: Int(pops[i]))
            reaches.append(reach)
            let dy = reach / Geodesy.earthRadius * 180 / .pi
            let dx = dy / max(cos(min(abs(lats[i]) + dy, 89.9) * .pi / 180), 1e-3)
            for cy in Self.cell(lats[i] - dy)...Self.cell(lats[i] + dy) {
                for cx in Self.cell(lons[i] - dx)...Self.cell(lons[i] + dx) {
                    grid[Self.key(cx: Self.wrap(cx), cy: cy), default: []].append(Int32(i))
                }
            }
        }
        self.ids = ids
        self.names = names
        latitudes = lats
        longitudes = lons
        populations = pops
        self.reaches = reaches
        self.countries = countries
        self.provinces = provinces
        self.districts = districts
        self.isPart = isPart
        self.codes = codes
        turkiye = codes["TR"] ?? -2
        self.grid = grid
    }

    /// The locality of a point Roqua placed in `country` (and `province`, `district`), or nil when
    /// no place of that country reaches the point. `province` and `district` narrow the choice to
    /// the places of that unit, where the place's own unit is known.
    public func locality(at point: Coordinate, country: String, province: String?, district: String? = nil) -> Locality? {
        guard let countryID = codes[country] else { return nil }
        let provinceID = province.flatMap { codes[$0] } ?? -1
        let districtID = district.flatMap { codes[$0] } ?? -1
        guard let candidates = grid[Self.key(cx: Self.wrap(Self.cell(point.longitude)), cy: Self.cell(point.latitude))] else {
            return nil
        }
        let nearest = countryID == turkiye
        var best: (index: Int32, score: Double, meters: Double)?
        for i in candidates {
            let p = Int(i)
            guard countries[p] == countryID, !isPart[p] else { continue }
            if province != nil, provinces[p] >= 0, provinces[p] != provinceID { continue }
            if district != nil, districts[p] >= 0, districts[p] != districtID { continue }
            let meters = Geodesy.haversineMeters(point, Coordinate(latitude: latitudes[p], longitude: longitudes[p]))
            guard meters <= reaches[p] else { continue }
            let score = nearest ? meters : meters / reaches[p]
            if let b = best, (b.score, ids[Int(b.index)]) <= (score, ids[p]) { continue }
            best = (i, score, meters)
        }
        return best.map { b in
            let p = Int(b.index)
            return Locality(geonameID: ids[p], name: names[p], population: Int(populations[p]), distanceMeters: b.meters)
        }
    }

    @inline(__always)
    private static func cell(_ degrees: Double) -> Int { Int((degrees / cellDegrees).rounded(.down)) }

    /// Cells east of 180° or west of -180° are the ones across the antimeridian.
    @inline(__always)
    private static func wrap(_ cx: Int) -> Int {
        let n = Int(360 / cellDegrees)
        return ((cx % n) + n) % n
    }

    @inline(__always)
    private static func key(cx: Int, cy: Int) -> Int64 { Int64(cy) << 32 | Int64(cx) }
}
