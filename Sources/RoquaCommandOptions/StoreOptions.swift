import ArgumentParser
import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaCommandLine
import RoquaIO
import RoquaProgress
import RoquaRegions
import Synchronization

/// `--store PATH`, shared by the verbs of `roqua` and `roqua-serve` that read or write the user's regions.
package struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The region store (default: $ROQUA_STORE or the data home).", valueName: "PATH"))
    package var store: String?

    package init() {}

    /// The store's path: `--store`, else `$ROQUA_STORE`, else the data home's.
    package var path: String { store ?? RegionStore.defaultPath() }

    /// A big store (`ExploredFigures.rememberedFrom` regions or more) opened for writing when it
    /// exists and may be written: where a reading verb remembers figures it computed
    /// (`StoredFigures`), and what holds the write lock a moment while two handles begin reading
    /// one snapshot. nil otherwise (the read-only handle then remembers nothing). Never creates a store.
    package func writable(regions: Int) -> RegionStore? {
        guard regions >= ExploredFigures.rememberedFrom, FileManager.default.isWritableFile(atPath: path) else { return nil }
        return try? open(.readWrite)
    }

    /// The facts of every readable region of `store` (opened by `open(.readOnly)`), in id order:
    /// a big writable store's in two halves at once on one snapshot (`tallyFactsInHalves`).
    package func regionFacts(_ store: RegionStore) throws -> [RegionFacts] {
        let count = try store.regionCount()
        let room: @Sendable (Int) -> [RegionFacts] = { count in
            var facts: [RegionFacts] = []
            facts.reserveCapacity(count)
            return facts
        }
        if let lock = writable(regions: count),
            let (first, later) = try store.tallyFactsInHalves(
                second: try open(.readOnly), lock: lock, minimumIDs: ProgressReport.halvesFrom,
                start: room, add: { $0.append($1) })
        {
            return first + later
        }
        var facts = room(count)
        try store.forEachRegionFacts { facts.append($0) }
        return facts
    }

    /// The store with every module's tables; verbs that only read open it read-only. Rows that
    /// cannot be read back are reported once (they are skipped, never fatal).
    package func open(_ access: RegionStore.Access = .readWrite) throws -> RegionStore {
        let path = path
        if let warning = PrivateFiles.looseModeWarning(path) {
            Self.warnedLoose.withLock { warned in
                if !warned { RoquaProgram.warn(warning) }
                warned = true
            }
        }
        let unreadable = { @Sendable (unreadable: [UnreadableRegion]) in
            Self.warnedOnce.withLock { warned in
                guard !warned else { return }
                warned = true
                RoquaProgram.warn(
                    "\(path): \(unreadable.count) stored region(s) cannot be read and are skipped "
                        + "(first: \(unreadable[0])); `roqua regions repair` removes them")
            }
        }
        var upgraded = false
        let store = try RegionStore(path: path, components: Self.components, access: access, unreadable: unreadable) { copy in
            RoquaProgram.note("Upgrading the store \(path) to this Roqua's format; a copy of it as it was is kept at \(copy)")
            upgraded = true
        }
        // A store from before the figures were kept has them measured now, with the upgrade, not
        // by the first `stats` after it (best effort, as remembering is).
        if upgraded, let writable = access == .readWrite ? store : try? RegionStore(path: path, components: Self.components) {
            ExploredFigures.keepRemembered(in: writable)
        }
        return store
    }

    /// Every module's tables in the store.
    package static let components = [AchievementStorage.component]

    /// One warning per command, however many times the regions are read.
    private static let warnedOnce = Mutex(false)
    /// A verb may open the store more than once (a second connection, a writable one): one
    /// warning about its mode.
    private static let warnedLoose = Mutex(false)
}
