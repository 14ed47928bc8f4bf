import Foundation

/// Reads one photo's position and capture time from its metadata bytes only.
///
/// Precedence (see README):
/// - position: the photo's EXIF GPS; else the sidecar's `geoDataExif`; else its `geoData`.
/// - time: EXIF GPS date+time (UTC); else EXIF local time with its offset; else the sidecar's
///   `photoTakenTime` (UTC); else the EXIF local time in the caller's `timeZone`; else skipped
///   (`.noTimeZone` when a local time exists, `.noTime` otherwise).
/// - accuracy and altitude come with the position's source.
/// - a photo that cannot be read (absent, unsupported, malformed) is replaced by its sidecar when
///   the sidecar has a position and a time; otherwise the photo's own skip reason is reported.
public struct PhotoReader: Sendable {
    /// Zone for EXIF local times that carry no UTC offset; nil means skip them (`.noTimeZone`).
    public var timeZone: TimeZone?
    /// Cap on metadata bytes read per file.
    package var budget: Int = ByteSource.defaultBudget

    public init(timeZone: TimeZone? = nil) {
        self.timeZone = timeZone
    }

    /// Reads a photo and/or its Takeout sidecar (at least one path should be given).
    public func read(photoPath: String?, sidecarPath: String? = nil) -> PhotoReading {
        readMeasured(photoPath: photoPath, sidecarPath: sidecarPath).reading
    }

    /// Like `read`, also returning the number of bytes read from the files.
    package func readMeasured(photoPath: String?, sidecarPath: String? = nil) -> (reading: PhotoReading, bytesRead: Int) {
        var bytesRead = 0
        var photo: Result<PhotoFacts, ReadFailure>?
        if let photoPath {
            photo = Result { () throws(ReadFailure) in
                let source = try ByteSource(path: photoPath, budget: budget)
                defer { bytesRead += source.bytesRead }
                return try Self.photoFacts(source)
            }
        }
        var sidecar: Result<SidecarFacts, ReadFailure>?
        if let sidecarPath {
            sidecar = Result { () throws(ReadFailure) in
                let source = try ByteSource(path: sidecarPath, budget: budget)
                defer { bytesRead += source.bytesRead }
                return try TakeoutReader.read(source)
            }
        }
        return (combine(photo: photo, sidecar: sidecar), bytesRead)
    }

    /// Reads a photo held in memory (fuzzing, tests).
    package func read(photoBytes: [UInt8], sidecarBytes: [UInt8]? = nil) -> PhotoReading {
        let photo = Result { () throws(ReadFailure) in try Self.photoFacts(ByteSource(bytes: photoBytes, budget: budget)) }
        let sidecar = sidecarBytes.map { bytes in
            Result { () throws(ReadFailure) in try TakeoutReader.parse(bytes) }
        }
        return combine(photo: photo, sidecar: sidecar)
    }

    /// What a photo's own metadata says.
    struct PhotoFacts: Equatable {
        var position: Position?
        var time: CaptureTime?
    }

    static func photoFacts(_ source: ByteSource) throws(ReadFailure) -> PhotoFacts {
        let tiff: [UInt8]?
        switch try PhotoContainer.sniff(source) {
        case .jpeg: tiff = try JPEGReader.exifTIFF(source)
        case .png: tiff = try PNGReader.exifTIFF(source)
        case .isobmff: tiff = try ISOBMFFReader.exifTIFF(source)
        }
        guard let tiff else { return PhotoFacts() }
        return try exifFacts(tiff)
    }

    static func exifFacts(_ tiff: [UInt8]) throws(ReadFailure) -> PhotoFacts {
        guard tiff.count <= maxExifBytes else {
            throw .malformed("Exif block of \(tiff.count) bytes exceeds the cap of \(maxExifBytes)")
        }
        let layout = try TIFFValidator.validate(tiff)
        let values = ExifDecoder.decode(tiff: tiff, layout: layout)
        return PhotoFacts(
            position: try ExifInterpretation.position(values),
            time: ExifInterpretation.captureTime(values))
    }

    func combine(photo: Result<PhotoFacts, ReadFailure>?, sidecar: Result<SidecarFacts, ReadFailure>?) -> PhotoReading {
        let exif = try? photo?.get()
        let side = try? sidecar?.get()

        guard let position = exif?.position ?? side?.position else {
            // Report the most informative failure: the photo's, then the sidecar's.
            if case .failure(let f)? = photo { return .skipped(f.skipReason) }
            if photo == nil, case .failure(let f)? = sidecar { return .skipped(f.skipReason) }
            return .skipped(.noPosition)
        }

        var millis: Int64?
        var local: Int64?
        switch exif?.time {
        case .utc(let ms)?: millis = ms
        case .local(let ms)?: local = ms
        case nil: break
        }
        if millis == nil { millis = side?.takenMillis }
        if millis == nil, let local, let timeZone { millis = ExifInterpretation.utcMillis(local: local, in: timeZone) }
        guard let millis else { return .skipped(local != nil ? .noTimeZone : .noTime) }

        return .fix(
            PhotoFix(
                latitude: position.latitude, longitude: position.longitude,
                time: Date(timeIntervalSince1970: Double(millis) / 1000),
                accuracy: position.accuracy, altitude: position.altitude))
    }
}
