import Foundation
import Hummingbird
import RoquaHTTPGuard
import RoquaIO
import RoquaRegions

/// An upload written to a private temporary directory, never beside the store: bounded by the
/// server's limit (checked against `Content-Length` before anything is read, and while reading),
/// and its first bytes checked for a plausible track or archive format before anything is written.
struct UploadSpool {
    let directory: URL
    let file: URL

    /// A file name safe to put in a path: the last component, letters, digits, `.-_` only.
    static func safeName(_ raw: String?) -> String {
        let last = (raw ?? "").split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(
            last.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0) }
                .prefix(100).map(Character.init))
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "upload" + cleaned : cleaned
    }

    /// - Throws: `APIError` 413 (too large), 400 (empty, or not text a track reader could read),
    ///   500 when the temporary file cannot be written.
    static func receive(
        _ body: RequestBody, name: String, limit: Int, declaredLength: Int?,
        progress: (Int) -> Void
    ) async throws -> UploadSpool {
        if let declaredLength, declaredLength > limit { throw tooLarge(limit) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        let spool = UploadSpool(directory: directory, file: directory.appendingPathComponent(name))
        do {
            guard FileManager.default.createFile(atPath: spool.file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw APIError(.internalServerError, "cannot create a temporary file for the upload")
            }
            let handle = try FileHandle(forWritingTo: spool.file)
            defer { try? handle.close() }  // closing a file we only wrote to: nothing to report after the data is written
            var received = 0
            for try await chunk in body {
                if received == 0 { try checkStart(Array(chunk.readableBytesView.prefix(512))) }
                received += chunk.readableBytes
                guard received <= limit else { throw tooLarge(limit) }
                try handle.write(contentsOf: Data(chunk.readableBytesView))
                progress(received)
            }
            guard received > 0 else { throw APIError.badRequest("the upload is empty") }
            // A body that ended early (the connection closed) is not the file the client meant.
            if let declaredLength, received != declaredLength {
                throw APIError.badRequest("the upload ended after \(received) of \(declaredLength) bytes")
            }
            return spool
        } catch {
            spool.remove()
            throw error
        }
    }

    /// Text that starts like GPX/XML, JSON or CSV, a FIT file (its header: size 12 or 14, `.FIT`
    /// at byte 8), or a gzip / zip container; anything else (an image, another binary) is
    /// refused before a byte is written.
    static func checkStart(_ bytes: [UInt8]) throws(APIError) {
        if bytes.starts(with: [0x1F, 0x8B]) || bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return }
        if bytes.count >= 12, bytes[0] == 12 || bytes[0] == 14, Array(bytes[8..<12]) == Array(".FIT".utf8) { return }
        var text = bytes[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        let looksLikeText = !text.contains(0) && text.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard looksLikeText, let first = text.first(where: { $0 > 0x20 }) else {
            throw .badRequest("not a track file (expected a track text such as GPX, KML, TCX, CSV or JSON, a FIT file, or a .gz / .zip)")
        }
        guard first != UInt8(ascii: "[") else {
            throw .badRequest("a top-level JSON array is not a supported track format")
        }
    }

    static func tooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, "the upload is larger than the server's limit of \(limit >> 20) MB (roqua serve --max-upload MB)")
    }

    static func expandsTooFar(_ limit: Int) -> APIError {
        APIError(
            .contentTooLarge,
            "the upload expands (decompressed) to more than the server's limit of \(limit >> 20) MB "
                + "(roqua serve --max-upload MB)")
    }

    static var busy: APIError {
        APIError(
            .serviceUnavailable, "\(TrackImportGate.maximumUploads) uploads are already being received; try again when one has finished",
            headers: [.retryAfter: "5"])
    }

    /// What an upload's failure tells the client and the progress route: the upload's name, never
    /// a temporary file's or the store's path.
    static func refusal(_ error: any Error, uploadName name: String) -> APIError {
        switch error {
        case let error as APIError: error
        case let error as TrackReadError: APIError(.unprocessableContent, error.renaming(error.file, as: name).description)
        case let error as ArchiveError: APIError(.unprocessableContent, error.renaming(error.file, as: name).description)
        case let error as TrackImportCancelled: APIError(.serviceUnavailable, error.description)
        case let error as ConnectionGuard.SlowClient: APIError(.requestTimeout, "the upload was cut off: \(error.description)")
        case let error as RegionStoreError:
            if case .notEmpty = error {
                APIError(.conflict, error.message + " (POST /api/restore?replace=1)")
            } else {
                APIError(.internalServerError, error.message)
            }
        default: APIError(.internalServerError, "the upload failed (\(String(describing: type(of: error))))")
        }
    }

    /// Removes the file and its directory.
    func remove() {
        // Best effort: the directory is private and under the system's temporary directory.
        try? FileManager.default.removeItem(at: directory)
    }
}
