import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

/// `--achievements FILE`: the definitions (default: the bundled data/achievements.json).
struct AchievementOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Achievement definitions (default: $ROQUA_ACHIEVEMENTS or the bundled file).", valueName: "FILE"))
    var achievements: String?

    var path: String {
        achievements ?? ProcessInfo.processInfo.environment["ROQUA_ACHIEVEMENTS"] ?? AchievementCatalog.bundledPath()
    }

    func tracker(store: RegionStore, boundaries: BoundaryOptions) throws -> AchievementTracker {
        try failing {
            AchievementTracker(store: store, catalog: try AchievementCatalog.load(path: path), rules: ExperienceRules.load(path: path),
                               hierarchy: try? BoundaryHierarchy(database: boundaries.open()))
        }
    }
}

struct AchievementsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "achievements",
        abstract: "Achievements: unlocked ones, progress towards the others, or check a definitions file.",
        subcommands: [List.self, Validate.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unlocked achievements (with --all, every one with its progress).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions
        @OptionGroup var achievementOptions: AchievementOptions
        @Flag(help: "Also the locked ones, with progress (hidden ones as ???).") var all = false
        @Flag(help: "Print JSON.") var json = false
        @Option(help: "Texts in en or tr.") var lang: Language = .en

        func run() throws {
            let tracker = try achievementOptions.tracker(store: storeOptions.open(), boundaries: boundaryOptions)
            _ = try failing { try tracker.update() }
            let unlocks = Dictionary(uniqueKeysWithValues: try failing { try tracker.unlocks() }.map { ($0.id, $0) })
            let statuses = try failing { try tracker.statuses() }.filter { all || unlocks[$0.id] != nil }
            if json { return try Terminal.printJSON(statuses) }
            for status in statuses {
                guard let definition = tracker.catalog.definition(status.id) else { continue }
                let secret = definition.hidden && unlocks[status.id] == nil
                let title = secret ? "???" : (lang == .tr ? definition.title.tr : definition.title.en)
                let detail = secret ? "hidden" : (lang == .tr ? definition.description.tr : definition.description.en)
                let state = unlocks[status.id].map { "unlocked \(StatsCommand.day($0.unlockedAt, .current))" }
                    ?? String(format: "%.0f%%", status.fraction * 100)
                print("\(secret ? "?" : unlocks[status.id] == nil ? "·" : "★") \(title) [\(definition.rarity.rawValue), \(definition.xp) XP] — \(detail) — \(state)")
            }
            print("\(unlocks.count) of \(tracker.catalog.achievements.count) unlocked")
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check an achievements file; every problem is named with its achievement id.")
        @Argument(help: "The definitions file.") var file: String

        func run() throws {
            let problems = AchievementCatalog.validate(path: file)
            if problems.isEmpty {
                let count = (try? AchievementCatalog.load(path: file))?.achievements.count ?? 0
                print("\(file): \(count) achievements, no problems")
                return
            }
            for problem in problems { Terminal.error("\(file): \(problem)") }
            throw Failure(message: "\(file): \(problems.count) problem(s)")
        }
    }
}

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Level, XP, badges and headline statistics.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions
    @OptionGroup var achievementOptions: AchievementOptions
    @Option(help: ArgumentHelp("Also draw the profile card as an SVG picture.", valueName: "FILE")) var svg: String?

    func run() throws {
        let store = try storeOptions.open()
        let tracker = try achievementOptions.tracker(store: store, boundaries: boundaryOptions)
        _ = try failing { try tracker.update() }
        let level = try failing { try tracker.level() }
        let unlocks = try failing { try tracker.unlocks() }
        let span = max(level.nextLevelXP - level.levelStartXP, 1), done = level.xp - level.levelStartXP
        let bar = String(repeating: "█", count: 20 * done / span) + String(repeating: "░", count: 20 - 20 * done / span)
        print("Level \(level.level)  \(bar)  \(level.xp) XP (next level at \(level.nextLevelXP))")
        let regions = try failing { try store.allRegions() }
        print("\(regions.count) regions, \(Set(regions.compactMap(\.districtCode)).count) districts, "
              + "\(Set(regions.compactMap(\.provinceCode)).count) provinces, \(Set(regions.compactMap(\.countryCode)).count) countries")
        print("Badges: \(unlocks.count) of \(tracker.catalog.achievements.count)"
              + (unlocks.isEmpty ? "" : " — " + unlocks.suffix(5).compactMap { tracker.catalog.definition($0.id)?.title.en }.joined(separator: ", ")))
        guard let svg else { return }
        let badges = unlocks.reversed().compactMap { u in tracker.catalog.definition(u.id).map { ($0.title.en, $0.rarity.rawValue) } }
        let card = ProfileCard.svg(.init(level: level, regions: regions.count, districts: Set(regions.compactMap(\.districtCode)).count,
                                         provinces: Set(regions.compactMap(\.provinceCode)).count,
                                         countries: Set(regions.compactMap(\.countryCode)).count, badges: badges,
                                         unlockedCount: unlocks.count, totalCount: tracker.catalog.achievements.count))
        try failing { try card.write(toFile: svg, atomically: true, encoding: .utf8) }
        print("Wrote \(svg)")
    }
}
