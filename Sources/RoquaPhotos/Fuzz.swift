import Foundation

// Fuzz entry points: run one reader on in-memory bytes. They must never crash, hang or
// allocate without bound, whatever the input. Each returns the full-path reading (for statistics).

/// JPEG: marker walk → APP1 → TIFF validation → libexif → interpretation.
@discardableResult
package func fuzzJPEG(_ bytes: [UInt8]) -> PhotoReading {
    fuzzContainer(bytes) { source throws(ReadFailure) in try JPEGReader.exifTIFF(source) }
}

/// HEIF/HEIC/AVIF: box walk → meta/iinf/iloc → Exif item → TIFF → libexif.
@discardableResult
package func fuzzISOBMFF(_ bytes: [UInt8]) -> PhotoReading {
    fuzzContainer(bytes) { source throws(ReadFailure) in try ISOBMFFReader.exifTIFF(source) }
}

/// PNG: chunk walk → eXIf → TIFF → libexif.
@discardableResult
package func fuzzPNG(_ bytes: [UInt8]) -> PhotoReading {
    fuzzContainer(bytes) { source throws(ReadFailure) in try PNGReader.exifTIFF(source) }
}

/// Takeout sidecar JSON (Codable).
@discardableResult
package func fuzzTakeout(_ bytes: [UInt8]) -> PhotoReading {
    let reader = PhotoReader()
    _ = reader.read(photoBytes: [], sidecarBytes: bytes)
    return reader.combine(photo: nil, sidecar: Result { () throws(ReadFailure) in try TakeoutReader.parse(bytes) })
}

private func fuzzContainer(_ bytes: [UInt8], _ extract: (ByteSource) throws(ReadFailure) -> [UInt8]?) -> PhotoReading {
    let source = ByteSource(bytes: bytes)
    if let tiff = try? extract(source) {
        _ = try? PhotoReader.exifFacts(tiff)
    }
    _ = PhotoThumbnail.read(bytes: bytes)
    // Also the full path with format sniffing and a time zone.
    return PhotoReader(timeZone: TimeZone(secondsFromGMT: 3600)).read(photoBytes: bytes)
}
