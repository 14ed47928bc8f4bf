import ArgumentParser
import Foundation
import RoquaAchievements
import RoquaBoundaries

/// `--achievements FILE`: the definitions (default: the ones built into Roqua).
package struct AchievementOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Achievement definitions (default: $ROQUA_ACHIEVEMENTS or the built-in ones).", valueName: "FILE"))
    package var achievements: String?

    package init() {}

    /// `--achievements`, else `$ROQUA_ACHIEVEMENTS` when set and not empty; nil for the built-in definitions.
    package var path: String? {
        achievements ?? ProcessInfo.processInfo.environment["ROQUA_ACHIEVEMENTS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// - Throws: `AchievementCatalogError` when the file cannot be read or its definitions are wrong.
    package func catalog() throws -> AchievementCatalog {
        if let path { return try AchievementCatalog.load(path: path) }
        return try AchievementCatalog.bundled()
    }

    package func tracker(boundaries: BoundaryOptions) throws -> AchievementTracker {
        AchievementTracker(catalog: try catalog(), hierarchy: try BoundaryHierarchy(database: boundaries.open()))
    }
}
