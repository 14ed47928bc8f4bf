import Foundation
import Synchronization

/// A visited region: a circle around where the user was, with what it lies in (the product's
/// `visited_regions` row, plus codes and visit bookkeeping). Its `Codable` form is the product's
/// row, column for column, times as ISO 8601 text: what exports hold. The store keeps it
/// narrower (`RegionWriter`, `RegionRowReader`: integer times, the names as a place's id).
public struct VisitedRegion: Sendable, Equatable {
    /// The row id in the store; `nil` until inserted.
    public var id: Int64?
    /// Centre latitude, degrees.
    public var latitude: Double
    /// Centre longitude, degrees.
    public var longitude: Double
    /// Metres.
    public var radius: Int
    /// The first fix of the first visit.
    public var timestampStart: Date
    /// The last fix of the latest visit.
    public var timestampEnd: Date?
    /// Geohash of the centre, precision 7 by default.
    public var geohash: String
    /// Separate visits (stays split by more than the visit gap, 30 min by default).
    public var visitCount: Int
    /// Start of the latest visit.
    public var lastVisit: Date
    /// What the region lies in, held once for the many regions of one place (`RegionNames`):
    /// a region is 104 bytes instead of 240, and a store's million regions share a few
    /// thousand of these.
    package var names: RegionNames

    /// Province (il) name, e.g. `İstanbul` (exports written before it was named so called it `city`).
    public var province: String? {
        get { names.values.province }
        set { rename(\.province, newValue) }
    }
    /// District name, local language; `nil` until enriched or outside any district.
    public var district: String? {
        get { names.values.district }
        set { rename(\.district, newValue) }
    }
    /// Country name, local language; `nil` until enriched or at sea.
    public var country: String? {
        get { names.values.country }
        set { rename(\.country, newValue) }
    }
    /// Country code from the boundary DB, e.g. `TR`.
    public var countryCode: String? {
        get { names.values.countryCode }
        set { rename(\.countryCode, newValue) }
    }
    /// Province code from the boundary DB, e.g. `TR-34`.
    public var provinceCode: String? {
        get { names.values.provinceCode }
        set { rename(\.provinceCode, newValue) }
    }
    /// District code from the boundary DB, e.g. `TUR034023`.
    public var districtCode: String? {
        get { names.values.districtCode }
        set { rename(\.districtCode, newValue) }
    }
    /// Which boundary database named this region (its import time); nil until enriched.
    public var enrichedWith: String? {
        get { names.values.enrichedWith }
        set { rename(\.enrichedWith, newValue) }
    }
    /// The populated place (GeoNames) the centre belongs to, e.g. `Cape Town`; nil until
    /// enriched, or where no place reaches the centre (see `LocalityIndex`).
    public var locality: String? {
        get { names.values.locality }
        set { rename(\.locality, newValue) }
    }
    /// GeoNames' id of `locality`: two places of one name stay apart in counts.
    public var localityID: Int64? {
        get { names.values.localityID }
        set { rename(\.localityID, newValue) }
    }

    /// When the latest visit ended: the region's end, or its latest visit's start when that is
    /// later (or there is no end).
    public var latestVisit: Date { max(timestampEnd ?? lastVisit, lastVisit) }

    /// Changes one name: the region gets names of its own, the ones it shared stay as they were.
    private mutating func rename<Value>(_ field: WritableKeyPath<RegionNames.Values, Value>, _ value: Value) {
        var changed = names.values
        changed[keyPath: field] = value
        names = RegionNames.of(changed)
    }

    /// Creates a region; `lastVisit` defaults to `timestampStart`. Nothing is validated (see `validate()`).
    public init(
        id: Int64? = nil, latitude: Double, longitude: Double, radius: Int, timestampStart: Date,
        timestampEnd: Date? = nil, province: String? = nil, district: String? = nil, country: String? = nil,
        countryCode: String? = nil, provinceCode: String? = nil, districtCode: String? = nil,
        geohash: String, visitCount: Int = 1, lastVisit: Date? = nil, enrichedWith: String? = nil,
        locality: String? = nil, localityID: Int64? = nil
    ) {
        let names = RegionNames.Values(
            province: province, district: district, country: country, countryCode: countryCode,
            provinceCode: provinceCode, districtCode: districtCode, enrichedWith: enrichedWith,
            locality: locality, localityID: localityID)
        self.init(
            id: id, latitude: latitude, longitude: longitude, radius: radius, timestampStart: timestampStart,
            timestampEnd: timestampEnd, names: RegionNames.of(names), geohash: geohash, visitCount: visitCount,
            lastVisit: lastVisit)
    }

    /// Creates a region whose names are `names` (shared, not copied).
    init(
        id: Int64? = nil, latitude: Double, longitude: Double, radius: Int, timestampStart: Date,
        timestampEnd: Date? = nil, names: RegionNames, geohash: String, visitCount: Int = 1, lastVisit: Date? = nil
    ) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.timestampStart = timestampStart
        self.timestampEnd = timestampEnd
        self.names = names
        self.geohash = geohash
        self.visitCount = visitCount
        self.lastVisit = lastVisit ?? timestampStart
    }
}

