import Foundation

/// Why a circle cannot be measured. Messages name the circle's index and the field, never its
/// coordinates: those are personal data.
public enum ExploredAreaError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidCircle(index: Int, reason: String)

    /// One line naming the circle's index and the problem, never its coordinates.
    public var description: String {
        switch self {
        case let .invalidCircle(index, reason): "explored circle #\(index): \(reason)"
        }
    }
}

/// The area of the union of explored circles, on the sphere.
///
/// Circles are spherical caps on the authalic sphere (the sphere with the WGS84 ellipsoid's surface
/// area, so areas are true square metres). The union's area comes from its boundary: the arcs of each
/// circle's rim that no other circle covers. Each such arc adds
///   - its circular segment (the region between the arc and its geodesic chord), and
///   - the signed spherical triangle (Q, arc start, arc end) for a reference point Q;
/// around a closed boundary loop the triangles add up to the area of the chord polygon, so the total is
/// the exact area of the union, holes included. Both terms have closed forms: no polygonisation error,
/// no projection distortion, and nothing special at the antimeridian or the poles. Q is a circle centre
/// of the same group (see `NeighbourIndex.groups`), which keeps the triangles small and well conditioned.
///
/// Why not GEOS polygons: buffering 100,000 150 m centres as 32-gons and taking their unary union took
/// 8.3 s here, against a budget well under 1 s; this takes well under 0.1 s on such data.
public enum ExploredArea {
    /// Authalic radius of WGS84, metres.
    public static let sphereRadius = 6_371_007.2
    /// Largest radius accepted (the neighbour grid's classes are sized for it).
    public static let maximumRadius = 1_000_000.0

