import Foundation

/// Answers coordinates with country / province / district. One resolver per thread: it owns a
/// GEOS context and its prepared pieces. Share the `ResolverIndex`, not the resolver.
///
/// Rules:
/// - The deepest level is looked up first; its ancestors complete the answer, so a point in a
///   Türkiye district gets that district's province and country even where the coarser country
///   outline misses it.
/// - A point on a shared border (covered by two units of one level) goes to the unit with the
///   smaller code, so the answer never depends on file or thread order.
/// - A point inside a unit but in none of the deeper units its country has takes the deeper
///   levels from the nearest such unit of the same country within `fallbackMeters` (approximate).
/// - A point in no polygon takes the nearest unit within `fallbackMeters` (deepest level first)
///   and is flagged `approximate`; beyond that every level is nil (open sea).
public final class Resolver {
    public let index: ResolverIndex
    public var fallbackMeters: Double
    private let context = GEOSContext()
    private let cache: PieceCache
    private let cells: CellCache
    // The index's arrays, held here so the per-point loop reads them without touching `index`.
    private let grid: GridIndex
    private let pieceLevels: [AdminLevel]
    private let pieceBoxes: [BoundingBox]
    private let pieceUnits: [Int32]
    private let codeRank: [Int32]
    /// Per unit: the levels below it that its country has, deepest first (usually none).
    private let deeperLevels: [[AdminLevel]]

    /// Vertices of prepared pieces kept (a prepared vertex costs ~60-100 bytes with its index).
    public static let defaultCacheVertices = 1_000_000

    public init(index: ResolverIndex, fallbackMeters: Double = 1000, cacheVertices: Int = defaultCacheVertices) throws {
        self.index = index
        self.fallbackMeters = fallbackMeters
        cache = try PieceCache(context: context, index: index, vertexBudget: cacheVertices)
        cells = CellCache()
        (grid, pieceLevels, pieceBoxes, pieceUnits, codeRank) =
            (index.grid, index.pieceLevels, index.pieceBoxes, index.pieceUnits, index.codeRank)
        let levelsByCountry = index.levelsByCountry
        deeperLevels = index.units.map { unit in
            AdminLevel.deepestFirst.filter { $0 > unit.level && levelsByCountry[unit.country]?.contains($0) == true }
        }
    }

    public convenience init(path: String, fallbackMeters: Double = 1000) throws {
        try self.init(index: ResolverIndex(path: path), fallbackMeters: fallbackMeters)
    }

    public func resolve(latitude: Double, longitude: Double) throws(ResolveError) -> Resolution {
        try resolve(Coordinate(latitude: latitude, longitude: longitude))
    }

    public func resolve(_ coordinate: Coordinate) throws(ResolveError) -> Resolution {
        let c = try coordinate.validated()
        do {
            return try answer(c)
        } catch let error as ResolveError {
            throw error
        } catch {
            throw ResolveError.geometry(String(describing: error))
        }
    }

    private func answer(_ c: Coordinate) throws -> Resolution {
        let x = c.longitude, y = c.latitude
        var unit = try cells.unit(x: x, y: y) { box in try self.pureUnit(in: box) }
        if unit == nil {
            unit = try deepestCovering(x: x, y: y)
            if unit == nil, abs(x) == 180 {  // ±180 is one meridian: polygons may stop at either side
                unit = try deepestCovering(x: -x, y: y)
            }
        }
        if let unit {
            // Inside a unit whose country has deeper levels, but in none of them (e.g. in the
            // Bosphorus, which Natural Earth's Türkiye covers but no district does): the deeper
            // levels come from the nearest unit of the same country, flagged approximate.
            let deeper = deeperLevels[Int(unit)]
            if !deeper.isEmpty, let (near, meters) = try nearest(c, levels: deeper, country: index.units[Int(unit)].country) {
                return index.resolution(for: near, at: c, approximate: true, distance: meters)
            }
            return index.resolution(for: unit, at: c, approximate: false, distance: nil)
        }
        if let (near, meters) = try nearest(c, levels: [.district, .province, .country], country: nil) {
            return index.resolution(for: near, at: c, approximate: true, distance: meters)
        }
        return Resolution(coordinate: c, approximate: false, distanceMeters: nil)
    }

