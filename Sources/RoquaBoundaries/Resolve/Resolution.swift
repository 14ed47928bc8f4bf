/// A position in WGS84 degrees.
public struct Coordinate: Sendable, Equatable, Codable {
    /// Degrees north, -90…90 when valid.
    public var latitude: Double
    /// Degrees east, -180…180 when valid.
    public var longitude: Double

    /// Creates a coordinate without checking it; `validated()` does the checks.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Throws for NaN, infinities and values outside ±90 / ±180: never a silent answer.
    /// - Returns: The coordinate itself, unchanged.
    /// - Throws: `ResolveError.invalidCoordinate`, with the reason, when a value is not finite or out of range.
    public func validated() throws(ResolveError) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite else { throw .invalidCoordinate(self, reason: "not a finite number") }
        guard abs(latitude) <= 90 else { throw .invalidCoordinate(self, reason: "latitude outside -90…90") }
        guard abs(longitude) <= 180 else { throw .invalidCoordinate(self, reason: "longitude outside -180…180") }
        return self
    }
}

/// Why the resolver gave no answer for a coordinate.
public enum ResolveError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The coordinate is NaN, infinite or out of range; `reason` says which.
    case invalidCoordinate(Coordinate, reason: String)
    /// The boundary geometry for the point could not be read or tested; the message says why.
    case geometry(String)

    /// One line naming the coordinate or the geometry problem.
    public var description: String {
        switch self {
        case let .invalidCoordinate(c, reason): "invalid coordinate \(c.latitude), \(c.longitude): \(reason)"
        case let .geometry(message): "resolver geometry error: \(message)"
        }
    }
}

/// One administrative unit in an answer.
public struct UnitReference: Sendable, Equatable, Codable, Hashable {
    /// The unit's code as the boundary DB stores it, e.g. `TR-34` or `TUR034023`.
    public var code: String
    /// The unit's name in its local language, e.g. `İstanbul`.
    public var name: String
    /// The English name (the local name when the source gave none).
    public var nameEn: String
    /// The Turkish name (the local name when the source gave none).
    public var nameTr: String

    /// The name in `language`.
    public func name(language: Language) -> String {
        switch language {
        case .local: name
        case .en: nameEn
        case .tr: nameTr
        }
    }
}

/// The language unit names are given in.
public enum Language: String, Sendable, CaseIterable {
    /// `local`: the name as the source writes it; `en`: English; `tr`: Turkish.
    case local, en, tr
}

/// The answer for one coordinate: each level is nil where no polygon holds the point.
public struct Resolution: Sendable, Equatable {
    /// The coordinate that was asked about.
    public var coordinate: Coordinate
    /// The country holding the point, or `nil` (open sea, beyond the fallback).
    public var country: UnitReference?
    /// The province holding the point, or `nil` where there is none or the country has no provinces.
    public var province: UnitReference?
    /// The district holding the point, or `nil` where there is none or the country has no districts.
    public var district: UnitReference?
    /// True when a level was filled from the nearest boundary within the fallback distance.
    public var approximate: Bool
    /// Distance in metres to the nearest boundary used, when `approximate`.
    public var distanceMeters: Double?
    /// The populated place the point belongs to (`ResolverIndex.withLocality`), nil when none
    /// reaches it or it was not asked for.
    public var locality: Locality? = nil
    /// Whether the locality was looked up: answers print a `locality` only then.
    public var localityChecked = false

    /// The unit of the answer at `level`.
    public func unit(_ level: AdminLevel) -> UnitReference? {
        switch level {
        case .country: country
        case .province: province
        case .district: district
        }
    }
}
