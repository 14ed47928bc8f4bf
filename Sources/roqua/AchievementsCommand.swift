import ArgumentParser
import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaMaps
import RoquaProgress

struct AchievementsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "achievements",
        abstract: "Achievements: unlocked ones, progress towards the others, or check a definitions file.",
        subcommands: [List.self, Validate.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Unlocked achievements (with --all, every one with its progress).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions
        @OptionGroup var achievementOptions: AchievementOptions
        @Flag(help: "Also the locked ones, with progress (hidden ones as ???).") var all = false
        @Flag(help: "Print JSON.") var json = false
        @Option(help: "Texts in en or tr.") var lang: Language = .en

        func validate() throws {
            guard lang != .local else { throw ValidationError("--lang: the achievements' texts are in en or tr") }
        }

        func run() throws {
            let tracker = try achievementOptions.tracker(boundaries: boundaryOptions)
            let board = try tracker.board(store: storeOptions.open())
            let statuses = board.statuses.filter { all || board.unlock($0.id) != nil }
            if json { return try RoquaProgram.printJSON(statuses) }
            for status in statuses {
                guard let definition = tracker.catalog.definition(status.id) else { continue }
                let unlock = board.unlock(status.id)
                let secret = definition.hidden && unlock == nil
                let title = secret ? "???" : (lang == .tr ? definition.title.tr : definition.title.en)
                let detail = secret ? "hidden" : (lang == .tr ? definition.description.tr : definition.description.en)
                let state =
                    unlock.map { "unlocked \(StatsCommand.day($0.unlockedAt, .current))" }
                    ?? String(format: "%.0f%%", status.fraction * 100)
                print(
                    "\(secret ? "?" : unlock == nil ? "·" : "★") \(title) [\(definition.rarity.rawValue), \(definition.xp) XP] — \(detail) — \(state)"
                )
            }
            print("\(board.unlocks.count) of \(tracker.catalog.achievements.count) unlocked")
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate", abstract: "Check an achievements file; every problem is named with its achievement id.")
        @Argument(help: "The definitions file.") var file: String

        func run() throws {
            let problems = AchievementCatalog.validate(path: file)
            guard problems.isEmpty else {
                for problem in problems { RoquaProgram.error("\(file): \(problem)") }
                throw Failure("\(file): \(problems.count) problem(s)")
            }
            print("\(file): \(try AchievementCatalog.load(path: file).achievements.count) achievements, no problems")
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
        let profile = try Profile(store: storeOptions.open(), tracker: achievementOptions.tracker(boundaries: boundaryOptions))
        let filled = Int((20 * profile.level.fraction).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 20 - filled)
        print("Level \(profile.level.level)  \(bar)  \(profile.level.xp) XP (next level at \(profile.level.nextLevelXP))")
        print("\(profile.regions) regions, \(profile.districts) districts, \(profile.provinces) provinces, \(profile.countries) countries")
        let shown = profile.badges.prefix(5).map { "\($0.title.en) (\(StatsCommand.day($0.unlockedAt, .current)))" }
        let more = profile.badges.count - shown.count
        print(
            "Badges: \(profile.badges.count) of \(profile.achievementCount)"
                + (shown.isEmpty ? "" : " — latest: " + shown.joined(separator: ", "))
                + (more > 0 ? ", and \(more) more (roqua achievements)" : ""))
        guard let svg else { return }
        try OutputFile.write(Array(ProfileCard.svg(profile).utf8), to: svg)
        print("Wrote \(svg)")
    }
}