    /// Area in m² of the union of `circles`; overlaps count once. Circles of radius 0 add nothing.
    /// - Throws: `ExploredAreaError.invalidCircle` for a non-finite value, a latitude outside ±90°
    ///   or a radius outside 0…`maximumRadius`.
    public static func squareMeters(of circles: [ExploredCircle]) throws -> Double {
        let caps = try caps(of: circles)
        guard !caps.isEmpty else { return 0 }
        let index = NeighbourIndex(caps, sphereRadius: sphereRadius)
        let roots = index.groups(caps)
        // Each rim is independent work: spread it over the cores in chunks (more chunks than cores, so
        // a dense patch does not leave one core working alone), then add up in a fixed order so the
        // result does not depend on scheduling.
        var contributions = [Double](repeating: 0, count: caps.count)
        let chunkSize = 2048, chunks = (caps.count + chunkSize - 1) / chunkSize
        contributions.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // chunks write disjoint ranges
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                var rim = Rim()
                for i in chunk * chunkSize..<min(caps.count, (chunk + 1) * chunkSize) {
                    out[i] = rimContribution(of: i, caps, index, reference: caps[roots[i]].centre, rim: &rim)
                }
            }
        }
        var perGroup = [Double](repeating: 0, count: caps.count)
        for i in caps.indices { perGroup[roots[i]] += contributions[i] }
        // A group more than a hemisphere wide could wrap its triangle sum by a whole sphere.
        var total = 0.0
        for sum in perGroup where sum != 0 {
            let reduced = remainder(sum, 4 * Double.pi)
            total += reduced < -1e-9 ? reduced + 4 * Double.pi : max(reduced, 0)
        }
        return total * sphereRadius * sphereRadius
    }

    /// The caps of `circles` with a radius, validated, in an array of its exact size rather than
    /// one grown by doubling.
    static func caps(of circles: [ExploredCircle]) throws -> [Cap] {
        var caps: [Cap] = []
        caps.reserveCapacity(circles.count)
        for (index, circle) in circles.enumerated() {
            try circle.validate(index: index)
            guard circle.radius <= maximumRadius else {
                throw ExploredAreaError.invalidCircle(
                    index: index, reason: "radius \(circle.radius) m exceeds the \(Int(maximumRadius)) m limit")
            }
            if circle.radius > 0 { caps.append(Cap(circle, sphereRadius: sphereRadius)) }
        }
        return caps
    }

    /// Segments and chord triangles of the uncovered arcs of cap `i`, in steradians.
    private static func rimContribution(
        of i: Int, _ caps: [Cap], _ index: NeighbourIndex,
        reference q: Vector3, rim: inout Rim
    ) -> Double {
        let cap = RimFrame(caps[i])
        rim.reset()
        var hidden = false
        index.forEachCandidate(of: i, caps) { j in
            hidden = !cut(&rim, of: cap, i, by: caps[j], j) || rim.gaps.isEmpty
            return !hidden
        }
        if hidden { return 0 }
        if rim.isWhole { return 4 * .pi * cap.sinSquaredHalf }  // a whole cap, no vertices
        var sum = 0.0
        for (from, to) in rim.gaps { sum += arcTerm(cap, from: from, to: to, reference: q) }
        return sum
    }

    /// Cuts from `cap`'s rim the stretch inside `other`; false when `cap` lies wholly inside `other`.
    @inline(__always)
    private static func cut(_ rim: inout Rim, of cap: RimFrame, _ i: Int, by other: Cap, _ j: Int) -> Bool {
        let offset = other.centre - cap.centre
        let chordSquared = offset.dot(offset)
        let delta = centralAngle(chordSquared: chordSquared)
        // Containment is tested without slack: any tolerance would let near-identical circles hide each
        // other in a cycle (A in B in C in A) and all vanish. Only circles equal to rounding contain
        // each other both ways; of those the lowest index stays.
        if delta + cap.rho <= other.rho { return delta + other.rho <= cap.rho && j > i }
        if delta + other.rho <= cap.rho || delta >= cap.rho + other.rho { return true }
        // Half-angle α, seen from this centre, of the stretch inside `other`: the spherical law of
        // cosines, cos α = (cos ρj − cos ρi·cos δ) / (sin ρi·sin δ), in half-angle form so small circles
        // keep their digits: 2·(sin²(ρi/2) − sin²(ρj/2) + sin²(δ/2)·cos ρi) / (sin ρi·sin δ), with the
        // difference of squares as sin((ρi − ρj)/2)·sin((ρi + ρj)/2) (near-equal radii would cancel
        // away every digit) and sin²(δ/2) straight from the chord.
        let sd = chordSquared / 4
        let radiusTerm = sin((cap.metres - other.metres) / (2 * sphereRadius)) * sin((cap.rho + other.rho) / 2)
        let sinDelta = chordSquared.squareRoot() * (1 - sd).squareRoot()
        let cosAlpha = 2 * (radiusTerm + sd * cap.cosRho) / (cap.sinRho * sinDelta)
        if cosAlpha >= 1 { return true }  // touching from outside
        if cosAlpha <= -1 { return false }  // the whole rim inside, up to rounding
        let sinAlpha = (1 - cosAlpha * cosAlpha).squareRoot()
        let x = offset.dot(cap.east), y = offset.dot(cap.north)
        let length = (x * x + y * y).squareRoot()
        guard length > 0 else { return true }
        let toward = Direction(x: x / length, y: y / length)
        let start = toward.rotated(cos: cosAlpha, sin: -sinAlpha), end = toward.rotated(cos: cosAlpha, sin: sinAlpha)
        // Cut as two halves unless the stretch is well short of π: `Rim.cut` needs stretches that are
        // not within rounding of a half turn.
        if cosAlpha < 0.5 {
            rim.cut(from: start, to: toward)
            rim.cut(from: toward, to: end)
        } else {
            rim.cut(from: start, to: end)
        }
        return true
    }

    /// Segment of the rim between pseudo-angles `from` and `to` (counter-clockwise seen from space)
    /// plus the signed triangle (q, arc start, arc end).
    private static func arcTerm(_ cap: RimFrame, from: Double, to: Double, reference q: Vector3) -> Double {
        let a = Direction(pseudoAngle: from), b = Direction(pseudoAngle: to)
        let cosSpan = a.x * b.x + a.y * b.y, sinSpan = a.x * b.y - a.y * b.x
        var span = atan2(sinSpan, cosSpan)
        // Negative is an arc of π or more, or rounding on a vanishing one; the pseudo-angles (2 for a
        // half turn) tell which.
        if span < 0 { span = to - from > 1 ? span + 2 * .pi : 0 }
        // Cap sector minus the triangle (centre, start, end); past π that triangle turns negative,
        // which makes the subtraction the addition the larger segment needs.
        let t2 = cap.tanSquaredHalf
        let segment = span * 2 * cap.sinSquaredHalf - 2 * atan2(t2 * sinSpan, 1 + t2 * cosSpan)
        let u = cap.point(a) - q, v = cap.point(b) - q
        // Van Oosterom–Strackee, tan(E/2) = q·(a×b) / (1 + q·a + a·b + b·q), rewritten for the short
        // vectors u = a − q, v = b − q (|q| = 1) so nearby points keep their digits.
        let numerator = q.dot(u.cross(v))
        let denominator = 4 + 2 * q.dot(u) + 2 * q.dot(v) + u.dot(v)
        return segment + 2 * atan2(numerator, denominator)
    }
}

extension ExploredCircle {
    /// Shared by `ExploredArea` (which throws) and `WorldGrid` (which skips).
    func validate(index: Int) throws {
        func bad(_ reason: String) -> ExploredAreaError { .invalidCircle(index: index, reason: reason) }
        guard latitude.isFinite, longitude.isFinite else { throw bad("latitude and longitude must be finite") }
        guard (-90...90).contains(latitude) else { throw bad("latitude must lie within -90...90") }
        guard radius.isFinite, radius >= 0 else { throw bad("radius \(radius) m must be finite and not negative") }
    }
}

@inline(__always)
func sinSquaredHalf(_ angle: Double) -> Double {
    let s = sin(angle / 2)
    return s * s
}

