/// A stay found in a track: a range of kept fixes and its centre.
struct StaySpan {
    /// Index of the first kept fix of the stay.
    var first: Int
    /// Index of the last kept fix of the stay.
    var last: Int
    /// Latitude of the centre, in degrees.
    var latitude: Double
    /// Longitude of the centre, in degrees.
    var longitude: Double
    /// Number of fixes within the stay radius of the centre.
    var fixes: Int
}

/// Sliding-window staypoint detection that keeps a stay through phone gaps, outliers and indoor drift.
///
/// A window grows from a fix while the next fixes lie within the stay radius of the window's running
/// accuracy-weighted centre (or their accuracy circle covers it); up to `lookahead` fixes outside are
/// skipped as outliers when a later fix comes back inside within the stay minutes. A window lasting at
/// least the stay minutes is a stay, however long the gaps between its fixes.
enum StayDetector {
    /// How many fixes in a row outside the radius may be skipped as outliers.
    static let lookahead = 3
    /// Accuracy in metres assumed for a fix that reports none.
    static let defaultAccuracy = 15.0
    /// Fixes within this share of the radius of the first centre make the final centre.
    static let coreShare = 0.6

    /// The stays of `track`, in time order and not overlapping.
    static func stays(_ track: Track, settings: TimelineSettings) -> [StaySpan] {
        let radius = settings.stayMeters
        let minimum = settings.stayMilliseconds
        var stays: [StaySpan] = []
        var k = 0
        let n = track.count
        var due = 0
        while k < n {
            while due < n && track.time(due) - track.time(k) < minimum { due += 1 }
            guard due < n, mayStay(track, k, due, radius: radius) else {
                k += 1
                continue
            }
            let last = windowEnd(track, from: k, radius: radius, minimum: minimum)
            if track.time(last) - track.time(k) >= minimum, let stay = refined(track, k, last, radius: radius, minimum: minimum) {
                if let previous = stays.last, canMerge(track, previous, stay, radius: radius, minimum: minimum) {
                    stays[stays.count - 1] = merged(previous, stay)
                } else {
                    stays.append(stay)
                }
                k = last + 1
            } else {
                k += 1
            }
        }
        return stays
    }

    /// Whether a window from fix `k` can last until fix `due` (the first one the stay minutes later):
    /// one of the fixes from `due` on (as many as outliers may be skipped) lies within twice the radius
    /// of fix `k`, plus accuracies. Spares growing a window from each fix of a journey, keeping the search linear.
    @inline(__always) static func mayStay(_ track: Track, _ k: Int, _ due: Int, radius: Double) -> Bool {
        let cosLat = track.cosine(k)
        let accuracy = track.accuracy(k) ?? defaultAccuracy
        for q in due..<min(track.count, due + lookahead + 1) {
            let d = Geodesy.local(track.latitude(k), track.longitude(k), track.latitude(q), track.longitude(q), cosLatitude: cosLat)
            if d <= 2 * radius + accuracy + (track.accuracy(q) ?? defaultAccuracy) { return true }
        }
        return false
    }

    /// Weight of a fix in a centre: inverse variance of its accuracy.
    @inline(__always) static func weight(_ accuracy: Double?) -> Double {
        let a = max(accuracy ?? defaultAccuracy, 5)
        return 1 / (a * a)
    }

    /// Index of the last fix of the window that starts at fix `k`.
    static func windowEnd(_ track: Track, from k: Int, radius: Double, minimum: Int64) -> Int {
        let n = track.count
        let cosLat = track.cosine(k)
        var sumW = weight(track.accuracy(k))
        var sumLat = track.latitude(k) * sumW
        var sumLon = track.longitude(k) * sumW
        var centreLat = track.latitude(k)
        var centreLon = track.longitude(k)
        var last = k
        var j = k + 1
        func inside(_ q: Int) -> Double? {
            let d = Geodesy.local(centreLat, centreLon, track.latitude(q), track.longitude(q), cosLatitude: cosLat)
            if d <= radius || (track.accuracy(q) ?? 0) >= d { return d }
            return nil
        }
        while j < n {
            if let d = inside(j) {
                if d <= radius {
                    let w = weight(track.accuracy(j))
                    sumW += w
                    sumLat += track.latitude(j) * w
                    sumLon += track.longitude(j) * w
                    centreLat = sumLat / sumW
                    centreLon = sumLon / sumW
                }
                last = j
                j += 1
                continue
            }
            var resumed: Int? = nil
            var q = j + 1
            while q < n && q <= j + lookahead && track.time(q) - track.time(last) <= minimum {
                if inside(q) != nil {
                    resumed = q
                    break
                }
                q += 1
            }
            guard let next = resumed else { break }
            j = next
        }
        return last
    }

