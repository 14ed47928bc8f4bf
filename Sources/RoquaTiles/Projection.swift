import Foundation

/// Web Mercator projection on integer coordinates.
///
/// A fix is projected once to "fine" coordinates: the global pixel at zoom 22
/// (world = 2^30 pixels per side, x from the antimeridian eastwards, y from the north).
/// The global pixel at any zoom z ≤ 22 is `fine >> (22 - z)`, so every zoom is a
/// pure integer floor of the same number and all code paths agree bit for bit.
public enum Projection {
    /// Zoom of the fine coordinates.
    public static let fineZoom = 22
    public static let fineWorld: Int64 = 1 << 30
    /// Latitude clamp of Web Mercator.
    public static let maxLatitude = 85.05112878
    public static let maxLatitudeE7: Int32 = 850_511_287

    /// Fine x (zoom-22 global pixel) of a longitude in 1e-7 degrees. Exact integer arithmetic.
    @inlinable
    public static func fineX(lonE7: Int32) -> Int32 {
        var lon = Int64(lonE7)
        if lon < -1_800_000_000 { lon = -1_800_000_000 }
        if lon > 1_800_000_000 { lon = 1_800_000_000 }
        let v = ((lon + 1_800_000_000) << 30) / 3_600_000_000
        return Int32(min(v, fineWorld - 1))
    }

    /// Fine y (zoom-22 global pixel, from the north) of a latitude in 1e-7 degrees.
    @inlinable
    public static func fineY(latE7: Int32) -> Int32 {
        let lat = min(max(latE7, -maxLatitudeE7), maxLatitudeE7)
        let s = sin(Double(lat) * (Double.pi / 1.8e9))
        let y = 0.5 - log((1 + s) / (1 - s)) / (4 * Double.pi)
        let v = Int64((y * Double(fineWorld)).rounded(.down))
        return Int32(min(max(v, 0), fineWorld - 1))
    }

    /// Fine coordinates of a fix.
    @inlinable
    public static func fine(latE7: Int32, lonE7: Int32) -> (x: Int32, y: Int32) {
        (fineX(lonE7: lonE7), fineY(latE7: latE7))
    }

    /// Global pixel coordinates (0 ..< 256·2^z) at zoom `z` (0...22).
    @inlinable
    public static func pixel(latE7: Int32, lonE7: Int32, zoom z: Int) -> (x: Int, y: Int) {
        let f = fine(latE7: latE7, lonE7: lonE7)
        return (Int(f.x) >> (fineZoom - z), Int(f.y) >> (fineZoom - z))
    }

    /// Slippy-map tile (x, y from north) holding a fix at zoom `z`.
    @inlinable
    public static func tile(latE7: Int32, lonE7: Int32, zoom z: Int) -> (x: Int, y: Int) {
        let p = pixel(latE7: latE7, lonE7: lonE7, zoom: z)
        return (p.x >> 8, p.y >> 8)
    }

    /// Inverse, for tests and tools: latitude/longitude (degrees) of a global pixel corner at zoom z.
    public static func coordinate(pixelX: Double, pixelY: Double, zoom z: Int) -> (lat: Double, lon: Double) {
        let world = 256.0 * Double(1 << z)
        let lon = pixelX / world * 360 - 180
        let n = Double.pi - 2 * Double.pi * pixelY / world
        let lat = atan(sinh(n)) * 180 / Double.pi
        return (lat, lon)
    }
}

/// Which raster: fix counts (heat) or segment counts (lines). Raw value is the SQL `kind` column.
public enum TileKind: Int, Sendable, Hashable, CaseIterable {
    case heat = 0
    case lines = 1
}

/// A slippy tile at a zoom.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }
    public var isValid: Bool { z >= 0 && z <= 22 && x >= 0 && y >= 0 && x < (1 << z) && y < (1 << z) }
    public var description: String { "\(z)/\(x)/\(y)" }
}

/// Storage key of one raster row: `(z, x, y, kind)`.
public struct TileKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int
    public var kind: TileKind
    public init(z: Int, x: Int, y: Int, kind: TileKind) {
        self.z = z
        self.x = x
        self.y = y
        self.kind = kind
    }
    public init(_ tile: TileID, _ kind: TileKind) { self.init(z: tile.z, x: tile.x, y: tile.y, kind: kind) }
    public var tile: TileID { TileID(z: z, x: x, y: y) }
    /// Primary-key order (z, x, y, kind).
    public static func < (a: TileKey, b: TileKey) -> Bool {
        (a.z, a.x, a.y, a.kind.rawValue) < (b.z, b.x, b.y, b.kind.rawValue)
    }
    public var description: String { "\(kind == .heat ? "heat" : "lines")/\(z)/\(x)/\(y)" }
}

/// One GPS fix as the tile engine needs it.
public struct TileFix: Hashable, Sendable {
    public var source: Int64
    public var time: Int64  // ms since 1970
    public var lat: Int32  // 1e-7 degrees
    public var lon: Int32  // 1e-7 degrees
    public init(source: Int64 = 0, time: Int64, lat: Int32, lon: Int32) {
        self.source = source
        self.time = time
        self.lat = lat
        self.lon = lon
    }
}
