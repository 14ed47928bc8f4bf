import GRDB

/// The boundary DB's layout. One file: boundaries (full geometry as WKB, hierarchy, names),
/// their subdivided pieces with an R*Tree over the pieces' boxes, provenance with each layer's
/// precision, and the precomputed cell index the resolver answers from (see `CellIndex`).
///
/// Version 2 added `sources.precision` and the `cell_index` / `cell_tiles` tables; version 3 the
/// `localities` table (GeoNames populated places tied to Roqua's country and province codes, with
/// an R*Tree over each place's reach box, see `LocalityIndex`) and its provenance in `meta`
/// (`localities_source`, `localities_licence`, `localities_sha256`).
///
/// `boundaries_units` covers the columns `ResolverIndex` reads at open, so opening scans 0.3 MB of
/// index instead of the first page of every boundary row (each row holds its geometry: ~9 MB);
/// `pieces_boxes` does the same for the piece boxes the GEOS path loads (1.1 MB instead of ~47 MB).
/// A version-3 DB built before them still opens, only slower; the layout version is unchanged.
/// The same holds for `locality_packs` (each country's places as `LocalityIndex` searches them,
/// see `LocalityPack`): without it the places are read from their rows.
/// So does one built before `sources.crs`, `fields` and `added_at` (a layer's CRS when it was
/// reprojected, the fields read, when a user added it): `roqua info` shows them when present.
package enum BoundarySchema {
    package static let version = 3

    /// The units `ResolverIndex` reads at open (covered by `boundaries_units`).
    package static let unitQuery = """
        SELECT b.id, b.level, b.code, b.name, b.name_en, b.name_tr, b.parent_id, b.country_code, s.precision
        FROM boundaries b JOIN sources s ON s.id = b.source_id ORDER BY b.id
        """
    /// What the GEOS path reads for its first point (covered by `boundaries_units` and `pieces_boxes`).
    package static let unitIDQuery = "SELECT id FROM boundaries ORDER BY id"
    package static let pieceQuery = "SELECT id, boundary_id, min_x, min_y, max_x, max_y, vertex_count FROM pieces ORDER BY id"

    package static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE sources (
                    id INTEGER PRIMARY KEY,
                    layer TEXT NOT NULL,
                    level INTEGER NOT NULL,
                    file TEXT NOT NULL,
                    shp_sha256 TEXT NOT NULL,
                    shx_sha256 TEXT NOT NULL,
                    dbf_sha256 TEXT NOT NULL,
                    encoding TEXT NOT NULL,
                    features INTEGER NOT NULL,
                    description TEXT NOT NULL,
                    licence TEXT NOT NULL,
                    precision INTEGER NOT NULL DEFAULT 0,
                    crs TEXT,
                    fields TEXT,
                    added_at TEXT
                );
                CREATE TABLE boundaries (
                    id INTEGER PRIMARY KEY,
                    level INTEGER NOT NULL,
                    code TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    name_en TEXT NOT NULL,
                    name_tr TEXT NOT NULL,
                    parent_id INTEGER REFERENCES boundaries(id),
                    country_code TEXT NOT NULL,
                    continent TEXT,
                    iso_a3 TEXT,
                    source_id INTEGER NOT NULL REFERENCES sources(id),
                    source_record INTEGER NOT NULL,
                    min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL,
                    vertex_count INTEGER NOT NULL,
                    geometry BLOB NOT NULL
                );
                CREATE INDEX boundaries_parent ON boundaries(parent_id);
                CREATE INDEX boundaries_level_country ON boundaries(level, country_code);
                CREATE INDEX boundaries_units ON boundaries(id, level, code, name, name_en, name_tr, parent_id, country_code, source_id);
                CREATE TABLE pieces (
                    id INTEGER PRIMARY KEY,
                    boundary_id INTEGER NOT NULL REFERENCES boundaries(id),
                    level INTEGER NOT NULL,
                    min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL,
                    vertex_count INTEGER NOT NULL,
                    geometry BLOB NOT NULL
                );
                CREATE INDEX pieces_boundary ON pieces(boundary_id);
                CREATE INDEX pieces_boxes ON pieces(id, boundary_id, min_x, min_y, max_x, max_y, vertex_count);
                CREATE VIRTUAL TABLE piece_index USING rtree(id, min_x, max_x, min_y, max_y);
                CREATE TABLE cell_index (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    format INTEGER NOT NULL,
                    fallback_meters REAL NOT NULL,
                    unit_count INTEGER NOT NULL,
                    grid BLOB NOT NULL
                );
                CREATE TABLE cell_tiles (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
                CREATE TABLE localities (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    population INTEGER NOT NULL,
                    reach_m REAL NOT NULL,
                    country_code TEXT NOT NULL,
                    province_code TEXT,
                    district_code TEXT,
                    part_of INTEGER
                );
                CREATE INDEX localities_country ON localities(country_code, province_code, district_code);
                CREATE VIRTUAL TABLE locality_index USING rtree(id, min_x, max_x, min_y, max_y);
                CREATE TABLE locality_packs (country_code TEXT PRIMARY KEY, data BLOB NOT NULL);
                """)
    }
}
