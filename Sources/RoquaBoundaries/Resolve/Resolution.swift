/// A position in WGS84 degrees.
public struct Coordinate: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Throws for NaN, infinities and values outside ±90 / ±180: never a silent answer.
    public func validated() throws(ResolveError) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite else { throw .invalidCoordinate(self, reason: "not a finite number") }
        guard abs(latitude) <= 90 else { throw .invalidCoordinate(self, reason: "latitude outside -90…90") }
        guard abs(longitude) <= 180 else { throw .invalidCoordinate(self, reason: "longitude outside -180…180") }
        return self
    }
}

public enum ResolveError: Error, CustomStringConvertible, Equatable, Sendable {
    case invalidCoordinate(Coordinate, reason: String)
    case geometry(String)

    public var description: String {
        switch self {
        case let .invalidCoordinate(c, reason): "invalid coordinate \(c.latitude), \(c.longitude): \(reason)"
        case let .geometry(message): "resolver geometry error: \(message)"
        }
    }
}

/// One administrative unit in an answer.
public struct UnitReference: Sendable, Equatable, Codable, Hashable {
    public var code: String
    public var name: String
    public var nameEn: String
    public var nameTr: String

    public func name(language: Language) -> String {
        switch language {
        case .local: name
        case .en: nameEn
        case .tr: nameTr
        }
    }
}

public enum Language: String, Sendable, CaseIterable {
    case local, en, tr
}

/// The answer for one coordinate: each level is nil where no polygon holds the point.
public struct Resolution: Sendable, Equatable {
    public var coordinate: Coordinate
    public var country: UnitReference?
    public var province: UnitReference?
    public var district: UnitReference?
    /// True when a level was filled from the nearest boundary within the fallback distance.
    public var approximate: Bool
    /// Distance in metres to the nearest boundary used, when `approximate`.
    public var distanceMeters: Double?

    public func unit(_ level: AdminLevel) -> UnitReference? {
        switch level {
        case .country: country
        case .province: province
        case .district: district
        }
    }
}
