import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

@Suite struct RingAssemblerTests {
    private let shell = Shapes.square(x: 0, y: 0, size: 10)

    @Test func fixtureRingsHaveTheOrientationsTheyClaim() {
        #expect(Shapes.square(x: 0, y: 0, size: 1).signedArea == -1)
        #expect(Shapes.square(x: 0, y: 0, size: 1, clockwise: false).signedArea == 1)
        #expect(Shapes.circle(centerX: 0, centerY: 0, radius: 1, vertices: 8).signedArea < 0)
        #expect(Shapes.bowTie(x: 0, y: 0, size: 4).signedArea < 0)
    }

    @Test func shellWithHole() {
        let hole = Shapes.square(x: 2, y: 2, size: 3, clockwise: false)
        let result = RingAssembler.assemble([shell, hole])
        #expect(result.polygons == [PolygonRings(shell: shell, holes: [hole])])
        #expect(result.droppedRings == 0)
        #expect(result.promotedHoles == 0)
    }

    @Test func holeBeforeItsShell() {
        let hole = Shapes.square(x: 2, y: 2, size: 3, clockwise: false)
        let result = RingAssembler.assemble([hole, shell])
        #expect(result.polygons == [PolygonRings(shell: shell, holes: [hole])])
    }

    @Test func twoShells() {
        let other = Shapes.square(x: 20, y: 0, size: 5)
        let result = RingAssembler.assemble([shell, other])
        #expect(result.polygons == [PolygonRings(shell: shell), PolygonRings(shell: other)])
        #expect(result.promotedHoles == 0)
    }

    /// Each hole goes to the shell it lies in, not to the first one.
    @Test func twoShellsWithAHoleEach() {
        let other = Shapes.square(x: 20, y: 0, size: 5)
        let holeInOther = Shapes.square(x: 21, y: 1, size: 1, clockwise: false)
        let holeInFirst = Shapes.square(x: 1, y: 1, size: 1, clockwise: false)
        let result = RingAssembler.assemble([shell, other, holeInOther, holeInFirst])
        #expect(
            result.polygons == [
                PolygonRings(shell: shell, holes: [holeInFirst]),
                PolygonRings(shell: other, holes: [holeInOther]),
            ])
    }

    /// A triangular hole whose corner is the shell's corner (0, 0).
    @Test func holeTouchingItsShellAtAVertex() {
        let hole = Shapes.ring([(0, 0), (6, 2), (2, 6), (0, 0)])
        #expect(hole.signedArea > 0)
        let result = RingAssembler.assemble([shell, hole])
        #expect(result.polygons == [PolygonRings(shell: shell, holes: [hole])])
        #expect(result.promotedHoles == 0)
    }

    /// A hole whose first vertex lies on the middle of the shell's left edge.
    @Test func holeTouchingTheShellEdge() {
        let hole = Shapes.ring([(0, 5), (4, 3), (4, 7), (0, 5)])
        #expect(hole.signedArea > 0)
        let result = RingAssembler.assemble([shell, hole])
        #expect(result.polygons == [PolygonRings(shell: shell, holes: [hole])])
    }

    /// Shell ⊃ lake ⊃ island ⊃ pond: the lake belongs to the outer shell, the pond to the island.
    @Test func islandInLakeInShell() {
        let lake = Shapes.square(x: 2, y: 2, size: 6, clockwise: false)
        let island = Shapes.square(x: 3, y: 3, size: 4)
        let result = RingAssembler.assemble([shell, lake, island])
        #expect(result.polygons == [PolygonRings(shell: shell, holes: [lake]), PolygonRings(shell: island)])

        let pond = Shapes.square(x: 4, y: 4, size: 1, clockwise: false)
        let deeper = RingAssembler.assemble([pond, island, lake, shell])
        #expect(deeper.polygons == [PolygonRings(shell: island, holes: [pond]), PolygonRings(shell: shell, holes: [lake])])
        #expect(deeper.promotedHoles == 0)
    }

    @Test func counterClockwiseRingOutsideEveryShellIsPromoted() {
        let stray = Shapes.square(x: 20, y: 20, size: 2, clockwise: false)
        let result = RingAssembler.assemble([shell, stray])
        #expect(result.promotedHoles == 1)
        #expect(result.polygons.count == 2)
        #expect(result.polygons[0] == PolygonRings(shell: shell))
        #expect(result.polygons[1] == PolygonRings(shell: Shapes.reversed(stray)))
        #expect(result.polygons[1].shell.signedArea < 0)
    }

    @Test func counterClockwiseOnlyRecordIsPromoted() {
        let ring = Shapes.square(x: 0, y: 0, size: 3, clockwise: false)
        let result = RingAssembler.assemble([ring])
        #expect(result.promotedHoles == 1)
        #expect(result.polygons == [PolygonRings(shell: Shapes.reversed(ring))])
    }

    @Test func unclosedRingIsClosed() throws {
        let open = Shapes.ring([(0, 0), (0, 4), (4, 4), (4, 0)])
        let result = RingAssembler.assemble([open])
        #expect(result.droppedRings == 0)
        try #require(result.polygons.count == 1)
        let ring = result.polygons[0].shell
        #expect(ring.xs == [0, 0, 4, 4, 0])
        #expect(ring.ys == [0, 4, 4, 0, 0])
    }

    @Test func unclosedTriangleIsClosedNotDropped() {
        let result = RingAssembler.assemble([Shapes.ring([(0, 0), (0, 4), (4, 0)])])
        #expect(result.droppedRings == 0)
        #expect(result.polygons.map(\.shell.count) == [4])
    }

    @Test func degenerateRingsAreDropped() {
        let rings = [
            Shapes.ring([(0, 0), (1, 1)]),  // two points
            Shapes.ring([(0, 0), (1, 1), (0, 0)]),  // closed, three points
            Shapes.ring([(0, 0), (1, 1), (2, 2), (0, 0)]),  // collinear: no area
            Shapes.ring([(5, 5), (5, 5), (5, 5), (5, 5)]),  // one repeated point
            Shapes.ring([]),
        ]
        let result = RingAssembler.assemble(rings + [shell])
        #expect(result.droppedRings == rings.count)
        #expect(result.polygons == [PolygonRings(shell: shell)])
        #expect(RingAssembler.assemble(rings).polygons.isEmpty)
    }
}