/// The angle between unit vectors a chord of squared length `chordSquared` apart, 2·asin(c/2); the
/// series is exact to rounding below c = 0.01 (64 km) and much cheaper than asin or atan2.
@inline(__always)
func centralAngle(chordSquared: Double) -> Double {
    let c = chordSquared.squareRoot()
    guard c < 0.01 else { return 2 * asin(min(1, c / 2)) }
    return c * (1 + chordSquared * (1.0 / 24 + chordSquared * (3.0 / 640 + chordSquared * 5.0 / 7168)))
}

/// The uncovered part of one rim, as sorted disjoint gaps in pseudo-angle (0…4 for 0…2π). Neighbours
/// cut their stretch out: O(gaps) each rather than collecting and sorting every stretch, and in dense
/// neighbourhoods the gaps soon dwindle to a few or to none, which ends the rim's work early.
private struct Rim {
    private(set) var gaps: [(Double, Double)] = []
    private var spare: [(Double, Double)] = []

    var isWhole: Bool { gaps.count == 1 && gaps[0] == (0, 4) }

    mutating func reset() {
        gaps.removeAll(keepingCapacity: true)
        gaps.append((0, 4))
    }

    /// Cuts the counter-clockwise stretch `start`→`end`, shorter than π (and not within rounding of
    /// it). Such a stretch crosses angle 0 exactly when it runs from below the x axis to on or above it;
    /// deciding that from the signs, not from pseudo-angles, keeps a rounding-sized stretch from
    /// reading as a full turn.
    mutating func cut(from start: Direction, to end: Direction) {
        if start.y < 0, end.y >= 0 {
            cut(start.pseudoAngle, 4)
            cut(0, end.pseudoAngle)
        } else {
            cut(start.pseudoAngle, end.pseudoAngle)
        }
    }

    private mutating func cut(_ a: Double, _ b: Double) {
        guard a < b else { return }
        spare.removeAll(keepingCapacity: true)
        for (from, to) in gaps {
            if to <= a || from >= b {
                spare.append((from, to))  // untouched
                continue
            }
            if from < a { spare.append((from, a)) }
            if to > b { spare.append((b, to)) }
        }
        swap(&gaps, &spare)
    }
}

/// A unit direction in a cap's tangent plane.
struct Direction {
    var x, y: Double

    func rotated(cos c: Double, sin s: Double) -> Direction { Direction(x: x * c - y * s, y: x * s + y * c) }

    /// The position along the diamond |x| + |y| = 1: grows with the angle, 0..<2π onto 0..<4, and
    /// sorts like it without trigonometry.
    var pseudoAngle: Double {
        let p = x / (abs(x) + abs(y))
        return y >= 0 ? 1 - p : 3 + p
    }
}

extension Direction {
    /// The direction at a pseudo-angle; a gap's ends come back to their directions to rounding.
    init(pseudoAngle p: Double) {
        let dx = p < 2 ? 1 - p : p - 3
        let dy = p < 2 ? 1 - abs(dx) : abs(dx) - 1
        let length = (dx * dx + dy * dy).squareRoot()
        self.init(x: dx / length, y: dy / length)
    }
}

typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
    init(latitude: Double, longitude: Double) {
        let φ = latitude * .pi / 180, λ = longitude * .pi / 180
        self.init(cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    func dot(_ o: Self) -> Double { (self * o).sum() }
    func cross(_ o: Self) -> Self { Self(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x) }
}

/// A circle as a spherical cap: its unit centre and radius, 40 bytes (a million are 40 MB). What only
/// the rim being cut needs — a tangent frame and the radius's trigonometry — is in `RimFrame`, made
/// once per rim: a neighbour is read for its centre and radius alone, so the scan stays in cache.
struct Cap {
    private let x, y, z: Double
    let metres, rho: Double

    init(_ circle: ExploredCircle, sphereRadius: Double) {
        let centre = Vector3(latitude: circle.latitude, longitude: circle.longitude)
        (x, y, z) = (centre.x, centre.y, centre.z)
        metres = circle.radius
        rho = circle.radius / sphereRadius
    }

    var centre: Vector3 { Vector3(x, y, z) }
}

/// The cap whose rim is being cut: a tangent frame (east × north = centre, so growing angles run
/// counter-clockwise seen from space) and what the rim maths needs of the angular radius.
struct RimFrame {
    let centre, east, north: Vector3
    let metres, rho, sinRho, cosRho, sinSquaredHalf, tanSquaredHalf: Double

    init(_ cap: Cap) {
        centre = cap.centre
        // Any tangent frame will do; near a pole the local east is undefined, so borrow the x axis.
        let axis = abs(centre.z) > 0.9 ? Vector3(1, 0, 0) : Vector3(0, 0, 1)
        let tangent = axis.cross(centre)
        east = tangent / tangent.dot(tangent).squareRoot()
        north = centre.cross(east)
        metres = cap.metres
        rho = cap.rho
        sinRho = sin(rho)
        cosRho = cos(rho)
        sinSquaredHalf = RoquaProgress.sinSquaredHalf(rho)
        tanSquaredHalf = tan(rho / 2) * tan(rho / 2)
    }

    /// The rim point in tangent direction `d`.
    func point(_ d: Direction) -> Vector3 { centre * cosRho + (east * d.x + north * d.y) * sinRho }
}
