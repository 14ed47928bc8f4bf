import Foundation
import GRDB
import RoquaProgress
import RoquaRegions

/// One achievement unlocked, once, at a time.
public struct AchievementUnlock: Sendable, Equatable, Codable {
    /// The achievement's id.
    public var id: String
    /// When it was unlocked.
    public var unlockedAt: Date
    /// The XP its definition awarded at that time.
    public var xp: Int
}

/// The achievements' own table in the region store, `achievement_unlocks`: one row per unlock
/// (the primary key makes a second unlock of the same achievement impossible). It travels with
/// the regions in exports and restores. Progress is not stored: it is computed when asked for.
public enum AchievementStorage {
    /// Open the region store with this component to use achievements.
    public static let component = StoreComponent(
        name: "achievements",
        migrations: [
            .init("v2: achievement unlocks") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE achievement_unlocks (
                            id TEXT PRIMARY KEY,
                            unlocked_at TEXT NOT NULL,
                            xp INTEGER NOT NULL
                        );
                        """)
            },
            // Stores made by Roqua 0.1 kept progress here; nothing read it, so it is gone.
            .init("v4: no stored achievement progress") { db in
                try db.execute(sql: "DROP TABLE IF EXISTS achievement_progress")
            },
        ],
        archivedTables: [
            .init(key: "achievement_unlocks", table: "achievement_unlocks", order: "unlocked_at, id") { row throws(ArchiveRowProblem) in
                guard let id = row["id"]?.text, !id.isEmpty else { throw ArchiveRowProblem("no achievement id") }
                guard let time = row["unlocked_at"]?.text, StoreTime.date(time) != nil else {
                    throw ArchiveRowProblem("achievement '\(id)': unlocked_at is not a time")
                }
                guard let xp = row["xp"]?.integer, xp >= 0 else { throw ArchiveRowProblem("achievement '\(id)': xp must be ≥ 0") }
            }
        ],
        // Unlocks are dated by the regions that completed them (`CompletionTimes`): derived again with them.
        derivedTables: ["achievement_unlocks"]
    )

    /// Every unlock, earliest first.
    static func unlocks(_ db: Database) throws -> [AchievementUnlock] {
        try Row.fetchAll(db, sql: "SELECT id, unlocked_at, xp FROM achievement_unlocks ORDER BY unlocked_at, id").map {
            // Rows are written with StoreTime and restores check them; a time edited by hand into
            // something unreadable keeps its unlock (which is certain) at an unknown, earliest time.
            AchievementUnlock(id: $0["id"], unlockedAt: StoreTime.date($0["unlocked_at"]) ?? .distantPast, xp: $0["xp"])
        }
    }

    /// Stores `unlock` unless that achievement is unlocked already; true when it was new.
    static func insert(_ unlock: AchievementUnlock, _ db: Database) throws -> Bool {
        try db.execute(
            sql: "INSERT OR IGNORE INTO achievement_unlocks (id, unlocked_at, xp) VALUES (?, ?, ?)",
            arguments: [unlock.id, try StoreTime.text(unlock.unlockedAt), unlock.xp])
        return db.changesCount > 0
    }
}
