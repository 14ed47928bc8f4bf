import Crypto
import Foundation
import RoquaChatCore

/// The body of an image or file message: what the file is, and how to get and open it. The
/// file itself travels apart, as a blob sealed with its own AES-256-GCM key; the blob is named by
/// the SHA-256 of the sealed bytes, which is all the server and relays ever see. The key is
/// in this body, which the group key seals like any other, so only members read the file.
public struct AttachmentBody: Codable, Sendable, Equatable {
    /// The file's name as the sender had it (no directories).
    public var name: String
    /// Its media type (`image/png`, `application/pdf`, …).
    public var mime: String
    /// Its size in bytes, before sealing.
    public var size: Int
    /// Lowercase hex SHA-256 of the sealed blob.
    public var sha256: String
    /// Base64 of the blob's AES-256 key.
    public var key: String

    /// Files above this size are refused (the server's default blob limit, less the seal).
    public static let maxBytes = 10 * 1024 * 1024 - 28

    /// Seals `data` under a fresh key; the body to send and the blob to keep and upload.
    /// - Throws: `invalidInput` for an empty or oversize file.
    static func seal(_ data: Data, name: String) throws -> (body: AttachmentBody, blob: Data) {
        guard !data.isEmpty, data.count <= maxBytes else {
            throw ChatClientError.invalidInput(
                field: "file", value: name,
                reason: data.isEmpty ? "the file is empty" : "\(data.count) bytes is over the \(maxBytes)-byte limit")
        }
        let key = SymmetricKey(size: .bits256)
        guard let blob = try AES.GCM.seal(data, using: key).combined else {
            throw ChatClientError.invalidInput(field: "file", value: name, reason: "it cannot be sealed")
        }
        let body = AttachmentBody(
            name: name, mime: Self.mime(of: data), size: data.count, sha256: Self.digest(blob),
            key: key.withUnsafeBytes { Data($0) }.base64EncodedString())
        return (body, blob)
    }

    /// The file from its blob.
    /// - Throws: `rejectedMessage` when the blob is not this body's (digest) or does not open.
    func open(_ blob: Data) throws -> Data {
        guard Self.digest(blob) == sha256, let keyBytes = Data(base64Encoded: key), keyBytes.count == 32,
            let box = try? AES.GCM.SealedBox(combined: blob),
            let data = try? AES.GCM.open(box, using: SymmetricKey(data: keyBytes))
        else {
            throw ChatClientError.rejectedMessage(localID: sha256, reason: "the attachment's blob does not open with its key")
        }
        return data
    }

    /// Whether the message type is `image` (by media type) or `file`.
    var type: MessageType { mime.hasPrefix("image/") ? .image : .file }

    static func digest(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    /// The media type from the first bytes (extensions lie, and the receiver has no other hint).
    static func mime(of data: Data) -> String {
        let head = [UInt8](data.prefix(16))
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<(offset + bytes.count)]) == bytes
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("ftyp".utf8), at: 4) && (starts(Array("heic".utf8), at: 8) || starts(Array("heix".utf8), at: 8)) {
            return "image/heic"
        }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        return "application/octet-stream"
    }
}

/// The sealed blobs this device holds, one 0600 file per digest under `blobs/` in the home.
struct BlobFolder: Sendable {
    let path: String

    /// The folder (created 0700 when missing).
    /// - Throws: `ChatClientError.store` naming it.
    init(home: String) throws {
        path = home + "/blobs"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ChatClientError.store(path: path, reason: "cannot create the blob folder: \(error.localizedDescription)")
        }
    }

    func holds(_ sha256: String) -> Bool { Hex.isSHA256(sha256) && FileManager.default.fileExists(atPath: file(sha256)) }

    /// The blob, or nil when it is not here.
    /// - Throws: `ChatClientError.secretFile` when it exists but cannot be read.
    func read(_ sha256: String) throws -> Data? {
        guard Hex.isSHA256(sha256) else { return nil }
        return try SecretFile.read(file(sha256))
    }

    /// Keeps `blob` if it is the one named `sha256` (anything else is dropped); true when kept.
    /// - Throws: `ChatClientError.secretFile` when it cannot be written.
    @discardableResult
    func keep(_ blob: Data, as sha256: String) throws -> Bool {
        guard Hex.isSHA256(sha256), AttachmentBody.digest(blob) == sha256 else { return false }
        if !holds(sha256) { try SecretFile.write(blob, to: file(sha256)) }
        return true
    }

    private func file(_ sha256: String) -> String { path + "/" + sha256 }
}
