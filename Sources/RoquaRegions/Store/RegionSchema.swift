import GRDB

/// The region store's schema, one migration per change: a store written by an older Roqua is
/// brought up to date on open, inside a transaction.
enum RegionSchema {
    /// The first migration's id: every region store has it applied.
    static let first = "v1: visited regions and imports"
    /// Adds each region's locality (GeoNames place, see `RegionEnricher`).
    static let locality = "v2: locality of visited regions"
    /// Adds the devices that post positions live (`roqua serve device add`).
    static let devices = "v3: devices posting live"
    /// Adds flights, days per place and explorer tiles, re-evaluating what is stored (`TravelUpgrade`).
    static let travel = "v4: flights, days per place, explorer tiles"
    /// The province's name column is called what it holds (it was `city`, the product's word).
    static let province = "v5: province column"
    /// The explored area and world share of a big store, remembered with the fingerprint of the
    /// circles they were computed from (`StoredFigures`).
    static let figures = "v6: explored figures"
    /// Keeps every fix imported or posted (`FixHistory`), and the settings everything is derived with.
    static let history = "v7: kept fixes"
    /// Keeps the history's stays and moves (`KeptTimeline`) and the lifetime map's count tiles
    /// (`MapTileKeeper`), made by the next import or rebuild; marks photos' sources.
    static let timeline = "v8: kept timeline"
    /// Where each photo was imported from (the folder's absolute path), for its preview.
    static let photoFolders = "v9: photo folders"
    /// Regions' names kept once per place (`PlaceTable`), their times as integer milliseconds.
    static let places = "v10: places, integer times"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(first) { db in
            // The product's table, plus codes (names change with the language and the data; codes do
            // not), visit bookkeeping, and which boundary DB enriched the row.
            try db.execute(
                sql: """
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
        migrator.registerMigration(locality) { db in
            // Regions enriched before localities existed are marked unenriched, so the next
            // `roqua regions enrich` fills their locality in.
            try db.execute(
                sql: """
                    ALTER TABLE visited_regions ADD COLUMN locality TEXT;
                    ALTER TABLE visited_regions ADD COLUMN locality_id INTEGER;
                    CREATE INDEX idx_regions_locality ON visited_regions(country_code, locality_id);
                    UPDATE visited_regions SET enriched_with = NULL;
                    """)
        }
        migrator.registerMigration(devices) { db in
            // Tokens are kept only as their SHA-256: the store leaking does not leak a token.
            try db.execute(
                sql: """
                    CREATE TABLE devices (
                        name TEXT PRIMARY KEY,
                        token_sha256 TEXT NOT NULL UNIQUE,
                        created_at TEXT NOT NULL,
                        revoked_at TEXT,
                        last_seen TEXT,
                        fixes_posted INTEGER NOT NULL DEFAULT 0,
                        fixes_skipped INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
        migrator.registerMigration(travel) { db in try TravelUpgrade.migrate(db) }
        migrator.registerMigration(province) { db in
            try db.execute(
                sql: """
                    ALTER TABLE visited_regions RENAME COLUMN city TO province;
                    ALTER TABLE flight_regions RENAME COLUMN city TO province;
                    """)
        }
        migrator.registerMigration(figures) { db in
            try db.execute(
                sql: """
                    CREATE TABLE explored_figures (
                        name TEXT PRIMARY KEY,
                        fingerprint TEXT NOT NULL,
                        value REAL NOT NULL
                    )
                    """)
        }
        migrator.registerMigration(history) { db in try FixHistory.createTables(db) }
        migrator.registerMigration(timeline) { db in try KeptTimeline.createTable(db) }
        migrator.registerMigration(photoFolders) { db in
            try db.execute(sql: "ALTER TABLE fix_sources ADD COLUMN folder TEXT")
        }
        migrator.registerMigration(places) { db in try PlaceTable.migrate(db) }
        return migrator
    }
}
