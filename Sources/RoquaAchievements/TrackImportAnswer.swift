import Foundation
import RoquaBoundaries
import RoquaRegions

/// One imported track file as `roqua track import --json` prints it and an upload to `roqua serve`
/// answers it: the summary's counts, the firsts, the unlocks and the lines the CLI prints.
public struct TrackImportAnswer: Codable, Sendable, Equatable {
    /// A unit visited for the first time.
    public struct Unit: Codable, Sendable, Equatable {
        public var code: String
        public var name: String
    }

    /// An achievement the file unlocked, with its title in both languages.
    public struct Unlock: Codable, Sendable, Equatable {
        public var id: String
        public var title: Title
        public var xp: Int

        public struct Title: Codable, Sendable, Equatable {
            public var en: String
            public var tr: String
        }
    }

    /// The level before and after the file's unlocks.
    public struct LevelUp: Codable, Sendable, Equatable {
        public var from: Int
        public var to: Int
    }

    public var file: String
    public var format: String
    public var alreadyImported: Bool
    /// Why a file found by walking a folder or archive was passed over (nothing was read).
    public var notATrack: String?
    public var fixesRead: Int
    /// Fixes this import added to the kept history.
    public var fixesKept: Int
    public var untimedSkipped: Int
    public var untimedAssumed: Int
    public var skipped: Int
    public var skippedByReason: [String: Int]
    public var skippedLines: [Int]
    public var dropped: Int
    /// Keys `invalid_coordinate`, `invalid_timestamp`, `accuracy`, `duplicate`.
    public var droppedByReason: [String: Int]
    public var newRegions: Int
    public var revisits: Int
    public var flights: Int
    public var inFlight: Int
    public var glitches: Int
    public var firstDistricts: [Unit]
    public var firstProvinces: [Unit]
    public var firstCountries: [Unit]
    public var unlocked: [Unlock]
    public var levelUp: LevelUp?
    /// A folder of photos: photos read, located, skipped by reason, the first damaged ones.
    public var photos: PhotoCounts?
    /// The lines `roqua track import` prints for the file (English).
    public var text: String

    /// `summary` under `name`, with the unlocks and level-up of `events` titled from `catalog`;
    /// `maxAccuracy` is the accuracy limit the import used (named in the text when it dropped fixes).
    public init(
        _ summary: TrackImportSummary, name: String, events: [AchievementEvent], catalog: AchievementCatalog,
        maxAccuracy: Double
    ) {
        var named = summary
        named.file = name
        file = name
        format = summary.format
        alreadyImported = summary.alreadyImported
        notATrack = summary.notATrack
        fixesRead = summary.fixesRead
        fixesKept = summary.fixesKept
        untimedSkipped = summary.untimedSkipped
        untimedAssumed = summary.untimedAssumed
        skipped = summary.skipped.count
        skippedByReason = summary.skipped.byReason
        skippedLines = summary.skipped.lines
        dropped = summary.droppedTotal
        droppedByReason = Dictionary(uniqueKeysWithValues: summary.dropped.map { ($0.key.key, $0.value) })
        newRegions = summary.newRegions
        revisits = summary.revisits
        flights = summary.flights.count
        inFlight = summary.inFlight
        glitches = summary.glitches
        photos = summary.photos
        func firsts(_ level: AdminLevel) -> [Unit] {
            summary.firsts.filter { $0.level == level }.map { Unit(code: $0.code, name: $0.name) }
        }
        firstDistricts = firsts(.district)
        firstProvinces = firsts(.province)
        firstCountries = firsts(.country)
        unlocked = []
        var lines = [named.report(maxAccuracy: maxAccuracy)]
        for event in events {
            switch event {
            case let .unlocked(unlock):
                let title = catalog.definition(unlock.id)?.title
                let en = title?.en ?? unlock.id
                let tr = title?.tr ?? unlock.id
                unlocked.append(Unlock(id: unlock.id, title: .init(en: en, tr: tr), xp: unlock.xp))
                lines.append("  unlocked: \(en) / \(tr) (+\(unlock.xp) XP)")
            case let .levelUp(from, to):
                levelUp = LevelUp(from: from, to: to)
                lines.append("  level up: \(from) → \(to)")
            }
        }
        text = lines.joined(separator: "\n")
    }
}

/// A whole `roqua track import` run (or an archive uploaded to `roqua serve`): every imported
/// file's answer, the files that failed, and how many others were passed over.
public struct TrackImportRunAnswer: Codable, Sendable, Equatable {
    /// A file that could not be imported, and why.
    public struct Failure: Codable, Sendable, Equatable {
        public var file: String
        public var error: String

        public init(file: String, error: String) {
            (self.file, self.error) = (file, error)
        }
    }

    /// The uploaded archive's name (an upload only).
    public var file: String?
    /// `archive` (an upload only).
    public var format: String?
    /// Regions new to the store across the files (an upload only).
    public var newRegions: Int?
    /// The districts visited for the first time across the files (an upload only).
    public var firstDistricts: [TrackImportAnswer.Unit]?
    public var files: [TrackImportAnswer]
    public var failed: [Failure]
    public var passedOver: Int
    /// Every file's lines, the errors and the run's summary line (an upload only).
    public var text: String?

    public init(files: [TrackImportAnswer], failed: [Failure], passedOver: Int) {
        (self.files, self.failed, self.passedOver) = (files, failed, passedOver)
    }
}

extension ClusterDropReason {
    /// The reason as answers name it.
    public var key: String {
        switch self {
        case .invalidCoordinate: "invalid_coordinate"
        case .invalidTimestamp: "invalid_timestamp"
        case .accuracy: "accuracy"
        case .duplicate: "duplicate"
        }
    }
}
