/// An axis-aligned box in degrees (x = longitude, y = latitude).
public struct BoundingBox: Sendable, Equatable, Codable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }

    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    public func intersects(_ other: BoundingBox) -> Bool {
        other.minX <= maxX && other.maxX >= minX && other.minY <= maxY && other.maxY >= minY
    }

    public func contains(_ other: BoundingBox) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// The two halves when cut across the longer side.
    public func halves() -> (BoundingBox, BoundingBox) {
        if width >= height {
            let mid = (minX + maxX) / 2
            return (BoundingBox(minX: minX, minY: minY, maxX: mid, maxY: maxY),
                    BoundingBox(minX: mid, minY: minY, maxX: maxX, maxY: maxY))
        }
        let mid = (minY + maxY) / 2
        return (BoundingBox(minX: minX, minY: minY, maxX: maxX, maxY: mid),
                BoundingBox(minX: minX, minY: mid, maxX: maxX, maxY: maxY))
    }
}

/// The administrative levels Roqua knows, from the widest down.
public enum AdminLevel: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case country = 0
    case province = 1
    case district = 2

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    public var description: String {
        switch self {
        case .country: "country"
        case .province: "province"
        case .district: "district"
        }
    }

    public var parent: AdminLevel? { AdminLevel(rawValue: rawValue - 1) }

    /// District, province, country: the resolver's search order.
    public static let deepestFirst: [AdminLevel] = allCases.reversed()

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
