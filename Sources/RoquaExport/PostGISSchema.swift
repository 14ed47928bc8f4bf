/// The SQL around the data of a PostGIS export: tables before the COPY blocks, indexes and the
/// resolve function after. Kept apart from the writer so the rules read as one piece of SQL.
enum PostGISSchema {
    static let boundaryColumns = [
        "id", "code", "level", "name", "name_en", "name_tr", "parent_code", "country", "continent",
        "layer", "layer_precision", "answer_country", "answer_province", "answer_district", "geom",
    ]
    static let pieceColumns = ["id", "boundary_id", "geom"]

    static func header(source: String, version: String) -> String {
        """
        -- Roqua boundaries for PostGIS, exported by Roqua \(version) from \(source.replacingOccurrences(of: "\n", with: " ")).
        -- Load with: psql -v ON_ERROR_STOP=1 -f FILE DATABASE   (one transaction; needs PostGIS 3).
        -- roqua_resolve(lon, lat) gives Roqua's exact answer; Roqua's nearest-boundary fallback
        -- (points within --fallback-meters of a coast) is not reproduced: such points get NULLs.
        \\set ON_ERROR_STOP on
        SET client_encoding = 'UTF8';
        SET client_min_messages = warning;  -- no notices for the DROP … IF EXISTS of a first load
        BEGIN;
        CREATE EXTENSION IF NOT EXISTS postgis;
        DROP FUNCTION IF EXISTS roqua_resolve(double precision, double precision);
        DROP TABLE IF EXISTS roqua_pieces;
        DROP TABLE IF EXISTS roqua_boundaries;
        CREATE TABLE roqua_boundaries (
            id integer PRIMARY KEY,
            code text NOT NULL UNIQUE,
            level smallint NOT NULL,          -- 0 country, 1 province, 2 district
            name text NOT NULL,
            name_en text NOT NULL,
            name_tr text NOT NULL,
            parent_code text REFERENCES roqua_boundaries(code),
            country text NOT NULL,            -- the country the unit belongs to
            continent text,
            layer text NOT NULL,
            layer_precision integer NOT NULL, -- a more precise layer decides the country of an answer
            answer_country text,              -- the answer when this unit is its deepest unit
            answer_province text,
            answer_district text,
            geom geometry(Geometry, 4326) NOT NULL
        );
        CREATE TABLE roqua_pieces (           -- boundaries cut into pieces of a few hundred vertices
            id integer PRIMARY KEY,
            boundary_id integer NOT NULL REFERENCES roqua_boundaries(id),
            geom geometry(Geometry, 4326) NOT NULL
        );

        """
    }

    static func copy(_ table: String, _ columns: [String]) -> String {
        "COPY \(table) (\(columns.joined(separator: ", "))) FROM stdin;\n"
    }

    static let copyEnd = "\\.\n"

    /// Indexes, the resolve function, commit and statistics.
    static let footer = """
        CREATE INDEX roqua_pieces_geom ON roqua_pieces USING gist (geom);
        CREATE INDEX roqua_pieces_boundary ON roqua_pieces (boundary_id);
        CREATE INDEX roqua_boundaries_geom ON roqua_boundaries USING gist (geom);
        CREATE INDEX roqua_boundaries_parent ON roqua_boundaries (parent_code);

        -- Roqua's exact answer for a point (longitude, latitude in WGS 84 degrees):
        --  * points on a boundary count as inside (ST_Covers);
        --  * one country per answer: among the units covering the point, the one of the most
        --    precise layer (then the deeper level, then the smaller code) decides the country;
        --  * the answer is the deepest unit of that country covering the point, the smaller code
        --    winning on a shared border, with its ancestors;
        --  * ±180 is one meridian: a point there in no polygon is looked up at the other side;
        --  * no polygon: all NULL (Roqua's nearest-boundary fallback is not reproduced).
        CREATE FUNCTION roqua_resolve(lon double precision, lat double precision,
                                      OUT country_code text, OUT province_code text, OUT district_code text)
        LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $roqua$
            WITH direct AS (
                SELECT DISTINCT p.boundary_id FROM roqua_pieces p
                WHERE ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(lon, lat), 4326))
            ), seam AS (
                SELECT DISTINCT p.boundary_id FROM roqua_pieces p
                WHERE abs(lon) = 180 AND NOT EXISTS (SELECT 1 FROM direct)
                  AND ST_Covers(p.geom, ST_SetSRID(ST_MakePoint(-lon, lat), 4326))
            ), covering AS (
                SELECT b.* FROM roqua_boundaries b
                WHERE b.id IN (SELECT boundary_id FROM direct UNION ALL SELECT boundary_id FROM seam)
            ), decider AS (
                SELECT country FROM covering
                ORDER BY layer_precision DESC, level DESC, code COLLATE "C" LIMIT 1
            )
            SELECT c.answer_country, c.answer_province, c.answer_district
            FROM covering c JOIN decider d ON c.country = d.country
            ORDER BY c.level DESC, c.code COLLATE "C" LIMIT 1
        $roqua$;
        COMMENT ON FUNCTION roqua_resolve(double precision, double precision) IS
            'Roqua''s exact country/province/district codes for (lon, lat); NULLs where no polygon covers the point (no nearest-boundary fallback).';

        COMMIT;
        ANALYZE roqua_boundaries;
        ANALYZE roqua_pieces;

        """
}
