import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaAchievements
import RoquaRegions

struct TrackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Turn GPS tracks into visited regions.",
        subcommands: [Import.self]
    )

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import GPX, CSV, GeoJSON or Google Takeout files into the region store, offline.",
            discussion: """
                Each file is read streaming and written in one transaction: a malformed file changes \
                nothing, and a file imported before (same content) adds nothing.
                """
        )

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions
        @OptionGroup var achievementOptions: AchievementOptions

        @Argument(help: "Track files (.gpx, .csv, .geojson, Takeout Records.json or Timeline.json).")
        var files: [String]

        @Option(help: "Region radius in metres.")
        var radius = ClusteringSettings.default.radius

        @Flag(help: "Radius by speed: 100 m walking, 200 m in a vehicle.")
        var speedBased = false

        @Option(help: "Drop fixes whose accuracy is worse than this many metres.")
        var accuracy = ClusteringSettings.default.maxAccuracy

        @Option(help: "Minutes between fixes in one region that still make one visit.")
        var visitGap = ClusteringSettings.default.visitGap / 60

        func validate() throws {
            do { try settings.validate() } catch { throw ValidationError(error.description) }
        }

        var settings: ClusteringSettings {
            var settings = ClusteringSettings.default
            settings.radius = radius
            settings.speedBasedRadius = speedBased
            settings.maxAccuracy = accuracy
            settings.visitGap = visitGap * 60
            return settings
        }

        func run() throws {
            let importer = try TrackImporter(store: storeOptions.open(), enricher: RegionEnricher(boundaries: boundaryOptions.path),
                                             settings: settings)
            let tracker = try achievementOptions.tracker(boundaries: boundaryOptions)
            for file in files {
                Terminal.status("reading \(file)…")
                let (summary, events) = try importer.importFile(file) { db, summary in
                    try tracker.consume(db, events: summary.events)
                }
                Terminal.endStatus()
                print(summary.report(maxAccuracy: accuracy))
                for event in events ?? [] {
                    switch event {
                    case let .unlocked(unlock):
                        let title = tracker.catalog.definition(unlock.id)?.title
                        print("  unlocked: \(title?.en ?? unlock.id) / \(title?.tr ?? unlock.id) (+\(unlock.xp) XP)")
                    case let .levelUp(from, to):
                        print("  level up: \(from) → \(to)")
                    }
                }
            }
        }
    }
}

extension TrackImportSummary {
    func report(maxAccuracy: Double) -> String {
        if alreadyImported { return "\(file): imported before (same content); nothing added" }
        var lines = ["\(file) (\(format)): \(fixesRead) fixes read, \(droppedTotal) dropped" + droppedDetail(maxAccuracy)]
        lines.append("  \(newRegions) new region(s), \(revisits) revisit(s)")
        for (level, label) in [(AdminLevel.district, "districts"), (.province, "provinces"), (.country, "countries")] {
            let names = firsts.filter { $0.level == level }.map(\.name)
            if !names.isEmpty { lines.append("  first time in \(names.count) \(label): \(names.joined(separator: ", "))") }
        }
        return lines.joined(separator: "\n")
    }

    private func droppedDetail(_ maxAccuracy: Double) -> String {
        let parts = dropped.sorted { $0.value > $1.value }.map { reason, count in
            switch reason {
            case .accuracy: "\(count) less accurate than \(Int(maxAccuracy)) m"
            case .duplicate: "\(count) duplicates"
            case .invalidCoordinate: "\(count) invalid coordinates"
            case .invalidTimestamp: "\(count) invalid times"
            }
        }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
