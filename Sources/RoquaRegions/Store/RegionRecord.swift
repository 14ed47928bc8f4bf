import Foundation
import GRDB

/// Timestamps are stored as ISO 8601 text in UTC with milliseconds, as the seed's TEXT columns
/// suggest: readable in any SQLite shell, sortable as text, exact to the millisecond.
public enum StoreTime {
    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutMilliseconds = Date.ISO8601FormatStyle()

    /// `2023-11-14T22:13:20.123Z`. Milliseconds are computed here: the format style truncates
    /// binary fractions (.123 would come out as .122).
    public static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (whole, fraction) = seconds.remainder < 0 ? (seconds.quotient - 1, seconds.remainder + 1000) : seconds
        let text = withoutMilliseconds.format(Date(timeIntervalSince1970: Double(whole)))
        return text.dropLast() + "." + String(String(fraction + 1000).dropFirst()) + "Z"
    }

    public static func date(_ text: String) -> Date? {
        (try? withMilliseconds.parse(text)) ?? (try? withoutMilliseconds.parse(text))
    }

    /// Rounds to the millisecond, the store's precision, so what is kept equals what is read back.
    public static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

/// One row of `visited_regions`.
struct RegionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "visited_regions"
    var region: VisitedRegion
    var enrichedWith: String?

    init(region: VisitedRegion, enrichedWith: String?) {
        self.region = region
        self.enrichedWith = enrichedWith
    }

    init(row: Row) throws {
        func time(_ column: String) throws -> Date {
            let text: String = row[column]
            guard let date = StoreTime.date(text) else {
                throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "bad timestamp in column \(column)")
            }
            return date
        }
        let end: String? = row["timestamp_end"]
        region = VisitedRegion(
            id: row["id"], latitude: row["latitude"], longitude: row["longitude"], radius: row["radius"],
            timestampStart: try time("timestamp_start"), timestampEnd: end.flatMap(StoreTime.date),
            city: row["city"], district: row["district"], country: row["country"],
            countryCode: row["country_code"], provinceCode: row["province_code"], districtCode: row["district_code"],
            geohash: row["geohash"], visitCount: row["visit_count"], lastVisit: try time("last_visit"))
        enrichedWith = row["enriched_with"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = region.id
        container["latitude"] = region.latitude
        container["longitude"] = region.longitude
        container["radius"] = region.radius
        container["timestamp_start"] = StoreTime.text(region.timestampStart)
        container["timestamp_end"] = region.timestampEnd.map(StoreTime.text)
        container["city"] = region.city
        container["district"] = region.district
        container["country"] = region.country
        container["geohash"] = region.geohash
        container["country_code"] = region.countryCode
        container["province_code"] = region.provinceCode
        container["district_code"] = region.districtCode
        container["visit_count"] = region.visitCount
        container["last_visit"] = StoreTime.text(region.lastVisit)
        container["enriched_with"] = enrichedWith
    }
}
