import Foundation

/// A visited region: a circle around where the user was, with what it lies in (seed 001's
/// `visited_regions`, plus codes and visit bookkeeping).
public struct VisitedRegion: Sendable, Equatable, Codable {
    public var id: Int64?
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var radius: Int
    /// The first fix of the first visit.
    public var timestampStart: Date
    /// The last fix of the latest visit.
    public var timestampEnd: Date?
    /// Province (il) name, as the seed calls it `city`.
    public var city: String?
    public var district: String?
    public var country: String?
    public var countryCode: String?
    public var provinceCode: String?
    public var districtCode: String?
    /// Geohash of the centre, precision 7 by default.
    public var geohash: String
    /// Separate visits (stays split by more than the visit gap, 30 min by default).
    public var visitCount: Int
    /// Start of the latest visit.
    public var lastVisit: Date

    public init(id: Int64? = nil, latitude: Double, longitude: Double, radius: Int, timestampStart: Date,
                timestampEnd: Date? = nil, city: String? = nil, district: String? = nil, country: String? = nil,
                countryCode: String? = nil, provinceCode: String? = nil, districtCode: String? = nil,
                geohash: String, visitCount: Int = 1, lastVisit: Date? = nil) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.timestampStart = timestampStart
        self.timestampEnd = timestampEnd
        self.city = city
        self.district = district
        self.country = country
        self.countryCode = countryCode
        self.provinceCode = provinceCode
        self.districtCode = districtCode
        self.geohash = geohash
        self.visitCount = visitCount
        self.lastVisit = lastVisit ?? timestampStart
    }
}
