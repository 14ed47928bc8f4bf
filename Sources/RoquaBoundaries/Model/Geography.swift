/// An axis-aligned box in degrees (x = longitude, y = latitude).
public struct BoundingBox: Sendable, Equatable, Codable {
    /// Westmost longitude, degrees.
    public var minX: Double
    /// Southmost latitude, degrees.
    public var minY: Double
    /// Eastmost longitude, degrees.
    public var maxX: Double
    /// Northmost latitude, degrees.
    public var maxY: Double

    /// Creates a box from its edges in degrees; the edges are taken as given, not reordered.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// East–west extent in degrees (no wrap-around at ±180).
    public var width: Double { maxX - minX }
    /// North–south extent in degrees.
    public var height: Double { maxY - minY }

    /// Whether the point (longitude `x`, latitude `y`) lies in the box, edges included.
    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    /// Whether the boxes share at least one point, touching edges included.
    public func intersects(_ other: BoundingBox) -> Bool {
        other.minX <= maxX && other.maxX >= minX && other.minY <= maxY && other.maxY >= minY
    }

    /// Whether `other` lies wholly in this box, shared edges included.
    public func contains(_ other: BoundingBox) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// The two halves when cut across the longer side.
    public func halves() -> (BoundingBox, BoundingBox) {
        if width >= height {
            let mid = (minX + maxX) / 2
            return (
                BoundingBox(minX: minX, minY: minY, maxX: mid, maxY: maxY),
                BoundingBox(minX: mid, minY: minY, maxX: maxX, maxY: maxY)
            )
        }
        let mid = (minY + maxY) / 2
        return (
            BoundingBox(minX: minX, minY: minY, maxX: maxX, maxY: mid),
            BoundingBox(minX: minX, minY: mid, maxX: maxX, maxY: maxY)
        )
    }
}

/// The administrative levels Roqua knows, from the widest down.
public enum AdminLevel: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    /// A country (level 0).
    case country = 0
    /// A province or other first-level subdivision (level 1).
    case province = 1
    /// A district or other second-level subdivision (level 2).
    case district = 2

    /// The level whose `description` is `name` (`country`, `province`, `district`), or `nil`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    /// The level's lower-case English word, as manifests and messages write it.
    public var description: String {
        switch self {
        case .country: "country"
        case .province: "province"
        case .district: "district"
        }
    }

    /// The word for several units of the level ("countries", "provinces", "districts").
    package var plural: String { self == .country ? "countries" : description + "s" }

    /// The next wider level, or `nil` for `country`.
    public var parent: AdminLevel? { AdminLevel(rawValue: rawValue - 1) }

    /// District, province, country: the resolver's search order.
    public static let deepestFirst: [AdminLevel] = allCases.reversed()

    /// Wider levels order first: `country < province < district`.
    public static func < (a: AdminLevel, b: AdminLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A closed ring as read from a file: parallel coordinate arrays, first point repeated last.
package struct Ring: Sendable, Equatable {
    package var xs: [Double]
    package var ys: [Double]

    package init(xs: [Double], ys: [Double]) {
        self.xs = xs
        self.ys = ys
    }

    package var count: Int { xs.count }

    /// Shoelace area: positive counter-clockwise, negative clockwise.
    package var signedArea: Double {
        var sum = 0.0
        for i in 0..<(xs.count - 1) {
            sum += xs[i] * ys[i + 1] - xs[i + 1] * ys[i]
        }
        return sum / 2
    }

    package var bounds: BoundingBox {
        BoundingBox(minX: xs.min() ?? 0, minY: ys.min() ?? 0, maxX: xs.max() ?? 0, maxY: ys.max() ?? 0)
    }

    /// Even-odd ray casting; points on the edge may go either way, which is enough to nest rings.
    package func encloses(x: Double, y: Double) -> Bool {
        var inside = false
        var j = xs.count - 1
        for i in 0..<xs.count {
            if (ys[i] > y) != (ys[j] > y), x < (xs[j] - xs[i]) * (y - ys[i]) / (ys[j] - ys[i]) + xs[i] {
                inside.toggle()
            }
            j = i
        }
        return inside
    }
}

/// One polygon: a shell and the holes assigned to it.
package struct PolygonRings: Sendable, Equatable {
    package var shell: Ring
    package var holes: [Ring]

    package init(shell: Ring, holes: [Ring] = []) {
        self.shell = shell
        self.holes = holes
    }
}
