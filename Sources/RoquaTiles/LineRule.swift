import Foundation

/// When two consecutive fixes of one source are joined by a line.
///
/// A segment is drawn only if `0 ≤ Δt ≤ maxGap` and the implied speed is at most
/// `maxSpeedKmh` (distance ≤ maxSpeed · max(Δt, 1 s)). Flights are therefore *skipped*, not
/// drawn as arcs: a plane (≥ ~350 km/h, or a fix gap > 10 min) breaks the line. Segments
/// crossing the antimeridian (|Δx| > half the world) are skipped too.
///
/// Jitter: a fix closer than `minStepMeters` to the line's last vertex does not become a vertex
/// (GPS noise while standing still would scribble); the gap is still measured from the last fix.
public struct LineRule: Sendable, Hashable {
    public var maxGapMs: Int64
    public var maxSpeedKmh: Double
    public var minStepMeters: Double
    public init(maxGapMs: Int64 = 10 * 60_000, maxSpeedKmh: Double = 350, minStepMeters: Double = 25) {
        self.maxGapMs = maxGapMs
        self.maxSpeedKmh = maxSpeedKmh
        self.minStepMeters = minStepMeters
    }

    /// Outcome for a new fix relative to the line's last vertex.
    public enum Step: Sendable { case breakLine, jitter, draw }

    @inlinable
    public func step(t0: Int64, lat0: Int32, lon0: Int32, t1: Int64, lat1: Int32, lon1: Int32) -> Step {
        let dt = t1 - t0
        if dt < 0 || dt > maxGapMs { return .breakLine }
        let dLon0 = abs(Int64(lon1) - Int64(lon0))
        if dLon0 > 1_800_000_000 { return .breakLine }  // antimeridian
        let meanLat = Double(Int64(lat0) + Int64(lat1)) * 0.5e-7 * (Double.pi / 180)
        let dy = Double(Int64(lat1) - Int64(lat0)) * 1e-7 * 111_195.0
        let dx = Double(dLon0) * 1e-7 * 111_195.0 * cos(meanLat)
        let dist2 = dx * dx + dy * dy
        let maxDist = maxSpeedKmh / 3.6 * Double(max(dt, 1000)) / 1000
        if dist2 > maxDist * maxDist { return .breakLine }
        return dist2 < minStepMeters * minStepMeters ? .jitter : .draw
    }
    public static let standard = LineRule()

    /// Whether a fix at (t1, lat1, lon1) continues the line from (t0, lat0, lon0) (jitter included).
    @inlinable
    public func connects(t0: Int64, lat0: Int32, lon0: Int32, t1: Int64, lat1: Int32, lon1: Int32) -> Bool {
        step(t0: t0, lat0: lat0, lon0: lon0, t1: t1, lat1: lat1, lon1: lon1) != .breakLine
    }
}

/// Integer Bresenham between two global pixels (both ends inclusive unless `skipStart`).
/// Used by both the accumulator and the direct renderer, so their pixels are identical.
@inline(__always)
public func bresenham(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, skipStart: Bool, _ body: (Int, Int) -> Void) {
    let dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1
    let dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1
    var err = dx + dy
    var x = x0, y = y0
    if !skipStart { body(x, y) }
    while x != x1 || y != y1 {
        let e2 = 2 * err
        if e2 >= dy {
            err += dy
            x += sx
        }
        if e2 <= dx {
            err += dx
            y += sy
        }
        body(x, y)
    }
}
