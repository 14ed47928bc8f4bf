import Foundation

/// Standard geohash (base-32, bits interleaved longitude first), as the store keeps with each region.
///
/// Conventions (documented because libraries differ):
/// - Precision is clamped to 1…12 (12 characters ≈ 3.7 cm × 1.9 cm, beyond what a Double position means).
/// - `encode` clamps latitude to ±90 and wraps longitude into -180…180; a non-finite value encodes as 0
///   — callers validate coordinates first (the clustering engine drops invalid ones before encoding).
///   Exactly 180° stays in the easternmost column (the usual "≥ midpoint goes high" rule).
/// - `decode` and `neighbours` accept upper or lower case, return lowercase, and return nil (never trap)
///   for an empty hash, one longer than 12, or a character outside the alphabet (a, i, l, o are not in it).
public enum Geohash {
    /// The 32 geohash characters, in value order.
    public static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")
    /// The longest hash produced or accepted, in characters.
    public static let maxPrecision = 12

    /// The cell a hash names: its centre and half-extents (the "error"), in degrees.
    public struct Box: Sendable, Equatable {
        /// Centre latitude, degrees.
        public var latitude: Double
        /// Centre longitude, degrees.
        public var longitude: Double
        /// Half the cell's height, degrees.
        public var latitudeError: Double
        /// Half the cell's width, degrees.
        public var longitudeError: Double

        /// Southern edge, degrees.
        public var minLatitude: Double { latitude - latitudeError }
        /// Northern edge, degrees.
        public var maxLatitude: Double { latitude + latitudeError }
        /// Western edge, degrees.
        public var minLongitude: Double { longitude - longitudeError }
        /// Eastern edge, degrees.
        public var maxLongitude: Double { longitude + longitudeError }

        /// Inclusive on every edge: a point on a shared edge belongs to both boxes as far as this says.
        public func contains(latitude lat: Double, longitude lon: Double) -> Bool {
            lat >= minLatitude && lat <= maxLatitude && lon >= minLongitude && lon <= maxLongitude
        }
    }

    /// The eight compass directions, in the order `neighbours` returns them.
    public enum Direction: CaseIterable, Sendable {
        case north, northEast, east, southEast, south, southWest, west, northWest

        var step: (lat: Int, lon: Int) {
            switch self {
            case .north: (1, 0)
            case .northEast: (1, 1)
            case .east: (0, 1)
            case .southEast: (-1, 1)
            case .south: (-1, 0)
            case .southWest: (-1, -1)
            case .west: (0, -1)
            case .northWest: (1, -1)
            }
        }
    }

    /// The lowercase hash of the cell holding the point, `precision` characters long (clamped to 1…12).
    public static func encode(latitude: Double, longitude: Double, precision: Int = 7) -> String {
        let length = min(max(precision, 1), maxPrecision)
        let lat = latitude.isFinite ? min(max(latitude, -90), 90) : 0
        let lon = longitude.isFinite ? wrapLongitude(longitude) : 0
        var latRange = (-90.0, 90.0), lonRange = (-180.0, 180.0)
        var result: [Character] = []
        result.reserveCapacity(length)
        var evenBit = true  // bit 0, 2, 4… refine longitude
        var value = 0, bitCount = 0
        while result.count < length {
            if evenBit {
                let mid = (lonRange.0 + lonRange.1) / 2
                if lon >= mid {
                    value = value << 1 | 1
                    lonRange.0 = mid
                } else {
                    value <<= 1
                    lonRange.1 = mid
                }
            } else {
                let mid = (latRange.0 + latRange.1) / 2
                if lat >= mid {
                    value = value << 1 | 1
                    latRange.0 = mid
                } else {
                    value <<= 1
                    latRange.1 = mid
                }
            }
            evenBit.toggle()
            bitCount += 1
            if bitCount == 5 {
                result.append(alphabet[value])
                value = 0
                bitCount = 0
            }
        }
        return String(result)
    }

    /// The cell of `hash`, or nil when it is empty, longer than `maxPrecision` or has a character outside the alphabet.
    public static func decode(_ hash: String) -> Box? {
        guard let values = characterValues(hash) else { return nil }
        var latRange = (-90.0, 90.0), lonRange = (-180.0, 180.0)
        var evenBit = true
        for value in values {
            for shift in stride(from: 4, through: 0, by: -1) {
                let bit = (value >> shift) & 1 == 1
                if evenBit {
                    let mid = (lonRange.0 + lonRange.1) / 2
                    if bit { lonRange.0 = mid } else { lonRange.1 = mid }
                } else {
                    let mid = (latRange.0 + latRange.1) / 2
                    if bit { latRange.0 = mid } else { latRange.1 = mid }
                }
                evenBit.toggle()
            }
        }
        return Box(
            latitude: (latRange.0 + latRange.1) / 2, longitude: (lonRange.0 + lonRange.1) / 2,
            latitudeError: (latRange.1 - latRange.0) / 2, longitudeError: (lonRange.1 - lonRange.0) / 2)
    }

    /// True when every character is in the alphabet and the length is 1…12.
    public static func isValid(_ hash: String) -> Bool { characterValues(hash) != nil }

    /// The adjacent cell of the same precision in `direction`. Wraps across the antimeridian; nil past a pole
    /// (there is no cell north of the top row), or for an invalid hash.
    public static func neighbour(_ hash: String, _ direction: Direction) -> String? {
        guard let box = decode(hash) else { return nil }
        let step = direction.step
        // Centres of adjacent cells are exactly one cell size apart; cell sizes are 180 / 2^k and 360 / 2^k,
        // so this arithmetic is exact and lands on the neighbour's centre, never on an edge.
        let lat = box.latitude + Double(step.lat) * 2 * box.latitudeError
        guard lat > -90, lat < 90 else { return nil }
        let lon = box.longitude + Double(step.lon) * 2 * box.longitudeError
        return encode(latitude: lat, longitude: wrapLongitude(lon), precision: hash.count)
    }

    /// The cells around `hash` in the order N, NE, E, SE, S, SW, W, NW: 8 of them, except for the top and
    /// bottom rows, where the 3 past the pole do not exist and are left out (5 remain). At precision 1 the
    /// east and west neighbours never coincide (8 columns), so the list has no duplicates. Nil for an invalid hash.
    public static func neighbours(_ hash: String) -> [String]? {
        guard isValid(hash) else { return nil }
        return Direction.allCases.compactMap { neighbour(hash, $0) }
    }

    // MARK: - Helpers

    private static let valueOf: [Character: Int] = {
        var table: [Character: Int] = [:]
        for (index, character) in alphabet.enumerated() {
            table[character] = index
            table[Character(character.uppercased())] = index
        }
        return table
    }()

    private static func characterValues(_ hash: String) -> [Int]? {
        guard !hash.isEmpty, hash.count <= maxPrecision else { return nil }
        var values: [Int] = []
        values.reserveCapacity(hash.count)
        for character in hash {
            guard let value = valueOf[character] else { return nil }
            values.append(value)
        }
        return values
    }

    /// Into -180…180, keeping exactly ±180 as given (both name the antimeridian).
    static func wrapLongitude(_ longitude: Double) -> Double {
        if longitude >= -180 && longitude <= 180 { return longitude }
        var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped - 180
    }
}
