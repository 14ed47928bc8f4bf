import ArgumentParser
import Foundation
import Synchronization
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaProgress
import RoquaRegions

/// `--store PATH`, shared by the verbs that read or write the user's regions.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The region store (default: $ROQUA_STORE or the data home).", valueName: "PATH"))
    var store: String?

    var path: String { store ?? RegionStore.defaultPath() }

    /// A big store (`ExploredFigures.rememberedFrom` regions or more) opened for writing when it
    /// exists and may be written: where a reading verb remembers figures it computed
    /// (`StoredFigures`), and what holds the write lock a moment while two handles begin reading
    /// one snapshot. nil otherwise (the read-only handle then remembers nothing). Never creates a store.
    func writable(regions: Int) -> RegionStore? {
        guard regions >= ExploredFigures.rememberedFrom, FileManager.default.isWritableFile(atPath: path) else { return nil }
        return try? open(.readWrite)
    }

    /// The facts of every readable region of `store` (opened by `open(.readOnly)`), in id order:
    /// a big writable store's in two halves at once on one snapshot (`tallyFactsInHalves`).
    func regionFacts(_ store: RegionStore) throws -> [RegionFacts] {
        let count = try store.regionCount()
        let room: @Sendable (Int) -> [RegionFacts] = { count in
            var facts: [RegionFacts] = []
            facts.reserveCapacity(count)
            return facts
        }
        if let lock = writable(regions: count),
           let (first, later) = try store.tallyFactsInHalves(second: try open(.readOnly), lock: lock, minimumIDs: ProgressReport.halvesFrom,
                                                              start: room, add: { $0.append($1) }) {
            return first + later
        }
        var facts = room(count)
        try store.forEachRegionFacts { facts.append($0) }
        return facts
    }

    /// The store with every module's tables; verbs that only read open it read-only. Rows that
    /// cannot be read back are reported once (they are skipped, never fatal).
    func open(_ access: RegionStore.Access = .readWrite) throws -> RegionStore {
        let path = path
        if let warning = PrivateFiles.looseModeWarning(path) {
            Self.warnedLoose.withLock { warned in
                if !warned { Terminal.warning(warning) }
                warned = true
            }
        }
        return try RegionStore(path: path, components: Self.components, access: access) { unreadable in
            Self.warnedOnce.withLock { warned in
                guard !warned else { return }
                warned = true
                Terminal.warning("\(path): \(unreadable.count) stored region(s) cannot be read and are skipped "
                    + "(first: \(unreadable[0])); `roqua regions repair` removes them")
            }
        }
    }

    /// Every module's tables in the store.
    static let components = [AchievementStorage.component]

    /// One warning per command, however many times the regions are read.
    private static let warnedOnce = Mutex(false)
    /// A verb may open the store more than once (a second connection, a writable one): one
    /// warning about its mode.
    private static let warnedLoose = Mutex(false)
}

/// `--boundaries PATH`, shared by every verb that reads the boundary DB.
struct BoundaryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The boundary database.", valueName: "PATH"))
    var boundaries: String?

    var path: String { boundaries ?? RoquaPaths.boundaries() }

    func open() throws -> BoundaryDatabase { try BoundaryDatabase(path: path) }
}

/// `--achievements FILE`: the definitions (default: the ones built into Roqua).
struct AchievementOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Achievement definitions (default: $ROQUA_ACHIEVEMENTS or the built-in ones).", valueName: "FILE"))
    var achievements: String?

    func catalog() throws -> AchievementCatalog {
        if let path = achievements ?? ProcessInfo.processInfo.environment["ROQUA_ACHIEVEMENTS"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try AchievementCatalog.load(path: path)
        }
        return try AchievementCatalog.bundled()
    }

    func tracker(boundaries: BoundaryOptions) throws -> AchievementTracker {
        AchievementTracker(catalog: try catalog(), hierarchy: try BoundaryHierarchy(database: boundaries.open()))
    }
}