    /// The stay of fixes `first...last` with a robust centre, and without the leading fixes that lie
    /// clearly off the centre of its second half (the approach) nor the trailing ones off the centre of
    /// its first half (the departure); nil when what is left is too short.
    static func refined(_ track: Track, _ first: Int, _ last: Int, radius: Double, minimum: Int64) -> StaySpan? {
        let middle = first + (last - first) / 2
        guard let late = core(track, middle, last, radius: radius), let early = core(track, first, middle, radius: radius) else {
            return nil
        }
        // Each centre's cosine once, not once a fix (the same value).
        let cosLate = Geodesy.cosine(ofLatitude: late.latitude), cosEarly = Geodesy.cosine(ofLatitude: early.latitude)
        func off(_ k: Int, _ c: (latitude: Double, longitude: Double, count: Int), _ cosLat: Double) -> Bool {
            let d = Geodesy.local(c.latitude, c.longitude, track.latitude(k), track.longitude(k), cosLatitude: cosLat)
            return d > radius * coreShare + (track.accuracy(k) ?? defaultAccuracy)
        }
        var a = first
        var b = last
        while a < b && off(a, late, cosLate) { a += 1 }
        while b > a && off(b, early, cosEarly) { b -= 1 }
        // A window that is mostly approach and departure is someone passing by, not staying.
        guard track.time(b) - track.time(a) >= minimum, let centre = core(track, a, b, radius: radius) else { return nil }
        let count = self.centre(track, a, b, around: centre, within: radius)?.count ?? centre.count
        return StaySpan(first: a, last: b, latitude: centre.latitude, longitude: centre.longitude, fixes: count)
    }

    /// Centre of fixes `first...last`: the running centre of those within the radius, then the mean of
    /// those within `coreShare` of the radius of it (the running centre when none are).
    static func core(_ track: Track, _ first: Int, _ last: Int, radius: Double) -> (latitude: Double, longitude: Double, count: Int)? {
        guard let rough = centre(track, first, last, around: nil, within: radius) else { return nil }
        return centre(track, first, last, around: rough, within: radius * coreShare) ?? rough
    }

    /// Accuracy-weighted mean of the fixes `first...last` lying within `within` metres of `around`
    /// (of the running centre when `around` is nil), with how many fixes made it.
    static func centre(
        _ track: Track, _ first: Int, _ last: Int, around: (latitude: Double, longitude: Double, count: Int)?, within: Double
    ) -> (latitude: Double, longitude: Double, count: Int)? {
        var sumW = 0.0
        var sumLat = 0.0
        var sumLon = 0.0
        var count = 0
        var centreLat = around?.latitude ?? track.latitude(first)
        var centreLon = around?.longitude ?? track.longitude(first)
        // The first fix's cosine is the track's, the same value.
        let cosLat = around == nil ? track.cosine(first) : Geodesy.cosine(ofLatitude: centreLat)
        for k in first...last {
            let d = Geodesy.local(centreLat, centreLon, track.latitude(k), track.longitude(k), cosLatitude: cosLat)
            guard d <= within else { continue }
            let w = weight(track.accuracy(k))
            sumW += w
            sumLat += track.latitude(k) * w
            sumLon += track.longitude(k) * w
            count += 1
            if around == nil {
                centreLat = sumLat / sumW
                centreLon = sumLon / sumW
            }
        }
        guard count > 0 else { return nil }
        return (sumLat / sumW, sumLon / sumW, count)
    }

    /// Whether two consecutive stays are one visit broken by a short excursion: centres within the
    /// radius and less than the stay minutes between them.
    static func canMerge(_ track: Track, _ a: StaySpan, _ b: StaySpan, radius: Double, minimum: Int64) -> Bool {
        guard track.time(b.first) - track.time(a.last) < minimum else { return false }
        let cosLat = Geodesy.cosine(ofLatitude: a.latitude)
        return Geodesy.local(a.latitude, a.longitude, b.latitude, b.longitude, cosLatitude: cosLat) <= radius
    }

    /// One stay covering `a` then `b`, centred on their fix-weighted mean.
    static func merged(_ a: StaySpan, _ b: StaySpan) -> StaySpan {
        let total = Double(a.fixes + b.fixes)
        let lat = (a.latitude * Double(a.fixes) + b.latitude * Double(b.fixes)) / total
        let lon = (a.longitude * Double(a.fixes) + b.longitude * Double(b.fixes)) / total
        return StaySpan(first: a.first, last: b.last, latitude: lat, longitude: lon, fixes: a.fixes + b.fixes)
    }
}
