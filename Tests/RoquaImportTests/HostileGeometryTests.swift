import Foundation
import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

/// Invalid polygons whose repair GEOS would take minutes and gigabytes over: refused, naming the
/// record, its code and name, before GEOS is asked (too tangled) or when its time is up.
@Suite struct HostileGeometryTests {
    static func star(_ n: Int, centerX: Double = 2.5, centerY: Double = 2.5, radius: Double = 1.4) -> Ring {
        HostileGeometry.star(n, centerX: centerX, centerY: centerY, radius: radius)
    }

    /// The standard fixture with district D1 (inside P1) made a star of `n` vertices.
    static func scenario(star n: Int) throws -> Scenario {
        try Scenario { $0["districts.shp"].units[0].shape = .polygon([star(n)]) }
    }

    static func refusal(_ s: Scenario, repairSeconds: Double = 60) throws -> (error: BoundaryImportError, seconds: Double) {
        let started = Date()
        let error = try #require(throws: BoundaryImportError.self) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: [s.source.path], output: s.existing.path, repairSeconds: repairSeconds))
        }
        return (error, Date().timeIntervalSince(started))
    }

    @Test func crossingsAreCountedUpToTheLimit() {
        func crossings(_ ring: Ring, limit: Int = 100_000) -> Int? {
            RingCrossings.count([PolygonRings(shell: ring)], limit: limit, work: 10_000_000)
        }
        #expect(crossings(Self.star(21)) == 21 * 18 / 2)
        #expect(crossings(Self.star(101)) == 101 * 98 / 2)
        #expect(crossings(Self.star(801), limit: 1_000) == 1_001, "stops past the limit")
        #expect(crossings(Shapes.circle(centerX: 0, centerY: 0, radius: 1, vertices: 5_000)) == 0)
        let bowTie = Ring(xs: [0, 1, 1, 0, 0], ys: [0, 1, 0, 1, 0])
        #expect(crossings(bowTie) == 1)
        // Touching and overlapping edges add no faces: a ring traced back over itself, a hole touching its shell.
        #expect(crossings(Ring(xs: [0, 2, 2, 1, 1, 2, 2, 0, 0], ys: [0, 0, 1, 1, 2, 1, 3, 3, 0])) == 0)
        #expect(
            RingCrossings.count(
                [PolygonRings(shell: Shapes.square(x: 0, y: 0, size: 4), holes: [Shapes.square(x: 0, y: 1, size: 1)])],
                limit: 10, work: 1_000) == 0)
    }

    /// 201 vertices ran for minutes, 801 passed 1.1 GB in a minute: both refused at once.
    @Test func aTangledStarIsRefusedBeforeGEOSIsAsked() throws {
        for n in [201, 801] {
            let s = try Self.scenario(star: n)
            let (error, seconds) = try Self.refusal(s)
            #expect(error.description.hasPrefix("\(s.path("districts.shp")): record 1 (D1 Alpha)"), "\(error)")
            #expect(
                error.description.contains("cross each other more than 1000 times") && error.description.contains("fix or remove"),
                "\(error)")
            #expect(seconds < 10, "\(n) vertices: \(seconds) s")
            try expectUntouched(s.existing)
        }
    }

    /// Within the crossings allowed, the repair itself is stopped when its time is up.
    @Test func aRepairThatTakesTooLongIsStopped() throws {
        let s = try Self.scenario(star: 45)
        let (error, seconds) = try Self.refusal(s, repairSeconds: 0.001)
        #expect(
            error.description.contains("record 1 (D1 Alpha)") && error.description.contains("its repair took longer than 0.001 s"),
            "\(error)")
        #expect(seconds < 10)
        try expectUntouched(s.existing)
        // Given its time, the same star is repaired.
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [s.source.path], output: s.existing.path))
    }

    /// GEOS's fast rectangle clip fails on a repaired star ("Invalid number of points in
    /// LinearRing found 3"); the pieces then come from the overlay, and cover the whole.
    @Test func aClipGEOSCannotMakeFallsBackToTheOverlay() throws {
        let context = GEOSContext()
        let repaired = try context.polygonal([PolygonRings(shell: Self.star(61, centerX: 30, centerY: 30, radius: 5))]).madeValid()
        let pieces = try Subdivider.pieces(of: repaired, maxVertices: 256, maxDegrees: 4)
        let area = try pieces.reduce(0.0) { $0 + (try context.geometry(wkb: $1.wkb).area()) }
        let whole = try repaired.area()
        #expect(pieces.count > 1 && abs(area - whole) < 1e-9 * whole, "\(pieces.count) pieces, \(area) of \(whole)")
    }
}
