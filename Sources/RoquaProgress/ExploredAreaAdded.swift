import Foundation

extension ExploredArea {
    /// At most this many groups of added circles (one per ~64 km cell they fall in) are tested
    /// against every earlier circle; added circles spread wider are left to `squareMeters(of:)`.
    public static let addedGroupLimit = 256

    /// What `added` circles add to the union of `earlier` ones, in m²: the area of both together
    /// less the area of `earlier`. Measured among the earlier circles that overlap an added one
    /// only — a point of an added circle that an earlier circle covers is covered by one that
    /// overlaps it — so a day added to a million circles costs one pass over their centres. nil,
    /// having measured nothing, when the added circles fall in more than `addedGroupLimit` cells.
    /// - Throws: `ExploredAreaError.invalidCircle` as `squareMeters(of:)` (the index among the
    ///   added circles, or among the earlier ones).
    public static func squareMetersAdded(
        by added: ArraySlice<ExploredCircle>,
        to earlier: ArraySlice<ExploredCircle>
    ) throws -> Double? {
        let addedCaps = try caps(of: Array(added))
        guard !addedCaps.isEmpty else { return 0 }
        for (index, circle) in earlier.enumerated() {
            try circle.validate(index: index)
            guard circle.radius <= maximumRadius else {
                throw ExploredAreaError.invalidCircle(
                    index: index, reason: "radius \(circle.radius) m exceeds the \(Int(maximumRadius)) m limit")
            }
        }
        guard let near = earlierCircles(earlier, near: addedCaps, margin: 0) else { return nil }
        return try squareMeters(of: near + added) - squareMeters(of: near)
    }

    /// The valid `earlier` circles that come within `margin` (radians) of an added cap, or may (a
    /// few more never hurt: they are measured on both sides); nil when the added caps fall in more
    /// than `addedGroupLimit` cells. One pass over the earlier centres.
    static func earlierCircles(_ earlier: ArraySlice<ExploredCircle>, near addedCaps: [Cap], margin: Double) -> [ExploredCircle]? {
        guard let groups = AddedGroups(addedCaps) else { return nil }
        let valid = { (circle: ExploredCircle) in (try? circle.validate(index: 0)) != nil }
        let largest = earlier.reduce(0.0) { valid($1) ? max($0, $1.radius) : $0 }
        let reach = groups.thresholds(largestEarlierRho: largest / sphereRadius + margin)
        var near: [ExploredCircle] = []
        for circle in earlier where valid(circle) {
            let centre = Vector3(latitude: circle.latitude, longitude: circle.longitude), rho = circle.radius / sphereRadius
            if groups.overlapsAny(centre: centre, rho: rho + margin, reach: reach, addedCaps) { near.append(circle) }
        }
        return near
    }
}

extension WorldGrid {
    /// Two cell diagonals (a cell is at most 0.001° × 0.001°, 157 m across), in radians: a cell an
    /// earlier and an added circle both touch holds a point of each within that of both centres.
    static let sharedCellMargin = 2 * 160 / ExploredArea.sphereRadius

    /// What `added` circles add to the share of the world `earlier` ones touch, in percent: the
    /// area of the cells they touch that no earlier circle touches, the earlier circles looked at
    /// being those that come within `sharedCellMargin` of an added one. Invalid circles are skipped
    /// (as `percentage(of:)` skips them). nil when the added circles fall in more than
    /// `ExploredArea.addedGroupLimit` cells of ~64 km.
    public static func percentageAdded(by added: ArraySlice<ExploredCircle>, to earlier: ArraySlice<ExploredCircle>) -> Double? {
        let valid = added.filter { (try? $0.validate(index: 0)) != nil }
        guard !valid.isEmpty else { return 0 }
        let caps = valid.map { Cap($0, sphereRadius: ExploredArea.sphereRadius) }
        guard let near = ExploredArea.earlierCircles(earlier, near: caps, margin: sharedCellMargin) else { return nil }
        return percentage(of: valid, notTouchedBy: near)
    }
}

/// The added caps in groups by a coarse grid on their centres, each group with a cap bounding its
/// members (centre `g`, angular radius `beta`): an earlier circle far from every bounding cap is
/// passed over with one dot product per group.
private struct AddedGroups {
    private var centres: [Vector3] = []
    private var betas: [Double] = []
    private var members: [[Int]] = []

