import ArgumentParser
import RoquaBoundaries

@main
struct RoquaCommand: ParsableCommand {
    /// `roqua resolve -33.9 18.4` should just work: a bare negative number is a coordinate,
    /// not an option, so it is marked before the parser sees it (see `Degrees`).
    static func main() {
        main(CommandLine.arguments.dropFirst().map(Degrees.protectingNegativeNumber))
    }

    static let configuration = CommandConfiguration(
        commandName: "roqua",
        abstract: "Offline reverse geocoder: coordinates → country / province / district, with no network.",
        version: Roqua.version,
        subcommands: [ResolveCommand.self, ImportCommand.self, InfoCommand.self, TrackCommand.self, RegionsCommand.self,
                      StatsCommand.self, MapCommand.self, AchievementsCommand.self, ProfileCommand.self,
                      ExportCommand.self, RestoreCommand.self]
    )
}
