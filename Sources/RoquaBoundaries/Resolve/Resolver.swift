import Foundation

/// Answers coordinates with country / province / district. One resolver per thread (it keeps a
/// few per-thread caches); share the `ResolverIndex`, not the resolver.
///
/// Answers come from the precomputed cell index: open sea and the inside of units need no
/// geometry at all, a point in a cell a border crosses is placed against that cell's few edges
/// with exact-sign arithmetic, and the nearest-boundary fallback looks only at the units the
/// cell lists within the fallback distance. GEOS answers the rest (`GeometryPath`).
///
/// Rules:
/// - Points on a boundary count as inside (GEOS `covers`).
/// - One answer per place (`AnswerRule`): the most precise layer covering the point decides
///   the country; the answer is the deepest unit of that country covering it, with its
///   ancestors. Units of one layer sharing a border: the smaller code wins.
/// - A point inside a unit whose country has deeper levels, but in none of them, takes the
///   deeper levels from the nearest such unit of the same country within `fallbackMeters`
///   (approximate).
/// - A point in no polygon takes the nearest unit within `fallbackMeters` (deepest level first)
///   and is flagged `approximate`; beyond that every level is nil (open sea).
public final class Resolver {
    /// The shared index this resolver answers from.
    public let index: ResolverIndex
    /// Metres within which the nearest boundary answers a point no polygon holds (0 turns it off).
    public var fallbackMeters: Double
    /// This resolver's walk through the cells, in memory of its own: reached through a pointer,
    /// it is used in place with no copy and no dynamic exclusivity check per point (only this
    /// resolver's thread touches it).
    private let cells: UnsafeMutablePointer<CellLookup>
    private let units: UnitTable
    private let cacheVertices: Int
    private var geometryPath: GeometryPath?
    /// The indexed search radius at 85° latitude: below it, a point this far from ±180 needs no wrap-around.
    private let reachAt85: Double

    /// Vertices of prepared pieces kept for the GEOS path (a prepared vertex costs ~60-100 bytes).
    public static let defaultCacheVertices = 200_000

    /// A resolver over `index` (open the index once, make one resolver per thread).
    /// - Throws: never for now; kept so that opening per-thread resources may fail later.
    public init(index: ResolverIndex, fallbackMeters: Double = 1000, cacheVertices: Int = defaultCacheVertices) throws {
        self.index = index
        self.fallbackMeters = fallbackMeters
        self.cacheVertices = cacheVertices
        units = index.table
        cells = .allocate(capacity: 1)
        cells.initialize(to: CellLookup(index: index.cells, units: index.table))
        reachAt85 = Geodesy.searchRadiusDegrees(meters: index.cells.fallbackMeters, latitude: 85)
    }

    deinit {
        cells.deinitialize(count: 1)
        cells.deallocate()
    }

    /// A resolver over the boundary DB at `path`.
    /// - Throws: `BoundaryDatabaseError` when the DB cannot be opened.
    public convenience init(path: String, fallbackMeters: Double = 1000) throws {
        try self.init(index: ResolverIndex(path: path), fallbackMeters: fallbackMeters)
    }

    /// The answer for one coordinate.
    /// - Throws: `ResolveError.invalidCoordinate` for NaN, infinities and values out of range;
    ///   `ResolveError.geometry` when the DB cannot be read.
    public func resolve(latitude: Double, longitude: Double) throws(ResolveError) -> Resolution {
        try resolve(Coordinate(latitude: latitude, longitude: longitude))
    }

    /// The answer for one coordinate. - Throws: as `resolve(latitude:longitude:)`.
    public func resolve(_ coordinate: Coordinate) throws(ResolveError) -> Resolution {
        index.resolution(for: try placement(coordinate), at: coordinate)
    }

    /// The answer as unit ids, without building names: the fast path for many points.
    /// - Throws: as `resolve(latitude:longitude:)`.
    public func placement(_ coordinate: Coordinate) throws(ResolveError) -> Placement {
        let c = try coordinate.validated()
        do {
            return try place(c)
        } catch let error as ResolveError {
            throw error
        } catch {
            throw ResolveError.geometry(String(describing: error))
        }
    }

