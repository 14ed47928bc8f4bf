/// A stretch of a move travelled by one mode: a range of kept fixes sharing its boundary fixes with
/// the stretches next to it.
struct MoveRun {
    /// Index of the kept fix the run starts at.
    var first: Int
    /// Index of the kept fix the run ends at.
    var last: Int
    /// Start in ms since 1970 UTC.
    var start: Int64
    /// End in ms since 1970 UTC.
    var end: Int64
    /// Mode judged so far.
    var mode: TravelMode
    /// Sum of great-circle steps in metres.
    var meters: Double
    /// Whether the run is a hole without fixes (phone off or no signal).
    var isGap: Bool
    /// For a hole, the straight-line speed across it in m/s: a lower bound of the real speed.
    var gapSpeed: Double
    /// Index of the run's first kept fix over water, `Int.max` when none is.
    var firstWet = Int.max
    /// Index of the run's last kept fix over water, `Int.min` when none is.
    var lastWet = Int.min

    /// Length in milliseconds.
    var duration: Int64 { end - start }

    /// Too short to keep a mode of its own: under a minute, or one step under three.
    var isTooShort: Bool {
        duration < ModeRules.shortestRun || (last - first <= 1 && duration < ModeRules.shortestSingleStep)
    }
}

/// Cuts the fixes between two stays into runs of one speed class each and judges their modes.
///
/// Each fix gets a speed over a centred window of at least a minute (or the phone's own speed), a
/// class from it (slow, wheels, fast, air, boat), and then the class most of the surrounding two
/// minutes have, so no single noisy fix switches modes. `MoveRules` then tidies the runs.
struct MoveSegmenter {
    /// A step longer than this many milliseconds (5 minutes) is a hole, judged on its own.
    static let gapMilliseconds: Int64 = 300_000
    /// Half the window over which a fix's speed is measured, in ms.
    static let speedHalfWindow: Int64 = 30_000
    /// Half the window of the majority vote over classes, in ms.
    static let voteHalfWindow: Int64 = 60_000
    /// The water under a fix is asked at most once per this many ms.
    static let waterSampling: Int64 = 30_000

    /// Speed classes a fix can fall in; their raw values index the vote counts.
    enum SpeedClass: UInt8 {
        /// Under 8 km/h: walking or standing.
        case slow = 0
        /// 8–160 km/h on land: bicycle or road.
        case wheels
        /// 160–270 km/h: high-speed rail.
        case fast
        /// Over 270 km/h: flying.
        case air
        /// 3.6–72 km/h over water.
        case boat
    }

    // Scratch buffers for the piece being cut, reused from piece to piece so no fix costs an allocation:
    // speeds in m/s, raw and voted `SpeedClass` raw values, water under each fix, and room to sort speeds.
    private var speeds: [Double] = []
    private var classes: [UInt8] = []
    private var voted: [UInt8] = []
    private var water: [Bool] = []
    private var sortBuffer: [Double] = []

    /// The runs of one mode each between kept fixes `a` and `b` (inclusive), before `MoveRules`.
    mutating func runs(_ track: Track, from a: Int, to b: Int, isOnLand: (Double, Double) -> Bool) -> [MoveRun] {
        var runs: [MoveRun] = []
        var pieceStart = a
        for k in a..<b where track.time(k + 1) - track.time(k) > Self.gapMilliseconds {
            if k > pieceStart { pieceRuns(track, pieceStart, k, isOnLand: isOnLand, into: &runs) }
            runs.append(Self.gapRun(track, k, isOnLand: isOnLand))
            pieceStart = k + 1
        }
        if b > pieceStart { pieceRuns(track, pieceStart, b, isOnLand: isOnLand, into: &runs) }
        return runs
    }

    /// The hole between kept fixes `k` and `k + 1`: flight when faster than 250 km/h over more than
    /// 100 km; boat when it starts or ends over water and its straight line lies mostly over water
    /// (`isOverWater`), at a boat's speed (a car ferry with the phone asleep for most of the
    /// crossing: what is left of the crossing on either side may be too short to be a boat of its
    /// own); else unknown. A hole from land to land is never a boat: a drive with the phone off
    /// round a bay, or a night's jump between two shores, may cross water in a straight line.
    static func gapRun(_ track: Track, _ k: Int, isOnLand: (Double, Double) -> Bool) -> MoveRun {
        let meters = track.haversine(k, k + 1)
        let seconds = Double(track.time(k + 1) - track.time(k)) / 1000
        let speed = seconds > 0 ? meters / seconds : 0
        var run = MoveRun(
            first: k, last: k + 1, start: track.time(k), end: track.time(k + 1), mode: .unknown, meters: meters, isGap: true,
            gapSpeed: speed)
        if speed > ModeRules.gapFlightSpeed && meters > ModeRules.gapFlightMeters {
            run.mode = .flight
        } else if speed >= holeBoatSpeed, speed <= ModeRules.topSpeed(.boat), isOverWater(track, k, meters: meters, isOnLand: isOnLand) {
            (run.mode, run.firstWet, run.lastWet) = (.boat, k, k + 1)
        }
        return run
    }

