import RoquaBoundaries

/// Turns a shapefile record's flat list of rings into polygons.
///
/// The shapefile rule is: clockwise rings are shells, counter-clockwise rings are holes. Files in
/// the wild break it, so a hole that lies in no shell becomes a shell of its own, and a hole is
/// given to the smallest shell that encloses it (islands in lakes in islands stay right).
package enum RingAssembler {
    package struct Result: Sendable {
        package var polygons: [PolygonRings]
        /// Rings dropped for having fewer than four points, and holes promoted to shells.
        package var droppedRings: Int
        package var promotedHoles: Int
    }

    package static func assemble(_ rings: [Ring]) -> Result {
        var shells: [(ring: Ring, area: Double, box: BoundingBox)] = []
        var holes: [Ring] = []
        var dropped = 0
        for var ring in rings {
            guard ring.count >= 3 else {
                dropped += 1
                continue
            }
            if ring.xs.first != ring.xs.last || ring.ys.first != ring.ys.last {
                ring.xs.append(ring.xs[0])
                ring.ys.append(ring.ys[0])
            }
            guard ring.count >= 4 else {
                dropped += 1
                continue
            }
            let area = ring.signedArea
            if area == 0 {
                dropped += 1
                continue
            }
            if area < 0 { shells.append((ring, -area, ring.bounds)) } else { holes.append(ring) }
        }
        var polygons = shells.map { PolygonRings(shell: $0.ring) }
        var promoted = 0
        for hole in holes {
            // A hole may touch its shell at a vertex, where ray casting can go either way:
            // a few vertices spread over the ring decide, any one inside is enough.
            let samples = stride(from: 0, to: hole.count - 1, by: max(1, (hole.count - 1) / 5)).prefix(5)
            let owner = shells.indices
                .filter { i in
                    samples.contains {
                        shells[i].box.contains(x: hole.xs[$0], y: hole.ys[$0])
                            && shells[i].ring.encloses(x: hole.xs[$0], y: hole.ys[$0])
                    }
                }
                .min { shells[$0].area < shells[$1].area }
            if let owner {
                polygons[owner].holes.append(hole)
            } else {
                promoted += 1
                polygons.append(PolygonRings(shell: Ring(xs: hole.xs.reversed(), ys: hole.ys.reversed())))
            }
        }
        return Result(polygons: polygons, droppedRings: dropped, promotedHoles: promoted)
    }
}
