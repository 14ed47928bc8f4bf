/// The speed thresholds of the travel modes and the rules that tidy a move's runs.
enum ModeRules {
    /// Below this speed (m/s, 8 km/h) a fix is walking or standing.
    static let walkSpeed = 8.0 / 3.6
    /// From this speed (m/s, 160 km/h) a fix is too fast for the road: rail on land.
    static let railSpeed = 160.0 / 3.6
    /// From this speed (m/s, 270 km/h) a fix is flying; a 250 km/h train stays below it.
    static let flightSpeed = 270.0 / 3.6
    /// Boats move between these speeds, in m/s (about 3.6 and 72 km/h).
    static let boatMinimum = 1.0
    /// See `boatMinimum`.
    static let boatMaximum = 20.0
    /// A run whose 85th-percentile speed (m/s) passes 10 km/h is faster than walking.
    static let walkP85 = 10.0 / 3.6
    /// A run whose 85th-percentile speed (m/s) passes 25 km/h is faster than cycling: city cyclists
    /// ride at 15–20 km/h and an electric bicycle's help stops at 25, while a car's short city
    /// drive between two stays keeps 25–30 km/h with its slow ends pulling the median below 20.
    static let cycleP85 = 25.0 / 3.6
    /// A run whose median speed (m/s) passes 20 km/h is a vehicle in traffic, not a bicycle: city
    /// cyclists ride at 15–18 km/h, while a car in slow city traffic keeps 25–35 km/h with few fixes
    /// above 30 (a fast road cyclist can come out as road).
    static let cycleMedian = 20.0 / 3.6
    /// A hole is a flight when crossed faster than this (m/s, 250 km/h)...
    static let gapFlightSpeed = 250.0 / 3.6
    /// ...over more than this many metres.
    static let gapFlightMeters = 100_000.0
    /// Runs shorter than this many ms are folded into a neighbour.
    static let shortestRun: Int64 = 60_000
    /// A run of a single step (two fixes) shorter than this many ms is one speed sample, too few to
    /// tell a mode by (a phone fixing once a minute that leaves a stay by car shows a first "walk"
    /// step): it is folded into a neighbour too.
    static let shortestSingleStep: Int64 = 180_000
    /// Road or cycle runs shorter than this (ms) next to rail are the train speeding up or slowing down.
    static let railRamp: Int64 = 600_000
    /// Road or cycle runs shorter than this (ms) next to a boat are the boat leaving or nearing a pier drawn as land.
    static let boatRamp: Int64 = 180_000
    /// A boat run over water for less than this (ms), or for less than `longestBridgeMeters`, with
    /// wheels on both sides (or wheels on one and the move's end on the other), is a bridge: the
    /// Bosphorus bridges take a car one to four minutes out of a jam, the shortest ferries five or
    /// more, and a ferry is reached and left on foot.
    static let longestBridge: Int64 = 240_000
    /// See `longestBridge`: the Bosphorus bridges span 1.1–1.5 km of water, which a car in a jam on
    /// one can take ten minutes to cross.
    static let longestBridgeMeters = 1_600.0
    /// A walk run shorter than this (ms) between a bridge and the road is a red light or a jam, not a walk.
    static let longestRedLight: Int64 = 180_000
    /// A cycle run shorter than this (ms) that starts or ends a move next to the road is the car
    /// leaving or parking: slow fixes between a stay and the traffic.
    static let driveRamp: Int64 = 180_000
    /// Road, cycle or rail runs shorter than this (ms) next to a flight are taxiing, climbing or descending.
    static let flightRamp: Int64 = 1_200_000

    /// The mode of a run from its median and 85th-percentile speeds (m/s) and its share of fixes over water.
    static func mode(median: Double, p85: Double, waterShare: Double) -> TravelMode {
        if median >= flightSpeed { return .flight }
        if waterShare >= 0.5 && p85 <= boatMaximum && median >= boatMinimum { return .boat }
        if p85 >= railSpeed { return .rail }
        if p85 >= cycleP85 || median >= cycleMedian { return .road }
        if p85 >= walkP85 { return .cycle }
        return .walk
    }

    /// Highest plausible average speed of a mode in m/s, which a hole's straight-line speed must not pass to join it.
    static func topSpeed(_ mode: TravelMode) -> Double {
        switch mode {
        case .walk: return 2.5
        case .cycle: return 10
        case .road: return 45
        case .rail: return 100
        case .boat: return 20
        case .flight: return 400
        case .unknown: return 0
        }
    }