    /// The unit covering the point at the deepest level that has one; ties go to the smaller code.
    /// The GEOS point is made only when some piece's box holds the point (open sea needs none).
    private func deepestCovering(x: Double, y: Double) throws -> Int32? {
        var point: Geometry?
        var best: Int32 = -1, bestLevel = AdminLevel.district
        for piece in grid.pieces(x: x, y: y) {  // deepest level first
            let level = pieceLevels[Int(piece)]
            if best >= 0, level != bestLevel { break }
            let unit = pieceUnits[Int(piece)]
            guard unit != best, pieceBoxes[Int(piece)].contains(x: x, y: y) else { continue }
            if best >= 0, codeRank[Int(best)] < codeRank[Int(unit)] { continue }
            if point == nil { point = try context.point(x: x, y: y) }
            if try cache.piece(piece).covers(point!) { (best, bestLevel) = (unit, level) }
        }
        return best >= 0 ? best : nil
    }

    /// For the locality cache: the one unit that holds the whole box at the deepest level touching
    /// it, or nil when the box is mixed (a border runs through it) or touches nothing.
    private func pureUnit(in box: BoundingBox) throws -> Int32? {
        let rectangle = try context.rectangle(box)
        for level in AdminLevel.deepestFirst {
            var touching = Set<Int32>(), covering: Int32?
            for piece in grid.pieces(in: box) where pieceLevels[Int(piece)] == level {
                let pieceBox = index.pieceBoxes[Int(piece)]
                guard pieceBox.intersects(box) else { continue }
                let prepared = try cache.piece(piece)
                guard try prepared.intersects(rectangle) else { continue }
                touching.insert(index.pieceUnits[Int(piece)])
                if covering == nil, pieceBox.contains(box), try prepared.covers(rectangle) {
                    covering = index.pieceUnits[Int(piece)]
                }
            }
            if !touching.isEmpty { return touching.count == 1 ? covering : nil }
        }
        return nil
    }

    /// The nearest unit within `fallbackMeters`, trying the levels in order. Near ±180 the
    /// search also looks across the antimeridian, with the point shifted by 360°.
    private func nearest(_ c: Coordinate, levels: [AdminLevel], country: String?) throws -> (Int32, Double)? {
        guard fallbackMeters > 0 else { return nil }
        // Degrees per metre along a meridian, widened by 1 % so the box never cuts the circle.
        let dLat = fallbackMeters * 1.01 / (Geodesy.earthRadius * .pi / 180)
        let dLon = min(dLat / max(cos(c.latitude * .pi / 180), 1e-6), 360)
        var views = [c.longitude]
        if c.longitude - dLon < -180 { views.append(c.longitude + 360) }
        if c.longitude + dLon > 180 { views.append(c.longitude - 360) }
        for level in levels {
            // Candidates nearest box first; a box farther than the best answer cannot beat it.
            var candidates: [(piece: Int32, x: Double, lowerBound: Double)] = []
            for x in views {
                let box = BoundingBox(minX: x - dLon, minY: c.latitude - dLat, maxX: x + dLon, maxY: c.latitude + dLat)
                for piece in grid.pieces(in: box) where pieceLevels[Int(piece)] == level {
                    let pieceBox = index.pieceBoxes[Int(piece)]
                    guard pieceBox.intersects(box),
                          country == nil || index.units[Int(index.pieceUnits[Int(piece)])].country == country else { continue }
                    let nearestInBox = Coordinate(latitude: min(max(c.latitude, pieceBox.minY), pieceBox.maxY),
                                                  longitude: min(max(x, pieceBox.minX), pieceBox.maxX))
                    let bound = Geodesy.haversineMeters(Coordinate(latitude: c.latitude, longitude: x), nearestInBox) * 0.999
                    if bound <= fallbackMeters { candidates.append((piece, x, bound)) }
                }
            }
            candidates.sort { $0.lowerBound < $1.lowerBound }
            var best: (unit: Int32, meters: Double)?
            for candidate in candidates {
                if let b = best, candidate.lowerBound > b.meters { break }
                let unit = index.pieceUnits[Int(candidate.piece)]
                let near = try cache.piece(candidate.piece).geometry.nearestPoint(to: context.point(x: candidate.x, y: c.latitude))
                let meters = Geodesy.haversineMeters(c, Coordinate(latitude: near.y, longitude: near.x))
                guard meters <= fallbackMeters else { continue }
                if let b = best, b.meters < meters || (b.meters == meters && index.codeRank[Int(b.unit)] <= index.codeRank[Int(unit)]) {
                    continue
                }
                best = (unit, meters)
            }
            if let best { return best }
        }
        return nil
    }
}
