/// Parents for a layer's units inferred from where they lie, then settled by their codes where the
/// codes nest under the parents (as Japan's JIS codes, US FIPS, French INSEE or German AGS codes
/// do: a municipality's code starts with its prefecture's).
///
/// Where units lie decides first: each unit's parent is the one holding the largest part of it.
/// But the parents are often far coarser than the layer added under them (Natural Earth's
/// provinces are ~1 km off in places), so a small unit on a border can lie mostly in the wrong
/// one. When the codes show a nesting — grouping the units by the first k characters of their
/// codes gives groups that each sit almost wholly (≥ 80 %) under one parent, with at least two
/// different parents among the groups, and those groups hold ≥ 80 % of the units — a unit whose
/// own answer differs from its group's parent takes the group's, provided it lies near that
/// parent (it is among its candidates). Random or sequential codes show no such nesting and
/// change nothing.
package enum ParentConsensus {
    /// A parent a unit lies in or near, and the share of the unit's area inside it (0 for near).
    package struct Candidate: Equatable, Sendable {
        package var parent: String
        package var share: Double

        package init(parent: String, share: Double) {
            self.parent = parent
            self.share = share
        }
    }

    /// The parents chosen, and the indexes of the units whose parent their code settled.
    package struct Outcome: Equatable, Sendable {
        package var parents: [String?]
        package var settledByCode: [Int]
        /// The code prefix length that nests, when one did.
        package var prefixLength: Int?
    }

    /// Smallest group the nesting test counts, and the shares it needs.
    static let minimumGroup = 3
    static let homogeneity = 0.8
    static let coverage = 0.8

    /// - Parameters:
    ///   - codes: Each unit's code as its file gives it.
    ///   - candidates: Each unit's candidate parents, the largest share first (empty: none near).
    package static func settle(codes: [String], candidates: [[Candidate]]) -> Outcome {
        precondition(codes.count == candidates.count)
        var parents = candidates.map { list in list.first.flatMap { $0.share > 0 ? $0.parent : nil } }
        let placed = parents.indices.filter { parents[$0] != nil }
        let longest = codes.map(\.count).max() ?? 0
        guard placed.count >= 2 * minimumGroup, longest > 1 else { return Outcome(parents: parents, settledByCode: [], prefixLength: nil) }
        for length in 1..<longest {
            guard let majorities = nesting(codes: codes, parents: parents, placed: placed, length: length) else { continue }
            var settled: [Int] = []
            for index in codes.indices where codes[index].count > length {
                guard let majority = majorities[String(codes[index].prefix(length))], parents[index] != majority,
                    candidates[index].contains(where: { $0.parent == majority })
                else { continue }
                parents[index] = majority
                settled.append(index)
            }
            return Outcome(parents: parents, settledByCode: settled, prefixLength: length)
        }
        return Outcome(parents: parents, settledByCode: [], prefixLength: nil)
    }

    /// The parent of each code-prefix group of `length` characters, when that grouping nests
    /// (see the type's description); nil when it does not.
    private static func nesting(codes: [String], parents: [String?], placed: [Int], length: Int) -> [String: String]? {
        let groups = Dictionary(grouping: placed.filter { codes[$0].count > length }) { String(codes[$0].prefix(length)) }
        var majorities: [String: String] = [:]
        var covered = 0
        for (prefix, members) in groups where members.count >= minimumGroup {
            let tally = Dictionary(members.map { (parents[$0]!, 1) }, uniquingKeysWith: +)
            guard let top = tally.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }),
                Double(top.value) >= homogeneity * Double(members.count)
            else { return nil }
            majorities[prefix] = top.key
            covered += members.count
        }
        guard Double(covered) >= coverage * Double(placed.count), Set(majorities.values).count >= 2 else { return nil }
        return majorities
    }
}
