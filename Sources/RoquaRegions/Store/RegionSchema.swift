import GRDB

/// The region store's schema, one migration per change: a store written by an older Roqua is
/// brought up to date on open, inside a transaction.
enum RegionSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: visited regions and imports") { db in
            // Seed 001's table, plus codes (names change with the language and the data; codes do
            // not), visit bookkeeping, and which boundary DB enriched the row.
            try db.execute(sql: """
                CREATE TABLE visited_regions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    radius INTEGER NOT NULL,
                    timestamp_start TEXT NOT NULL,
                    timestamp_end TEXT,
                    city TEXT,
                    district TEXT,
                    country TEXT,
                    geohash TEXT NOT NULL,
                    country_code TEXT,
                    province_code TEXT,
                    district_code TEXT,
                    visit_count INTEGER NOT NULL DEFAULT 1,
                    last_visit TEXT NOT NULL,
                    enriched_with TEXT
                );
                CREATE INDEX idx_regions_location ON visited_regions(latitude, longitude);
                CREATE INDEX idx_regions_geohash ON visited_regions(geohash);
                CREATE INDEX idx_regions_country ON visited_regions(country);
                CREATE INDEX idx_regions_codes ON visited_regions(country_code, province_code, district_code);
                CREATE TABLE imports (
                    checksum TEXT PRIMARY KEY,
                    file TEXT NOT NULL,
                    format TEXT NOT NULL,
                    imported_at TEXT NOT NULL,
                    fixes_read INTEGER NOT NULL,
                    fixes_dropped INTEGER NOT NULL,
                    new_regions INTEGER NOT NULL,
                    revisits INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: achievement unlocks") { db in
            // An achievement unlocks once: the primary key makes a second unlock impossible.
            try db.execute(sql: """
                CREATE TABLE achievement_unlocks (
                    id TEXT PRIMARY KEY,
                    unlocked_at TEXT NOT NULL,
                    xp INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3: achievement progress") { db in
            // Progress as last evaluated, so `achievements` and the profile read it without recomputing.
            try db.execute(sql: """
                CREATE TABLE achievement_progress (
                    id TEXT PRIMARY KEY,
                    current REAL NOT NULL,
                    target REAL NOT NULL,
                    updated_at TEXT NOT NULL
                );
                """)
        }
        return migrator
    }
}
