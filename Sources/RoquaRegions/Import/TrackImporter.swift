import Foundation
import GRDB
import RoquaBoundaries

/// A unit seen for the first time, by code and name.
public struct FirstVisit: Sendable, Equatable {
    public var level: AdminLevel
    public var code: String
    public var name: String
}

/// What importing one file did.
public struct TrackImportSummary: Sendable, Equatable {
    public var file: String
    public var format: String
    /// The same content was imported before: nothing was added.
    public var alreadyImported = false
    public var fixesRead = 0
    public var dropped: [ClusterDropReason: Int] = [:]
    public var newRegions = 0
    public var revisits = 0
    public var firsts: [FirstVisit] = []
    /// The events this import caused (also yielded to the importer's stream, if it has one).
    public var events: [RegionEvent] = []

    public var droppedTotal: Int { dropped.values.reduce(0, +) }
}

/// Track file → visited regions in the store: read streaming, clustered against every stored
/// region, new regions enriched offline, everything written in one transaction per file (an
/// error or a kill before the commit leaves the store as it was), events yielded after commit.
public final class TrackImporter {
    public let store: RegionStore
    public let enricher: RegionEnricher
    public let settings: ClusteringSettings
    public let events: RegionEventStream?

    public init(store: RegionStore, enricher: RegionEnricher, settings: ClusteringSettings = .default,
                events: RegionEventStream? = nil) {
        self.store = store
        self.enricher = enricher
        self.settings = settings
        self.events = events
    }

    public func importFile(_ path: String) throws -> TrackImportSummary {
        let format = try TrackFormat.detect(path: path)
        var summary = TrackImportSummary(file: path, format: format.rawValue)
        let checksum = try SHA256.hex(ofFile: path)
        if try store.hasImport(checksum: checksum) {
            summary.alreadyImported = true
            return summary
        }
        var reader = try format.open(path: path)
        var engine = ClusteringEngine(settings: settings, existingRegions: try store.allRegions())
        var revisited: [Int] = []
        while let fix = try reader.next() {
            summary.fixesRead += 1
            switch engine.process(fix) {
            case let .dropped(reason): summary.dropped[reason, default: 0] += 1
            case .newRegion: summary.newRegions += 1
            case let .revisit(index):
                summary.revisits += 1
                revisited.append(index)
            case .sameVisit: break
            }
        }
        var visited = try store.visitedCodes()
        var created: [VisitedRegion] = []
        var pending: [RegionEvent] = []
        for index in engine.newRegionIndices {
            let region = try enricher.enriched(engine.regions[index])
            created.append(region)
            for (level, code, name) in [(AdminLevel.country, region.countryCode, region.country),
                                        (.province, region.provinceCode, region.city),
                                        (.district, region.districtCode, region.district)] {
                guard let code, visited.insert(code).inserted else { continue }
                summary.firsts.append(FirstVisit(level: level, code: code, name: name ?? code))
            }
        }
        let saved = try store.write { db in
            var saved: [VisitedRegion] = []
            for region in created {
                try RegionRecord(region: region, enrichedWith: enricher.identity).insert(db)
                var stored = region
                stored.id = db.lastInsertedRowID
                saved.append(stored)
            }
            for index in engine.changedRegionIndices {
                let r = engine.regions[index]
                try db.execute(sql: """
                    UPDATE visited_regions SET timestamp_start = ?, timestamp_end = ?, visit_count = ?, last_visit = ?
                    WHERE id = ?
                    """, arguments: [StoreTime.text(r.timestampStart), r.timestampEnd.map(StoreTime.text), r.visitCount,
                                     StoreTime.text(r.lastVisit), r.id])
            }
            try db.execute(sql: """
                INSERT INTO imports (checksum, file, format, imported_at, fixes_read, fixes_dropped, new_regions, revisits)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [checksum, (path as NSString).lastPathComponent, format.rawValue, StoreTime.text(Date()),
                                 summary.fixesRead, summary.droppedTotal, summary.newRegions, summary.revisits])
            return saved
        }
        for region in saved { pending.append(.newRegion(region)) }
        for first in summary.firsts {
            switch first.level {
            case .country: pending.append(.firstCountry(code: first.code, name: first.name))
            case .province: pending.append(.firstProvince(code: first.code, name: first.name))
            case .district: pending.append(.firstDistrict(code: first.code, name: first.name))
            }
        }
        for index in revisited { pending.append(.revisit(engine.regions[index])) }
        summary.events = pending
        pending.forEach { events?.yield($0) }
        return summary
    }
}