    @inline(__always)
    private func place(_ c: Coordinate) throws -> Placement {
        let x = c.longitude, y = c.latitude
        var leaf = try cells.pointee.leaf(x: x, y: y)
        var best = try covering(leaf, x: x, y: y)
        if best == -1, abs(x) == 180 {  // ±180 is one meridian: polygons may stop at either side
            let other = try cells.pointee.leaf(x: -x, y: y)
            let flipped = try covering(other, x: -x, y: y)
            if flipped == -2 { best = -2 } else if flipped >= 0 { (leaf, best) = (other, flipped) }
        }
        if best == -2 { return try geometry().placement(c, fallbackMeters: fallbackMeters) }
        if best >= 0, units.isComplete(best) || fallbackMeters <= 0 { return .exact(best) }
        guard fallbackMeters > 0 else { return .nowhere }
        let belowLevel = best >= 0 ? Int(units.level[Int(best)]) : -1
        let country = best >= 0 ? units.country[Int(best)] : -1
        let near: (Int32, Double)?
        if isIndexed(x: x, y: y), !Self.isMixed(leaf.value) {
            near = nil  // an empty or whole-answer leaf has no unit within the indexed distance
        } else if isIndexed(x: x, y: y), CellLookup.record(leaf).flags & CellFormat.leafNearUsesGeometry == 0 {
            near = cells.pointee.nearest(leaf, c, deeperThan: belowLevel, country: country, meters: fallbackMeters)
        } else {
            near = try geometry().nearest(c, deeperThan: belowLevel, country: country, meters: fallbackMeters)
        }
        if let (unit, meters) = near { return Placement(unit: UnitID(raw: unit), approximate: true, distanceMeters: meters) }
        return best >= 0 ? .exact(best) : .nowhere
    }

    /// Whether the cell index's nearby-unit lists answer the fallback here: the distance is
    /// within the indexed one, and the search does not reach across the antimeridian (the lists
    /// do not wrap around).
    @inline(__always)
    private func isIndexed(x: Double, y: Double) -> Bool {
        let indexed = index.cells.fallbackMeters
        guard fallbackMeters <= indexed else { return false }
        if abs(y) <= 85, abs(x) < 180 - reachAt85 { return true }
        return 180 - abs(x) > Geodesy.searchRadiusDegrees(meters: fallbackMeters, latitude: y)
    }

    @inline(__always)
    private static func isMixed(_ value: UInt32) -> Bool {
        value & CellFormat.answerFlag == 0 && value != CellFormat.empty
    }

    /// The answer unit among the units covering (x, y) in `leaf`, -1 for none, or -2 when the
    /// leaf is left to GEOS.
    @inline(__always)
    private func covering(_ leaf: CellLookup.Leaf, x: Double, y: Double) throws -> Int32 {
        if leaf.value == CellFormat.empty { return -1 }
        if leaf.value & CellFormat.answerFlag != 0 { return Int32(bitPattern: leaf.value & ~(CellFormat.leafFlag | CellFormat.answerFlag)) }
        if CellLookup.record(leaf).flags & CellFormat.leafUsesGeometry != 0 { return -2 }
        return try cells.pointee.covering(leaf, x: x, y: y) { unit in try geometry().covers(unit, x: x, y: y) }
    }

    private func geometry() throws -> GeometryPath {
        if let geometryPath { return geometryPath }
        let path = try GeometryPath(index: index, cacheVertices: cacheVertices)
        geometryPath = path
        return path
    }

    /// The answer from GEOS alone, ignoring the cell index: the reference the tests compare with.
    package func geometryPlacement(_ coordinate: Coordinate) throws -> Placement {
        try geometry().placement(coordinate.validated(), fallbackMeters: fallbackMeters)
    }
}

extension Resolver {
    /// Whether a country's boundary lies under the point itself, not the nearest one a few hundred
    /// metres off (the Bosphorus is water): the timeline's test for a boat.
    public func isOnLand(latitude: Double, longitude: Double) -> Bool {
        guard let answer = try? resolve(latitude: latitude, longitude: longitude) else { return false }
        return answer.country != nil && !answer.approximate
    }
}
