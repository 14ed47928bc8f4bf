/// What the resolver's rules need to know about each unit, in flat memory read without
/// reference counting (shared by every worker thread; written only in `init`).
///
/// The decision order of units is their *priority*: the layer's precision first (from
/// `manifest.json`: a more detailed layer outranks a coarser one), then the deeper level, then
/// the smaller code. `AnswerRule` uses it to pick which covering unit decides the country.
package final class UnitTable: @unchecked Sendable {
    // @unchecked: every buffer is filled in `init` and only read afterwards.
    package let count: Int
    package let level: UnsafeMutablePointer<UInt8>
    package let parent: UnsafeMutablePointer<Int32>
    /// A small integer per country code (the same for a country and all its subdivisions).
    package let country: UnsafeMutablePointer<Int32>
    package let codeRank: UnsafeMutablePointer<Int32>
    package let priority: UnsafeMutablePointer<Int32>
    /// Per country: the deepest level it has units at.
    package let deepestLevel: UnsafeMutablePointer<UInt8>

    package init(levels: [AdminLevel], parents: [Int32], countryCodes: [String], codes: [String], precisions: [Int]) {
        count = levels.count
        level = .allocate(capacity: max(count, 1))
        parent = .allocate(capacity: max(count, 1))
        country = .allocate(capacity: max(count, 1))
        codeRank = .allocate(capacity: max(count, 1))
        priority = .allocate(capacity: max(count, 1))
        var countryIDs: [String: Int32] = [:]
        var deepest: [UInt8] = []
        for i in 0..<count {
            level[i] = UInt8(levels[i].rawValue)
            parent[i] = parents[i]
            let id =
                countryIDs[countryCodes[i]]
                ?? {
                    countryIDs[countryCodes[i]] = Int32(deepest.count)
                    deepest.append(0)
                    return Int32(deepest.count - 1)
                }()
            country[i] = id
            deepest[Int(id)] = max(deepest[Int(id)], level[i])
        }
        deepestLevel = .allocate(capacity: max(deepest.count, 1))
        for (i, value) in deepest.enumerated() { deepestLevel[i] = value }
        let byCode = (0..<count).sorted { codes[$0] < codes[$1] }
        for (rank, unit) in byCode.enumerated() { codeRank[unit] = Int32(rank) }
        for (rank, unit) in Self.decisionOrder(levels: levels, codeRanks: codeRank, precisions: precisions).enumerated() {
            priority[unit] = Int32(rank)
        }
    }

    deinit {
        for pointer in [level] as [UnsafeMutablePointer<UInt8>] + [deepestLevel] { pointer.deallocate() }
        for pointer in [parent, country, codeRank, priority] { pointer.deallocate() }
    }

    /// Unit indices in decision order: precision (higher first), level (deeper first), code
    /// (by its rank among the codes, so the strings are compared in one sort only).
    /// The importer orders a cell's units the same way.
    private static func decisionOrder(levels: [AdminLevel], codeRanks: UnsafePointer<Int32>, precisions: [Int]) -> [Int] {
        levels.indices.sorted {
            (-precisions[$0], -levels[$0].rawValue, codeRanks[$0]) < (-precisions[$1], -levels[$1].rawValue, codeRanks[$1])
        }
    }

    /// The columns the hot path reads, as a plain value (see `UnitColumns`).
    package var columns: UnitColumns {
        UnitColumns(level: level, country: country, codeRank: codeRank, deepestLevel: deepestLevel)
    }

    /// True when the unit is at its country's deepest level: no nearest-unit search can deepen it.
    @inline(__always)
    package func isComplete(_ unit: Int32) -> Bool { columns.isComplete(unit) }

    /// True when `candidate` answers better than `current` for their (shared) country: deeper,
    /// or as deep with the smaller code.
    @inline(__always)
    package func isDeeper(_ candidate: Int32, than current: Int32) -> Bool { columns.isDeeper(candidate, than: current) }
}

/// The `UnitTable` columns a resolver thread reads per point, as bare pointers: copying or
/// using it touches no object header, so threads sharing one table never write to a common
/// cache line (a class reference would be retained and released). Valid while its table lives.
package struct UnitColumns {
    package let level: UnsafePointer<UInt8>
    package let country: UnsafePointer<Int32>
    package let codeRank: UnsafePointer<Int32>
    package let deepestLevel: UnsafePointer<UInt8>

    init(
        level: UnsafeMutablePointer<UInt8>, country: UnsafeMutablePointer<Int32>, codeRank: UnsafeMutablePointer<Int32>,
        deepestLevel: UnsafeMutablePointer<UInt8>
    ) {
        (self.level, self.country, self.codeRank, self.deepestLevel) = (.init(level), .init(country), .init(codeRank), .init(deepestLevel))
    }

    /// As `UnitTable.isComplete(_:)`.
    @inline(__always)
    package func isComplete(_ unit: Int32) -> Bool { level[Int(unit)] >= deepestLevel[Int(country[Int(unit)])] }

    /// As `UnitTable.isDeeper(_:than:)`.
    @inline(__always)
    package func isDeeper(_ candidate: Int32, than current: Int32) -> Bool {
        let a = level[Int(candidate)], b = level[Int(current)]
        return a > b || (a == b && codeRank[Int(candidate)] < codeRank[Int(current)])
    }
}

/// "One answer per place": the levels of an answer never disagree about the country.
///
/// Among the units covering a point, the one first in decision order (the most precise layer)
/// decides the country. The answer is then the deepest covering unit *of that country* (ties to
/// the smaller code) with its ancestors; a covering unit of another country (a generalised
/// province reaching over a border) is ignored. When that unit is above its country's deepest
/// level, the deeper levels come from the nearest unit of the same country within the fallback
/// distance (approximate), or stay empty.
package enum AnswerRule {
    /// The answer unit among `covering` (any order), or nil when it is empty.
    package static func best(of covering: some Sequence<Int32>, units: UnitTable) -> Int32? {
        var decider: Int32 = -1
        for unit in covering where decider < 0 || units.priority[Int(unit)] < units.priority[Int(decider)] { decider = unit }
        guard decider >= 0 else { return nil }
        let country = units.country[Int(decider)]
        var best = decider
        for unit in covering where units.country[Int(unit)] == country && units.isDeeper(unit, than: best) { best = unit }
        return best
    }
}