    /// Whether one end of the hole between kept fixes `k` and `k + 1` is over water and at least
    /// `holeWaterShare` of its straight line too: points every `holeWaterStep` metres inside it
    /// (3 to 32 of them).
    static func isOverWater(_ track: Track, _ k: Int, meters: Double, isOnLand: (Double, Double) -> Bool) -> Bool {
        let (lat0, lon0, lat1, lon1) = (track.latitude(k), track.longitude(k), track.latitude(k + 1), track.longitude(k + 1))
        guard abs(lon1 - lon0) <= 180 else { return false }  // across the antimeridian: not a ferry's hole
        guard !isOnLand(lat0, lon0) || !isOnLand(lat1, lon1) else { return false }
        let n = min(32, max(3, Int(meters / holeWaterStep)))
        var wet = 0
        for i in 1...n {
            let t = Double(i) / Double(n + 1)
            if !isOnLand(lat0 + t * (lat1 - lat0), lon0 + t * (lon1 - lon0)) { wet += 1 }
        }
        return Double(wet) >= holeWaterShare * Double(n)
    }

    /// The slowest straight-line speed (m/s, 7.2 km/h) of a hole that is a boat's: a ferry under
    /// way with the phone asleep crosses faster; slower, the journey stopped somewhere in the hole
    /// (a night ashore), and what carried it is unknown.
    static let holeBoatSpeed = 2.0
    /// The share of a hole's straight line over water that makes it a boat's (`isOverWater`).
    static let holeWaterShare = 0.75
    /// The spacing in metres of the points `isOverWater` asks about.
    static let holeWaterStep = 250.0

    /// Appends the runs of the piece `p0...p1` (no holes inside) to `runs`.
    private mutating func pieceRuns(_ track: Track, _ p0: Int, _ p1: Int, isOnLand: (Double, Double) -> Bool, into runs: inout [MoveRun]) {
        measureSpeeds(track, p0, p1)
        classify(track, p0, p1, isOnLand: isOnLand)
        vote(track, p0, p1)
        var r0 = p0
        while r0 < p1 {
            let cls = voted[r0 - p0]
            var r1 = r0
            while r1 + 1 < p1 && voted[r1 + 1 - p0] == cls { r1 += 1 }
            let end = r1 + 1
            let meters = Self.length(track, r0, end)
            let mode = judge(p0, r0, r1)
            var run = MoveRun(
                first: r0, last: end, start: track.time(r0), end: track.time(end), mode: mode, meters: meters, isGap: false,
                gapSpeed: 0)
            if let first = (r0...r1).first(where: { water[$0 - p0] }), let last = (r0...r1).last(where: { water[$0 - p0] }) {
                (run.firstWet, run.lastWet) = (first, last)
            }
            runs.append(run)
            r0 = end
        }
    }

    /// Length in metres of the path through kept fixes `a...b`: great-circle steps between the fixes
    /// used, skipping a fix that lies within the combined accuracy of the last one used (noise while standing).
    static func length(_ track: Track, _ a: Int, _ b: Int) -> Double {
        var meters = 0.0
        var anchor = a
        for k in (a + 1)..<(b + 1) {
            let noise = Self.noise(track, anchor, k)
            let d = track.local(anchor, k)
            if k == b || d * d > noise {
                meters += track.haversine(anchor, k)
                anchor = k
            }
        }
        return meters
    }

    /// Squared combined accuracy of kept fixes `a` and `b`, in square metres.
    @inline(__always) static func noise(_ track: Track, _ a: Int, _ b: Int) -> Double {
        let accuracyA = track.accuracy(a) ?? StayDetector.defaultAccuracy
        let accuracyB = track.accuracy(b) ?? StayDetector.defaultAccuracy
        return accuracyA * accuracyA + accuracyB * accuracyB
    }