    /// The runs of a move after the tidying rules, in order: holes join a neighbour they fit, short
    /// stops between two runs of one mode join them, a bridge joins the road or rail it carries (and
    /// the stops next to it then join that), a car's slow start or stop joins its drive, ramps
    /// join the train, boat or plane they belong to,
    /// runs under a minute (or of one step under three) join the longer neighbour, and neighbours of one mode become one run.
    static func resolve(_ input: [MoveRun], stayMilliseconds: Int64, _ track: Track) -> [MoveRun] {
        var runs = mergingSameMode(input)
        guard runs.count > 1 else { return runs }
        for i in runs.indices where runs[i].isGap && runs[i].mode == .unknown {
            if i > 0, !runs[i - 1].isGap || runs[i - 1].mode != .unknown, runs[i].gapSpeed <= topSpeed(runs[i - 1].mode) {
                runs[i].mode = runs[i - 1].mode
            } else if i + 1 < runs.count, !runs[i + 1].isGap, runs[i].gapSpeed <= topSpeed(runs[i + 1].mode) {
                runs[i].mode = runs[i + 1].mode
            }
        }
        runs = mergingSameMode(runs)
        func joinShortStops() {
            for i in runs.indices.dropFirst().dropLast() where runs[i].mode == .walk && runs[i].duration < stayMilliseconds {
                let around = runs[i - 1].mode
                if around == runs[i + 1].mode && around != .walk && around != .unknown { runs[i].mode = around }
            }
            runs = mergingSameMode(runs)
        }
        joinShortStops()
        for i in runs.indices where runs[i].mode == .boat && isBridge(runs[i], track) {
            let sides = [bridgeNeighbour(runs, of: i, step: -1), bridgeNeighbour(runs, of: i, step: 1)].compactMap { $0 }
            guard !sides.isEmpty, sides.allSatisfy({ [.road, .cycle, .rail].contains(runs[$0].mode) }) else { continue }
            runs[i].mode = runs[sides.max { runs[$0].duration < runs[$1].duration }!].mode
        }
        runs = mergingSameMode(runs)
        joinShortStops()
        for i in Set([0, runs.count - 1]) where runs.count > 1 && runs[i].mode == .cycle && runs[i].duration < driveRamp {
            if runs[i == 0 ? 1 : i - 1].mode == .road { runs[i].mode = .road }
        }
        runs = mergingSameMode(runs)
        for _ in 0..<2 {
            for i in runs.indices {
                let neighbours = [i > 0 ? runs[i - 1].mode : nil, i + 1 < runs.count ? runs[i + 1].mode : nil]
                let mode = runs[i].mode
                if neighbours.contains(.flight) && [.road, .cycle, .rail].contains(mode) && runs[i].duration < flightRamp {
                    runs[i].mode = .flight
                } else if neighbours.contains(.rail) && [.road, .cycle].contains(mode) && runs[i].duration < railRamp {
                    runs[i].mode = .rail
                } else if neighbours.contains(.boat) && [.road, .cycle].contains(mode) && runs[i].duration < boatRamp {
                    runs[i].mode = .boat
                }
            }
            runs = mergingSameMode(runs)
        }
        for i in runs.indices where !runs[i].isGap && runs[i].isTooShort && runs.count > 1 {
            let before = i > 0 ? runs[i - 1] : nil
            let after = i + 1 < runs.count ? runs[i + 1] : nil
            if let before, before.duration >= (after?.duration ?? 0) {
                runs[i].mode = before.mode
            } else if let after {
                runs[i].mode = after.mode
            }
        }
        return mergingSameMode(runs)
    }

    /// Whether a boat run is short enough over water to be a bridge (see `longestBridge`): from its
    /// first fix over water to its last, without the approach on land at either end, and across
    /// any hole in between (a car ferry's phone asleep mid-crossing).
    static func isBridge(_ run: MoveRun, _ track: Track) -> Bool {
        guard run.lastWet > run.firstWet else { return true }
        return track.time(run.lastWet) - track.time(run.firstWet) < longestBridge
            || MoveSegmenter.length(track, run.firstWet, run.lastWet) < longestBridgeMeters
    }

    /// The run next to run `i` on the side `step` (-1 or 1) as a bridge sees it: past a red light
    /// (a walk under `longestRedLight`), nil at the move's end or at a run too short to keep its
    /// mode there (the slow start or stop of the drive).
    static func bridgeNeighbour(_ runs: [MoveRun], of i: Int, step: Int) -> Int? {
        var j = i + step
        if runs.indices.contains(j + step) && runs[j].mode == .walk && runs[j].duration < longestRedLight { j += step }
        guard runs.indices.contains(j) else { return nil }
        let atEnd = !runs.indices.contains(j + step)
        return atEnd && runs[j].isTooShort ? nil : j
    }

    /// `runs` with each series of neighbours of one mode joined into one run.
    static func mergingSameMode(_ runs: [MoveRun]) -> [MoveRun] {
        var result: [MoveRun] = []
        result.reserveCapacity(runs.count)
        for run in runs {
            if var previous = result.last, previous.mode == run.mode {
                previous.last = run.last
                previous.end = run.end
                previous.meters += run.meters
                previous.isGap = previous.isGap && run.isGap
                previous.gapSpeed = max(previous.gapSpeed, run.gapSpeed)
                previous.firstWet = min(previous.firstWet, run.firstWet)
                previous.lastWet = max(previous.lastWet, run.lastWet)
                result[result.count - 1] = previous
            } else {
                result.append(run)
            }
        }
        return result
    }
}