    init?(_ caps: [Cap]) {
        var cellOf: [SIMD3<Int64>: Int] = [:]
        for (i, cap) in caps.enumerated() {
            let cell = SIMD3<Int64>(
                Int64((cap.centre.x * 100).rounded(.down)), Int64((cap.centre.y * 100).rounded(.down)),
                Int64((cap.centre.z * 100).rounded(.down)))
            if let group = cellOf[cell] {
                members[group].append(i)
            } else {
                guard members.count < ExploredArea.addedGroupLimit else { return nil }
                cellOf[cell] = members.count
                members.append([i])
            }
        }
        for group in members {
            let sum = group.reduce(Vector3(0, 0, 0)) { $0 + caps[$1].centre }
            let length = sum.dot(sum).squareRoot()
            // Members on opposite sides of the sphere cannot share a 64 km cell; guard anyway.
            let g = length > 0 ? sum / length : caps[group[0]].centre
            let beta = group.reduce(0.0) { widest, i in
                let offset = caps[i].centre - g
                return max(widest, centralAngle(chordSquared: offset.dot(offset)) + caps[i].rho)
            }
            centres.append(g)
            betas.append(beta)
        }
    }

    /// Per group, the least dot product with its centre an earlier circle of angular radius up to
    /// `largestEarlierRho` can have and still reach the group (with a margin for rounding).
    func thresholds(largestEarlierRho: Double) -> [Double] {
        betas.map { beta in
            let angle = beta + largestEarlierRho + 1e-9
            return angle >= .pi ? -2 : cos(angle)
        }
    }

    /// Whether the cap at `centre` with angular radius `rho` overlaps any added cap.
    func overlapsAny(centre: Vector3, rho: Double, reach: [Double], _ caps: [Cap]) -> Bool {
        for group in members.indices where centre.dot(centres[group]) >= reach[group] {
            for i in members[group] {
                let offset = caps[i].centre - centre
                // Any superset of the overlapping circles measures the same: err on taking one more.
                if centralAngle(chordSquared: offset.dot(offset)) < rho + caps[i].rho + 1e-9 { return true }
            }
        }
        return false
    }
}

extension ExploredArea {
    /// For each of `targets` (m²), the fewest leading `circles` whose union measures at least it
    /// (1 for a target of 0 or less); nil where the measure of them all falls short.
    ///
    /// Measured a stretch of circles at a time, each added to the union of those before it as
    /// `squareMetersAdded` does (among the earlier circles that may overlap the stretch, found
    /// through one neighbour index of all circles and used for the stretch and all its prefixes),
    /// and the stretch that reaches a target bisected the same way: about one measurement of every
    /// circle in all, where measuring each probed prefix whole costs one such measurement per
    /// probe. The sums differ from a whole measurement by rounding only.
    /// - Throws: `ExploredAreaError.invalidCircle` as `squareMeters(of:)`.
    public static func firstCounts(reaching targets: [Double], of circles: [ExploredCircle]) throws -> [Int?] {
        var counts = [Int?](repeating: nil, count: targets.count)
        var pending = targets.indices.sorted { targets[$0] < targets[$1] }[...]
        while let first = pending.first, targets[first] <= 0 {
            counts[first] = circles.isEmpty ? nil : 1
            pending.removeFirst()
        }
        // Circles without a radius cover nothing: only those with one are caps (in circle order).
        let caps = try caps(of: circles)
        let circleOfCap = circles.indices.filter { circles[$0].radius > 0 }
        let index = NeighbourIndex(caps, sphereRadius: sphereRadius)
        var seenIn = [Int](repeating: -1, count: caps.count)
        let stretch = max(256, circles.count / 32)
        var start = 0, firstCap = 0, area = 0.0
        while start < circles.count, !pending.isEmpty {
            let end = min(circles.count, start + stretch)
            let endCap = circleOfCap[firstCap...].firstIndex { $0 >= end } ?? caps.count
            // What a prefix of the stretch adds to all earlier circles, it adds to those that may
            // overlap the stretch.
            var near: [ExploredCircle] = []
            for cap in firstCap..<endCap {
                index.forEachCandidate(of: cap, caps) { other in
                    if other < firstCap, seenIn[other] != start {
                        seenIn[other] = start
                        near.append(circles[circleOfCap[other]])
                    }
                    return true
                }
            }
            let nearArea = try squareMeters(of: near)
            /// The measure of the circles before `end`, from the measure of those before `start`.
            func measure(to end: Int) throws -> Double {
                area + (try squareMeters(of: near + circles[start..<end]) - nearArea)
            }
            let reached = try measure(to: end)
            // Not reached at `low`, reached at `end`; targets in increasing order.
            var low = start
            while let next = pending.first, targets[next] <= reached {
                var high = end
                while high - low > 1 {
                    let middle = (low + high) / 2
                    if try measure(to: middle) >= targets[next] { high = middle } else { low = middle }
                }
                counts[next] = high
                low = high - 1
                pending.removeFirst()
            }
            (start, firstCap, area) = (end, endCap, reached)
        }
        return counts
    }
}