/// The names and codes of what a region lies in, and which boundary database gave them: one
/// immutable value shared by every region of the same place (the enricher and the store's
/// reader hand the same one to neighbouring regions), compared by value.
package final class RegionNames: Sendable, Equatable {
    /// The fields, as a value to build from.
    struct Values: Sendable, Hashable {
        var province: String?
        var district: String?
        var country: String?
        var countryCode: String?
        var provinceCode: String?
        var districtCode: String?
        var enrichedWith: String?
        var locality: String?
        var localityID: Int64?
    }

    let values: Values

    /// A region not named yet (or named nothing: at sea, unenriched).
    static let none = RegionNames(Values())

    /// The names `values`; the shared `none` when every one is nil.
    static func of(_ values: Values) -> RegionNames { values == none.values ? none : RegionNames(values) }

    init(_ values: Values) { self.values = values }

    package static func == (a: RegionNames, b: RegionNames) -> Bool { a === b || a.values == b.values }

    /// One `RegionNames` for every region of the same place, for those who make many regions:
    /// the enricher, and a decoder of exports (`key` in its `userInfo`). A million regions name a
    /// few thousand places, and each with names of its own held ~250 bytes more.
    final class Shared: Sendable {
        static let key = CodingUserInfoKey(rawValue: "roqua.sharedRegionNames")!
        /// Places remembered at most (a place is a few hundred bytes; the world has ~150 k localities).
        static let placesKept = 1 << 16
        private let known = Mutex<(last: RegionNames?, places: [Values: RegionNames])>((nil, [:]))

        /// The names given out last when they are `values` (neighbouring regions mostly are the
        /// same place), else those of a place met before, else new ones.
        func names(_ values: Values) -> RegionNames {
            known.withLock { known in
                if let last = known.last, last.values == values { return last }
                if let names = known.places[values] {
                    known.last = names
                    return names
                }
                if known.places.count >= Self.placesKept { known.places.removeAll(keepingCapacity: true) }
                let names = RegionNames.of(values)
                known.places[values] = names
                known.last = names
                return names
            }
        }
    }
}

extension VisitedRegion: Codable {
    /// The product's column names.
    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude, radius, province, district, country, geohash
        /// `province` in exports written before version 5 of the store (read, never written).
        case legacyProvince = "city"
        case timestampStart = "timestamp_start", timestampEnd = "timestamp_end"
        case countryCode = "country_code", provinceCode = "province_code", districtCode = "district_code"
        case visitCount = "visit_count", lastVisit = "last_visit", enrichedWith = "enriched_with"
        case locality, localityID = "locality_id"
    }

    /// Decodes a region from its row form (times as ISO 8601 text).
    ///
    /// - Throws: `DecodingError` when a required column is missing, has the wrong type, or holds a
    ///   time that does not parse.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> Date {
            let text = try c.decode(String.self, forKey: key)
            guard let date = StoreTime.date(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not a stored time")
            }
            return date
        }
        let end = try c.decodeIfPresent(String.self, forKey: .timestampEnd) == nil ? nil : try time(.timestampEnd)
        let (id, latitude, longitude, radius, start) = (
            try c.decodeIfPresent(Int64.self, forKey: .id), try c.decode(Double.self, forKey: .latitude),
            try c.decode(Double.self, forKey: .longitude), try c.decode(Int.self, forKey: .radius), try time(.timestampStart)
        )
        // In the order the columns were always read, so that a bad file is named as before.
        let (province, district, country) = (
            try c.decodeIfPresent(String.self, forKey: .province) ?? c.decodeIfPresent(String.self, forKey: .legacyProvince),
            try c.decodeIfPresent(String.self, forKey: .district), try c.decodeIfPresent(String.self, forKey: .country)
        )
        let (countryCode, provinceCode, districtCode) = (
            try c.decodeIfPresent(String.self, forKey: .countryCode), try c.decodeIfPresent(String.self, forKey: .provinceCode),
            try c.decodeIfPresent(String.self, forKey: .districtCode)
        )
        let (geohash, visitCount, lastVisit) = (
            try c.decode(String.self, forKey: .geohash), try c.decode(Int.self, forKey: .visitCount), try time(.lastVisit)
        )
        let values = RegionNames.Values(
            province: province, district: district, country: country, countryCode: countryCode, provinceCode: provinceCode,
            districtCode: districtCode, enrichedWith: try c.decodeIfPresent(String.self, forKey: .enrichedWith),
            // Absent in archives written before localities existed: the region is then re-enriched.
            locality: try c.decodeIfPresent(String.self, forKey: .locality),
            localityID: try c.decodeIfPresent(Int64.self, forKey: .localityID))
        self.init(
            id: id, latitude: latitude, longitude: longitude, radius: radius, timestampStart: start, timestampEnd: end,
            names: (decoder.userInfo[RegionNames.Shared.key] as? RegionNames.Shared)?.names(values) ?? RegionNames.of(values),
            geohash: geohash, visitCount: visitCount, lastVisit: lastVisit)
    }

    /// Encodes the region in its row form, times as ISO 8601 text with milliseconds.
    ///
    /// - Throws: `StoreTimeError` for a time outside the years 0000–9999; what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(radius, forKey: .radius)
        try c.encode(StoreTime.text(timestampStart), forKey: .timestampStart)
        try c.encodeIfPresent(timestampEnd.map(StoreTime.text), forKey: .timestampEnd)
        try c.encodeIfPresent(province, forKey: .province)
        try c.encodeIfPresent(district, forKey: .district)
        try c.encodeIfPresent(country, forKey: .country)
        try c.encodeIfPresent(countryCode, forKey: .countryCode)
        try c.encodeIfPresent(provinceCode, forKey: .provinceCode)
        try c.encodeIfPresent(districtCode, forKey: .districtCode)
        try c.encode(geohash, forKey: .geohash)
        try c.encode(visitCount, forKey: .visitCount)
        try c.encode(StoreTime.text(lastVisit), forKey: .lastVisit)
        try c.encodeIfPresent(enrichedWith, forKey: .enrichedWith)
        try c.encodeIfPresent(locality, forKey: .locality)
        try c.encodeIfPresent(localityID, forKey: .localityID)
    }
}
