import Foundation

/// A trip with known answers over the bundled boundaries: 8 İstanbul districts (Kadıköy twice,
/// ~170 m apart), Ankara, Athens and Sofia.
package enum Trip {
    package static let places: [(Double, Double)] = [
        (41.0086, 28.9802), (41.0256, 28.9742), (41.0602, 28.9877), (41.0430, 29.0070),  // Fatih Beyoğlu Şişli Beşiktaş
        (41.0255, 29.0156), (40.9879, 29.0281), (40.9923, 29.1244), (40.9800, 28.8720),  // Üsküdar Kadıköy Ataşehir Bakırköy
        (40.9885, 29.0300),  // Kadıköy again
        (39.9208, 32.8541),  // Ankara, Çankaya
        (37.9838, 23.7275), (42.6977, 23.3219),  // Athens, Sofia
    ]

    /// The trip as a `lat,lon,timestamp` CSV, one place a day from 2024-05-01 10:00 UTC.
    package static var csv: String {
        var csv = "lat,lon,timestamp\n"
        for (i, place) in places.enumerated() { csv += "\(place.0),\(place.1),2024-05-\(String(format: "%02d", 1 + i))T10:00:00Z\n" }
        return csv
    }
}