    /// Fills `speeds` for `p0...p1`: the phone's speed, else the straight distance over a centred
    /// window of at least a minute divided by its time, zero when the distance is within the fixes' noise.
    private mutating func measureSpeeds(_ track: Track, _ p0: Int, _ p1: Int) {
        speeds.removeAll(keepingCapacity: true)
        var lo = p0
        var hi = p0
        for k in p0...p1 {
            let t = track.time(k)
            while lo + 1 <= k && track.time(lo + 1) <= t - Self.speedHalfWindow { lo += 1 }
            if hi < k { hi = k }
            while hi < p1 && track.time(hi) < t + Self.speedHalfWindow { hi += 1 }
            if let given = track.speed(k) {
                speeds.append(given)
                continue
            }
            let dt = Double(track.time(hi) - track.time(lo)) / 1000
            guard dt > 0 else {
                speeds.append(0)
                continue
            }
            let d = track.local(lo, hi)
            speeds.append(d * d <= Self.noise(track, lo, hi) ? 0 : d / dt)
        }
    }

    /// Fills `classes` and `water` for `p0...p1` from the speeds; asks `isOnLand` only at boat speeds, sparsely.
    private mutating func classify(_ track: Track, _ p0: Int, _ p1: Int, isOnLand: (Double, Double) -> Bool) {
        classes.removeAll(keepingCapacity: true)
        water.removeAll(keepingCapacity: true)
        var lastAsked: Int64? = nil
        var lastWater = false
        for k in p0...p1 {
            let v = speeds[k - p0]
            var onWater = false
            if v >= ModeRules.boatMinimum && v <= ModeRules.boatMaximum {
                let t = track.time(k)
                if lastAsked.map({ t - $0 >= Self.waterSampling }) ?? true {
                    lastWater = !isOnLand(track.latitude(k), track.longitude(k))
                    lastAsked = t
                }
                onWater = lastWater
            }
            water.append(onWater)
            let cls: SpeedClass
            if onWater {
                cls = .boat
            } else if v < ModeRules.walkSpeed {
                cls = .slow
            } else if v < ModeRules.railSpeed {
                cls = .wheels
            } else if v < ModeRules.flightSpeed {
                cls = .fast
            } else {
                cls = .air
            }
            classes.append(cls.rawValue)
        }
    }

    /// Fills `voted` for `p0...p1`: each fix's class becomes the class holding most time within ±1 minute.
    private mutating func vote(_ track: Track, _ p0: Int, _ p1: Int) {
        voted.removeAll(keepingCapacity: true)
        var counts = [Int64](repeating: 0, count: 5)
        func weight(_ k: Int) -> Int64 {
            let next = k < p1 ? track.time(k + 1) - track.time(k) : 0
            let previous = k > p0 ? track.time(k) - track.time(k - 1) : 0
            return max(1, min((next + previous) / 2, Self.voteHalfWindow))
        }
        var lo = p0
        var hi = p0
        for k in p0...p1 {
            let t = track.time(k)
            while hi <= p1 && track.time(hi) <= t + Self.voteHalfWindow {
                counts[Int(classes[hi - p0])] += weight(hi)
                hi += 1
            }
            while track.time(lo) < t - Self.voteHalfWindow {
                counts[Int(classes[lo - p0])] -= weight(lo)
                lo += 1
            }
            var best = Int(classes[k - p0])
            for cls in 0..<5 where counts[cls] > counts[best] { best = cls }
            voted.append(UInt8(best))
        }
    }

    /// The mode of the fixes `r0...r1` of the piece starting at `p0`, from their speed percentiles and water share.
    private mutating func judge(_ p0: Int, _ r0: Int, _ r1: Int) -> TravelMode {
        sortBuffer.removeAll(keepingCapacity: true)
        var wet = 0
        for k in r0...r1 {
            sortBuffer.append(speeds[k - p0])
            if water[k - p0] { wet += 1 }
        }
        let n = sortBuffer.count
        let high = min(n - 1, Int(Double(n - 1) * 0.85 + 0.5))
        let p85 = Selection.select(high, in: &sortBuffer, 0, n - 1)
        // Everything before `high` is now no greater than it: the median is among them.
        let median = Selection.select((n - 1) / 2, in: &sortBuffer, 0, high)
        return ModeRules.mode(median: median, p85: p85, waterShare: Double(wet) / Double(n))
    }
}

/// Order statistics without sorting.
package enum Selection {
    /// The value sorting `values[low...high]` would put at `k`, found in linear time (Hoare's
    /// selection, middle pivot): afterwards `values[low..<k]` are no greater and
    /// `values[k + 1...high]` no smaller than it. A full sort of every piece's speeds was a sixth
    /// of a year's segmentation.
    package static func select(_ k: Int, in values: inout [Double], _ low: Int, _ high: Int) -> Double {
        var (low, high) = (low, high)
        while low < high {
            let pivot = values[low + (high - low) / 2]
            var (i, j) = (low, high)
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                high = j
            } else if k >= i {
                low = i
            } else {
                return values[k]
            }
        }
        return values[k]
    }
}
