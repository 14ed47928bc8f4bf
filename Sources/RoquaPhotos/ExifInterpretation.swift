import Foundation

/// A position from one source, before a time is attached.
struct Position: Equatable {
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var altitude: Double?
}

/// A capture time from EXIF.
enum CaptureTime: Equatable {
    /// An instant: GPS UTC time, or a local time with its UTC offset applied.
    case utc(millis: Int64)
    /// A wall-clock time with no known offset (milliseconds of the wall clock read as if UTC).
    case local(millis: Int64)
}

enum ExifInterpretation {
    /// GPS position, or nil when the photo has none (missing tags, 0/0 denominators, 0,0).
    /// Throws `.malformed` for values that exist but cannot be a position.
    static func position(_ v: ExifValues) throws(ReadFailure) -> Position? {
        guard let latParts = v.latitude, let lonParts = v.longitude else { return nil }
        guard let lat = degrees(latParts), let lon = degrees(lonParts) else { return nil }
        var latitude = lat, longitude = lon
        switch v.latitudeRef?.uppercased() {
        case nil, "", "N": break
        case "S": latitude = -latitude
        case let other?: throw .malformed("GPSLatitudeRef '\(other)'")
        }
        switch v.longitudeRef?.uppercased() {
        case nil, "", "E": break
        case "W": longitude = -longitude
        case let other?: throw .malformed("GPSLongitudeRef '\(other)'")
        }
        guard latitude.isFinite, longitude.isFinite else { throw .malformed("GPS position is not finite") }
        guard abs(latitude) <= 90 else { throw .malformed("GPS latitude \(latitude) out of range") }
        guard abs(longitude) <= 180 else { throw .malformed("GPS longitude \(longitude) out of range") }
        if latitude == 0, longitude == 0 { return nil }

        var altitude: Double?
        if let a = v.altitude, let value = ratio(a), value.isFinite {
            altitude = v.altitudeRef == 1 ? -value : value
        }
        var accuracy: Double?
        if let e = v.horizontalError, let value = ratio(e), value.isFinite, value >= 0 {
            accuracy = value
        }
        return Position(latitude: latitude, longitude: longitude, accuracy: accuracy, altitude: altitude)
    }

    /// deg/min/sec rationals → degrees; nil when any denominator is 0 (how cameras say "no fix").
    static func degrees(_ parts: [ExifValues.Rational]) -> Double? {
        guard parts.count >= 1 else { return nil }
        var total = 0.0
        for (i, part) in parts.prefix(3).enumerated() {
            guard let value = ratio(part) else { return nil }
            total += value / [1.0, 60.0, 3600.0][i]
        }
        return total
    }

    static func ratio(_ r: ExifValues.Rational) -> Double? {
        r.den == 0 ? nil : Double(r.num) / Double(r.den)
    }

    /// The best capture time: GPS date+time (UTC) when valid, else the first valid
    /// DateTimeOriginal / DateTimeDigitized / DateTime, with its offset when there is one.
    static func captureTime(_ v: ExifValues) -> CaptureTime? {
        if let gps = gpsTime(v) { return .utc(millis: gps) }
        for (dateTime, subSeconds, offset) in v.localTimes {
            guard let dateTime, var local = parseDateTime(dateTime) else { continue }
            if let subSeconds { local += subSecondMillis(subSeconds) }
            if let offset, let seconds = parseOffset(offset) {
                return .utc(millis: local - Int64(seconds) * 1000)
            }
            return .local(millis: local)
        }
        return nil
    }

    static func gpsTime(_ v: ExifValues) -> Int64? {
        guard let dateText = v.gpsDate, let t = v.gpsTime, t.count >= 3,
            let day = parseDate(dateText),
            let h = ratio(t[0]), let m = ratio(t[1]), let s = ratio(t[2]),
            h >= 0, h < 24, m >= 0, m < 60, s >= 0, s < 61
        else { return nil }
        let seconds = h.rounded(.down) * 3600 + m.rounded(.down) * 60 + s
        return day * 86_400_000 + Int64((seconds * 1000).rounded())
    }

    /// "YYYY:MM:DD" (or with '-') → days since 1970-01-01.
    static func parseDate(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 10, b[4] == 58 || b[4] == 45, b[7] == b[4],
            let y = number(b[0..<4]), let mo = number(b[5..<7]), let d = number(b[8..<10]),
            (1800...2200).contains(y), (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d)
        else { return nil }
        return daysFromCivil(y, mo, d)
    }

    /// "YYYY:MM:DD HH:MM:SS" → wall-clock milliseconds since 1970 (read as if UTC).
    static func parseDateTime(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 19, let day = parseDate(String(decoding: b[0..<10], as: UTF8.self)),
            b[10] == 32 || b[10] == 84, b[13] == 58, b[16] == 58,
            let h = number(b[11..<13]), let m = number(b[14..<16]), let s = number(b[17..<19]),
            h < 24, m < 60, s < 61
        else { return nil }
        return (day * 86_400 + Int64(h * 3600 + m * 60 + s)) * 1000
    }

    /// SubSecTime digits are a decimal fraction: "5" = 500 ms, "25" = 250 ms, "123456" = 123 ms.
    static func subSecondMillis(_ text: String) -> Int64 {
        let digits = Array(text.utf8.prefix { $0 >= 48 && $0 <= 57 }.prefix(3))
        guard !digits.isEmpty else { return 0 }
        var value = 0
        for i in 0..<3 { value = value * 10 + (i < digits.count ? Int(digits[i] - 48) : 0) }
        return Int64(value)
    }

    /// "+03:00", "-05:30", "+0300" or "Z" → seconds east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let b = Array(text.utf8)
        if b.first == 90 { return 0 }  // "Z"
        guard b.count >= 5, b[0] == 43 || b[0] == 45 else { return nil }
        let hasColon = b[3] == 58
        guard let h = number(b[1..<3]),
            let m = number(hasColon ? b[4..<min(6, b.count)] : b[3..<5]),
            !hasColon || b.count >= 6, h <= 14, m < 60
        else { return nil }
        let seconds = h * 3600 + m * 60
        return b[0] == 45 ? -seconds : seconds
    }

    /// Applies a caller-supplied zone to a wall-clock time (DST-aware via Foundation).
    static func utcMillis(local: Int64, in zone: TimeZone) -> Int64 {
        let guess = Date(timeIntervalSince1970: Double(local) / 1000)
        let first = zone.secondsFromGMT(for: guess)
        let second = zone.secondsFromGMT(for: guess.addingTimeInterval(-Double(first)))
        return local - Int64(second) * 1000
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for c in digits {
            guard c >= 48, c <= 57 else { return nil }
            value = value * 10 + Int(c - 48)
        }
        return value
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days_from_civil.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
