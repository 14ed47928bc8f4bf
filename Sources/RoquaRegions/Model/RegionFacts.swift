import Foundation

/// What the progress summary (`roqua stats`, `/api/stats`) reads of a region: its circle, its
/// first and last visit, its units and its locality — not its other names, geohash or counts.
/// `RegionStore.forEachRegionFacts(_:)` reads them for a million regions without holding the regions.
public struct RegionFacts: Sendable, Equatable {
    /// Centre latitude, degrees.
    public var latitude: Double
    /// Centre longitude, degrees.
    public var longitude: Double
    /// Radius, metres.
    public var radius: Int
    /// When the region was first entered (`timestampStart`).
    public var start: Date
    /// The start of its latest visit (`lastVisit`).
    public var lastVisit: Date
    /// When the first visit ended (`timestampEnd`).
    public var end: Date?
    /// The country's, province's and district's codes the region was enriched with.
    public var countryCode: String?
    public var provinceCode: String?
    public var districtCode: String?
    /// The country's name as the region stores it.
    public var country: String?
    /// The GeoNames locality's name and id.
    public var locality: String?
    public var localityID: Int64?

    /// The facts of `region`.
    public init(_ region: VisitedRegion) {
        self.init(
            latitude: region.latitude, longitude: region.longitude, radius: region.radius, start: region.timestampStart,
            lastVisit: region.lastVisit, end: region.timestampEnd, countryCode: region.countryCode, provinceCode: region.provinceCode,
            districtCode: region.districtCode, country: region.country, locality: region.locality, localityID: region.localityID)
    }

    /// Facts from their values.
    public init(
        latitude: Double, longitude: Double, radius: Int, start: Date, lastVisit: Date, end: Date? = nil, countryCode: String?,
        provinceCode: String?, districtCode: String?, country: String?, locality: String?, localityID: Int64?
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.start = start
        self.lastVisit = lastVisit
        self.end = end
        self.countryCode = countryCode
        self.provinceCode = provinceCode
        self.districtCode = districtCode
        self.country = country
        self.locality = locality
        self.localityID = localityID
    }
}
