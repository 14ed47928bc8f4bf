import Foundation
import RoquaTimeline

/// Writes a synthetic phone track and its exact truth, one stay or move at a time.
struct SyntheticBuilder {
    /// The random source.
    var rng: SplitMix64
    /// Current time in seconds since 1970 UTC.
    var now: Double
    /// Where the person is now.
    var position: GeoPoint
    /// Whether the phone reports its speed (decided per day).
    var reportsSpeed = false
    /// The fixes written so far, in time order.
    var fixes: [TimelineFix] = []
    /// The true stays so far.
    var stays: [TruthStay] = []
    /// The true moves so far.
    var moves: [TruthMove] = []

    /// A builder starting at `start` (seconds since 1970 UTC) at `position`.
    init(seed: UInt64, start: Double, position: GeoPoint) {
        rng = SplitMix64(seed: seed)
        now = start
        self.position = position
    }

    /// Appends a fix at `time` (s) near `point` with noise `sigma` (m), reporting accuracy `accuracy` (m) and `speed` (m/s).
    mutating func emit(_ time: Double, _ point: GeoPoint, sigma: Double, accuracy: Double, speed: Double?) {
        let noisy = point.offset(north: rng.gaussian(sigma), east: rng.gaussian(sigma))
        let reported = reportsSpeed ? speed.map { max(0, $0 + rng.gaussian(0.3)) } : nil
        fixes.append(
            TimelineFix(time: Int64(time * 1000), latitude: noisy.latitude, longitude: noisy.longitude, accuracy: accuracy, speed: reported)
        )
    }

    /// Stays at the current position until `until` (s): fixes every 15–60 s with noise σ 5–30 m,
    /// optional indoor drift (30–80 m wander), one outlier 500 m off with 600 m accuracy, and the phone off from `off.0` to `off.1` (s).
    mutating func stay(until: Double, drift: Bool = false, outlier: Bool = false, off: (Double, Double)? = nil) {
        let start = now
        let sigma = rng.uniform(5, 30)
        let accuracy = sigma * rng.uniform(1.2, 2)
        let base = rng.uniform(15, 60)
        var wander = (north: 0.0, east: 0.0)
        let outlierAt = outlier ? start + (until - start) * rng.uniform(0.3, 0.7) : -1
        var t = start
        var outlierDone = false
        while true {
            let inHole = off.map { t > $0.0 && t < $0.1 } ?? false
            if !inHole {
                if drift {
                    wander.north = wander.north * 0.9 + rng.gaussian(20)
                    wander.east = wander.east * 0.9 + rng.gaussian(20)
                    let r = (wander.north * wander.north + wander.east * wander.east).squareRoot()
                    if r > 80 {
                        wander.north *= 80 / r
                        wander.east *= 80 / r
                    }
                }
                let here = position.offset(north: wander.north, east: wander.east)
                emit(t, here, sigma: sigma, accuracy: accuracy, speed: 0)
                if !outlierDone && outlierAt > 0 && t >= outlierAt {
                    let angle = rng.uniform(0, 2 * Double.pi)
                    emit(t + 1, position.offset(north: 500 * cos(angle), east: 500 * sin(angle)), sigma: 0, accuracy: 600, speed: nil)
                    outlierDone = true
                }
            }
            if t >= until { break }
            var step = base * rng.uniform(0.6, 1.4)
            if let off, t < off.0 && t + step > off.0 { step = off.0 - t }
            if let off, t >= off.0 && t < off.1 { step = off.1 - t }
            t = min(until, t + step)
        }
        stays.append(TruthStay(start: Int64(start * 1000), end: Int64(until * 1000), place: position))
        now = until
    }

    /// Travels by `mode` to `destination` at about `kmh` km/h along a straight line, with fixes every
    /// 5–30 s; roads get red-light stops (20–150 s every 0.6–2 km); `hole` is (minutes after start, minutes long) without fixes.
    mutating func travel(_ mode: TravelMode, to destination: GeoPoint, kmh: Double, hole: (Double, Double)? = nil) {
        let start = now
        let length = position.distance(to: destination)
        let cruise = kmh / 3.6
        let acceleration: Double
        switch mode {
        case .rail: acceleration = 0.5
        case .flight: acceleration = 1.5
        case .boat: acceleration = 0.2
        case .road: acceleration = 1.5
        default: acceleration = 5
        }
        var stops: [(at: Double, seconds: Double)] = []
        if mode == .road {
            var at = rng.uniform(600, 2000)
            while at < length - 300 {
                stops.append((at, rng.uniform(20, 150)))
                at += rng.uniform(600, 2000)
            }
        }
        let sigma = mode == .flight ? rng.uniform(10, 30) : rng.uniform(4, 12)
        let accuracy = sigma * rng.uniform(1.2, 2)
        let base = mode == .flight ? rng.uniform(20, 60) : rng.uniform(5, 30)
        let holeStart = hole.map { start + $0.0 * 60 } ?? .infinity
        let holeEnd = hole.map { start + ($0.0 + $0.1) * 60 } ?? .infinity
        var s = 0.0
        var t = start
        var nextFix = t + base * rng.uniform(0.5, 1.5)
        var jitter = 1.0
        var jitterUntil = t
        var stopIndex = 0
        let origin = position
        func emitDue(_ builder: inout SyntheticBuilder, _ t: Double, _ s: Double, _ v: Double) {
            while nextFix <= t {
                if nextFix < holeStart || nextFix >= holeEnd {
                    builder.emit(nextFix, origin.toward(destination, s / length), sigma: sigma, accuracy: accuracy, speed: v)
                }
                nextFix += base * builder.rng.uniform(0.5, 1.5)
            }
        }
        while s < length {
            if stopIndex < stops.count && s >= stops[stopIndex].at {
                let until = t + stops[stopIndex].seconds
                emitDue(&self, until, s, 0)
                t = until
                stopIndex += 1
                continue
            }
            if t >= jitterUntil {
                jitter = rng.uniform(0.85, 1.1)
                jitterUntil = t + 20
            }
            let previousStop = stopIndex > 0 ? stops[stopIndex - 1].at : 0
            let nextStop = stopIndex < stops.count ? stops[stopIndex].at : length
            let ramp = min(
                (2 * acceleration * max(s - previousStop, 0)).squareRoot(), (2 * acceleration * max(nextStop - s, 0)).squareRoot())
            let v = max(1, min(cruise * jitter, ramp + 1))
            s = min(length, s + v)
            t += 1
            emitDue(&self, t, s, v)
        }
        moves.append(TruthMove(start: Int64(start * 1000), end: Int64(t * 1000), mode: mode))
        position = destination
        now = t
    }

    /// Flies to `destination` in `minutes` with the phone off: no fixes until arrival.
    mutating func flyPhoneOff(to destination: GeoPoint, minutes: Double) {
        moves.append(TruthMove(start: Int64(now * 1000), end: Int64((now + minutes * 60) * 1000), mode: .flight))
        now += minutes * 60
        position = destination
    }
}
