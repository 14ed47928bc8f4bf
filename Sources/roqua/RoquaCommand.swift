import ArgumentParser
import CLoaded
import RoquaBoundaries
import RoquaCommandLine

@main
struct RoquaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roqua",
        abstract: "Offline reverse geocoder: coordinates → country / province / district, with no network.",
        version: Roqua.version,
        subcommands: [
            ResolveCommand.self, BoundaryImportCommand.self, InfoCommand.self, TrackCommand.self, RegionsCommand.self,
            StatsCommand.self, MapCommand.self, AchievementsCommand.self, ProfileCommand.self,
            ExportCommand.self, RestoreCommand.self, HistoryCommand.self, BackupCommand.self, ForgetCommand.self,
            RebuildCommand.self, TimelineCommand.self, PlacesCommand.self, TripsCommand.self, YearCommand.self, PhotosCommand.self,
            ServeCommand.self,
            ExportBoundariesCommand.self,
        ]
    )

    /// `roqua resolve -33.9 18.4` and `--radius -5` should both mean what they say, but a bare
    /// negative number looks like an option to the parser. Two readings are tried: first each
    /// negative number right after a `--option` is joined to it (`--radius=-5`, so the value and
    /// any message about it keep their minus) and any other is marked as a coordinate (see
    /// `Degrees`); then, for a negative coordinate after a flag (`--json -33.9`), every one is
    /// marked. The first reading that parses runs; if none does, the first reading's error is shown.
    static func main() {
        roqua_single_malloc_arena()
        let raw = Array(CommandLine.arguments.dropFirst())
        var firstError: (any Error)?
        for arguments in [joiningOptionValues(raw), raw.map(Degrees.protectingNegativeNumber)] {
            do {
                var command = try parseAsRoot(arguments)
                do { try command.run() } catch { RoquaProgram.exit(Self.self, withError: error) }
                return
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        RoquaProgram.exit(Self.self, withError: firstError)
    }

    static func joiningOptionValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for argument in arguments {
            let isNegativeNumber = argument.count > 1 && argument.hasPrefix("-") && Double(argument) != nil
            if isNegativeNumber, let previous = result.last, previous.hasPrefix("--"), previous.count > 2, !previous.contains("=") {
                result[result.count - 1] = previous + "=" + argument
            } else {
                result.append(Degrees.protectingNegativeNumber(argument))
            }
        }
        return result
    }
}
