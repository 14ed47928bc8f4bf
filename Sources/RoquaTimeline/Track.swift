/// The fixes kept for segmentation: the caller's fixes in time order, read through a list of kept indices.
struct Track {
    /// All fixes, in time order.
    let fixes: [TimelineFix]
    /// Indices into `fixes` of the fixes that survived the outlier filter, ascending.
    let kept: [Int]
    /// The cosine of each fix's latitude (`Geodesy.cosine(ofLatitude:)`), by its index in
    /// `fixes`, taken once: the filter and every distance to and from a fix use it.
    let cosines: [Double]

    /// The kept fixes of `fixes` (in time order) after `FixFilter`.
    init(_ fixes: [TimelineFix]) {
        self.fixes = fixes
        cosines = fixes.map { Geodesy.cosine(ofLatitude: $0.latitude) }
        kept = FixFilter.kept(fixes, cosines: cosines)
    }

    /// Number of kept fixes.
    var count: Int { kept.count }

    /// The cosine of kept fix `k`'s latitude.
    @inline(__always) func cosine(_ k: Int) -> Double { cosines[kept[k]] }
    /// Time of kept fix `k`, in ms since 1970 UTC.
    @inline(__always) func time(_ k: Int) -> Int64 { fixes[kept[k]].time }
    /// Latitude of kept fix `k`, in degrees.
    @inline(__always) func latitude(_ k: Int) -> Double { fixes[kept[k]].latitude }
    /// Longitude of kept fix `k`, in degrees.
    @inline(__always) func longitude(_ k: Int) -> Double { fixes[kept[k]].longitude }
    /// Accuracy of kept fix `k` in metres, nil when not reported.
    @inline(__always) func accuracy(_ k: Int) -> Double? { fixes[kept[k]].accuracy }
    /// Speed reported with kept fix `k` in m/s, nil when not reported or negative.
    @inline(__always) func speed(_ k: Int) -> Double? {
        guard let speed = fixes[kept[k]].speed, speed >= 0, speed.isFinite else { return nil }
        return speed
    }

    /// Great-circle distance in metres between kept fixes `a` and `b`.
    @inline(__always) func haversine(_ a: Int, _ b: Int) -> Double {
        let p = fixes[kept[a]]
        let q = fixes[kept[b]]
        return Geodesy.haversine(p.latitude, p.longitude, cosine(a), q.latitude, q.longitude, cosine(b))
    }

    /// Flat-map distance in metres between kept fixes `a` and `b`, good for steps of a few kilometres.
    @inline(__always) func local(_ a: Int, _ b: Int) -> Double {
        let p = fixes[kept[a]]
        let q = fixes[kept[b]]
        return Geodesy.local(p.latitude, p.longitude, q.latitude, q.longitude, cosLatitude: cosine(a))
    }
}

/// Drops the fixes that would only mislead: invalid ones, poor ones near good ones, and lone spikes.
enum FixFilter {
    /// A fix with an accuracy radius above this many metres is poor.
    static let poorAccuracy = 200.0
    /// A poor fix is dropped when a good fix lies within this many milliseconds of it (10 minutes).
    static let poorFixReach: Int64 = 600_000
    /// A spike is a fix at least this many metres (plus its accuracy) from both neighbours...
    static let spikeMeters = 100.0
    /// ...while the neighbours are within this share of that distance of each other...
    static let spikeReturnShare = 0.25
    /// ...or the way through it is this many times the way from the one before to the one after...
    static let spikeDetour = 3.0
    /// ...and the three fixes span at most this many milliseconds (5 minutes).
    static let spikeSpan: Int64 = 300_000

    /// Indices of the fixes to keep, ascending; `fixes` must be in time order.
    /// `cosines`: of each fix's latitude (`Geodesy.cosine(ofLatitude:)`).
    static func kept(_ fixes: [TimelineFix], cosines: [Double]) -> [Int] {
        var kept: [Int] = []
        kept.reserveCapacity(fixes.count)
        var lastGood: Int64? = nil
        var nextGood = 0
        for i in fixes.indices {
            let fix = fixes[i]
            guard isValid(fix) else { continue }
            if isGood(fix) {
                kept.append(i)
                lastGood = fix.time
                continue
            }
            if nextGood <= i {
                nextGood = i + 1
                while nextGood < fixes.count && !(isValid(fixes[nextGood]) && isGood(fixes[nextGood])) { nextGood += 1 }
            }
            let goodBefore = lastGood.map { fix.time - $0 <= poorFixReach } ?? false
            let goodAfter = nextGood < fixes.count && fixes[nextGood].time - fix.time <= poorFixReach
            if !goodBefore && !goodAfter { kept.append(i) }
        }
        return withoutSpikes(fixes, kept, cosines: cosines)
    }

    /// Whether a fix has usable coordinates.
    @inline(__always) static func isValid(_ fix: TimelineFix) -> Bool {
        abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180
    }

    /// Whether a fix's accuracy is unknown or at most `poorAccuracy`.
    @inline(__always) static func isGood(_ fix: TimelineFix) -> Bool {
        guard let accuracy = fix.accuracy else { return true }
        return accuracy <= poorAccuracy
    }

    /// `kept` without the fixes that jump away and straight back within a few minutes.
    static func withoutSpikes(_ fixes: [TimelineFix], _ kept: [Int], cosines: [Double]) -> [Int] {
        guard kept.count >= 3 else { return kept }
        var result: [Int] = []
        result.reserveCapacity(kept.count)
        result.append(kept[0])
        for k in 1..<(kept.count - 1) {
            let a = fixes[result[result.count - 1]]
            let b = fixes[kept[k]]
            let c = fixes[kept[k + 1]]
            if c.time - a.time <= spikeSpan {
                let cosLat = cosines[kept[k]]
                let dIn = Geodesy.local(a.latitude, a.longitude, b.latitude, b.longitude, cosLatitude: cosLat)
                let dOut = Geodesy.local(b.latitude, b.longitude, c.latitude, c.longitude, cosLatitude: cosLat)
                let near = min(dIn, dOut)
                if near > spikeMeters + (b.accuracy ?? 0) {
                    let dBack = Geodesy.local(a.latitude, a.longitude, c.latitude, c.longitude, cosLatitude: cosLat)
                    // Back where it left, or on along the way it was going as if the fix had not
                    // been (a walk goes on while one fix jumps 600 m off and back).
                    if dBack < spikeReturnShare * near || dIn + dOut > spikeDetour * dBack + spikeMeters + (b.accuracy ?? 0) { continue }
                }
            }
            result.append(kept[k])
        }
        result.append(kept[kept.count - 1])
        return result
    }
}
