import Foundation
import RoquaBoundaries
import RoquaRegions

/// A child unit and when it was first visited (nil: not yet).
public struct ChildVisit: Sendable, Codable, Equatable {
    /// The child's code.
    public var code: String
    /// The child's local name.
    public var name: String
    /// Start of the child's earliest region, or `nil` when not visited.
    public var firstVisit: Date?
}

/// "İstanbul 8/39 districts": a unit's visited children out of all its children.
public struct UnitProgress: Sendable, Codable, Equatable {
    /// The unit's code (a continent's name for a continent).
    public var code: String
    /// The unit's local name.
    public var name: String
    /// The unit's level as a word: `country`, `province`, or `continent`.
    public var level: String
    /// The children's level as a word, e.g. `district`.
    public var childLevel: String
    /// Children with at least one visit.
    public var visited: Int
    /// All children of the unit in the boundary DB.
    public var total: Int
    /// Start of the earliest region in the unit (for a continent, in its countries), or `nil`.
    public var firstVisit: Date?
    /// Visited children, earliest first visit first.
    public var visitedChildren: [ChildVisit]
    /// Children not visited yet, in alphabetical order as people read it.
    public var notVisitedChildren: [ChildVisit]

    /// `İstanbul 8/39 districts`
    public var label: String {
        let plural = childLevel == "country" ? "countries" : childLevel + "s"
        return "\(name) \(visited)/\(total) \(plural)"
    }
}

/// Progress over the boundary hierarchy from the codes regions were enriched with.
public struct ProgressCalculator: Sendable {
    /// The administrative tree progress is counted over.
    public let hierarchy: BoundaryHierarchy
    /// Every visited unit (country, province, district) → the start of its earliest region.
    public let firstVisits: [String: Date]

    /// Collects every unit's first visit from the codes `regions` were enriched with.
    public init(hierarchy: BoundaryHierarchy, regions: [VisitedRegion]) {
        var tally = FirstVisitTally()
        for region in regions {
            tally.add(
                country: region.countryCode, province: region.provinceCode, district: region.districtCode, start: region.timestampStart)
        }
        self.init(hierarchy: hierarchy, firstVisits: tally.finish())
    }

    /// Collects every unit's first visit from the codes regions were enriched with.
    public init(hierarchy: BoundaryHierarchy, facts: [RegionFacts]) {
        var tally = FirstVisitTally()
        for region in facts {
            tally.add(country: region.countryCode, province: region.provinceCode, district: region.districtCode, start: region.start)
        }
        self.init(hierarchy: hierarchy, firstVisits: tally.finish())
    }

    /// Progress from every unit's first visit (`FirstVisitTally`).
    init(hierarchy: BoundaryHierarchy, firstVisits: [String: Date]) {
        self.hierarchy = hierarchy
        self.firstVisits = firstVisits
    }

    /// By name as people read it: Çatalca among the c's, Şile among the s's (byte order puts them last).
    static func alphabetical(_ visits: [ChildVisit]) -> [ChildVisit] {
        visits.map { (key: NameFolding.fold($0.name), visit: $0) }  // folded once each, not at every comparison
            .sorted { ($0.key, $0.visit.code) < ($1.key, $1.visit.code) }.map(\.visit)
    }

    /// x/N for a unit with children (nil for a unit without any, e.g. a district).
    public func progress(of code: String) -> UnitProgress? {
        guard let unit = hierarchy.units[code], let children = hierarchy.children[code], !children.isEmpty else { return nil }
        let visits = children.map { ChildVisit(code: $0, name: hierarchy.units[$0]?.name ?? $0, firstVisit: firstVisits[$0]) }
        let visited = visits.filter { $0.firstVisit != nil }.sorted { ($0.firstVisit!, $0.code) < ($1.firstVisit!, $1.code) }
        let notVisited = Self.alphabetical(visits.filter { $0.firstVisit == nil })
        let childLevel = hierarchy.units[children[0]]?.level.description ?? "unit"
        return UnitProgress(
            code: code, name: unit.name, level: unit.level.description, childLevel: childLevel,
            visited: visited.count, total: children.count, firstVisit: firstVisits[code],
            visitedChildren: visited, notVisitedChildren: notVisited)
    }

    /// Visited countries, earliest first.
    public var countries: [ChildVisit] {
        firstVisits.compactMap { code, date in
            guard let unit = hierarchy.units[code], unit.level == .country else { return nil }
            return ChildVisit(code: code, name: unit.name, firstVisit: date)
        }.sorted { ($0.firstVisit!, $0.code) < ($1.firstVisit!, $1.code) }
    }

    /// Countries visited per continent, out of the continent's countries in the boundary DB.
    public var continents: [UnitProgress] {
        let all = hierarchy.units.values.filter { $0.level == .country }
        let byContinent = Dictionary(grouping: all) { $0.continent ?? "Unknown" }
        return byContinent.keys.sorted().compactMap { continent in
            let members = byContinent[continent]!.map { ChildVisit(code: $0.code, name: $0.name, firstVisit: firstVisits[$0.code]) }
            let visited = members.filter { $0.firstVisit != nil }.sorted { ($0.firstVisit!, $0.code) < ($1.firstVisit!, $1.code) }
            guard !visited.isEmpty else { return nil }
            return UnitProgress(
                code: continent, name: continent, level: "continent", childLevel: "country",
                visited: visited.count, total: members.count, firstVisit: visited.first?.firstVisit,
                visitedChildren: visited, notVisitedChildren: Self.alphabetical(members.filter { $0.firstVisit == nil }))
        }
    }

    /// x/N for every visited unit that has children: countries' provinces, provinces' districts.
    public var visitedUnitsWithChildren: [UnitProgress] {
        firstVisits.keys.sorted().compactMap { progress(of: $0) }
            .sorted { ($0.level, $0.code) < ($1.level, $1.code) }
    }
}
