import Crypto
import Foundation
import Logging
import NIOCore
import RoquaChatCore

/// Content-addressed blobs for images and files: stored under the SHA-256 of their bytes,
/// which the server recomputes. A blob is readable by its uploader, by admins, and by active
/// members of a group that an image or file message naming it (signed metadata `blobs`) was
/// sent to; to anyone else it does not exist (404, so a digest's existence is not told either).
package struct BlobService: EnvironmentService {
    package let environment: ServiceEnvironment

    /// Uploads received at once (each holds up to `maxBlobBytes` in memory while it is stored).
    let uploads: AsyncGate

    package init(_ environment: ServiceEnvironment) {
        self.environment = environment
        uploads = AsyncGate(limit: environment.settings.concurrentBlobUploads)
    }

    /// Receives a blob as it streams in (hashed on the way, one copy in memory), at most
    /// `settings.concurrentBlobUploads` at a time, and stores it under `sha256`.
    /// - Throws: `invalidField` for a malformed digest, `bodyTooLarge` past `maxBlobBytes`,
    ///   `digestMismatch` when the bytes hash otherwise, `quotaExceeded` past the uploader's quota.
    package func put(
        sha256: String, streaming body: some AsyncSequence<ByteBuffer, any Error> & Sendable, length: Int?,
        actor: Actor
    ) async throws -> BlobStored {
        let limit = settings.maxBlobBytes
        if let length, length > limit { throw ChatServerError.bodyTooLarge(limit: limit) }
        let expected = try Self.digest(sha256)
        return try await uploads.run {
            var data = Data()
            data.reserveCapacity(min(length ?? 64 * 1024, limit))
            var hasher = SHA256()
            for try await buffer in body {
                guard data.count + buffer.readableBytes <= limit else { throw ChatServerError.bodyTooLarge(limit: limit) }
                buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    data.append(contentsOf: bytes)
                }
            }
            return try await put(sha256: expected, data: data, digest: Hex.encode(hasher.finalize()), actor: actor)
        }
    }

    /// Stores `data` under `expected` when its SHA-256 (`actual`) is that.
    /// - Throws: `digestMismatch` when the bytes hash otherwise, `quotaExceeded` past the uploader's quota.
    private func put(sha256 expected: String, data: Data, digest actual: String, actor: Actor) async throws -> BlobStored {
        guard actual == expected else { throw ChatServerError.digestMismatch(expected: expected, actual: actual) }
        let outcome = try await store.putBlob(
            sha256: expected, data: data, uploadedBy: actor.userID,
            quota: settings.blobBytesPerUser, now: clock.now())
        if case .overQuota(let used) = outcome {
            logger.info("blob refused: quota", metadata: ["user": "\(actor.userID)", "bytes": "\(data.count)"])
            throw ChatServerError.quotaExceeded(used: used, quota: settings.blobBytesPerUser)
        }
        let created = outcome == .created
        logger.info("blob stored", metadata: ["user": "\(actor.userID)", "bytes": "\(data.count)", "new": "\(created)"])
        return BlobStored(sha256: expected, size: data.count, created: created)
    }

    /// The blob's bytes, for a caller who may read it.
    /// - Throws: `invalidField` for a malformed digest, `blobNotFound` (also when not readable).
    package func get(sha256: String, actor: Actor) async throws -> Data {
        let digest = try Self.digest(sha256)
        var readable = actor.role == .admin
        if !readable { readable = try await store.blobReadable(sha256: digest, userID: actor.userID) }
        guard readable, let data = try await store.blob(sha256: digest) else { throw ChatServerError.blobNotFound(digest) }
        return data
    }

    static func digest(_ text: String) throws -> String {
        let lowered = text.lowercased()
        guard Hex.isSHA256(lowered) else {
            throw ChatServerError.invalidField(field: "sha256", reason: "'\(text.prefix(80))' is not 64 hexadecimal digits")
        }
        return lowered
    }
}
